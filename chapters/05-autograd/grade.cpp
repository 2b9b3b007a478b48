// Chapter 05's grader: student::silu, your SiLU op with autograd, against libtorch. Forward
// against torch::silu; backward against autograd of x * torch::sigmoid(x) and against central
// finite differences of your own forward (in float64); non-contiguous inputs and gradients;
// your input checks; empty tensors; and on a GPU, forward + backward timed against the solution
// and torch::silu.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "silu.cuh"
#include "wb/grader.hpp"
#include "wb/torch.hpp"

#ifndef WB_EMU
#include <c10/cuda/CUDAGuard.h>   // c10::cuda::CUDAStreamGuard
#include <c10/cuda/CUDAStream.h>  // c10::cuda::getStreamFromPool
#endif

namespace {

using torch::Tensor;

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// ---- inputs ----
// x in [-6, 4): both tails of the sigmoid and the bend around 0; never all one value.
Tensor random_tensor(at::IntArrayRef shape, torch::ScalarType dtype, std::uint64_t stream, float lo = -6.f,
                     float hi = 4.f) {
  return wb::random_tensor(shape, dtype, stream, lo, hi);
}

// ---- references (libtorch, in float64) ----
Tensor reference_forward(const Tensor& x) { return torch::silu(x.to(torch::kDouble)); }

Tensor reference_backward(const Tensor& x, const Tensor& grad_y) {
  Tensor xr = x.detach().to(torch::kDouble).requires_grad_(true);
  Tensor yr = xr * torch::sigmoid(xr);  // the composite: autograd derives its backward
  return torch::autograd::grad({yr}, {xr}, {grad_y.to(torch::kDouble)})[0];
}

// ---- running the learner's code ----
const char* const kMisalignedHint =
    "a 16-byte load or store (float4, double2) needs an address that is a multiple of 16, and a view like x[1:] "
    "starts 4 or 8 bytes past one: check the pointers' alignment and go one element at a time when they are not "
    "aligned";

// An error from the learner's op, explained in the chapter's terms ("" keeps the generic
// "<what> threw: <message>").
std::string explain_error(const std::string& what, const std::string& m) {
  if (m.find("incorrect number of gradients") != std::string::npos)
    return what + ": " + m + ": backward must return exactly one gradient per input of forward; forward takes x "
                                 "only, so return {grad_x}";
  if (m.find("expected scalar type") != std::string::npos)
    return what + ": " + m + ": data_ptr<T>() was asked for a type the tensor does not hold; launch the <float> "
                             "kernel for float32 and the <double> one for float64";
  if (m.find("misaligned address") != std::string::npos) return what + ": " + m + ": " + kMisalignedHint;
  if (m.find("CUDA error") != std::string::npos)
    return what + ": " + m + ": the launch check caught it (see chapter 01 for what each error means)";
  return "";
}

// Runs f (a call into the learner's op); an error fails the test case with its explanation.
Tensor run(const std::string& what, const std::function<Tensor()>& f) { return wb::run_op(what, f, explain_error); }

wb::Comparison compare(const std::string& array, const Tensor& expected, const Tensor& got, torch::ScalarType dtype,
                       const std::string& context) {
  return wb::compare_tensors(array, expected, got, dtype, context);
}

bool close(const Tensor& a, const Tensor& b) {
  return torch::allclose(a.to(torch::kCPU, torch::kDouble), b.to(torch::kCPU, torch::kDouble), 1e-4, 1e-6);
}

// Names the classic wrong backward formulas when grad_x matches one of them.
void explain_backward(wb::Comparison& c, const Tensor& x, const Tensor& grad_y, const Tensor& grad_x) {
  if (c.ok() || c.pattern != wb::Pattern::scattered || !grad_x.defined()) return;
  const Tensor xd = x.detach().to(torch::kCPU, torch::kDouble), g = grad_y.to(torch::kCPU, torch::kDouble);
  const Tensor s = torch::sigmoid(xd), y = xd * s;
  const Tensor sy = torch::sigmoid(y);
  if (close(grad_x, g * s * (1 - s)))
    c.diagnosis = "grad_x = grad_y * s(x) * (1 - s(x)) is the derivative of sigmoid, not of x * sigmoid(x): by the "
                  "product rule, d/dx [x s(x)] = s(x) + x s(x) (1 - s(x))";
  else if (close(grad_x, g * s))
    c.diagnosis = "grad_x = grad_y * s(x): the product rule's second term, x s(x) (1 - s(x)), is missing";
  else if (close(grad_x, g * sy * (1 + y * (1 - sy))))
    c.diagnosis = "backward evaluated the derivative at y = silu(x) instead of at x: it got the forward's output "
                  "where it needed the input. Save x itself in forward (ctx->save_for_backward({x})) and use it";
  else if (close(grad_x, g))
    c.diagnosis = "grad_x = grad_y: the factor dy/dx is missing";
  else if (close(grad_x, g * (s + xd * s * (1 - s)) * 2))
    c.diagnosis = "grad_x is twice the right value: is the gradient added twice?";
  c.pattern = wb::Pattern::chapter_specific;
}

// Checks that the learner's op left x as it was.
void require_unchanged(const Tensor& x, const Tensor& before, const std::string& context) {
  wb::require_unchanged("silu", "x", x, before, context,
                        "write to a new tensor (torch::empty_like), never through x's data_ptr");
}

std::string dtype_name(torch::ScalarType t) { return t == torch::kDouble ? "float64" : "float32"; }

// Forward and backward of student::silu on x (a leaf, any layout); both checked.
void check_forward_backward(const Tensor& x_in, const Tensor& grad_y, const std::string& context) {
  const torch::ScalarType dtype = x_in.scalar_type();
  Tensor x = x_in.detach().requires_grad_(true);
  const Tensor before = x.detach().clone();
  Tensor y = run("silu (forward), " + context, [&] { return student::silu(x); });
  require_unchanged(x, before, context);
  WB_REQUIRE_MATCH(compare("y", reference_forward(before), y, dtype, "forward, " + context));
  if (!y.requires_grad()) {
    wb::Comparison c;
    c.pattern = wb::Pattern::chapter_specific;
    c.context = context;
    c.diagnosis = "y does not require grad though x does: call your op through SiluFunction::apply, which records "
                  "it for autograd";
    WB_REQUIRE_MATCH(c);
  }
  const Tensor grad_y_before = grad_y.clone();
  Tensor grad_x = run("silu (backward), " + context,
                      [&] { return torch::autograd::grad({y}, {x}, {grad_y}, /*retain_graph=*/true)[0]; });
  require_unchanged(x, before, context + ", after backward");
  // grad_y belongs to the caller (autograd may pass the same tensor to other ops): checked before grad_x
  wb::require_unchanged("silu's backward", "grad_y", grad_y, grad_y_before, context,
                        "grad_y is the caller's; compute grad_x into a new tensor (torch::empty_like), never in place "
                        "through grad_y's data_ptr");
  wb::Comparison c = compare("grad_x", reference_backward(before, grad_y), grad_x, dtype, "backward, " + context);
  if (!grad_x.defined()) c = wb::returned_nothing("backward", "backward, " + context);
  explain_backward(c, before, grad_y, grad_x);
  if (!c.ok() && c.pattern != wb::Pattern::nothing_written && !grad_y.is_contiguous() && x_in.is_contiguous()) {
    c.pattern = wb::Pattern::chapter_specific;
    c.diagnosis = "backward is wrong for a non-contiguous grad_y (strides " + c10::str(grad_y.strides()) +
                  "): data_ptr() of a stride-0 or transposed tensor does not hold its elements in order; use "
                  "grad_y.contiguous() before data_ptr()";
  }
  WB_REQUIRE_MATCH(c);
}

}  // namespace

TEST_CASE("forward matches torch::silu and backward matches autograd of x * sigmoid(x)", "[05][correctness]") {
  WB_REQUIRE_DEVICE();
  const torch::ScalarType dtype = GENERATE(torch::kFloat, torch::kDouble);
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 1, 31, 255, 256, 257, 1000, 100'003);
  CAPTURE(dtype_name(dtype), n);
  const Tensor x = random_tensor({n}, dtype, 2 * n);
  const Tensor g = random_tensor({n}, dtype, 2 * n + 1, 0.5f, 1.5f);
  check_forward_backward(x, g, dtype_name(dtype) + ", n = " + std::to_string(n));
}

TEST_CASE("a 3-D input keeps its shape", "[05][correctness]") {
  WB_REQUIRE_DEVICE();
  const Tensor x = random_tensor({3, 5, 7}, torch::kFloat, 11);
  check_forward_backward(x, random_tensor({3, 5, 7}, torch::kFloat, 12, 0.5f, 1.5f), "float32, shape [3, 5, 7]");
}

TEST_CASE("backward takes a stride-0 grad_y, as y.sum().backward() gives it", "[05][correctness]") {
  WB_REQUIRE_DEVICE();
  const torch::ScalarType dtype = GENERATE(torch::kFloat, torch::kDouble);
  const std::int64_t n = 1000;
  // The gradient of sum() is one value seen n times: a tensor of n elements with stride 0.
  const Tensor g = torch::full({1}, 0.75, torch::TensorOptions().dtype(dtype).device(wb::torch_device)).expand({n});
  check_forward_backward(random_tensor({n}, dtype, 21), g,
                         dtype_name(dtype) + ", grad_y = one value expanded to 1000 elements (stride 0)");
}

TEST_CASE("contiguous views that start one element in (x[1:]): data_ptr() not 16-byte aligned", "[05][correctness]") {
  WB_REQUIRE_DEVICE();
  const torch::ScalarType dtype = GENERATE(torch::kFloat, torch::kDouble);
  // Contiguous, so .contiguous() returns them as they are: their data_ptr() is one element past
  // the start of their storage, which the allocator aligns to far more than 16 bytes.
  const Tensor x = random_tensor({1003}, dtype, 41).slice(0, 1);
  const Tensor g = random_tensor({1003}, dtype, 42, 0.5f, 1.5f).slice(0, 1);
  // On a GPU such an access is a CUDA error (explain_error); on the CPU backend it may crash.
  const wb::CrashHint hint(kMisalignedHint);
  check_forward_backward(x, g, dtype_name(dtype) + ", x = base[1:] and grad_y = g[1:] (contiguous, not 16-byte aligned)");
}

TEST_CASE("non-contiguous inputs: transposed, sliced, expanded", "[05][correctness]") {
  WB_REQUIRE_DEVICE();
  struct Case {
    const char* name;
    std::function<Tensor(const Tensor&)> view;  // from a contiguous 2-D base
  };
  const Case c = GENERATE(Case{"transposed (x = base.t())", [](const Tensor& b) { return b.t(); }},
                          Case{"sliced (every other column)", [](const Tensor& b) { return b.slice(1, 0, {}, 2); }},
                          Case{"expanded (one row seen 4 times, stride 0)",
                               [](const Tensor& b) { return b[0].expand({4, b.size(1)}); }});
  const torch::ScalarType dtype = GENERATE(torch::kFloat, torch::kDouble);
  CAPTURE(c.name, dtype_name(dtype));
  const Tensor base = random_tensor({6, 34}, dtype, 31);
  const Tensor x = c.view(base);
  const std::string context = dtype_name(dtype) + ", x " + c.name;
  // First the same values, contiguous: if those are right, what goes wrong below is the layout.
  const Tensor xc = x.contiguous();
  const Tensor gc = random_tensor(x.sizes(), dtype, 32, 0.5f, 1.5f);
  check_forward_backward(xc, gc, dtype_name(dtype) + ", the same x made contiguous");

  Tensor xv = x.detach().requires_grad_(true);
  Tensor y = run("silu (forward), " + context, [&] { return student::silu(xv); });
  wb::Comparison f = compare("y", reference_forward(xc), y, dtype, "forward, " + context);
  if (!f.ok() && f.pattern != wb::Pattern::nothing_written) {
    f.pattern = wb::Pattern::chapter_specific;
    f.diagnosis = "right for a contiguous x, wrong for this non-contiguous one: data_ptr() points into the storage, "
                  "where a view's elements are not in order (or not all there); use x.contiguous() before data_ptr()";
  }
  WB_REQUIRE_MATCH(f);
  // And a non-contiguous grad_y: the transpose of a contiguous tensor.
  const Tensor gt = random_tensor({x.size(1), x.size(0)}, dtype, 33, 0.5f, 1.5f).t();
  Tensor grad_x = run("silu (backward), " + context, [&] { return torch::autograd::grad({y}, {xv}, {gt})[0]; });
  wb::Comparison b = compare("grad_x", reference_backward(xc, gt), grad_x, dtype,
                             "backward, " + context + ", grad_y transposed");
  if (!b.ok() && b.pattern != wb::Pattern::nothing_written) {
    b.pattern = wb::Pattern::chapter_specific;
    b.diagnosis = "backward is wrong for a non-contiguous x or grad_y: make both contiguous before data_ptr()";
  }
  WB_REQUIRE_MATCH(b);
}

TEST_CASE("backward agrees with central finite differences of your forward, in float64", "[05][correctness]") {
  WB_REQUIRE_DEVICE();
  // L(x) = sum(v * silu(x)); dL/dx_i ~ (L(x + h e_i) - L(x - h e_i)) / 2h, one element at a time.
  // float64: in float32 the rounding of L would swamp the slope (h^2 error vs eps/h noise).
  const std::int64_t n = 37;
  const Tensor x0 = random_tensor({n}, torch::kDouble, 41);
  const Tensor v = random_tensor({n}, torch::kDouble, 42, 0.5f, 1.5f);
  Tensor x = x0.clone().requires_grad_(true);
  Tensor y = run("silu (forward), float64, n = 37", [&] { return student::silu(x); });
  if (!y.defined()) WB_REQUIRE_MATCH(wb::returned_nothing("silu", "finite differences"));
  Tensor grad = run("silu (backward), float64, n = 37", [&] { return torch::autograd::grad({y}, {x}, {v})[0]; });
  if (!grad.defined()) WB_REQUIRE_MATCH(wb::returned_nothing("backward", "finite differences"));
  const double h = 1e-6;
  const Tensor xc = x0.to(torch::kCPU);
  std::vector<double> numeric(n), analytic(n);
  const Tensor gc = grad.to(torch::kCPU, torch::kDouble).contiguous();
  torch::NoGradGuard no_grad;
  for (std::int64_t i = 0; i < n; ++i) {
    Tensor xp = xc.clone(), xm = xc.clone();
    xp[i] += h;
    xm[i] -= h;
    const Tensor lp = run("silu (forward)", [&] { return (student::silu(xp.to(wb::torch_device)).cpu() * v.cpu()).sum(); });
    const Tensor lm = run("silu (forward)", [&] { return (student::silu(xm.to(wb::torch_device)).cpu() * v.cpu()).sum(); });
    numeric[i] = (lp.item<double>() - lm.item<double>()) / (2 * h);
    analytic[i] = gc[i].item<double>();
  }
  wb::CompareOptions opt;
  opt.array = "grad_x";
  opt.rel_tol = 1e-6;
  opt.abs_tol = 1e-7;
  wb::Comparison c = wb::compare_values(numeric, analytic, std::vector<bool>(n, false), {}, opt);
  c.context = "float64, n = 37, h = 1e-6: expected = the finite-difference slope of your forward";
  if (!c.ok())
    c.diagnosis = "your backward disagrees with the slope of your own forward: the gradient formula (or what it is "
                  "evaluated at) is wrong";
  WB_REQUIRE_MATCH(c);
}

TEST_CASE("with requires_grad off, silu computes y and records nothing", "[05][correctness]") {
  WB_REQUIRE_DEVICE();
  const Tensor x = random_tensor({1000}, torch::kFloat, 51);
  Tensor y = run("silu, x without requires_grad", [&] { return student::silu(x); });
  WB_REQUIRE_MATCH(compare("y", reference_forward(x), y, torch::kFloat, "x.requires_grad() == false"));
  if (y.requires_grad()) {
    wb::Comparison c;
    c.pattern = wb::Pattern::chapter_specific;
    c.diagnosis = "y requires grad though x does not: leave that to autograd (SiluFunction::apply)";
    WB_REQUIRE_MATCH(c);
  }
  torch::NoGradGuard no_grad;
  Tensor xg = random_tensor({1000}, torch::kFloat, 52).requires_grad_(true);
  Tensor y2 = run("silu under torch::NoGradGuard", [&] { return student::silu(xg); });
  WB_REQUIRE_MATCH(compare("y", reference_forward(xg.detach()), y2, torch::kFloat, "under torch::NoGradGuard"));
}

TEST_CASE("empty tensors give empty results, forward and backward", "[05][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto shape = GENERATE(std::vector<std::int64_t>{0}, std::vector<std::int64_t>{3, 0});
  CAPTURE(shape);
  const Tensor x = torch::empty(shape, torch::TensorOptions().dtype(torch::kFloat).device(wb::torch_device));
  check_forward_backward(x, torch::ones_like(x), "float32, shape " + c10::str(at::IntArrayRef(shape)) +
                                                      " (no element: launch nothing; a 0-block grid is an error)");
}

// The learner's TORCH_CHECK on a bad input: it must throw, and say what was wrong.
void require_refused(const Tensor& x, const std::string& what, const std::string& must_name, const std::string& hint) {
  std::string message;
  bool threw = false;
  Tensor y;
  try {
    y = student::silu(x);
  } catch (const c10::Error& e) {
    threw = true;
    message = first_line(e.what_without_backtrace());
  } catch (const std::exception& e) {
    threw = true;
    message = first_line(e.what());
  }
  wb::Comparison c;
  c.context = what;
  c.pattern = wb::Pattern::chapter_specific;
  if ((!threw && !y.defined()) || message.find("undefined tensor") != std::string::npos) {
    WB_REQUIRE_MATCH(wb::returned_nothing("silu", what));
    return;
  }
  if (!threw) {
    c.diagnosis = "silu accepted " + what + ": " + hint;
    WB_REQUIRE_MATCH(c);
  }
  const std::regex named(must_name, std::regex::icase);
  const std::regex ours("silu", std::regex::icase);
  if (!std::regex_search(message, ours)) {
    c.diagnosis = what + " was refused by libtorch deep inside (\"" + message + "\"), not by your check: " + hint;
    WB_REQUIRE_MATCH(c);
  }
  if (!std::regex_search(message, named)) {
    c.diagnosis = "your message for " + what + " (\"" + message + "\") does not say what was wrong: " + hint;
    WB_REQUIRE_MATCH(c);
  }
}

TEST_CASE("a wrong dtype is refused by your TORCH_CHECK, with a message that names it", "[05][checks]") {
  WB_REQUIRE_DEVICE();
  const auto [dtype, name, pattern] = GENERATE(table<torch::ScalarType, std::string, std::string>(
      {{torch::kInt, "int32", "int"}, {torch::kHalf, "float16", "half|float16"}, {torch::kLong, "int64", "long|int64"}}));
  CAPTURE(name);
  const Tensor x = torch::ones({8}, torch::TensorOptions().dtype(dtype).device(wb::torch_device));
  require_refused(x, "an " + name + " x", pattern,
                  "check x.scalar_type() first, with TORCH_CHECK and a message that names silu, the dtypes it takes "
                  "(float32, float64) and the one it got");
}

TEST_CASE("a tensor on the wrong device is refused by your TORCH_CHECK, with a message that names it", "[05][checks]") {
  WB_REQUIRE_DEVICE();
  // Empty, so that a missing check cannot launch a kernel on memory it cannot reach; the check
  // comes before anything else, whatever x's size.
  const bool gpu = wb::torch_device == c10::DeviceType::CUDA;
  const Tensor x = torch::empty({0}, torch::TensorOptions().dtype(torch::kFloat).device(gpu ? c10::DeviceType::CPU : c10::DeviceType::Meta));
  const std::string where = gpu ? "cpu" : "meta";
  require_refused(x, "an x on the " + where + " device", where,
                  "check x.device() first (before the empty-tensor shortcut), with TORCH_CHECK and a message that "
                  "names silu, the device it takes and the one it got");
}

TEST_CASE("forward and backward launch on PyTorch's current stream", "[05][stream]") {
  WB_REQUIRE_DEVICE();
#ifdef WB_EMU
  wb::note_unchecked("which stream silu launches on (the CPU backend has one stream and runs each launch to the end)");
  SKIP("the CPU backend has one stream: which stream a launch names is checked on a GPU only");
#else
  // A fresh stream made current: an op that launches on the legacy default stream (0) would run
  // out of order with the work PyTorch queued on this one.
  const c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  const c10::cuda::CUDAStreamGuard guard(stream);
  const Tensor x = random_tensor({100'003}, torch::kFloat, 71).requires_grad_(true);
  const Tensor g = random_tensor({100'003}, torch::kFloat, 72, 0.5f, 1.5f);
  std::vector<wb::LaunchRecord> launches;
  {
    wb::LaunchLog log;
    run("silu (forward and backward) on a non-default stream", [&] {
      Tensor y = student::silu(x);
      return torch::autograd::grad({y}, {x}, {g})[0];
    });
    launches = log.launches();
  }
  wb::Comparison c;
  c.context = "float32, n = 100003, under a c10::cuda::CUDAStreamGuard on a fresh stream";
  if (launches.empty()) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "silu launched no kernel";
  }
  for (const wb::LaunchRecord& l : launches) {
    if (l.stream == stream.stream()) continue;
    c.pattern = wb::Pattern::chapter_specific;
    c.diagnosis = std::string("silu launched a kernel (") + l.describe() + ") on " +
                  (l.stream == nullptr ? "the legacy default stream (0)" : "a stream that is not the current one") +
                  ", not on PyTorch's current stream: pass c10::cuda::getCurrentCUDAStream() as the launch's fourth "
                  "argument, so your kernels run in order with the rest of PyTorch's work";
    break;
  }
  WB_REQUIRE_MATCH(c);
#endif
}

TEST_CASE("speed of forward + backward against the solution and torch::silu", "[05][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const std::int64_t n = std::int64_t(1) << 28;
  const Tensor x = random_tensor({n}, torch::kFloat, 61).requires_grad_(true);
  const Tensor g = random_tensor({n}, torch::kFloat, 62, 0.5f, 1.5f);
  // autograd::grad returns grad_x without accumulating it into x.grad: the work is forward +
  // backward only. 20 bytes per element: forward reads x, writes y; backward reads grad_y and x,
  // writes grad_x.
  auto fwd_bwd = [&](Tensor (*op)(const Tensor&)) {
    return [&x, &g, op] {
      Tensor y = op(x);
      torch::autograd::grad({y}, {x}, {g});
    };
  };
  // Right first: timing a forward that returns nothing would only throw.
  check_forward_backward(x.detach(), g, "before timing, float32, n = 2^28");
  wb::grade_speed(wb::SpeedCase("SiLU forward + backward, 2^28 floats (20 bytes per element)", wb::memory_bound(20.0 * n))
                      .yours("your silu", fwd_bwd(&student::silu))
                      .solution("solution", fwd_bwd(&solution::silu))
                      .anchor({"torch::silu", fwd_bwd([](const Tensor& a) { return torch::silu(a); })})
                      .row("x * torch::sigmoid(x)", fwd_bwd([](const Tensor& a) { return a * torch::sigmoid(a); }))
                      .bar("2^28 floats", "silu"),
                  [&] {  // checked once more after all the timing runs: the check fails the case itself
                    check_forward_backward(x.detach(), g, "after timing, float32, n = 2^28");
                    return wb::Comparison{};
                  });
}

// Last: your op as Python sees it, built from your file into a library with op.cpp (test_op.py:
// torch.ops.load_library, opcheck, gradcheck). It runs once the checks above pass.
TEST_CASE("from Python: torch.ops.workbook.silu passes chapters/05-autograd/test_op.py", "[05][python]") {
  wb::require_python_op_check();
}
