// Unit tests of wb::misalignments (grader/include/wb/alignment.hpp): each pointer off a 16-byte
// boundary alone, then all together, named in the case's context; and a DeviceBuffer made with a
// case's guard starts that far off while its guard zones still catch writes around it.
#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "wb/alignment.hpp"
#include "wb/buffer.hpp"

TEST_CASE("each pointer alone at 4, 8 and 12 bytes, then all together", "[alignment]") {
  const std::vector<wb::Misalignment> cases = wb::misalignments({"A", "B", "C"});
  REQUIRE(cases.size() == 12);
  for (std::size_t p = 0; p < 3; ++p)
    for (int o = 1; o <= 3; ++o) {
      const wb::Misalignment& m = cases[p * 3 + std::size_t(o - 1)];
      for (std::size_t q = 0; q < 3; ++q) CHECK(m.offsets[q] == (q == p ? o : 0));
    }
  CHECK(cases[3].context == "B starts 4 bytes past a 16-byte boundary; A and C are aligned");
  CHECK(cases[8].context == "C starts 12 bytes past a 16-byte boundary; A and B are aligned");
  CHECK(cases[9].context == "A, B and C all start 4 bytes past a 16-byte boundary");
  CHECK(cases[11].offset("B") == 3);
  CHECK(cases[4].offset("nothing") == 0);
}

TEST_CASE("two pointers: each alone, then both; one pointer: alone only", "[alignment]") {
  const auto two = wb::misalignments({"x", "y"});
  REQUIRE(two.size() == 9);
  CHECK(two[0].context == "x starts 4 bytes past a 16-byte boundary; y is aligned");
  CHECK(two[8].context == "x and y both start 12 bytes past a 16-byte boundary");
  CHECK(wb::misalignments({"in"}).size() == 3);
  CHECK_THROWS_AS(wb::misalignments({}), std::invalid_argument);
  CHECK_THROWS_AS(wb::misalignments({"A"}, 4, {4}), std::invalid_argument);  // 16 bytes: aligned
}

TEST_CASE("the aligned default case and a misaligned buffer keep their guard zones", "[alignment]") {
  const wb::Misalignment aligned;
  CHECK(!aligned.any());
  CHECK(aligned.guard("A") == wb::DeviceBuffer<float>::default_guard);
  for (const wb::Misalignment& m : wb::misalignments({"A", "B"})) {
    wb::DeviceBuffer<float> a(std::vector<float>(8, 1.0f), m.guard("A")), b(8, m.guard("B"));
    CHECK(reinterpret_cast<std::uintptr_t>(a.data()) % 16 == std::uintptr_t(4 * m.offset("A")));
    CHECK(reinterpret_cast<std::uintptr_t>(b.data()) % 16 == std::uintptr_t(4 * m.offset("B")));
    CHECK(a.download() == std::vector<float>(8, 1.0f));
    CHECK(a.guard_hits().empty());
    // a write just before element 0 lands in the guard zone, not in padding
    const float bad = 5.0f;
    REQUIRE(cudaMemcpy(b.data() - 1, &bad, sizeof bad, cudaMemcpyHostToDevice) == cudaSuccess);
    const auto hits = b.guard_hits();
    REQUIRE(hits.size() == 1);
    CHECK(hits[0].index == -1);
  }
}
