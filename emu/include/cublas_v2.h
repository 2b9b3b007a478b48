// CPU backend: CUDA's <cublas_v2.h> is not available. This stand-in stops the build with one
// clear message instead of the errors of a GPU-only header (docs/cpu-backend.md lists them).
#pragma once
#error "the CPU backend has no cuBLAS: <cublas_v2.h> needs NVIDIA's GPU library. Write the matrix product as a kernel (chapter 04), or build this file for a GPU (cmake --preset gpu)"
