// CPU backend: stands in for CUDA's <cuda_fp16.h> (__half, __half2 and their intrinsics), so that a
// kernel file including it compiles with the host compiler whether or not CUDA is installed.
#pragma once
#include <wb_emu/runtime.hpp>
#include <wb_emu/half.hpp>
