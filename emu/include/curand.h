// CPU backend: CUDA's <curand.h> is not available. This stand-in stops the build with one
// clear message instead of the errors of a GPU-only header (docs/cpu-backend.md lists them).
#pragma once
#error "the CPU backend has no cuRAND: <curand.h> needs NVIDIA's GPU library. Fill the input on the host (std::mt19937) and copy it with cudaMemcpy, or build this file for a GPU (cmake --preset gpu)"
