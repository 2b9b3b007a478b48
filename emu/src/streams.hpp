// CPU backend: whether a stream handle names a stream (device.cpp keeps the live ones), for the
// calls of other files that take one (cudaMallocAsync...).
#pragma once

#include <wb_emu/api.hpp>

namespace wb_emu::internal {
/// The default stream (0, cudaStreamLegacy, cudaStreamPerThread) or one made and not destroyed.
bool valid_stream(cudaStream_t stream);
}  // namespace wb_emu::internal
