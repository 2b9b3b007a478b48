// Chapter 03's grader: student::transpose against a host reference on awkward shapes, then the
// chapter's bar: coalesced global memory and a tile without bank conflicts. On a GPU that is a
// minimum speed against the solution; on the CPU backend, the sectors each global warp request
// touches and the wavefronts each shared one takes, counted by the instrumented build.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "transpose.cuh"
#include "wb/grader.hpp"
#ifdef WB_EMU
#include <wb_emu/diagnostics.hpp>
#endif

namespace {

constexpr double kMinSpeed = 0.7;       // GPU: at least 0.7x the solution's speed
constexpr double kMinEfficiency = 0.8;  // CPU backend: bytes used / bytes of the sectors fetched
constexpr double kMaxWays = 2.0;        // CPU backend: shared-memory wavefronts per request / the ideal

// ---- CPU reference ----
std::vector<float> transpose_reference(const std::vector<float>& in, int rows, int cols) {
  std::vector<float> out(in.size());
  wb::parallel_ranges(std::size_t(cols), [&](std::size_t first, std::size_t last) {  // rows of out
    for (std::size_t c = first; c < last; ++c)
      for (int r = 0; r < rows; ++r) out[c * rows + r] = in[std::size_t(r) * cols + c];
  }, rows > 512 ? 0 : std::size_t(cols) + 1);
  return out;
}

// "/home/me/workbook/chapters/03-coalescing/transpose.cu" -> "chapters/03-coalescing/transpose.cu"
std::string from_repo_root(const std::string& path) {
  for (const char* top : {"chapters/", "solutions/", "tests/"}) {
    const auto at = path.rfind(top);
    if (at != std::string::npos) return path.substr(at);
  }
  return path;
}

std::string shape(int rows, int cols) { return std::to_string(rows) + " x " + std::to_string(cols); }

// The chapter's own explanation of a wrong transpose, in matrix coordinates.
void explain(wb::Comparison& c, const std::vector<float>& in, const std::vector<float>& out, int rows, int cols) {
  if (c.pattern == wb::Pattern::out_of_bounds) {
    c.diagnosis = "an element outside out was written (out[" + std::to_string(c.guard_hits.front().index) +
                  "]): a thread past the matrix's edge wrote; check both the row and the column against rows and "
                  "cols before every read and write";
    return;
  }
  if (c.pattern == wb::Pattern::nothing_written || c.first_wrong < 0) return;
  bool copy = true;
  for (std::size_t i = 0; i < in.size() && copy; ++i) copy = out[i] == in[i];
  if (copy && rows != cols && rows > 1 && cols > 1) {
    c.pattern = wb::Pattern::chapter_specific;
    c.diagnosis = "out is a copy of in, not its transpose: out is cols x rows, element (c, r) of out is in[r * cols + c]";
    return;
  }
  // Element k of out is (row k / rows, column k % rows) of out, i.e. (r, c) = (k % rows, k / rows) of in.
  const int full_rows = rows / 32 * 32, full_cols = cols / 32 * 32;
  bool only_edges = true;
  std::int64_t wrong = 0;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const int r = int(k % rows), col = int(k / rows);
    const double want = in[std::size_t(r) * cols + col];
    if (out[k] == want) continue;
    ++wrong;
    only_edges = only_edges && (r >= full_rows || col >= full_cols);
  }
  const std::int64_t k = c.first_wrong;
  const std::string where = "out[" + std::to_string(k) + "], which is element (" + std::to_string(k / rows) + ", " +
                            std::to_string(k % rows) + ") of out and should hold in's (" + std::to_string(k % rows) +
                            ", " + std::to_string(k / rows) + ")";
  c.pattern = wb::Pattern::chapter_specific;
  // Only a matrix with at least one whole tile has edges to blame.
  if (wrong > 0 && only_edges && full_rows > 0 && full_cols > 0 && (full_rows < rows || full_cols < cols))
    c.diagnosis = "only elements in the partial tiles at the edges are wrong (first " + where +
                  "): rows = " + std::to_string(rows) + " and cols = " + std::to_string(cols) +
                  " are not multiples of the 32-wide tile; check the edges against rows and cols, not the tile size";
  else
    c.diagnosis = "wrong elements, first " + where;
}

wb::Comparison run_case(int rows, int cols) {
  const std::size_t n = std::size_t(rows) * cols;
  const std::vector<float> in = wb::random_floats(n, 1.0f, 2.0f, n * 31 + rows);
  // Guard zones wide enough for a partial tile's worth of rows or columns past the edge, so a
  // missing edge check lands in them (and is reported) rather than in other memory.
  const std::size_t guard = 32 * (std::size_t(rows) + cols) + wb::DeviceBuffer<float>::default_guard;
  wb::DeviceBuffer<float> din(in, guard), dout(n, guard);
  dout.poison();
  wb::run_launch("transpose of " + shape(rows, cols), [&] { student::transpose(din.data(), dout.data(), rows, cols); });
  const std::vector<float> expected = transpose_reference(in, rows, cols);
  wb::Comparison c = wb::inputs_unchanged<float>({{"in", in, din}}, "out", expected);
  if (c.ok()) {
    wb::CompareOptions opt;
    opt.array = "out";
    c = wb::compare(expected, dout, opt);
    if (!c.ok()) explain(c, in, dout.download(), rows, cols);
  }
  c.context = "in is " + shape(rows, cols);
  return c;
}

}  // namespace

TEST_CASE("out is the transpose of in for awkward shapes", "[03][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] = GENERATE(table<int, int>({{1, 1},
                                                       {1, 1000},
                                                       {1000, 1},
                                                       {31, 32},
                                                       {32, 33},
                                                       {33, 65},
                                                       {65, 33},
                                                       {64, 64},
                                                       {100, 257},
                                                       {513, 511}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(rows, cols));
}

TEST_CASE("an empty matrix (0 rows or 0 columns) is not an error", "[03][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [rows, cols] = GENERATE(table<int, int>({{0, 0}, {0, 5}, {7, 0}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(rows, cols));
}

TEST_CASE("out is the transpose of in for a large matrix", "[03][correctness]") {
  WB_REQUIRE_DEVICE();
  const int rows = wb::cpu_backend() ? 1000 : 8191, cols = wb::cpu_backend() ? 1030 : 8193;
  WB_REQUIRE_MATCH(run_case(rows, cols));
}

// Hidden: run by the next test, in a copy of this grader under compute-sanitizer racecheck.
TEST_CASE("small transposes for compute-sanitizer racecheck", "[.racecheck]") {
  const auto [rows, cols] = GENERATE(table<int, int>({{64, 64}, {33, 65}}));
  CAPTURE(rows, cols);
  WB_REQUIRE_MATCH(run_case(rows, cols));
}

TEST_CASE("no shared-memory race (GPU: compute-sanitizer racecheck on small transposes)", "[03][races]") {
  WB_REQUIRE_DEVICE();
  if (wb::cpu_backend()) SKIP("the CPU backend ran every case above instrumented: a race there is a kernel fault");
  wb::require_sanitizer_clean("racecheck", "[racecheck]", "the transposes of 64 x 64 and 33 x 65");
}

#ifdef WB_EMU
TEST_CASE("every warp's loads and stores are coalesced (CPU backend: sectors per request)", "[03][coalescing]") {
  // On a GPU an unpadded 32 x 32 tile fails the speed bar (32-way bank conflicts; the mutant
  // unpadded_tile): here it fails as too slow as well, from the wavefronts its shared requests take.
  const int rows = 256, cols = 288;
  WB_REQUIRE_MATCH(run_case(rows, cols));
  const wb_emu::MemoryStats stats = wb_emu::last_launch_memory_stats();
  REQUIRE(stats.instrumented);  // chapter 03 is built with the instrumented CPU backend
  REQUIRE(stats.loads.requests > 0);
  REQUIRE(stats.stores.requests > 0);
  std::string problems;
  for (const auto* dir : {&stats.loads, &stats.stores}) {
    const bool store = dir == &stats.stores;
    const double efficiency = double(dir->ideal_sectors) / double(dir->sectors);
    char line[512];
    std::snprintf(line, sizeof line, "%s: %.1f sectors per warp request where %.1f would do (%.0f%% of each sector used)",
                  store ? "stores to out" : "loads from in", double(dir->sectors) / dir->requests,
                  double(dir->ideal_sectors) / dir->requests, 100 * efficiency);
    std::cout << "  " << line << "\n";
    if (efficiency >= kMinEfficiency) continue;
    std::string worst;
    for (const auto& l : stats.lines)
      if (l.store == store) {
        worst = " (worst at " + from_repo_root(l.file) + ":" + std::to_string(l.line) + ")";
        break;
      }
    problems += std::string(problems.empty() ? "" : "; ") + line + worst;
    problems += store ? ": a warp writes down a column of out, one 32-byte sector per thread"
                      : ": a warp reads down a column of in, one 32-byte sector per thread";
  }
  if (!problems.empty())
    WB_FAIL_TOO_SLOW("the transpose is right but not coalesced: " + problems +
                     ". Let threadIdx.x run along rows for both the read and the write: stage a tile in shared memory "
                     "and write it out transposed (see the chapter's lesson)");
  // Shared memory: 32 banks of 4-byte words; a warp's request takes as many turns (wavefronts) as
  // its busiest bank holds distinct words.
  std::string conflicts;
  const wb_emu::SharedMemoryStats shared = wb_emu::last_launch_shared_stats();
  for (const auto* dir : {&shared.loads, &shared.stores}) {
    if (dir->requests == 0) continue;
    const bool store = dir == &shared.stores;
    const double ways = double(dir->wavefronts) / double(dir->ideal_wavefronts);
    char line[512];
    std::snprintf(line, sizeof line, "shared-memory %s: %.1f wavefronts per warp request where %.1f would do",
                  store ? "stores" : "loads", double(dir->wavefronts) / dir->requests,
                  double(dir->ideal_wavefronts) / dir->requests);
    std::cout << "  " << line << "\n";
    if (ways <= kMaxWays) continue;
    std::string worst;
    for (const auto& l : shared.lines)
      if (l.store == store) {
        worst = " (worst at " + from_repo_root(l.file) + ":" + std::to_string(l.line) + ", " +
                std::to_string(l.stats.max_ways) + "-way)";
        break;
      }
    conflicts += std::string(conflicts.empty() ? "" : "; ") + line + worst;
  }
  if (!conflicts.empty())
    WB_FAIL_TOO_SLOW("the transpose is right and coalesced, but its tile has shared-memory bank conflicts: " +
                     conflicts +
                     ". A warp that reads down a column of a 32 x 32 float tile finds all 32 words in one bank, "
                     "served one after another (a GPU grade fails such a transpose on speed); "
                     "pad the tile to [32][33], so that a column's words fall in 32 different banks");
}
#else
TEST_CASE("every warp's loads and stores are coalesced (CPU backend: sectors per request)", "[03][coalescing]") {
  SKIP("skipped on a GPU: coalescing is judged by speed there (next test)");
}
#endif

TEST_CASE("speed against the solution: coalesced on a GPU", "[03][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU; the sector counts stand in for them");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int rows = 8192, cols = 8192;
  const std::size_t n = std::size_t(rows) * cols;
  const std::vector<float> in = wb::random_floats(n, 1.0f, 2.0f, 3);
  wb::DeviceBuffer<float> din(in), dout(n), copy(n);
  wb::grade_speed(
      wb::SpeedCase("transpose of 8192 x 8192 floats (8 bytes per element)", wb::memory_bound(2.0 * sizeof(float) * n))
          .yours("your transpose", [&] { student::transpose(din.data(), dout.data(), rows, cols); })
          .solution("solution (32x33 tile, 32x4)", [&] { solution::transpose(din.data(), dout.data(), rows, cols); })
          .anchor({"device-to-device copy",
                   [&] { wb::anchors::device_copy(din.data(), copy.data(), std::int64_t(n)); }})
          .bar("8192 x 8192", "the transpose", kMinSpeed,
      "The usual causes: global memory accesses that are not coalesced (a warp that reads or writes down a column "
      "touches 32 sectors per request: stage a tile in shared memory so both the read and the write run along rows; "
      "grade on the CPU backend to see which accesses), or shared-memory bank conflicts (a 32 x 32 float tile read "
      "down a column puts all 32 threads of a warp on one bank, 32 requests in turn: pad it to [32][33]); a block "
      "shape that leaves few bytes in flight, such as 32 x 32 threads, is slow too"),
                  [&] {
                    dout.poison();
                    wb::run_launch("transpose of 8192 x 8192",
                                   [&] { student::transpose(din.data(), dout.data(), rows, cols); });
                    wb::CompareOptions opt;
                    opt.array = "out";
                    wb::Comparison c = wb::compare(transpose_reference(in, rows, cols), dout, opt);
                    c.context = "8192 x 8192";
                    return c;
                  });
}

// compute-sanitizer's other tools on the small case racecheck runs above (wb/sanitizer.hpp).
TEST_CASE("no access outside an array, no barrier misuse (GPU: compute-sanitizer memcheck and synccheck on small transposes)",
          "[03][sanitizer]") {
  WB_REQUIRE_DEVICE();
  if (wb::cpu_backend()) SKIP("the CPU backend ran every case above instrumented: such an access is a kernel fault");
  wb::require_sanitizers_clean({"memcheck", "synccheck"}, "[racecheck]", "the transposes of 64 x 64 and 33 x 65");
}
