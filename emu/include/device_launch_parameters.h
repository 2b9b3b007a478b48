// CPU backend: stands in for CUDA's <device_launch_parameters.h> (threadIdx, blockIdx, blockDim,
// gridDim, warpSize), which the backend's runtime defines.
#pragma once
#include <wb_emu/runtime.hpp>
