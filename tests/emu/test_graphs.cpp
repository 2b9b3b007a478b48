// CUDA graphs by stream capture on the CPU backend: what is captured is recorded, not run, and a
// graph launch runs it again with the arguments captured and the memory as it is then; what CUDA
// refuses during a capture is refused the same way.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <string>

#include "graphs.hpp"

TEST_CASE("a chain of launches and a copy, captured once and launched three times", "[graphs]") {
  const int n = 300, steps = 5;
  const graphs_test::ChainResult r = graphs_test::chain(n, steps, 3);
  CHECK(r.begin == cudaSuccess);
  CHECK(r.end == cudaSuccess);
  CHECK(r.during == cudaStreamCaptureStatusActive);
  CHECK(r.after == cudaStreamCaptureStatusNone);
  CHECK(r.nodes == steps + 1);
  CHECK(r.instantiate == cudaSuccess);
  CHECK(r.launch == cudaSuccess);
  CHECK(r.sync == cudaSuccess);
  CHECK(r.destroy == cudaSuccess);
  for (float v : r.x_after_capture) REQUIRE(v == 0.0f);  // captured, not run
  // Each launch of the graph applies x = 2x + k for k = 0..4 once more, then copies x to y.
  double want = 0;
  for (int rep = 0; rep < 3; ++rep)
    for (int k = 0; k < steps; ++k) want = want * 2 + k;
  for (int i = 0; i < n; ++i) {
    REQUIRE(r.x[i] == float(want));
    REQUIRE(r.y[i] == float(want));
  }
}

TEST_CASE("a graph reads memory when it runs, and keeps the arguments it was captured with", "[graphs]") {
  const graphs_test::ParamResult r = graphs_test::params();
  CHECK(r.by_pointer_first == 3.0f);
  CHECK(r.by_pointer_second == 15.0f);
  CHECK(r.by_value_second == 3.0f);
}

TEST_CASE("what CUDA refuses during a capture, and the capture it invalidates", "[graphs]") {
  const graphs_test::RefusedResult r = graphs_test::refused();
  CHECK(r.begin_legacy == cudaErrorStreamCaptureUnsupported);
  CHECK(r.end_not_capturing == cudaErrorIllegalState);
  CHECK(r.sync_during == cudaErrorStreamCaptureUnsupported);
  CHECK(r.end_after_sync == cudaErrorStreamCaptureInvalidated);
  CHECK(r.graph_null_after_sync);
  CHECK(r.legacy_launch_during == cudaErrorStreamCaptureImplicit);
  CHECK(r.end_after_legacy == cudaErrorStreamCaptureInvalidated);
  CHECK(r.malloc_during == cudaErrorStreamCaptureUnsupported);
  CHECK(std::string(cudaGetErrorName(cudaErrorStreamCaptureImplicit)) == "cudaErrorStreamCaptureImplicit");
}

TEST_CASE("a fork and a join across two streams through events: one graph", "[graphs]") {
  const int n = 130;
  const graphs_test::ForkResult r = graphs_test::fork_join(n);
  CHECK(r.end == cudaSuccess);
  CHECK(r.launch == cudaSuccess);
  CHECK(r.nodes == 3);
  for (int i = 0; i < n; ++i) {
    REQUIRE(r.a[i] == 10 + i);
    REQUIRE(r.b[i] == 100 + i + 10 + i);
  }
}
