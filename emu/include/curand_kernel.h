// CPU backend: CUDA's <curand_kernel.h> is not available. This stand-in stops the build with one
// clear message instead of the errors of a GPU-only header (docs/cpu-backend.md lists them).
#pragma once
#error "the CPU backend has no cuRAND device API: <curand_kernel.h> (curand_init, curand_uniform...) is not provided. Draw the random numbers on the host (std::mt19937) and copy them with cudaMemcpy, or hash the thread index in the kernel; or build this file for a GPU (cmake --preset gpu)"
