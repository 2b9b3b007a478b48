// Chapter 05: registers your op with PyTorch's dispatcher as workbook::silu, so the shared library
// built from silu.cu and this file works from Python:
//   torch.ops.load_library("<build>/libworkbook_ops_05-autograd_<backend>.so")  # yours (_solution.so: the solution)
//   y = torch.ops.workbook.silu(x)        # autograd through your SiluFunction
// You do not need to edit this file.
#include <torch/library.h>

#include "silu.cuh"

// The schema: one tensor in, a new tensor out (no aliasing, no mutation: opcheck verifies it).
TORCH_LIBRARY(workbook, m) { m.def("silu(Tensor x) -> Tensor"); }

// Autograd key: every call, with or without requires_grad, goes through your Function, which
// records the backward node when grad mode is on and x requires grad.
TORCH_LIBRARY_IMPL(workbook, Autograd, m) { m.impl("silu", &student::silu); }
