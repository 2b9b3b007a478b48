#include "wb/torch.hpp"

#ifdef WB_EMU
#include <c10/core/CPUAllocator.h>
#endif

#include <catch2/catch_test_macros.hpp>

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "wb/flow.hpp"
#include "wb/random.hpp"
#include "wb/report.hpp"
#include "wb/watchdog.hpp"

namespace wb {
namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

#ifdef WB_EMU
// On the CPU backend the tensors' storage is device memory, as a CUDA tensor's is on a GPU:
// libtorch's CPU allocator is replaced by one that takes it from the backend's device arena
// (cudaMalloc), so that an instrumented build of the learner's kernels (`check 05`, `profile 05`)
// sees their accesses as device accesses (bounds, sectors per request), as it sees a grader's
// buffers, and not as host memory.
void free_device_memory(void* p) { cudaFree(p); }
struct DeviceMemoryAllocator final : c10::Allocator {
  c10::DataPtr allocate(std::size_t n) override {
    void* p = nullptr;
    if (n > 0 && cudaMalloc(&p, n) != cudaSuccess) throw std::bad_alloc();
    return {p, p, &free_device_memory, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_device_memory; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }
};
DeviceMemoryAllocator device_memory_allocator;
[[maybe_unused]] const bool device_memory_installed = [] {
  c10::SetCPUAllocator(&device_memory_allocator, /*priority=*/100);  // above libtorch's own (0)
  return true;
}();
#endif

}  // namespace

std::string describe(const torch::Tensor& t) {
  std::string s = c10::toString(t.scalar_type());
  s += " tensor of shape " + c10::str(t.sizes());
  if (!t.is_contiguous()) s += " and strides " + c10::str(t.strides());
  return s;
}

torch::Tensor random_tensor(at::IntArrayRef shape, torch::ScalarType dtype, std::uint64_t stream, float lo, float hi) {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<float> v = random_floats(static_cast<std::size_t>(n), lo, hi, stream);
  return torch::from_blob(v.data(), {n}, torch::kFloat).clone().to(dtype).reshape(shape).to(torch_device);
}

Comparison returned_nothing(const std::string& what, const std::string& context) {
  Comparison c;
  c.pattern = Pattern::nothing_written;
  c.array = what;
  c.diagnosis = what + " returned no tensor (the // TODO: is still there)";
  c.context = context;
  return c;
}

torch::Tensor run_op(const std::string& what, const std::function<torch::Tensor()>& op, const TorchErrorHint& hint) {
  std::string failure;
  cudaError_t code = cudaSuccess;
  try {
    Watchdog dog(what);
    torch::Tensor r = op();
    // Kernels run asynchronously: wait for them here, so that a fault is reported as this call's
    // (and a kernel that never finishes meets the watchdog).
    code = cudaDeviceSynchronize();
    if (code == cudaSuccess) return r;
    const std::string h = hint ? hint(what, std::string("CUDA error: ") + cudaGetErrorString(code)) : "";
    fail_with_cuda_error(what, code, h);
  } catch (const c10::Error& e) {
    const std::string m = first_line(e.what_without_backtrace());
    // autograd's complaint when forward or backward returned no tensor at all: not started
    if (m.find("undefined tensor") != std::string::npos)
      WB_REQUIRE_MATCH(returned_nothing(what.substr(0, what.find_first_of(" ,(")), what));
    const std::string h = hint ? hint(what, m) : "";
    failure = h.empty() ? what + " threw: " + m : h;
    code = cudaDeviceSynchronize();  // a CUDA error libtorch reported may have left the context unusable
  } catch (const std::exception& e) {
    failure = what + " threw: " + first_line(e.what());
    code = cudaDeviceSynchronize();
  }
  (void)cudaGetLastError();
  note_error(failure);
  const std::string lost = recover_from(what, code);
  FAIL(failure + (lost.empty() ? "" : "\n  " + lost));
  return {};
}

Comparison compare_tensors(const std::string& array, const torch::Tensor& expected, const torch::Tensor& got,
                           torch::ScalarType dtype, const std::string& context) {
  if (!got.defined()) return returned_nothing(array, context);
  Comparison c;
  c.array = array;
  c.context = context;
  if (got.sizes() != expected.sizes() || got.scalar_type() != dtype || got.device().type() != torch_device) {
    c.pattern = Pattern::chapter_specific;
    c.wrong = expected.numel();
    c.n = expected.numel();
    c.diagnosis = array + " is a " + describe(got) + " on " + got.device().str() + "; expected a " +
                  c10::toString(dtype) + " tensor of shape " + c10::str(expected.sizes()) + " on " +
                  c10::DeviceTypeName(torch_device, true) + ", like x";
    return c;
  }
  CompareOptions opt;
  opt.array = array;
  // float32: expf and the rounding of a few operations; float64: close to exact
  opt.rel_tol = dtype == torch::kDouble ? 1e-12 : 2e-6;
  opt.abs_tol = dtype == torch::kDouble ? 1e-14 : 1e-6;
  {
    // First on the tensors' own device, in float64, with compare_values' rule for finite values:
    // when every element passes it, compare_values would pass them all too, and gigabytes need
    // not cross to the host. NaN and infinity fail this test and go to the exact path below.
    const torch::Tensor gd = got.detach().to(torch::kDouble);
    const torch::Tensor ed = expected.detach().to(gd.device(), torch::kDouble);
    if ((gd - ed).abs().le(opt.abs_tol + opt.rel_tol * ed.abs()).all().item<bool>()) {
      c.n = expected.numel();
      return c;
    }
  }
  const torch::Tensor e = expected.to(torch::kCPU, torch::kDouble).contiguous().reshape({-1});
  const torch::Tensor g = got.to(torch::kCPU, torch::kDouble).contiguous().reshape({-1});
  std::vector<double> ev(e.data_ptr<double>(), e.data_ptr<double>() + e.numel());
  std::vector<double> gv(g.data_ptr<double>(), g.data_ptr<double>() + g.numel());
  Comparison r = compare_values(ev, gv, std::vector<bool>(ev.size(), false), {}, opt);
  r.context = context;
  return r;
}

void require_unchanged(const std::string& op, const std::string& name, const torch::Tensor& now,
                       const torch::Tensor& before, const std::string& context, const std::string& advice) {
  if (torch::equal(now.detach(), before)) return;
  Comparison c = compare_tensors(name, before, now.detach(), before.scalar_type(), context);
  c.pattern = Pattern::chapter_specific;
  c.diagnosis = op + " changed its input " + name + " (" + std::to_string(c.wrong) +
                (c.wrong == 1 ? " element differs" : " elements differ") + "): " + advice;
  WB_REQUIRE_MATCH(c);
}

}  // namespace wb
