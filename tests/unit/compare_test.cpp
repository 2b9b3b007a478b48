// Unit tests of wb::compare_values: each pattern of wrong elements gets the sentence a learner
// reads, with the right elements listed. Outputs are built by hand, element by element.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "wb/compare.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

namespace {

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();

// An output of n elements, right until a test breaks some of it. Expected values are exact in
// binary (1.5, 1.75, 2, ...), so the messages print them exactly.
struct Output {
  std::vector<double> expected, got;
  std::vector<bool> unwritten;
  std::vector<wb::GuardHit> hits;

  explicit Output(std::int64_t n) : expected(n), got(n), unwritten(n, false) {
    for (std::int64_t i = 0; i < n; ++i) got[i] = expected[i] = 1.5 + 0.25 * double(i);
  }
  // A wrong value: the expected one negated (never right, since every expected value is > 0).
  void wrong(std::int64_t i) { got[i] = -expected[i]; }
  // As downloaded from a poisoned buffer: the poison reads as a NaN, and the flag is set.
  void never_written(std::int64_t i) {
    got[i] = nan_value;
    unwritten[i] = true;
  }
  void never_written_from(std::int64_t first) {
    for (std::int64_t i = first; i < std::int64_t(got.size()); ++i) never_written(i);
  }
  wb::Comparison compare(int block_size = 256, std::size_t max_listed = 5) const {
    wb::CompareOptions o;
    o.array = "c";
    o.block_size = block_size;
    o.max_listed = max_listed;
    return wb::compare_values(expected, got, unwritten, hits, o);
  }
};

// Lines of the message that list one element of c.
int listed_lines(const std::string& message) {
  int count = 0;
  for (std::size_t at = message.find("\n  c["); at != std::string::npos; at = message.find("\n  c[", at + 1)) ++count;
  return count;
}

}  // namespace

// ---- every element right ----

TEST_CASE("a correct output is ok, with no diagnosis and nothing listed", "[compare]") {
  const Output out(1001);
  const wb::Comparison c = out.compare();
  CHECK(c.ok());
  CHECK(c.pattern == wb::Pattern::ok);
  CHECK(c.n == 1001);
  CHECK(c.wrong == 0);
  CHECK(c.unwritten == 0);
  CHECK(c.first_wrong == -1);
  CHECK(c.listed.empty());
  CHECK(c.diagnosis.empty());
}

// ---- writes outside the array ----

TEST_CASE("a write to element n alone is diagnosed as an `i <= n` bounds check", "[compare][out_of_bounds]") {
  Output out(1000);
  out.hits = {{1000}};
  const wb::Comparison c = out.compare();
  CHECK(c.pattern == wb::Pattern::out_of_bounds);
  CHECK_FALSE(c.ok());
  CHECK(c.wrong == 0);
  REQUIRE(c.guard_hits.size() == 1);
  const std::string m = c.message();
  REQUIRE_THAT(m, ContainsSubstring("an element past n was written (c[1000]): the thread with i == n wrote; "
                                    "the bounds check must be `i < n` (is it `i <= n`?)."));
  CHECK_THAT(m, !ContainsSubstring("Also"));
  CHECK_THAT(m, !ContainsSubstring("before the start"));
}

TEST_CASE("writes several elements past the end ask for an `if (i < n)` guard", "[compare][out_of_bounds]") {
  Output out(1000);
  SECTION("the rest of the last block wrote past the end") {
    for (std::int64_t i = 1000; i < 1024; ++i) out.hits.push_back({i});
    const wb::Comparison c = out.compare();
    CHECK(c.pattern == wb::Pattern::out_of_bounds);
    REQUIRE_THAT(c.message(), ContainsSubstring("an element past n was written (c[1000] and more): threads with "
                                                "i >= n must not write; guard the write with `if (i < n)`"));
    CHECK_THAT(c.message(), !ContainsSubstring("i <= n"));
  }
  SECTION("one write a few elements past the end is not the `i <= n` slip") {
    out.hits = {{1003}};
    const wb::Comparison c = out.compare();
    CHECK(c.pattern == wb::Pattern::out_of_bounds);
    REQUIRE_THAT(c.message(), ContainsSubstring("an element past n was written (c[1003]): threads with i >= n"));
    CHECK_THAT(c.message(), !ContainsSubstring("and more"));
    CHECK_THAT(c.message(), !ContainsSubstring("i <= n"));
  }
}

TEST_CASE("a write before the start says an index went negative", "[compare][out_of_bounds]") {
  Output out(333);
  SECTION("only before the start") {
    out.hits = {{-3}, {-1}};
    const wb::Comparison c = out.compare();
    CHECK(c.pattern == wb::Pattern::out_of_bounds);
    REQUIRE_THAT(c.message(),
                 StartsWith("an element before the start was written (c[-3]): an index went negative."));
    CHECK_THAT(c.message(), !ContainsSubstring("past n"));
  }
  SECTION("before the start and at n") {
    out.hits = {{-1}, {333}};
    const wb::Comparison c = out.compare();
    CHECK(c.pattern == wb::Pattern::out_of_bounds);
    REQUIRE_THAT(c.message(), ContainsSubstring("(c[333]): the thread with i == n wrote"));
    REQUIRE_THAT(c.message(), ContainsSubstring("; also, an element before the start was written (c[-1])"));
  }
}

TEST_CASE("an out-of-bounds write comes first, the wrong elements after it", "[compare][out_of_bounds]") {
  Output out(1000);
  out.hits = {{1000}};
  out.wrong(10);
  out.never_written(20);
  out.wrong(30);
  const wb::Comparison c = out.compare();
  CHECK(c.pattern == wb::Pattern::out_of_bounds);
  CHECK(c.wrong == 3);
  CHECK(c.unwritten == 1);
  const std::string m = c.message();
  REQUIRE_THAT(m, StartsWith("an element past n was written (c[1000])"));
  REQUIRE_THAT(m, ContainsSubstring(".\nAlso 3 of 1000 elements of c are wrong."));
  CHECK_THAT(m, ContainsSubstring("\n  c[10]: expected 4, got -4"));
  CHECK_THAT(m, ContainsSubstring("\n  c[20]: expected 6.5, got nothing (never written)"));
  CHECK(listed_lines(m) == 3);
}

// ---- nothing written ----

TEST_CASE("an output nothing was written to reads as not started, with two examples", "[compare]") {
  Output out(777);
  out.never_written_from(0);
  const wb::Comparison c = out.compare();
  CHECK(c.pattern == wb::Pattern::nothing_written);
  CHECK(c.wrong == 777);
  CHECK(c.unwritten == 777);
  CHECK(c.first_wrong == 0);
  CHECK(c.listed.size() == 5);  // recorded as usual; the message shows fewer
  const std::string m = c.message();
  REQUIRE_THAT(m, StartsWith("777 of 777 elements of c are wrong: no element of c was written: the kernel did "
                             "not run or wrote nothing."));
  CHECK_THAT(m, ContainsSubstring("\n  c[0]: expected 1.5, got nothing (never written)"));
  CHECK_THAT(m, ContainsSubstring("\n  c[1]: expected 1.75, got nothing (never written)"));
  CHECK(listed_lines(m) == 2);
  CHECK_THAT(m, ContainsSubstring("\n  ... and 775 more"));
}

TEST_CASE("an unwritten element is not taken for a NaN the kernel computed", "[compare]") {
  Output out(1000);
  out.never_written(250);
  out.never_written(251);
  const wb::Comparison c = out.compare();
  CHECK(c.pattern == wb::Pattern::some_unwritten);
  CHECK_THAT(c.message(), !ContainsSubstring("NaN"));
}

// ---- NaN ----

TEST_CASE("a NaN where a number was expected is named with its index", "[compare][nan]") {
  Output out(1000);
  SECTION("one NaN among right values") {
    out.got[613] = nan_value;
    const wb::Comparison c = out.compare();
    CHECK(c.pattern == wb::Pattern::nan);
    CHECK(c.wrong == 1);
    CHECK(c.unwritten == 0);
    const std::string m = c.message();
    REQUIRE_THAT(m, StartsWith("1 of 1000 elements of c are wrong: NaN where a number was expected (c[613]): a read "
                               "of memory nothing wrote, or of the wrong element?."));
    CHECK_THAT(m, ContainsSubstring("\n  c[613]: expected 154.75, got nan"));
  }
  SECTION("a NaN outranks a block pattern: the first NaN is named, not the first wrong element") {
    out.never_written_from(512);
    out.unwritten[700] = false;  // written, with a NaN
    const wb::Comparison c = out.compare();
    CHECK(c.pattern == wb::Pattern::nan);
    CHECK(c.first_wrong == 512);
    REQUIRE_THAT(c.message(), ContainsSubstring("NaN where a number was expected (c[700])"));
  }
}

// ---- block patterns ----

TEST_CASE("only the first block's elements right means only one block ran", "[compare][blocks]") {
  Output out(1000);
  out.never_written_from(96);
  const wb::Comparison c = out.compare(96);
  CHECK(c.pattern == wb::Pattern::only_one_block);
  CHECK(c.wrong == 904);
  CHECK(c.first_wrong == 96);
  const std::string m = c.message();
  REQUIRE_THAT(m, StartsWith("904 of 1000 elements of c are wrong: only the first 96 elements are right: only one "
                             "block ran, or every block wrote the same 96 elements (is blockIdx.x * blockDim.x "
                             "part of the index?)."));
  CHECK_THAT(m, ContainsSubstring("\n  c[96]: expected 25.5, got nothing (never written)"));
  CHECK(listed_lines(m) == 5);
  CHECK_THAT(m, ContainsSubstring("\n  ... and 899 more"));
}

TEST_CASE("all but the last partial block right means the block count was rounded down", "[compare][blocks]") {
  SECTION("n = 1000, 256 threads per block: 3 blocks instead of 4") {
    Output out(1000);
    out.never_written_from(768);
    const wb::Comparison c = out.compare(256);
    CHECK(c.pattern == wb::Pattern::last_partial_block);
    CHECK(c.wrong == 232);
    REQUIRE_THAT(c.message(), StartsWith("232 of 1000 elements of c are wrong: the last partial block is missing: "
                                         "n = 1000 is not a multiple of 256, so the block count must round up: "
                                         "(n + 256 - 1) / 256."));
  }
  SECTION("n = 300: one block instead of two is the rounding, not a missing blockIdx") {
    Output out(300);
    out.never_written_from(256);
    CHECK(out.compare(256).pattern == wb::Pattern::last_partial_block);
  }
}

TEST_CASE("a whole number of blocks right, then nothing, means too few blocks", "[compare][blocks]") {
  SECTION("2 of 8 blocks ran") {
    Output out(2000);
    out.never_written_from(512);
    const wb::Comparison c = out.compare(256);
    CHECK(c.pattern == wb::Pattern::too_few_blocks);
    REQUIRE_THAT(c.message(), ContainsSubstring("are wrong: only the first 512 elements (2 blocks of 256) are "
                                                "right: the grid has too few blocks for n = 2000."));
  }
  SECTION("n a multiple of the block size, the last whole block missing") {
    Output out(1024);
    out.never_written_from(768);
    const wb::Comparison c = out.compare(256);
    CHECK(c.pattern == wb::Pattern::too_few_blocks);
    REQUIRE_THAT(c.message(), ContainsSubstring("only the first 768 elements (3 blocks of 256) are right"));
  }
}

TEST_CASE("everything wrong from an index inside a block is a wrong tail", "[compare]") {
  Output out(1000);
  SECTION("wrong values") {
    for (int i = 700; i < 1000; ++i) out.wrong(i);
    const wb::Comparison c = out.compare(256);
    CHECK(c.pattern == wb::Pattern::tail_wrong);
    REQUIRE_THAT(c.message(), StartsWith("300 of 1000 elements of c are wrong: every element from c[700] on is wrong."));
    CHECK_THAT(c.message(), ContainsSubstring("\n  c[700]: expected 176.5, got -176.5"));
  }
  SECTION("never written") {
    out.never_written_from(700);
    const wb::Comparison c = out.compare(256);
    CHECK(c.pattern == wb::Pattern::tail_wrong);
    REQUIRE_THAT(c.message(), ContainsSubstring("every element from c[700] on is wrong (never written)."));
  }
  SECTION("at a multiple of 256, when the block size is unknown") {
    out.never_written_from(256);
    const wb::Comparison c = out.compare(0);
    CHECK(c.pattern == wb::Pattern::tail_wrong);
    REQUIRE_THAT(c.message(), ContainsSubstring("every element from c[256] on is wrong (never written)"));
  }
}

TEST_CASE("elements never written among right ones are counted", "[compare]") {
  Output out(1000);
  SECTION("three of them") {
    out.never_written(5);
    out.never_written(400);
    out.never_written(401);
    const wb::Comparison c = out.compare(256);
    CHECK(c.pattern == wb::Pattern::some_unwritten);
    CHECK(c.unwritten == 3);
    REQUIRE_THAT(c.message(), StartsWith("3 of 1000 elements of c are wrong: 3 elements were never written."));
    CHECK_THAT(c.message(), ContainsSubstring("\n  c[401]: expected 101.75, got nothing (never written)"));
  }
  SECTION("one of them, next to a wrong value") {
    out.never_written(500);
    out.wrong(10);
    const wb::Comparison c = out.compare(256);
    CHECK(c.pattern == wb::Pattern::some_unwritten);
    CHECK(c.wrong == 2);
    REQUIRE_THAT(c.message(), StartsWith("2 of 1000 elements of c are wrong: 1 element was never written."));
  }
}

TEST_CASE("wrong values with no simpler pattern are scattered", "[compare]") {
  Output out(1000);
  SECTION("three wrong values") {
    out.wrong(3);
    out.wrong(99);
    out.wrong(998);
    const wb::Comparison c = out.compare(256);
    CHECK(c.pattern == wb::Pattern::scattered);
    const std::string m = c.message();
    REQUIRE_THAT(m, StartsWith("3 of 1000 elements of c are wrong: wrong values, first at c[3]."));
    CHECK_THAT(m, ContainsSubstring("\n  c[3]: expected 2.25, got -2.25"));
    CHECK_THAT(m, ContainsSubstring("\n  c[99]: expected 26.25, got -26.25"));
    CHECK_THAT(m, ContainsSubstring("\n  c[998]: expected 251, got -251"));
    CHECK_THAT(m, !ContainsSubstring("more"));
  }
  SECTION("every element wrong, from the first on (a + a instead of a + b)") {
    for (int i = 0; i < 1000; ++i) out.wrong(i);
    const wb::Comparison c = out.compare(256);
    CHECK(c.pattern == wb::Pattern::scattered);
    REQUIRE_THAT(c.message(), ContainsSubstring("wrong values, first at c[0]"));
  }
}

// ---- the list of elements ----

TEST_CASE("the message lists at most max_listed elements, then how many more", "[compare][message]") {
  Output out(1000);
  for (int i = 0; i < 1000; i += 7) out.wrong(i);  // 143 wrong elements: 0, 7, ..., 994
  SECTION("3 listed") {
    const wb::Comparison c = out.compare(256, 3);
    CHECK(c.wrong == 143);
    REQUIRE(c.listed.size() == 3);
    CHECK(c.listed[2].index == 14);
    const std::string m = c.message();
    CHECK(listed_lines(m) == 3);
    CHECK_THAT(m, ContainsSubstring("\n  c[14]: expected 5, got -5"));
    CHECK_THAT(m, !ContainsSubstring("c[21]"));
    CHECK_THAT(m, ContainsSubstring("\n  ... and 140 more"));
  }
  SECTION("none listed") {
    const wb::Comparison c = out.compare(256, 0);
    CHECK(c.listed.empty());
    CHECK(listed_lines(c.message()) == 0);
    CHECK_THAT(c.message(), ContainsSubstring("\n  ... and 143 more"));
  }
  SECTION("exactly max_listed wrong: no `more` line") {
    Output few(1000);
    for (int i : {1, 2, 3, 500, 700}) few.wrong(i);
    const wb::Comparison c = few.compare(256, 5);
    CHECK(listed_lines(c.message()) == 5);
    CHECK_THAT(c.message(), !ContainsSubstring("more"));
  }
}

TEST_CASE("a listed element records index, expected, got and whether it was written", "[compare][message]") {
  Output out(64);
  out.wrong(17);
  out.never_written(40);
  const wb::Comparison c = out.compare(0);
  REQUIRE(c.listed.size() == 2);
  CHECK(c.listed[0].index == 17);
  CHECK(c.listed[0].expected == 5.75);
  CHECK(c.listed[0].got == -5.75);
  CHECK_FALSE(c.listed[0].unwritten);
  CHECK(c.listed[1].index == 40);
  CHECK(c.listed[1].unwritten);
}

TEST_CASE("the case's context is put in front of the message", "[compare][message]") {
  Output out(1000);
  out.wrong(3);
  wb::Comparison c = out.compare();
  c.context = "n = 1000, 256 threads per block";
  REQUIRE_THAT(c.message(), StartsWith("[n = 1000, 256 threads per block] 1 of 1000 elements of c are wrong"));
}

// ---- tolerances ----

TEST_CASE("abs_tol accepts a difference up to and including it", "[compare][tolerance]") {
  wb::CompareOptions o;
  o.abs_tol = 0.5;
  auto wrong_count = [&](double expected, double got) {
    return wb::compare_values({expected}, {got}, {false}, {}, o).wrong;
  };
  CHECK(wrong_count(10.0, 10.5) == 0);
  CHECK(wrong_count(10.0, 9.5) == 0);
  CHECK(wrong_count(10.0, 10.5000001) == 1);
  CHECK(wrong_count(10.0, 9.4999999) == 1);
  CHECK(wrong_count(0.0, -0.5) == 0);
}

TEST_CASE("rel_tol scales with the expected value's magnitude", "[compare][tolerance]") {
  wb::CompareOptions o;
  auto wrong_count = [&](double expected, double got) {
    return wb::compare_values({expected}, {got}, {false}, {}, o).wrong;
  };
  SECTION("relative only") {
    o.rel_tol = 1.0 / 1024;  // a power of two: the boundary is exact
    CHECK(wrong_count(-1024.0, -1025.0) == 0);
    CHECK(wrong_count(-1024.0, -1023.0) == 0);
    CHECK(wrong_count(-1024.0, -1025.0001) == 1);
    CHECK(wrong_count(0.0, 1e-300) == 1);  // nothing is close to 0 relatively
  }
  SECTION("both: abs_tol + rel_tol * |expected|") {
    o.abs_tol = 0.5;
    o.rel_tol = 1.0 / 64;
    CHECK(wrong_count(64.0, 65.5) == 0);
    CHECK(wrong_count(64.0, 65.5001) == 1);
  }
  SECTION("none: exact equality") {
    CHECK(wrong_count(0.1, 0.1) == 0);
    CHECK(wrong_count(0.1, std::nextafter(0.1, 1.0)) == 1);
  }
}

TEST_CASE("a NaN expected where a NaN was computed passes", "[compare][tolerance][nan]") {
  const wb::CompareOptions o;
  const wb::Comparison same = wb::compare_values({1.0, nan_value, 3.0}, {1.0, nan_value, 3.0}, {false, false, false}, {}, o);
  CHECK(same.ok());
  const wb::Comparison number = wb::compare_values({1.0, nan_value, 3.0}, {1.0, 2.0, 3.0}, {false, false, false}, {}, o);
  CHECK(number.wrong == 1);
  CHECK(number.first_wrong == 1);
}

TEST_CASE("an infinity expected where the same infinity was computed passes", "[compare][tolerance]") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  wb::CompareOptions o;
  o.rel_tol = 1e-6;
  const wb::Comparison same = wb::compare_values({-inf, 2.0, inf}, {-inf, 2.0, inf}, {false, false, false}, {}, o);
  CHECK(same.ok());
  const wb::Comparison flipped = wb::compare_values({-inf, 2.0, inf}, {inf, 2.0, 1e308}, {false, false, false}, {}, o);
  CHECK(flipped.wrong == 2);
}
