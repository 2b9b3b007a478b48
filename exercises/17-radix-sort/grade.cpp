// Exercise 17's grader: student::radix_sort_pairs against a stable sort on the host, on awkward
// n (around warp, block and tile sizes, 2^k +- 1), with keys that expose the classic bugs: all
// equal (stability), the top bit set (a digit or compare taken from a signed int), few distinct
// values, already sorted, reversed; then, on a GPU, its speed against the solution and
// cub::DeviceRadixSort::SortPairs.
//
// Every value names the input position its pair came from (value = position ^ kValueMark), so
// the grader sees where each output pair came from: a pair with the right key but an earlier
// input position after a later one is an unstable pass, a value that does not belong to its key
// is a value that did not move with its key. Keys and values are compared exactly.
//
// A wrong sort is explained by its shape: a suffix never written (the last, partial tile), the
// right keys sorted as signed ints, sorted by the low bits only (passes missing), equal keys out
// of input order (an unstable scatter), keys lost and doubled (two pairs given one place), or
// the first two neighbours out of order with the digit they differ in.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "radix_sort.cuh"
#include "wb/grader.hpp"
#include "wb/library_anchors.hpp"

namespace {

using Keys = std::vector<std::uint32_t>;

// value = input position ^ kValueMark: never the poison pattern 0xFFFFFFFF (positions stay
// below 2^24), and not the position itself, so a kernel that writes the index it read from
// instead of the value is caught.
constexpr std::uint32_t kValueMark = 0xA5000000u;
constexpr std::int64_t kMaxN = std::int64_t(1) << 24;

std::vector<std::uint32_t> position_values(std::int64_t n) {
  std::vector<std::uint32_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[std::size_t(i)] = std::uint32_t(i) ^ kValueMark;
  return v;
}

// ---- CPU reference: the input positions in sorted order, equal keys in input order ----
std::vector<std::uint32_t> stable_order(const Keys& keys) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  return order;
}

// ---- inputs ----
enum class Kind { random, all_equal, top_bit, few_distinct, sorted, reversed };

std::string describe(Kind kind) {
  switch (kind) {
    case Kind::random: return "random 32-bit keys";
    case Kind::all_equal: return "every key 0x80000001";
    case Kind::top_bit: return "keys 0..15 and 0xFFFFFFF0..0xFFFFFFFF";
    case Kind::few_distinct: return "keys 0, 1, 2, 3 only";
    case Kind::sorted: return "keys already sorted";
    case Kind::reversed: return "keys in descending order";
  }
  return "";
}

Keys make_keys(Kind kind, std::int64_t n, std::uint64_t stream) {
  auto rng = wb::rng_for(stream);
  Keys k(static_cast<std::size_t>(n));
  for (auto& x : k) x = std::uint32_t(rng());
  switch (kind) {
    case Kind::random: break;
    case Kind::all_equal: std::fill(k.begin(), k.end(), 0x80000001u); break;
    case Kind::top_bit:
      for (auto& x : k) x = (x & 0x80000000u) ? 0xFFFFFFF0u | (x & 15u) : x & 15u;
      break;
    case Kind::few_distinct:
      for (auto& x : k) x &= 3u;
      break;
    case Kind::sorted: std::sort(k.begin(), k.end()); break;
    case Kind::reversed: std::sort(k.begin(), k.end(), [](std::uint32_t a, std::uint32_t b) { return a > b; }); break;
  }
  return k;
}

std::string hex(std::uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08X", v);
  return s;
}

// ---- diagnosis ----
// Explains a wrong sort in the exercise's terms (see the top of this file).
wb::Comparison judge(const Keys& keys, const std::vector<std::uint32_t>& order, const wb::DeviceBuffer<std::uint32_t>& dkeys,
                     const wb::DeviceBuffer<std::uint32_t>& dvalues, const std::string& context) {
  const std::int64_t n = std::int64_t(keys.size());
  const std::size_t un = keys.size();
  for (const auto* out : {&dkeys, &dvalues}) {
    const std::string name = out == &dkeys ? "keys_out" : "values_out";
    wb::Comparison g = wb::guarded_comparison(name, n, context, *out, [&](std::int64_t at) {
      return name + "[" + std::to_string(at) + "] was written: " + name + " has n = " + std::to_string(n) +
             " elements (a place computed outside 0..n-1: is the scan of the digit counts exclusive, "
             "starting at 0, and is every count below n?)";
    });
    if (!g.ok()) return g;
  }
  const Keys gk = dkeys.download(), gv = dvalues.download();
  wb::Comparison c;
  c.array = "keys_out";
  c.n = n;
  c.context = context;
  std::vector<bool> unwritten(un);
  bool keys_right = true;
  for (std::size_t i = 0; i < un; ++i) {
    const std::uint32_t ek = keys[order[i]], ev = order[i] ^ kValueMark;
    unwritten[i] = gk[i] == 0xFFFFFFFFu && gv[i] == 0xFFFFFFFFu;
    keys_right = keys_right && gk[i] == ek;
    if (gk[i] == ek && gv[i] == ev) continue;
    if (c.first_wrong < 0) c.first_wrong = std::int64_t(i);
    ++c.wrong;
    c.unwritten += unwritten[i];
  }
  if (c.wrong == 0) return c;
  // List keys, or values where every key is right.
  if (keys_right) c.array = "values_out";
  for (std::size_t i = std::size_t(c.first_wrong); i < un && c.listed.size() < 5; ++i) {
    const std::uint32_t ek = keys[order[i]], ev = order[i] ^ kValueMark;
    if (gk[i] == ek && gv[i] == ev) continue;
    c.listed.push_back({std::int64_t(i), double(keys_right ? ev : ek), double(keys_right ? gv[i] : gk[i]), unwritten[i]});
  }
  c.pattern = wb::Pattern::chapter_specific;
  const std::size_t k = std::size_t(c.first_wrong);
  auto pos_of = [&](std::size_t i) { return gv[i] ^ kValueMark; };  // the input position a value names

  if (c.unwritten == n) {
    c.pattern = wb::Pattern::nothing_written;
    c.diagnosis = "no element of keys_out or values_out was written: the kernels did not run or wrote nothing";
    return c;
  }
  bool suffix_unwritten = true;
  for (std::size_t i = k; i < un && suffix_unwritten; ++i) suffix_unwritten = unwritten[i];
  if (suffix_unwritten) {
    c.pattern = wb::Pattern::tail_wrong;
    c.diagnosis = "keys_out[" + std::to_string(k) + ".." + std::to_string(n) + ") and values_out there were never "
                  "written: the last " + std::to_string(n - std::int64_t(k)) + " places (n = " + std::to_string(n) +
                  " is not a multiple of your tile: are the keys of the last, partial tile counted and scattered? "
                  "round the number of tiles up)";
    return c;
  }
  // The last u places never written, the others the first n - u input keys, sorted: the keys of
  // the last, partial tile were never counted nor scattered.
  std::size_t u = 0;
  while (u < un && unwritten[un - 1 - u]) ++u;
  if (u > 0 && std::int64_t(u) == c.unwritten) {
    const std::size_t m = un - u;
    Keys part(gk.begin(), gk.begin() + std::ptrdiff_t(m)), first(keys.begin(), keys.begin() + std::ptrdiff_t(m));
    std::sort(first.begin(), first.end());
    if (part == first) {
      c.pattern = wb::Pattern::tail_wrong;
      c.diagnosis = "keys_out[" + std::to_string(m) + ".." + std::to_string(n) + ") was never written, and keys_out[0.." +
                    std::to_string(m) + ") holds the keys of keys_in[0.." + std::to_string(m) +
                    ") sorted: the last " + std::to_string(u) + " keys were never counted nor scattered (n = " +
                    std::to_string(n) + " is not a multiple of your tile: is the last, partial tile counted and "
                    "scattered? round the number of tiles up)";
      return c;
    }
  }
  if (keys_right) {
    // Does every value belong to a pair with its key? Then only the order of equal keys is wrong.
    for (std::size_t i = 0; i < un; ++i) {
      const std::uint32_t p = pos_of(i);
      if (p < un && keys[p] == gk[i]) continue;
      c.diagnosis = "keys_out is right, but values_out[" + std::to_string(i) + "] = " + hex(gv[i]) +
                    " is not the value of any pair with key " + hex(gk[i]) +
                    ": the values did not move with their keys (write each value to the same place as the key "
                    "it was read with, in every pass)";
      return c;
    }
    for (std::size_t i = 0; i + 1 < un; ++i) {
      if (gk[i] != gk[i + 1] || pos_of(i) < pos_of(i + 1)) continue;
      c.diagnosis = "keys_out is sorted, but pairs with equal keys are out of their input order: keys_out[" +
                    std::to_string(i) + "] and keys_out[" + std::to_string(i + 1) + "] are both " + hex(gk[i]) +
                    ", with the values of input positions " + std::to_string(pos_of(i)) + " and " +
                    std::to_string(pos_of(i + 1)) +
                    ". The sort is not stable: within a tile, a key's rank among the keys with its digit must be "
                    "the number of those before it in the input (not the order threads or atomics happen to run "
                    "in), and the tiles' offsets must follow the tiles' order";
      return c;
    }
    c.diagnosis = "keys_out is right, but values_out holds some pair's value twice: values were written to the "
                  "wrong places";
    return c;
  }
  // The keys are wrong. Are they at least keys_in rearranged?
  Keys want = keys, got = gk;
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  std::int64_t missing = 0;
  {
    std::size_t a = 0, b = 0;
    while (a < un && b < un) {
      if (want[a] == got[b]) ++a, ++b;
      else if (want[a] < got[b]) ++a, ++missing;
      else ++b;
    }
    missing += std::int64_t(un - a);
  }
  if (missing > 0) {
    c.diagnosis = "keys_out is not keys_in rearranged: " + std::to_string(missing) + " of the n = " +
                  std::to_string(n) + " keys are missing" +
                  (c.unwritten > 0 ? " (" + std::to_string(c.unwritten) + " places never written)" : "") +
                  " and others are there twice: two pairs were given one place. Is a pair's place the offset of its "
                  "tile and digit (an exclusive scan of the counts, digit-major: every tile's count of digit 0, "
                  "then of digit 1, ...) plus the keys with that digit before it in the tile?";
    return c;
  }
  // The two shapes below are told apart from chance only with enough keys (with 2 keys, any
  // order is "sorted" by something): below 64, the first two neighbours out of order say it.
  const bool enough = n >= 64;
  const bool signed_order = enough && std::is_sorted(gk.begin(), gk.end(), [](std::uint32_t a, std::uint32_t b) {
    return std::int32_t(a) < std::int32_t(b);
  });
  if (signed_order) {
    c.diagnosis = "keys_out is sorted as signed 32-bit integers: the keys with the top bit set (2^31 and above) "
                  "come first, but as unsigned keys they are the largest. Is a digit or a comparison taken from an "
                  "int (the top digit of an int key is negative, or sign-extended)?";
    return c;
  }
  for (int bits = 31; bits >= 1 && enough; --bits) {
    const std::uint32_t mask = (1u << bits) - 1u;
    const bool low_sorted = std::is_sorted(gk.begin(), gk.end(),
                                           [&](std::uint32_t a, std::uint32_t b) { return (a & mask) < (b & mask); });
    if (!low_sorted) continue;
    c.diagnosis = "keys_out is sorted by the low " + std::to_string(bits) + " bits of the keys only: bits " +
                  std::to_string(bits) + "..31 were never sorted on (a pass missing, or its result not the one the "
                  "next pass read or the last pass wrote)";
    return c;
  }
  for (std::size_t i = 0; i + 1 < un; ++i) {
    if (gk[i] <= gk[i + 1]) continue;
    const int high = 31 - __builtin_clz(gk[i] ^ gk[i + 1]);
    c.diagnosis = "keys_out holds the right keys but is not sorted: keys_out[" + std::to_string(i) + "] = " +
                  hex(gk[i]) + " comes before keys_out[" + std::to_string(i + 1) + "] = " + hex(gk[i + 1]) +
                  ". They first differ in bit " + std::to_string(high) + ": either the pass whose digit holds bit " +
                  std::to_string(high) + " put them in the wrong order, or a later pass, where their digits are "
                  "equal, did not keep the order it was given (a pass that is not stable: a key's rank among equal "
                  "digits must follow input order)";
    return c;
  }
  c.diagnosis = "keys_out is wrong";
  return c;
}

// What scratch holds before the first call: the bytes 0x5C over and over (not zeros, not the
// poison pattern), so counts or offsets read before they are written are wrong.
std::vector<unsigned char> scratch_garbage(std::size_t bytes) { return std::vector<unsigned char>(bytes, 0x5C); }

// One sort of `keys` (values naming their input positions) with fresh buffers: outputs poisoned,
// scratch full of garbage, `calls` calls in a row on the same scratch.
wb::Comparison run_case(const Keys& keys, const std::string& context, int calls = 1) {
  const std::int64_t n = std::int64_t(keys.size());
  const std::vector<std::uint32_t> values = position_values(n), order = stable_order(keys);
  wb::DeviceBuffer<std::uint32_t> dkeys_in(keys), dvalues_in(values), dkeys(keys.size()), dvalues(keys.size());
  const std::size_t bytes = student::radix_sort_scratch_bytes(n);
  wb::DeviceBuffer<unsigned char> dscratch(bytes);
  dscratch.upload(scratch_garbage(bytes));
  wb::Comparison c;
  for (int call = 1; call <= calls && c.ok(); ++call) {
    const std::string where =
        calls > 1 ? context + ", call " + std::to_string(call) + " of " + std::to_string(calls) : context;
    dkeys.poison();
    dvalues.poison();
    wb::run_launch("radix_sort_pairs (" + where + ")", [&] {
      student::radix_sort_pairs(dkeys_in.data(), dvalues_in.data(), dkeys.data(), dvalues.data(), n, dscratch.data());
    });
    c = wb::guarded_comparison("scratch", std::int64_t(bytes), where, dscratch, [&](std::int64_t at) {
      return "scratch byte " + std::to_string(at) + " was written, outside the " + std::to_string(bytes) +
             " bytes radix_sort_scratch_bytes(" + std::to_string(n) + ") asked for";
    });
    if (!c.ok()) return c;
    c = wb::inputs_then_output(
        wb::inputs_unchanged<std::uint32_t>({{"keys_in", keys, dkeys_in}, {"values_in", values, dvalues_in}},
                                            "keys_out and values_out"),
        [&] { return judge(keys, order, dkeys, dvalues, where); }, where);
  }
  return c;
}

std::string n_is(std::int64_t n) { return "n = " + std::to_string(n); }

}  // namespace

TEST_CASE("keys that expose the classic bugs: equal keys, the top bit, few values, sorted, reversed",
          "[x17][correctness]") {
  WB_REQUIRE_DEVICE();
  const Kind kind = GENERATE(Kind::all_equal, Kind::top_bit, Kind::few_distinct, Kind::sorted, Kind::reversed);
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 1000, 20'001);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(make_keys(kind, n, 3 * n + int(kind)), n_is(n) + ", " + describe(kind)));
}

TEST_CASE("random keys, for n around warp, block and tile sizes", "[x17][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = GENERATE(as<std::int64_t>{}, 0, 1, 2, 3, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 4095,
                                  4096, 4097, 8191, 8193, 65'537, 100'003);
  CAPTURE(n);
  WB_REQUIRE_MATCH(run_case(make_keys(Kind::random, n, 17 * n + 1), n_is(n) + ", " + describe(Kind::random)));
}

TEST_CASE("three calls in a row on the same scratch memory", "[x17][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = 30'007;
  WB_REQUIRE_MATCH(run_case(make_keys(Kind::few_distinct, n, 5), n_is(n) + ", " + describe(Kind::few_distinct), 3));
}

TEST_CASE("a large input", "[x17][correctness]") {
  WB_REQUIRE_DEVICE();
  const std::int64_t n = wb::cpu_backend() ? (std::int64_t(1) << 18) + 1 : (std::int64_t(1) << 22) - 1;
  WB_REQUIRE_MATCH(run_case(make_keys(Kind::random, n, 99), n_is(n) + ", " + describe(Kind::random)));
}

TEST_CASE("speed against the solution and cub::DeviceRadixSort::SortPairs", "[x17][timing]") {
  WB_REQUIRE_GPU("timings of the CPU backend say nothing about a GPU");
  WB_REQUIRE_CORRECT_SO_FAR();
  const std::int64_t n = kMaxN;  // 2^24 pairs: every value still names its position
  const Keys keys = make_keys(Kind::random, n, 2024);
  const std::vector<std::uint32_t> values = position_values(n), order = stable_order(keys);
  wb::DeviceBuffer<std::uint32_t> dkeys_in(keys), dvalues_in(values), dkeys(keys.size()), dvalues(keys.size());
  wb::DeviceBuffer<unsigned char> mine(student::radix_sort_scratch_bytes(n)),
      theirs(solution::radix_sort_scratch_bytes(n));
  auto yours = [&] {
    student::radix_sort_pairs(dkeys_in.data(), dvalues_in.data(), dkeys.data(), dvalues.data(), n, mine.data());
  };
  wb::grade_speed(  // shown, not graded: the exercise is a correct, stable sort of any n
      wb::SpeedCase("radix sort of 2^24 key-value pairs, 32-bit each (16 bytes per pair: read and written once)",
                    wb::memory_bound(16.0 * double(n)))
          .yours("your radix_sort_pairs", yours)
          .solution("solution (8-bit digits, 3 kernels per pass)",
                    [&] {
                      solution::radix_sort_pairs(dkeys_in.data(), dvalues_in.data(), dkeys.data(), dvalues.data(), n,
                                                 theirs.data());
                    })
          .anchor({"cub::DeviceRadixSort::SortPairs",
                   [&] {
                     wb::anchors::cub_radix_sort_pairs(dkeys_in.data(), dvalues_in.data(), dkeys.data(),
                                                       dvalues.data(), n);
                   }})
          .bar("2^24 pairs", "the sort")
          .table_row("x17-radix-sort", "2^24 pairs"),
      [&] {
        dkeys.poison();
        dvalues.poison();
        wb::run_launch("radix_sort_pairs (after timing, n = 2^24)", yours);
        return judge(keys, order, dkeys, dvalues, "after timing, n = 2^24");
      });
}

// The small case compute-sanitizer runs on a GPU (memcheck, racecheck, synccheck: wb/sanitizer.hpp):
// a few tiles, the last one partial, keys with the top bit set.
WB_SANITIZER_CASE("[x17]", "the sort of 5000 keys with the top bit set") {
  WB_REQUIRE_MATCH(run_case(make_keys(Kind::top_bit, 5000, 41), n_is(5000) + ", " + describe(Kind::top_bit)));
}
