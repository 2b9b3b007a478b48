// CPU backend: stands in for CUDA's <driver_types.h> (cudaError_t, cudaMemcpyKind, cudaDeviceProp,
// the streams and events...); all of it is in the backend's runtime API, wb_emu/api.hpp.
#pragma once
#include <wb_emu/runtime.hpp>
