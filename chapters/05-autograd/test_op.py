"""Chapter 05 from Python: the shared library built from silu.cu and op.cpp, loaded with
torch.ops.load_library, checked with torch.library.opcheck and torch.autograd.gradcheck.

`bash cmake/workbook.sh grade 05` runs it on your op (built from your silu.cu) once the grader's
other checks pass; ctest runs it on the solution's (label `python`). By hand:
  WB_OPS_LIBRARY=<build>/libworkbook_ops_05-autograd_<backend>.so WB_OPS_DEVICE=cpu|cuda .venv/bin/python3 -m pytest test_op.py
"""
import os

import pytest
import torch

LIBRARY = os.environ.get("WB_OPS_LIBRARY")
DEVICE = os.environ.get("WB_OPS_DEVICE", "cpu")
if not LIBRARY:
    pytest.skip("WB_OPS_LIBRARY is not set: run it through ctest", allow_module_level=True)
if DEVICE == "cuda" and not torch.cuda.is_available():
    pytest.skip("skipped: no CUDA device", allow_module_level=True)

torch.ops.load_library(LIBRARY)
silu = torch.ops.workbook.silu


def sample(n=1000, dtype=torch.float32, requires_grad=False, seed=5):
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(n, generator=g, dtype=torch.float64) * 10 - 6).to(dtype).to(DEVICE)
    return x.requires_grad_(requires_grad)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_forward_matches_torch_silu(dtype):
    x = sample(dtype=dtype)
    torch.testing.assert_close(silu(x), torch.nn.functional.silu(x))


def test_backward_matches_autograd_of_the_composite():
    x = sample(requires_grad=True)
    silu(x).sum().backward()  # grad_y: one value expanded, stride 0
    xr = x.detach().clone().requires_grad_(True)
    (xr * torch.sigmoid(xr)).sum().backward()
    torch.testing.assert_close(x.grad, xr.grad)


def test_non_contiguous_input():
    base = sample(6 * 34).reshape(6, 34)
    for x in (base.t(), base[:, ::2], base[0].expand(4, 34)):
        torch.testing.assert_close(silu(x), torch.nn.functional.silu(x))


def test_gradcheck_in_float64():
    x = sample(37, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(silu, (x,), eps=1e-6, atol=1e-7)


def test_opcheck_schema_and_autograd_registration():
    # The fake-tensor and AOT tests need a Meta kernel below autograd, which this op does not
    # have yet (its Function launches kernels directly): only the schema and autograd checks.
    for args in ((sample(),), (sample(requires_grad=True),), (sample(dtype=torch.float64, requires_grad=True),)):
        torch.library.opcheck(silu, args, test_utils=("test_schema", "test_autograd_registration"))


def test_wrong_dtype_names_it():
    with pytest.raises(RuntimeError, match=r"silu.*(Int|int32)"):
        silu(torch.ones(4, dtype=torch.int32, device=DEVICE))
