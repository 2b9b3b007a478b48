# Cross-compiling for arm64 Linux with Debian's cross compiler (g++-aarch64-linux-gnu); programs
# built for arm64 (tests, and the launch rewriter, which the build runs) run under qemu-user's
# qemu-aarch64 with the cross compiler's C and C++ libraries. .ci/arm64.sh uses it:
#   cmake -B build/arm64 --toolchain cmake/aarch64-linux-gnu.cmake ...
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
