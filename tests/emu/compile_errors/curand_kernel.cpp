// Must not compile on the CPU backend: its message names what is missing (tests/emu/CMakeLists.txt).
#include <curand_kernel.h>
