// Exercise 09's grader: student::stencil5 against a host reference on awkward grids (a single
// cell, single rows and columns, sizes around 32 and primes), then, on each of those grids, that
// the kernel stages its tiles in shared memory and reads the cells' inputs from them (CPU
// backend), then, on a GPU, its speed against the solution, PyTorch's conv2d with the same 3 x 3
// cross and a device-to-device copy (what memory allows).
//
// Exactness: most cases use center 1/2, side 1/8 and non-zero integers from -3 to 9: every
// product and partial sum is a multiple of 1/8 far below 2^21, exact in float32 in any order, so
// out must be exact. Random floats get |got - exact| <= 2^-20 (|center x| + |side| sum |neighbours|).
//
// A wrong cell is explained by what its error is: one neighbour's term missing (and which: above,
// below, left, right, at which rows or columns: a tile's halo not loaded), the previous or next
// row's end taken as a neighbour of a first or last column (the grid wraps: outside is 0), the
// grader's guard values (-1.7e38) leaking in (a neighbour outside the grid read from memory),
// center and side swapped, cells never written (the grid of blocks does not cover the grid, or
// the last row of every tile skipped).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "../common/inputs.hpp"
#include "stencil.cuh"
#include "wb/anchors.hpp"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

struct Grid {
  std::vector<float> in;
  int height, width;
  float center, side;
  std::string context;
  float at(std::int64_t y, std::int64_t x) const {  // 0 outside the grid
    return y < 0 || y >= height || x < 0 || x >= width ? 0.0f : in[std::size_t(y) * width + x];
  }
};

// ---- CPU reference ----
struct Reference {
  std::vector<double> out, bound;  // bound 0: exact
};

Reference reference(const Grid& g) {
  Reference r;
  r.out.resize(g.in.size());
  r.bound.assign(g.in.size(), 0);
  bool exact = std::fabs(g.center) == 0.5f && std::fabs(g.side) == 0.125f;
  for (float v : g.in) exact = exact && v == std::floor(v) && std::fabs(v) < 1024;
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x) {
      const double n = double(g.at(y - 1, x)) + g.at(y + 1, x) + g.at(y, x - 1) + g.at(y, x + 1);
      const std::size_t k = std::size_t(y) * g.width + x;
      r.out[k] = double(g.center) * g.at(y, x) + double(g.side) * n;
      if (!exact)
        r.bound[k] = std::ldexp(std::fabs(double(g.center) * g.at(y, x)) +
                                    std::fabs(double(g.side)) * (std::fabs(g.at(y - 1, x)) + std::fabs(g.at(y + 1, x)) +
                                                                 std::fabs(g.at(y, x - 1)) + std::fabs(g.at(y, x + 1))),
                                -20);
    }
  return r;
}

// ---- inputs ----
Grid int_grid(int height, int width) {
  return {exercise::random_ints(std::size_t(height) * width, -3, 9, std::uint64_t(height) * 7919 + width), height,
          width, 0.5f, 0.125f, exercise::shape(height, width) + " grid, integers"};
}

// "rows 32, 64, 96 and 5 more"
std::string list_of(const std::string& what, const std::vector<int>& v) {
  std::string s = what + (v.size() > 1 ? "s " : " ");
  for (std::size_t i = 0; i < v.size() && i < 3; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  if (v.size() > 3) s += " and " + std::to_string(v.size() - 3) + " more";
  return s;
}

// ---- diagnosis ----
// When the unwritten cells of out are whole rows (or whole columns) that are not every row from
// some tile boundary on (a block count rounded down): the last (or first) row of every tile,
// which the threads' loop over their tile's rows skipped, when they recur at a fixed period (one
// row: its index + 1), else just which rows. "" otherwise.
std::string tile_lines(const Grid& g, const std::vector<float>& got) {
  for (int axis = 0; axis < 2; ++axis) {  // 0: rows, 1: columns
    const int lines = axis ? g.width : g.height, along = axis ? g.height : g.width;
    std::vector<int> empty;
    bool whole = true;  // every line is either fully written or not written at all
    for (int i = 0; i < lines && whole; ++i) {
      int n = 0;
      for (int j = 0; j < along; ++j)
        n += wb::never_written(got[axis ? std::size_t(j) * g.width + i : std::size_t(i) * g.width + j]);
      if (n == along) empty.push_back(i);
      whole = n == 0 || n == along;
    }
    // Every line from some line on, where a tile could end (a multiple of 4): the grid of blocks is too small.
    const bool suffix = !empty.empty() && empty.back() - empty.front() + 1 == int(empty.size()) &&
                        empty.back() == lines - 1;
    if (!whole || empty.empty() || (suffix && empty.front() % 4 == 0)) continue;
    const std::string line = axis ? "column" : "row";
    // One line per tile: the last of each (period = its index + 1), or the first.
    const int period = empty.size() > 1 ? empty[1] - empty[0] : empty[0] + 1;
    bool periodic = period > 1 && (empty[0] == period - 1 || empty[0] == 0) && empty.back() + period >= lines;
    for (std::size_t k = 1; k < empty.size(); ++k) periodic = periodic && empty[k] - empty[k - 1] == period;
    if (!periodic && suffix) continue;
    if (!periodic)
      return list_of(line, empty) + " of out were never written, though " + line + "s after them were: every " +
             line + " of every tile must be computed (does each thread's loop over its tile's " + line +
             "s cover them all?)";
    const bool last = empty[0] == period - 1;
    return list_of(line, empty) + (empty.size() > 1 ? ", one every " + std::to_string(period) + "," : std::string()) +
           (empty.size() > 1 ? " are" : " is") + " missing whole" +
           (suffix ? std::string() : ", though " + line + "s after " + (empty.size() > 1 ? "them" : "it") + " were") +
           ": the " + (last ? "last" : "first") + " " + line + " of every tile of " + std::to_string(period) + " " +
           line + "s was never computed, so the threads' loop over the tile's " + line + "s stops one short (or "
           "starts one late): it must cover all " + std::to_string(period) + " (is its bound < where it should be <=?)";
  }
  return "";
}

enum Dir { above, below, left, right, kDirs };
const char* const kDirName[kDirs] = {"above", "below", "on the left", "on the right"};

wb::Comparison judge(const Grid& g, const Reference& ref, const wb::DeviceBuffer<float>& out) {
  wb::Comparison c = wb::guarded_comparison("out", std::int64_t(g.in.size()), g.context, out, [&](std::int64_t at) {
    return "out[" + std::to_string(at) + "] was written, outside the " +
           exercise::shape(g.height, g.width) + " grid: a thread whose cell is past the last row or column "
           "wrote (check y < height and x < width before the write)";
  });
  if (!c.ok()) return c;
  const std::vector<float> got = out.download();
  // Each wrong cell is checked against every explanation: with small integer inputs one cell can
  // fit two by chance (a wrapped neighbour that equals minus a missing one), so an explanation is
  // named when every wrong cell fits it, whichever else a cell also fits: the same bug gets the same
  // words under any seed.
  std::int64_t missing[kDirs] = {}, lacks = 0, wrapped = 0, guard_leak = 0, swapped = 0, other = 0;
  std::int64_t wrap_cells = 0;  // cells that a wrapping grid changes (edge columns with a wrapped neighbour)
  std::vector<int> miss_rows[kDirs];  // the rows (above, below) or columns (left, right) of the cells missing a term
  std::int64_t fit[kDirs] = {};       // the cells whose error is neighbour d's term, whichever else it also is
  std::vector<int> fit_rows[kDirs];
  std::int64_t first_unwritten = -1, first_other = -1;
  int unwritten_min_x = g.width, unwritten_min_y = g.height;
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x) {
      const std::size_t k = std::size_t(y) * g.width + x;
      // in[y][-1] read as in[y-1][width-1], in[y][width] as in[y+1][0]: the grid wraps.
      const std::int64_t flat = std::int64_t(k);
      const double wrap = (x == 0 && flat >= 1 ? double(g.in[flat - 1]) : 0.0) +
                          (x == g.width - 1 && flat + 1 < c.n ? double(g.in[flat + 1]) : 0.0);
      if (wrap != 0) ++wrap_cells;
      const bool miss = wb::never_written(got[k]);
      if (!miss && std::fabs(double(got[k]) - ref.out[k]) <= ref.bound[k]) continue;
      if (!c.wrong++) c.first_wrong = std::int64_t(k);
      if (c.listed.size() < 5) c.listed.push_back({std::int64_t(k), ref.out[k], double(got[k]), miss});
      if (miss) {
        if (!c.unwritten++) first_unwritten = std::int64_t(k);
        unwritten_min_x = std::min(unwritten_min_x, x);
        unwritten_min_y = std::min(unwritten_min_y, y);
        continue;
      }
      const double err = double(got[k]) - ref.out[k], tol = ref.bound[k] + 1e-9 * std::fabs(ref.out[k]);
      auto is = [&](double v) { return std::fabs(err - v) <= tol; };
      const float nb[kDirs] = {g.at(y - 1, x), g.at(y + 1, x), g.at(y, x - 1), g.at(y, x + 1)};
      bool fits = false;
      for (int d = 0; d < kDirs; ++d)
        if (nb[d] != 0 && is(-double(g.side) * nb[d])) {  // the term of neighbour d is missing
          // (neighbours of equal value fit alike: each direction counts the cells it fits, and the first
          // that fits gets the cell in the list for several directions)
          const int line = d < left ? y : x;
          ++fit[d];
          if (fit_rows[d].empty() || fit_rows[d].back() != line) fit_rows[d].push_back(line);
          if (fits) continue;
          ++missing[d];
          std::vector<int>& where = miss_rows[d];
          if (where.empty() || where.back() != line) where.push_back(line);
          ++lacks;
          fits = true;
        }
      if (wrap != 0 && is(double(g.side) * wrap)) {
        ++wrapped;
        fits = true;
      }
      if (std::fabs(got[k]) > 1e30f) {
        ++guard_leak;
        fits = true;
      }
      if (std::fabs(double(got[k]) - (double(g.side) * g.at(y, x) +
                                      double(g.center) * (double(nb[0]) + nb[1] + nb[2] + nb[3]))) <= tol) {
        ++swapped;
        fits = true;
      }
      if (!fits && !other++) first_other = std::int64_t(k);
    }
  if (c.wrong == 0) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const std::int64_t f = c.first_wrong;
  const std::string first = exercise::cell("out", f / g.width, f % g.width);
  const std::int64_t named = c.wrong - c.unwritten;
  if (c.unwritten == c.n) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "no cell of out was written: the kernel did not run or wrote nothing";
  } else if (c.unwritten == c.wrong && !tile_lines(g, got).empty()) {
    c.diagnosis = std::to_string(c.unwritten) + " cells of out were never written, first " +
                  exercise::cell("out", first_unwritten / g.width, first_unwritten % g.width) + ": " +
                  tile_lines(g, got);
  } else if (c.unwritten == c.wrong) {
    const bool cols = unwritten_min_x > 0, rows = unwritten_min_y > 0;
    c.diagnosis = std::to_string(c.unwritten) + " cells of out were never written, first " +
                  exercise::cell("out", first_unwritten / g.width, first_unwritten % g.width) +
                  (cols ? ": every cell from column " + std::to_string(unwritten_min_x) + " on" : "") +
                  (rows ? std::string(cols ? " and" : ":") + " every cell from row " + std::to_string(unwritten_min_y) +
                              " on"
                        : "") +
                  (cols || rows ? " is missing: the grid of blocks must cover the whole grid (round the block count up "
                                  "in each dimension)"
                                : ": does every thread write each of its cells?");
  } else if (guard_leak > 0) {
    c.diagnosis = first + " is " + wb::format_value(got[f]) +
                  ": the grader's guard values (-1.7e38), before the first row "
                  "and after the last, leaked in: a neighbour outside the grid was read from memory; outside the grid "
                  "counts as 0";
  } else if (wrapped == named && (lacks < named || wrapped == wrap_cells)) {
    // (when the wrong cells fit a missing halo too, the wrap is named only if it changed every cell it would)
    c.diagnosis = "cells of the first or last column took the end of the row above, or the start of the row below, as "
                  "their neighbour (first " + first + "): in[y][-1] is not in[y-1][width-1]; a neighbour outside the "
                  "grid, left or right as above or below, counts as 0";
  } else if (swapped == named) {
    c.diagnosis = first + " is side * in[y][x] + center * (its neighbours): center and side are swapped";
  } else if (lacks == named && std::any_of(fit, fit + kDirs, [&](std::int64_t n) { return n == named; })) {
    const int d = int(std::find(fit, fit + kDirs, named) - fit);
    c.diagnosis = std::to_string(named) + " cells lack their neighbour " + kDirName[d] + " (" +
                  list_of(d < left ? "row" : "column", fit_rows[d]) +
                  "): a tile's edge cells take that neighbour from the halo, so that side of the halo was never "
                  "loaded into shared memory (or was read as 0)";
  } else if (lacks == named) {
    std::string which;
    int sides = 0;
    for (int d = 0; d < kDirs; ++d) {
      if (!missing[d]) continue;
      ++sides;
      which += std::string(which.empty() ? "" : "; ") + std::to_string(missing[d]) + " cells lack their neighbour " +
               kDirName[d] + " (" + list_of(d < left ? "row" : "column", miss_rows[d]) + ")";
    }
    c.diagnosis = which + (sides == 1 ? ": a tile's edge cells take that neighbour from the halo, so that side of the "
                                        "halo was never loaded into shared memory (or was read as 0)"
                                      : ": a tile's edge cells take their neighbours from the halo, so the halo around "
                                        "the tile was not loaded into shared memory (or was read as 0): load the tile "
                                        "plus one cell on every side, 0 outside the grid");
  } else {
    const std::int64_t o = first_other >= 0 ? first_other : f;
    c.diagnosis = "wrong values, first " + exercise::cell("out", o / g.width, o % g.width) + " (expected " +
                  wb::format_value(ref.out[o]) + ", got " + wb::format_value(got[o]) + ")";
  }
  return c;
}

// Runs student::stencil5 on the grid once and checks out and that in is unchanged.
wb::Comparison run_case(const Grid& g) {
  wb::DeviceBuffer<float> din(g.in), dout(g.in.size());
  dout.poison();
  const Reference ref = reference(g);
  wb::run_launch("stencil5 (" + g.context + ")",
                 [&] { student::stencil5(din.data(), dout.data(), g.height, g.width, g.center, g.side); });
  return wb::inputs_then_output(wb::inputs_unchanged<float>({{"in", g.in, din}}, "out", ref.out),
                                [&] { return judge(g, ref, dout); }, g.context);
}

// The grids the correctness cases use (height, width).
const std::vector<std::tuple<int, int>> kShapes = {{1, 1},    {1, 7},    {6, 1},    {2, 2},     {3, 31},
                                                   {31, 33},  {32, 32},  {33, 32},  {8, 100},   {65, 63},
                                                   {100, 129}, {257, 33}, {31, 1000}, {70, 70}};

}  // namespace

TEST_CASE("one stencil step on awkward grids", "[x09][correctness]") {
  WB_REQUIRE_DEVICE();
  const auto [height, width] = GENERATE(from_range(kShapes));
  CAPTURE(height, width);
  WB_REQUIRE_MATCH(run_case(int_grid(height, width)));
}

TEST_CASE("other weights, and random floats", "[x09][correctness]") {
  WB_REQUIRE_DEVICE();
  Grid g = int_grid(45, 77);
  g.center = -0.5f;
  g.side = 0.125f;
  g.context = exercise::shape(45, 77) + " grid, integers, center -1/2, side 1/8";
  WB_REQUIRE_MATCH(run_case(g));
  Grid f{wb::random_floats(300 * 301, -1.0f, 3.0f, 9), 300, 301, 0.6f, 0.1f, "300 x 301 grid, random floats"};
  WB_REQUIRE_MATCH(run_case(f));
}

TEST_CASE("a large grid", "[x09][correctness]") {
  WB_REQUIRE_DEVICE();
  const int height = wb::cpu_backend() ? 257 : 4097, width = wb::cpu_backend() ? 263 : 4099;
  WB_REQUIRE_MATCH(run_case(int_grid(height, width)));
}

TEST_CASE("the tiles are staged in shared memory", "[x09][tiles]") {
  // On every grid the correctness cases use: the kernel has shared memory, and (CPU backend) the
  // cells' inputs come from it. Without a tile a kernel reads each cell and each of its neighbours
  // inside the grid, up to 5 reads per cell; a square tile and its halo about 1 to 1.6, a tile one
  // row high 3. A kernel that loads a tile and then reads the neighbours from global memory all the
  // same reads at least as much as no tile at all (the center alone from the tile: 4 of 5), so
  // three quarters of the tile-less count is the limit.
  WB_REQUIRE_DEVICE();
  std::vector<std::tuple<int, int>> shapes = kShapes;
  shapes.push_back({45, 77});
  shapes.push_back({257, 263});
  const auto [height, width] = GENERATE_COPY(from_range(shapes));
  CAPTURE(height, width);
  const Grid g = int_grid(height, width);
  std::vector<wb::LaunchRecord> launches;
  std::size_t shared = 0;
  double global_reads = 0, shared_reads = 0;  // in floats
  bool instrumented = false;
  {
    wb::LaunchLog log;
    WB_REQUIRE_MATCH(run_case(g));
    launches = log.launches();
#ifdef WB_EMU
    for (const wb_emu::LaunchConfig& l : wb_emu::launch_log()) {
      shared = std::max(shared, l.shared_use.static_bytes + l.shared_use.dynamic_bytes);
      global_reads += double(l.memory.loads.bytes) / sizeof(float);
      shared_reads += double(l.memory.shared_load_bytes) / sizeof(float);
      instrumented = instrumented || l.memory.instrumented;
    }
#endif
  }
  for (const wb::LaunchRecord& l : launches) shared = std::max(shared, l.shared_bytes);
#ifndef WB_EMU
  if (shared == 0)
    wb::note_unchecked("whether the kernel stages its tiles in shared memory (a GPU shows only a launch's dynamic "
                       "shared memory; the CPU backend sees __shared__ arrays too)");
  shared = 1;
#endif
  if (shared == 0)
    WB_FAIL_TOO_SLOW("out is right, but the kernel used no shared memory (" + exercise::shape(height, width) +
                     " grid): it reads each cell's neighbours from global memory, 5 reads per cell. This exercise "
                     "stages each block's tile plus a halo one cell wide in shared memory, so that each cell of in is "
                     "read from memory about once");
  // What a kernel without a tile reads: each cell and its neighbours inside the grid.
  const double cells = double(height) * width,
               direct = 5 * cells - 2.0 * width - 2.0 * height;
  if (instrumented && direct >= 2 * cells && global_reads > 0.75 * direct) {
    char counts[160];
    std::snprintf(counts, sizeof counts, "%.1f reads of global memory per cell and %.1f of shared memory",
                  global_reads / cells, shared_reads / cells);
    WB_FAIL_TOO_SLOW("out is right and the kernel has shared memory, but the cells' inputs come from global memory (" +
                     exercise::shape(height, width) + " grid: " + counts +
                     "): the tile is loaded and then not read. Each cell's five inputs, its own and its neighbours', "
                     "must come from the tile in shared memory, so that each cell of in is read from global memory "
                     "about once");
  }
}

TEST_CASE("speed against the solution, PyTorch's conv2d and a copy", "[x09][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const int height = 8192, width = 8192;
  const std::size_t n = std::size_t(height) * width;
  Grid g{wb::random_floats(n, -1.0f, 3.0f, 17), height, width, 0.5f, 0.125f, exercise::shape(height, width) + " grid"};
  wb::DeviceBuffer<float> din(g.in), dout(n), copy(n);
  const std::vector<float> cross = {0, g.side, 0, g.side, g.center, g.side, 0, g.side, 0};
  wb::DeviceBuffer<float> filter(cross);
  const std::string size = exercise::shape(height, width);
  auto yours = [&] { student::stencil5(din.data(), dout.data(), height, width, g.center, g.side); };
  wb::grade_speed(
      wb::SpeedCase("5-point stencil on " + size + " floats (8 bytes per cell)",
                    wb::memory_bound(2.0 * sizeof(float) * n))  // in read once, out written once
          .yours("your stencil5", yours)
          .solution("solution (32x32 tiles + halo)",
                    [&] { solution::stencil5(din.data(), dout.data(), height, width, g.center, g.side); })
          .row("device-to-device copy", [&] { wb::anchors::device_copy(din.data(), copy.data(), std::int64_t(n)); })
          .anchor(wb::anchors::torch_anchor(
              "PyTorch conv2d 3x3", [&] { wb::anchors::torch_conv2d_3x3(din.data(), height, width, filter.data()); }))
          .bar(size, "out")
          .table_row("x09-stencil"),
      [&] {
        dout.poison();
        wb::run_launch("stencil5 (after timing, " + size + ")", yours);
        g.context = "after timing, " + g.context;
        return judge(g, reference(g), dout);
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp): six tiles with their halos, the last row and column of them partial.
WB_SANITIZER_CASE("[x09]", "one stencil step on a 65 x 63 grid") {
  WB_REQUIRE_MATCH(run_case(int_grid(65, 63)));
}
