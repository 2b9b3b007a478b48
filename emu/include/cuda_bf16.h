// CPU backend: stands in for CUDA's <cuda_bf16.h> (__nv_bfloat16, __nv_bfloat162 and their
// intrinsics), so that a kernel file including it compiles whether or not CUDA is installed.
#pragma once
#include <wb_emu/runtime.hpp>
#include <wb_emu/half.hpp>
