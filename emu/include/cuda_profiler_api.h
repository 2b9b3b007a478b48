// CPU backend: stands in for CUDA's <cuda_profiler_api.h>: cudaProfilerStart and cudaProfilerStop
// are accepted and do nothing (there is no profiler of a GPU to start).
#pragma once
#include <wb_emu/runtime.hpp>
