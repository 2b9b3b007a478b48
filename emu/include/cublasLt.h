// CPU backend: CUDA's <cublasLt.h> is not available; this stand-in stops the build with one clear message
// instead of the errors of a GPU-only header (docs/cpu-backend.md lists what is unsupported).
#pragma once
#error "the CPU backend has no cuBLASLt: <cublasLt.h> needs NVIDIA's GPU library; build this file for a GPU (cmake --preset gpu)"
