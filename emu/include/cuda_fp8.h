// CPU backend: CUDA's <cuda_fp8.h> is not available. This stand-in stops the build with one
// clear message instead of the errors of a GPU-only header (docs/cpu-backend.md lists them).
#pragma once
#error "the CPU backend has no fp8 types: <cuda_fp8.h> (__nv_fp8_e4m3, __nv_fp8_e5m2) is not provided; <cuda_fp16.h> and <cuda_bf16.h> are"
