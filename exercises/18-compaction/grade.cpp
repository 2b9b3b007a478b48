// Exercise 18's grader: student::select_greater against the kept elements computed on the host,
// on n at warp, block and tile boundaries +- 1, with inputs where nothing is kept, everything,
// every other element, and only the last few elements (the last tile); scratch full of garbage
// at the first call and left as the previous call left it at the next; then, on a GPU, its
// speed against the solution and cub::DeviceSelect::If.
//
// The inputs name their positions: a kept element is i + 1 (exact below 2^24), one that is not
// is -(i + 1) or the threshold itself (0.5: equal is not greater), so a wrong element says which
// input it came from and whether `>=` was used. Everything is compared exactly.
//
// A wrong result is explained by its shape: count not written, elements equal to the threshold
// kept, the right elements out of their order, the kept elements of the last (partial) tile
// missing, out shifted by one place (an inclusive scan used as places), out written past the
// count, or the count alone wrong.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "compaction.cuh"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

constexpr float kThreshold = 0.5f;

// ---- inputs ----
enum class Kind { random, none_kept, all_kept, alternating, last_few };

std::string describe(Kind kind) {
  switch (kind) {
    case Kind::random: return "about half kept, at random";
    case Kind::none_kept: return "nothing kept";
    case Kind::all_kept: return "everything kept";
    case Kind::alternating: return "every other element kept";
    case Kind::last_few: return "only the last 37 elements kept";
  }
  return "";
}

// in[i] = i + 1 where kept, otherwise -(i + 1) or exactly the threshold (not greater: not kept).
std::vector<float> make_input(Kind kind, std::int64_t n, std::uint64_t stream) {
  auto rng = wb::rng_for(stream);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t r = rng();
    bool keep = false;
    switch (kind) {
      case Kind::random: keep = r & 1; break;
      case Kind::none_kept: keep = false; break;
      case Kind::all_kept: keep = true; break;
      case Kind::alternating: keep = i % 2 == 1; break;
      case Kind::last_few: keep = i >= n - 37; break;
    }
    v[std::size_t(i)] = keep ? float(i + 1) : (r >> 1) % 3 == 0 ? kThreshold : -float(i + 1);
  }
  return v;
}

// ---- CPU reference ----
struct Reference {
  std::vector<float> out;         // the kept elements, in order
  std::vector<std::int64_t> pos;  // their positions in in
};

Reference reference(const std::vector<float>& in) {
  Reference r;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i] > kThreshold) {
      r.out.push_back(in[i]);
      r.pos.push_back(std::int64_t(i));
    }
  return r;
}

// ---- diagnosis ----
// Explains a wrong compaction in the exercise's terms (see the top of this file).
wb::Comparison judge(const std::vector<float>& in, const Reference& ref, const wb::DeviceBuffer<float>& dout,
                     const wb::DeviceBuffer<std::int64_t>& dcount, const std::string& context) {
  const std::int64_t n = std::int64_t(in.size()), k = std::int64_t(ref.out.size());
  wb::Comparison c = wb::guarded_comparison("out", n, context, dout, [&](std::int64_t at) {
    return "out[" + std::to_string(at) + "] was written: out has room for n = " + std::to_string(n) +
           " elements (is every place below the count, and every load and store guarded by i < n?)";
  });
  if (!c.ok()) return c;
  c = wb::guarded_comparison("count", 1, context, dcount, [&](std::int64_t at) {
    return "count[" + std::to_string(at) + "] was written: count is one number, *count";
  });
  if (!c.ok()) return c;
  const std::vector<float> got = dout.download();
  const std::int64_t count = dcount.download()[0];
  const bool count_unwritten = wb::never_written(count);
  std::int64_t written = 0, written_past = -1;
  for (std::int64_t j = 0; j < n; ++j) {
    if (wb::never_written(got[std::size_t(j)])) continue;
    ++written;
    if (j >= k && written_past < 0) written_past = j;
  }
  // The elements of out[0..k) (and *count), listed the usual way.
  c.array = "out";
  c.n = k;
  for (std::int64_t j = 0; j < k; ++j) {
    const float g = got[std::size_t(j)];
    if (g == ref.out[std::size_t(j)]) continue;
    if (c.first_wrong < 0) c.first_wrong = j;
    ++c.wrong;
    c.unwritten += wb::never_written(g);
    if (c.listed.size() < 5) c.listed.push_back({j, ref.out[std::size_t(j)], g, wb::never_written(g)});
  }
  const bool out_right = c.wrong == 0 && written_past < 0;
  if (out_right && count == k) return c;
  c.pattern = wb::Pattern::chapter_specific;
  const std::string kept_is = "in[i] > threshold for " + std::to_string(k) + " of the n = " + std::to_string(n) +
                              " elements";
  auto in_at = [&](std::int64_t j) {  // "in[p]" for a value of out, where the value names its position
    const float g = got[std::size_t(j)];
    const double p = g > 0 ? double(g) - 1 : -double(g) - 1;
    return p >= 0 && p < double(n) && in[std::size_t(p)] == g ? "in[" + std::to_string(std::int64_t(p)) + "]"
                                                               : std::string("a value not in in");
  };

  if (count_unwritten && written == 0) {
    // n = 0 is certain: the stub writes *count = 0 there, so only a launcher that returns early fails it
    c.pattern = n > 0 ? wb::Pattern::nothing_written : wb::Pattern::chapter_specific;
    c.diagnosis = k > 0 ? "neither out nor count was written: the kernels did not run or wrote nothing"
                        : "count was never written: nothing is kept here (" + kept_is + "), but *count must still "
                          "be set, to 0" + (n == 0 ? " (n = 0: no kernel needs to run, but count must be written)" : "");
    return c;
  }
  // Elements that are not greater than the threshold, in out's first min(count, n) places.
  const std::int64_t claimed = count_unwritten ? 0 : std::max<std::int64_t>(0, std::min(count, n));
  for (std::int64_t j = 0; j < std::max(claimed, k); ++j) {
    const float g = got[std::size_t(j)];
    if (wb::never_written(g) || g > kThreshold) continue;
    c.diagnosis = "out[" + std::to_string(j) + "] = " + wb::format_value(g) + " is not greater than the threshold " +
                  wb::format_value(kThreshold) + (g == kThreshold ? " (it equals it)" : "") +
                  ": keep only the elements with in[i] > threshold" +
                  (g == kThreshold ? ", strictly (> , not >=)" : "");
    return c;
  }
  if (count_unwritten) {
    c.diagnosis = "count was never written: *count must say how many elements were kept (" + kept_is + ")";
    return c;
  }
  if (out_right) {
    c.diagnosis = "out[0.." + std::to_string(k) + ") holds the kept elements, in order, but count = " +
                  std::to_string(count) + " (" + kept_is + "): *count must be the total of every tile's count, "
                  "the last tile's included" + (count == k - 1 || count == k + 1 ? " (off by one)" : "");
    return c;
  }
  // out shifted one place: out[j + 1] = ref[j] (an inclusive scan used as places).
  bool shifted = k > 0 && n > k;
  for (std::int64_t j = 0; j < k && shifted; ++j) shifted = got[std::size_t(j + 1)] == ref.out[std::size_t(j)];
  if (shifted) {
    c.diagnosis = "out is shifted one place to the right: out[j + 1] holds the j-th kept element and out[0] was "
                  "never written. A kept element's place is the number of kept elements before it (an exclusive "
                  "scan of the flags), not counting itself";
    return c;
  }
  // The kept elements from some point on are missing, the ones before right.
  const std::int64_t f = c.first_wrong >= 0 ? c.first_wrong : k;
  bool suffix_missing = f < k && written_past < 0;
  for (std::int64_t j = f; j < k && suffix_missing; ++j) suffix_missing = wb::never_written(got[std::size_t(j)]);
  if (suffix_missing) {
    c.pattern = wb::Pattern::tail_wrong;
    c.diagnosis = "out[0.." + std::to_string(f) + ") is right, but the kept elements from in[" +
                  std::to_string(ref.pos[std::size_t(f)]) + "] on are missing (count = " + std::to_string(count) +
                  ", " + kept_is + "): n = " + std::to_string(n) +
                  " is not a multiple of your tile: are the last, partial tile's elements counted and written? "
                  "round the number of tiles up";
    return c;
  }
  // The right elements, in another order?
  if (count == k && written_past < 0 && c.unwritten == 0) {
    std::vector<float> a(got.begin(), got.begin() + k), b = ref.out;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a == b) {
      const std::int64_t j = c.first_wrong;
      c.diagnosis = "out holds the right elements, but not in their order: out[" + std::to_string(j) + "] = " +
                    wb::format_value(got[std::size_t(j)]) + " (" + in_at(j) + ") where in[" +
                    std::to_string(ref.pos[std::size_t(j)]) + "] = " + wb::format_value(ref.out[std::size_t(j)]) +
                    " belongs. The kept elements must keep the order they have in in: a place from a scan of the "
                    "flags (the tile's start plus the kept elements before it), not from an atomicAdd on a counter, "
                    "whose order is whatever order the threads and blocks happen to run in";
      return c;
    }
  }
  if (c.wrong == 0 && written_past >= 0) {
    c.diagnosis = "out[0.." + std::to_string(k) + ") is right, but out[" + std::to_string(written_past) +
                  "] was written too: out[count..n) must be left as it was (" + kept_is + ")";
    return c;
  }
  const std::int64_t j = c.first_wrong;
  c.diagnosis = "out[" + std::to_string(j) + "] should be in[" + std::to_string(ref.pos[std::size_t(j)]) + "] = " +
                wb::format_value(ref.out[std::size_t(j)]) + ", the kept element number " + std::to_string(j) +
                ", but is " +
                (wb::never_written(got[std::size_t(j)]) ? std::string("never written")
                                                        : wb::format_value(got[std::size_t(j)]) + " (" + in_at(j) + ")") +
                " (count = " + std::to_string(count) + ", " + kept_is +
                "): are the tiles' starts an exclusive scan of the tiles' counts, in tile order?";
  return c;
}

// What scratch holds before the first call: the bytes 0x5C over and over (not zeros, not the
// poison pattern), so counts read before they are written are wrong.
std::vector<unsigned char> scratch_garbage(std::size_t bytes) { return std::vector<unsigned char>(bytes, 0x5C); }

// One compaction of `in` with fresh buffers: out and count poisoned, scratch full of garbage,
// `calls` calls in a row on the same scratch.
wb::Comparison run_case(const std::vector<float>& in, const std::string& context, int calls = 1) {
  const std::int64_t n = std::int64_t(in.size());
  const Reference ref = reference(in);
  wb::DeviceBuffer<float> din(in), dout(in.size());
  wb::DeviceBuffer<std::int64_t> dcount(1);
  const std::size_t bytes = student::select_scratch_bytes(n);
  wb::DeviceBuffer<unsigned char> dscratch(bytes);
  dscratch.upload(scratch_garbage(bytes));
  wb::Comparison c;
  for (int call = 1; call <= calls && c.ok(); ++call) {
    const std::string where =
        calls > 1 ? context + ", call " + std::to_string(call) + " of " + std::to_string(calls) : context;
    dout.poison();
    dcount.poison();
    wb::run_launch("select_greater (" + where + ")", [&] {
      student::select_greater(din.data(), n, kThreshold, dout.data(), dcount.data(), dscratch.data());
    });
    c = wb::guarded_comparison("scratch", std::int64_t(bytes), where, dscratch, [&](std::int64_t at) {
      return "scratch byte " + std::to_string(at) + " was written, outside the " + std::to_string(bytes) +
             " bytes select_scratch_bytes(" + std::to_string(n) + ") asked for";
    });
    if (!c.ok()) return c;
    c = wb::inputs_then_output(wb::inputs_unchanged<float>({{"in", in, din}}, "out and count"),
                               [&] { return judge(in, ref, dout, dcount, where); }, where);
  }
  return c;
}

std::string n_is(std::int64_t n) { return "n = " + std::to_string(n); }

}  // namespace

TEST_CASE("about half kept at random, for n at warp, block and tile boundaries", "[x18][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 0, 1, 2, 31, 32, 33, 255, 256, 257, 4095, 4096, 4097, 8191,
                                  8192, 8193, 65'537, 1'000'003);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(make_input(Kind::random, n, 7 * n + 1), n_is(n) + ", " + describe(Kind::random)));
}

TEST_CASE("nothing kept, everything kept, every other one, only the last few", "[x18][correctness]") {
  WB_REQUIRE_DEVICE();
  const Kind kind = GENERATE(Kind::none_kept, Kind::all_kept, Kind::alternating, Kind::last_few);
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 37, 4097, 100'003);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(make_input(kind, n, 3 * n + int(kind)), n_is(n) + ", " + describe(kind)));
}

TEST_CASE("three calls in a row on the same scratch memory", "[x18][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = 300'007;
  WB_REQUIRE_MATCH(run_case(make_input(Kind::random, n, 5), n_is(n) + ", " + describe(Kind::random), 3));
}

TEST_CASE("a large input", "[x18][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = wb::cpu_backend() ? (std::int64_t(1) << 21) + 3 : (std::int64_t(1) << 24) - 3;
  WB_REQUIRE_MATCH(run_case(make_input(Kind::random, n, 99), n_is(n) + ", " + describe(Kind::random)));
}

TEST_CASE("speed against the solution and cub::DeviceSelect::If", "[x18][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const std::int64_t n = std::int64_t(1) << 24;  // every kept value still names its position
  const std::vector<float> in = make_input(Kind::random, n, 2024);
  const Reference ref = reference(in);
  wb::DeviceBuffer<float> din(in), dout(in.size());
  wb::DeviceBuffer<std::int64_t> dcount(1);
  wb::DeviceBuffer<unsigned char> mine(student::select_scratch_bytes(n)), theirs(solution::select_scratch_bytes(n));
  auto yours = [&] { student::select_greater(din.data(), n, kThreshold, dout.data(), dcount.data(), mine.data()); };
  const double bytes = 4.0 * double(n) + 4.0 * double(ref.out.size());  // read every element, write the kept ones
  wb::grade_speed(  // shown, not graded: the exercise is a correct, order-keeping compaction of any n
      wb::SpeedCase("compaction of 2^24 floats, about half kept (every element read, the kept ones written)",
                    wb::memory_bound(bytes))
          .yours("your select_greater", yours)
          .solution("solution (count, scan, write: 3 kernels)",
                    [&] { solution::select_greater(din.data(), n, kThreshold, dout.data(), dcount.data(), theirs.data()); })
          .anchor({"cub::DeviceSelect::If",
                   [&] { wb::anchors::cub_select_greater(din.data(), n, kThreshold, dout.data(), dcount.data()); }})
          .bar("2^24 floats", "the compaction")
          .table_row("x18-compaction", "2^24 floats"),
      [&] {
        dout.poison();
        dcount.poison();
        wb::run_launch("select_greater (after timing, n = 2^24)", yours);
        return judge(in, ref, dout, dcount, "after timing, n = 2^24");
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp):
// a few tiles, the last one partial.
WB_SANITIZER_CASE("[x18]", "the compaction of 5000 elements, about half kept") {
  WB_REQUIRE_MATCH(run_case(make_input(Kind::random, 5000, 43), n_is(5000) + ", " + describe(Kind::random)));
}
