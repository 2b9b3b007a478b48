// The PyTorch anchors where this build has no libtorch with CUDA (and on the CPU backend): the
// exercises' timing cases print "anchor not available" with the reason, and time the rest.
#include <stdexcept>

#include "wb/library_anchors.hpp"

#ifndef WB_TORCH_MISSING
#define WB_TORCH_MISSING "no libtorch with CUDA in this build"
#endif

namespace wb::anchors {

bool torch_available() { return false; }
std::string torch_missing_reason() { return WB_TORCH_MISSING; }

namespace {
[[noreturn]] void missing() { throw std::logic_error("wb::anchors: PyTorch anchor not available: " WB_TORCH_MISSING); }
}  // namespace

void torch_softmax(const float*, float*, int, int) { missing(); }
void torch_layer_norm(const float*, const float*, const float*, float*, float*, float*, int, int, float) { missing(); }
void torch_conv1d(const float*, std::int64_t, const float*, int, bool) { missing(); }
void torch_row_max_sum(const float*, float*, float*, float*, int, int) { missing(); }
void torch_conv2d_3x3(const float*, int, int, const float*) { missing(); }
void torch_topk(const float*, int, int, int) { missing(); }
void torch_attention(const float*, const float*, const float*, float*, int, int) { missing(); }
void torch_bias_gelu_residual(const float*, const float*, const float*, float*, int, int, float) { missing(); }

}  // namespace wb::anchors
