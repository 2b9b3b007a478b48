// Exercise 15's grader: the chain of kChainSteps small steps, fused into one kernel and replayed
// as a CUDA graph, against a host reference (the same fmaf, step by step, in float), on sizes
// from 1 to over a million; then the launches each call made (wb::LaunchLog: kernel launches as
// the runtime sees them, and graph launches): the fused chain is one launch on the stream given,
// the graph is captured once for an x, n and steps and only launched after, captured afresh for
// others, and reads the steps' values when it runs. On a GPU the eager chain, the graph and the
// fused kernel are timed at a size where launching is the cost (the speed is shown, not graded).
//
// Tolerance: the reference is the kernel's own arithmetic (fmaf in float, in order), so a kernel
// that does the same is exact; 2^-20 relative (and 2^-24 absolute) covers a multiply and an add
// rounded apart. A wrong x is told by what it is: x unchanged, the chain applied twice or to only
// the first steps, the steps' old values, the tail of x not reached.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "chain.cuh"
#include "wb/grader.hpp"
#include "wb/launches.hpp"

namespace {

// ---- inputs and the host reference ----
std::vector<ChainStep> random_steps(std::uint64_t seed) {
  const std::vector<float> s = wb::random_floats(kChainSteps, 0.9f, 1.1f, seed);
  const std::vector<float> t = wb::random_floats(kChainSteps, -0.25f, 0.25f, seed + 1);
  std::vector<ChainStep> steps(kChainSteps);
  for (int k = 0; k < kChainSteps; ++k) steps[k] = {s[k], t[k]};
  return steps;
}

// x after steps [first, last) of the chain, `times` times over.
std::vector<float> chained(std::vector<float> x, const std::vector<ChainStep>& steps, int last = kChainSteps,
                           int times = 1) {
  for (int r = 0; r < times; ++r)
    for (float& v : x)
      for (int k = 0; k < last; ++k) v = std::fmaf(v, steps[k].scale, steps[k].shift);
  return x;
}

bool close(float got, float want) {
  return std::fabs(double(got) - want) <= std::ldexp(std::fabs(double(want)), -20) + std::ldexp(1.0, -24);
}

// ---- the verdict on x ----
// What x holds after a call that should have left `want`, from `before`; `steps` the steps it
// should have used and `old_steps` (may be empty) the ones it used before they changed.
wb::Comparison judge(const std::string& context, const std::vector<float>& before, const std::vector<float>& want,
                     const std::vector<float>& got, const std::vector<ChainStep>& steps,
                     const std::vector<ChainStep>& old_steps, const std::string& what) {
  wb::Comparison c;
  c.array = "x";
  c.context = context;
  c.n = std::int64_t(want.size());
  std::int64_t unchanged = 0, first_unchanged = -1;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (close(got[i], want[i])) continue;
    if (!c.wrong++) c.first_wrong = std::int64_t(i);
    const bool same = got[i] == before[i];
    if (same && !unchanged++) first_unchanged = std::int64_t(i);
    if (c.listed.size() < 5) c.listed.push_back({std::int64_t(i), want[i], got[i], same});
  }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  auto all_are = [&](const std::vector<float>& v) {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!close(got[i], v[i])) return false;
    return true;
  };
  const std::string i0 = "x[" + std::to_string(c.first_wrong) + "]";
  if (unchanged == c.n) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "x is unchanged after " + what + ": nothing was done to it (nothing launched, or a capture that "
                  "failed: cudaStreamEndCapture and cudaGraphInstantiate return an error code)";
  } else if (first_unchanged >= 0 && first_unchanged == c.first_wrong &&
             std::equal(got.begin() + first_unchanged, got.end(), before.begin() + first_unchanged)) {
    // (x unchanged from there on: some of those elements may be near their result by chance)
    c.diagnosis = "x is unchanged from x[" + std::to_string(first_unchanged) + "] on (of " + std::to_string(c.n) +
                  "): the grid reached only the first " + std::to_string(first_unchanged) +
                  " elements; give every element a thread, or let each thread take i, i + (threads in the grid), ...";
  } else if (!old_steps.empty() && all_are(chained(before, old_steps))) {
    c.diagnosis = "x went through the steps' old values: after the steps changed in memory (the same pointer), " +
                  what + " still used the values it found when it captured the graph. A graph keeps its kernels' "
                  "arguments, not what they point to: pass steps as the pointer and read steps[k] in the kernel";
  } else if (all_are(chained(before, steps, kChainSteps, 2))) {
    c.diagnosis = "x went through the chain twice in one call of " + what + ": a graph launched after the eager "
                  "launches were run as well (the capture must be on the stream that is captured, and between "
                  "cudaStreamBeginCapture and cudaStreamEndCapture nothing runs)";
  } else {
    int steps_done = -1;
    for (int k = 0; k < kChainSteps && steps_done < 0; ++k)
      if (all_are(chained(before, steps, k))) steps_done = k;
    std::vector<ChainStep> reversed(steps.rbegin(), steps.rend());
    if (steps_done > 0) {
      c.diagnosis = "x went through only the first " + std::to_string(steps_done) + " of the " +
                    std::to_string(kChainSteps) + " steps: every step k from 0 to kChainSteps - 1 must be done, in order";
    } else if (all_are(chained(before, reversed))) {
      c.diagnosis = "x went through the steps in reverse order (step kChainSteps - 1 first): each step works on "
                    "the result of the one before, so the order matters; run k from 0 up";
    } else {
      c.diagnosis = "wrong values, first " + i0 + " (expected " + wb::format_value(want[c.first_wrong]) + ", got " +
                    wb::format_value(got[c.first_wrong]) + ")";
    }
  }
  return c;
}

// A failed check of the launches a call made, in the exercise's terms.
wb::Comparison launches_wrong(const std::string& context, const std::string& why) {
  wb::Comparison c;
  c.context = context;
  c.pattern = wb::Pattern::chapter_specific;
  c.diagnosis = why;
  c.wrong = 1;
  return c;
}

std::string count(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// A stream of the grader's own: a graph cannot be captured from the legacy default stream.
struct Stream {
  cudaStream_t s = nullptr;
  Stream() { WB_CUDA_CHECK(cudaStreamCreate(&s)); }
  ~Stream() { cudaStreamDestroy(s); }
};

// The fused chain on n elements: one launch, on the stream given, and the right x.
wb::Comparison fused_case(int n) {
  const std::string context = "chain_fused, n = " + std::to_string(n);
  const std::vector<ChainStep> steps = random_steps(std::uint64_t(n) + 3);
  const std::vector<float> before = wb::random_floats(std::size_t(n), -1.0f, 1.0f, std::uint64_t(n));
  wb::DeviceBuffer<ChainStep> dsteps(steps);
  wb::DeviceBuffer<float> x(before);
  Stream stream;
  wb::LaunchLog log;
  wb::run_launch(context, [&] {
    student::chain_fused(x.data(), n, dsteps.data(), stream.s);
    WB_CUDA_CHECK(cudaStreamSynchronize(stream.s));
  });
  const std::vector<wb::LaunchRecord> launches = log.launches();
  wb::Comparison c = judge(context, before, chained(before, steps), x.download(), steps, {}, "chain_fused");
  if (!c.ok() || !wb::LaunchLog::available()) return c;
  if (!log.graph_launches().empty())
    return launches_wrong(context, "chain_fused launched a graph: it is one launch of one kernel that does every step");
  if (n > 0 && launches.size() != 1)
    return launches_wrong(context, "chain_fused made " + count(launches.size(), "launch", "launches") +
                                       ": the fused chain is one launch of one kernel, each thread doing all " +
                                       std::to_string(kChainSteps) + " steps to its elements");
  if (n > 0 && launches[0].stream != stream.s)
    return launches_wrong(context, "chain_fused launched on another stream than the one it was given: launch with "
                                   "<<<blocks, threads, 0, stream>>>");
  return c;
}

// One call of chain_graph: its result, and what it launched (kernel launches, graph launches).
struct GraphCall {
  wb::Comparison result;
  std::size_t kernels = 0, graphs = 0;
  bool graph_on_stream = true;
};

GraphCall graph_call(ChainGraph& cache, wb::DeviceBuffer<float>& x, const std::vector<float>& before,
                     const std::vector<float>& want, const wb::DeviceBuffer<ChainStep>& dsteps,
                     const std::vector<ChainStep>& steps, const std::vector<ChainStep>& old_steps, int n,
                     cudaStream_t stream, const std::string& context) {
  GraphCall g;
  wb::LaunchLog log;
  wb::run_launch(context, [&] {
    student::chain_graph(cache, x.data(), n, dsteps.data(), stream);
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
  });
  g.kernels = log.launches().size();
  const std::vector<cudaStream_t> graphs = log.graph_launches();
  g.graphs = graphs.size();
  for (cudaStream_t s : graphs) g.graph_on_stream = g.graph_on_stream && s == stream;
  g.result = judge(context, before, want, x.download(), steps, old_steps, "chain_graph");
  return g;
}

// The graph's life: captured on the first call, only launched on the second, reading the steps'
// new values on the third, captured afresh for another x and n, and again for the first x.
wb::Comparison graph_sequence(int n) {
  const int m = n + 37;
  const std::string shape = "n = " + std::to_string(n);
  std::vector<ChainStep> steps = random_steps(std::uint64_t(n) + 11);
  const std::vector<float> a0 = wb::random_floats(std::size_t(n), -1.0f, 1.0f, std::uint64_t(n) + 5);
  const std::vector<float> b0 = wb::random_floats(std::size_t(m), -1.0f, 1.0f, std::uint64_t(m) + 7);
  wb::DeviceBuffer<ChainStep> dsteps(steps);
  wb::DeviceBuffer<float> a(a0), b(b0);
  Stream stream;
  ChainGraph cache;
  const bool logged = wb::LaunchLog::available();

  // 1. The first call: a capture of the eager chain (its launches), then one graph launch.
  std::string context = "chain_graph, first call, " + shape;
  GraphCall g = graph_call(cache, a, a0, chained(a0, steps), dsteps, steps, {}, n, stream.s, context);
  if (!g.result.ok()) return g.result;
  if (logged && g.graphs == 0)
    return launches_wrong(context, "chain_graph launched no graph (" + count(g.kernels, "kernel launch", "kernel launches") +
                                       "): capture the chain once with cudaStreamBeginCapture / cudaStreamEndCapture, "
                                       "then launch it with cudaGraphLaunch(cache.exec, stream)");
  if (logged && !g.graph_on_stream)
    return launches_wrong(context, "chain_graph launched its graph on another stream than the one it was given: "
                                   "cudaGraphLaunch(cache.exec, stream)");
  std::vector<float> a1 = chained(a0, steps);

  // 2. The same x, n and steps: the graph again, no capture.
  context = "chain_graph, second call with the same x, n and steps, " + shape;
  g = graph_call(cache, a, a1, chained(a1, steps), dsteps, steps, {}, n, stream.s, context);
  if (!g.result.ok()) return g.result;
  if (logged && (g.kernels > 0 || g.graphs != 1))
    return launches_wrong(context, "the second call with the same x, n and steps made " +
                                       count(g.kernels, "kernel launch", "kernel launches") + " and " +
                                       count(g.graphs, "graph launch", "graph launches") +
                                       ": capture once, keep the graph in cache, and after that only "
                                       "cudaGraphLaunch it (capturing again each call costs more than the launches saved)");
  const std::vector<float> a2 = chained(a1, steps);

  // 3. New values in the same steps array: the graph must read them.
  const std::vector<ChainStep> old_steps = steps;
  steps = random_steps(std::uint64_t(n) + 97);
  dsteps.upload(steps);
  context = "chain_graph, the steps' values changed (same pointer), " + shape;
  g = graph_call(cache, a, a2, chained(a2, steps), dsteps, steps, old_steps, n, stream.s, context);
  if (!g.result.ok()) return g.result;
  const std::vector<float> a3 = chained(a2, steps);

  // 4. Another x and n: a new capture, and the first x left alone.
  context = "chain_graph, another x with n = " + std::to_string(m) + " after " + shape;
  g = graph_call(cache, b, b0, chained(b0, steps), dsteps, steps, {}, m, stream.s, context);
  const std::vector<float> a_now = a.download();
  bool a_moved = false;
  for (int i = 0; i < n && !a_moved; ++i) a_moved = a_now[i] != a3[i];
  if (!g.result.ok() || a_moved)
    return a_moved ? launches_wrong(context, "a call for another x changed the first x, and left the new one as it "
                                             "was: the graph captured for the first x was launched again. A graph's "
                                             "kernels keep the pointers they were captured with: when x, n or steps "
                                             "differ from those in cache, release it and capture afresh")
                   : g.result;
  if (logged && (g.kernels == 0 || g.graphs != 1))
    return launches_wrong(context, "a call for another x made " + count(g.kernels, "kernel launch", "kernel launches") +
                                       " and " + count(g.graphs, "graph launch", "graph launches") +
                                       ": it must capture the chain for the new x and launch that graph once");

  // 5. The first x again: captured afresh (the cache held the second).
  context = "chain_graph, the first x again, " + shape;
  g = graph_call(cache, a, a3, chained(a3, steps), dsteps, steps, {}, n, stream.s, context);
  if (!g.result.ok()) return g.result;

  student::chain_graph_release(cache);
  if (cache.exec || cache.graph || cache.x)
    return launches_wrong("chain_graph_release, " + shape,
                          "chain_graph_release left the cache holding a graph: destroy cache.exec and cache.graph "
                          "(cudaGraphExecDestroy, cudaGraphDestroy), then cache = ChainGraph{}");
  return g.result;
}

}  // namespace

TEST_CASE("the fused chain: one kernel, every step, every element", "[x15][correctness]") {
  WB_REQUIRE_DEVICE();
  const int big = wb::cpu_backend() ? 300'007 : (1 << 22) + 3;  // past 1024 blocks of 256
  const int n = GENERATE_COPY(1, 31, 255, 256, 257, 1000, 4099, 65'537, big);
  CAPTURE(n);
  WB_REQUIRE_MATCH(fused_case(n));
}

TEST_CASE("the graph: captured once, launched after, captured afresh for another x", "[x15][correctness]") {
  WB_REQUIRE_DEVICE();
  const int n = GENERATE(1, 257, 4099);
  CAPTURE(n);
  WB_REQUIRE_MATCH(graph_sequence(n));
}

TEST_CASE("nothing to do: n = 0", "[x15][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::vector<ChainStep> steps = random_steps(1);
  wb::DeviceBuffer<ChainStep> dsteps(steps);
  Stream stream;
  ChainGraph cache;
  wb::run_launch("chain_fused and chain_graph, n = 0", [&] {
    student::chain_fused(nullptr, 0, dsteps.data(), stream.s);
    student::chain_graph(cache, nullptr, 0, dsteps.data(), stream.s);
    WB_CUDA_CHECK(cudaStreamSynchronize(stream.s));
  });
  student::chain_graph_release(cache);
}

TEST_CASE("speed: the eager chain, the graph and the fused kernel", "[x15][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int n = 4096;  // small: launching, not the memory, is the cost
  const std::vector<ChainStep> steps = random_steps(5);
  const std::vector<float> x0 = wb::random_floats(n, -1.0f, 1.0f, 6);
  wb::DeviceBuffer<ChainStep> dsteps(steps);
  wb::DeviceBuffer<float> xe(x0), xg(x0), xs(x0), xf(x0), xsf(x0);
  Stream stream;
  ChainGraph yours_cache, solution_cache;
  student::chain_graph(yours_cache, xg.data(), n, dsteps.data(), stream.s);      // captured before timing
  solution::chain_graph(solution_cache, xs.data(), n, dsteps.data(), stream.s);
  WB_CUDA_CHECK(cudaStreamSynchronize(stream.s));
  auto yours = [&] { student::chain_fused(xf.data(), n, dsteps.data(), stream.s); };
  wb::grade_speed(
      wb::SpeedCase("a chain of " + std::to_string(kChainSteps) + " steps on " + std::to_string(n) + " floats",
                    wb::memory_bound(2.0 * sizeof(float) * n))
          .yours("your chain_fused", yours)
          .solution("solution chain_fused", [&] { solution::chain_fused(xsf.data(), n, dsteps.data(), stream.s); })
          .row("your chain_graph", [&] { student::chain_graph(yours_cache, xg.data(), n, dsteps.data(), stream.s); })
          .row("solution chain_graph",
               [&] { solution::chain_graph(solution_cache, xs.data(), n, dsteps.data(), stream.s); })
          .row("eager: " + std::to_string(kChainSteps) + " launches", [&] { solution::chain_eager(xe.data(), n, dsteps.data(), stream.s); })
          .bar(std::to_string(n) + " floats", "x")
          .table_row("x15-launch-bound"),
      [&] {
        std::vector<float> before = xf.download();
        wb::run_launch("chain_fused (after timing, n = 4096)", [&] {
          yours();
          WB_CUDA_CHECK(cudaStreamSynchronize(stream.s));
        });
        return judge("after timing, chain_fused, n = 4096", before, chained(before, steps), xf.download(), steps, {},
                     "chain_fused");
      });
  student::chain_graph_release(yours_cache);
  solution::chain_graph_release(solution_cache);
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp):
// the fused chain on four blocks, the last one partial, and the graph's life on 257 elements.
WB_SANITIZER_CASE("[x15]", "the fused chain on 1000 floats and the graph on 257") {
  WB_REQUIRE_MATCH(fused_case(1000));
  WB_REQUIRE_MATCH(graph_sequence(257));
}
