// Must not compile on the CPU backend: its message names what is missing (tests/emu/CMakeLists.txt).
#include <cublas_v2.h>
