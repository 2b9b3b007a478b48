// Unit tests of wb::DeviceBuffer on the CPU backend's emulated device memory: poison, guard
// zones, transfers. Out-of-bounds writes are made by kernels launched through the CPU backend,
// as a learner's kernel would make them.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "wb/buffer.hpp"
#include "wb/compare.hpp"

namespace {

// Writes value to out[offset + i] for every thread i < count: an offset of n is "just past the
// end", -1 "just before the start".
void write_at(float* out, std::int64_t offset, int count, float value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[offset + i] = value;
}

// The classic slip: `i <= n` lets thread n write.
void fill_with_le_bound(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = 2.0f * i;
}

template <class T>
void run_write_at(T* out, std::int64_t offset, int count, T value) {
  const int threads = 64;
  wb_emu::make_launch(write_at, "write_at", __FILE__, __LINE__, dim3((count + threads - 1) / threads), dim3(threads))(
      out, offset, count, value);
  REQUIRE(cudaGetLastError() == cudaSuccess);
}

std::vector<std::int64_t> indices(const std::vector<wb::GuardHit>& hits) {
  std::vector<std::int64_t> v;
  for (const auto& h : hits) v.push_back(h.index);
  return v;
}

}  // namespace

TEST_CASE("poison() makes every element never_written()", "[buffer]") {
  const std::size_t n = GENERATE(1, 33, 1021);
  CAPTURE(n);
  wb::DeviceBuffer<float> f(std::vector<float>(n, 3.25f));
  wb::DeviceBuffer<double> d(std::vector<double>(n, -1.0));
  wb::DeviceBuffer<int> k(std::vector<int>(n, 7));
  f.poison();
  d.poison();
  k.poison();
  for (float v : f.download()) REQUIRE(wb::never_written(v));
  for (double v : d.download()) REQUIRE(wb::never_written(v));
  for (int v : k.download()) REQUIRE(wb::never_written(v));
  CHECK(f.guard_hits().empty());  // poisoning the array leaves the guard zones alone
}

TEST_CASE("an element the kernel wrote is no longer never_written()", "[buffer]") {
  wb::DeviceBuffer<float> out(100);
  out.poison();
  run_write_at(out.data(), 40, 3, 0.0f);
  const std::vector<float> host = out.download();
  for (std::size_t i = 0; i < host.size(); ++i) {
    CAPTURE(i);
    REQUIRE(wb::never_written(host[i]) == !(i >= 40 && i < 43));
  }
  CHECK_FALSE(wb::never_written(0.0f));
  CHECK_FALSE(wb::never_written(-1.0f));
}

TEST_CASE("upload then download gives back the same bytes", "[buffer]") {
  const std::size_t n = GENERATE(1, 255, 1'000'003);
  CAPTURE(n);
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = 0.5f * float(i) - 1000.25f;
  wb::DeviceBuffer<float> b(n);
  b.upload(host);
  const std::vector<float> back = b.download();
  REQUIRE(back.size() == n);
  CHECK(std::memcmp(back.data(), host.data(), n * sizeof(float)) == 0);
  CHECK(b.guard_hits().empty());
  // The vector constructor uploads too.
  wb::DeviceBuffer<float> c(host);
  CHECK(c.size() == n);
  CHECK(c.download() == host);
}

TEST_CASE("upload of a vector of another size is refused", "[buffer]") {
  wb::DeviceBuffer<float> b(10);
  CHECK_THROWS_AS(b.upload(std::vector<float>(11)), std::invalid_argument);
  CHECK_THROWS_AS(b.upload(std::vector<float>(9)), std::invalid_argument);
}

TEST_CASE("a write just past the end shows in guard_hits as index n", "[buffer][guard]") {
  const std::int64_t n = GENERATE(1, 31, 1000);
  CAPTURE(n);
  wb::DeviceBuffer<float> out(n);
  out.poison();
  REQUIRE(out.guard_hits().empty());
  SECTION("one element past the end") {
    run_write_at(out.data(), n, 1, 1.0f);
    CHECK(indices(out.guard_hits()) == std::vector<std::int64_t>{n});
  }
  SECTION("the last guard element") {
    run_write_at(out.data(), n + std::int64_t(wb::DeviceBuffer<float>::default_guard) - 1, 1, 1.0f);
    CHECK(indices(out.guard_hits()) == std::vector<std::int64_t>{n + 1023});
  }
  SECTION("a kernel with `i <= n`, graded by compare()") {
    wb_emu::make_launch(fill_with_le_bound, "fill_with_le_bound", __FILE__, __LINE__, dim3(unsigned(n / 32 + 1)),
                        dim3(32))(out.data(), int(n));
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<double> expected(n);
    for (std::int64_t i = 0; i < n; ++i) expected[i] = 2.0 * i;
    wb::CompareOptions o;
    o.array = "c";
    o.block_size = 32;
    const wb::Comparison c = wb::compare(expected, out, o);
    CHECK(c.pattern == wb::Pattern::out_of_bounds);
    CHECK(c.wrong == 0);
    CHECK_THAT(c.message(), Catch::Matchers::ContainsSubstring("is it `i <= n`?"));
  }
}

TEST_CASE("a write just before the start shows in guard_hits as index -1", "[buffer][guard]") {
  wb::DeviceBuffer<float> out(77);
  SECTION("element -1") {
    run_write_at(out.data(), -1, 1, 5.0f);
    CHECK(indices(out.guard_hits()) == std::vector<std::int64_t>{-1});
  }
  SECTION("the first guard element, with a guard of 5") {
    wb::DeviceBuffer<float> small(77, 5);
    run_write_at(small.data(), -5, 1, 5.0f);
    run_write_at(small.data(), 77 + 4, 1, 5.0f);
    CHECK(indices(small.guard_hits()) == std::vector<std::int64_t>{-5, 81});
  }
}

TEST_CASE("guard_hits finds a single changed byte and stops at max_hits", "[buffer][guard]") {
  wb::DeviceBuffer<double> out(300);
  SECTION("one byte of one element after the end") {
    unsigned char* past = reinterpret_cast<unsigned char*>(out.data() + 302);
    REQUIRE(cudaMemset(past + 7, 0, 1) == cudaSuccess);
    CHECK(indices(out.guard_hits()) == std::vector<std::int64_t>{302});
  }
  SECTION("a run of 20 past the end: the first 8, or as many as asked") {
    run_write_at(reinterpret_cast<float*>(out.data() + 300), 0, 40, 1.0f);  // 20 doubles
    const std::vector<std::int64_t> first8 = indices(out.guard_hits());
    REQUIRE(first8.size() == 8);
    CHECK(first8.front() == 300);
    CHECK(first8.back() == 307);
    CHECK(out.guard_hits(100).size() == 20);
    CHECK(out.guard_hits(1).size() == 1);
  }
  SECTION("hits before the start are listed first") {
    run_write_at(reinterpret_cast<float*>(out.data() + 300), 0, 2, 1.0f);
    run_write_at(reinterpret_cast<float*>(out.data()), -4, 2, 1.0f);
    CHECK(indices(out.guard_hits()) == std::vector<std::int64_t>{-2, 300});
  }
}

TEST_CASE("reset_guards clears the hits and leaves the array as it was", "[buffer][guard]") {
  std::vector<int> host(129);
  for (int i = 0; i < 129; ++i) host[i] = i * i - 50;
  wb::DeviceBuffer<int> b(host);
  run_write_at(reinterpret_cast<float*>(b.data()), -1, 1, 1.0f);
  run_write_at(reinterpret_cast<float*>(b.data()), 129, 3, 1.0f);
  REQUIRE(b.guard_hits().size() == 4);
  b.reset_guards();
  CHECK(b.guard_hits().empty());
  CHECK(b.download() == host);
}

TEST_CASE("an empty buffer (n = 0) works", "[buffer]") {
  wb::DeviceBuffer<float> b(0);
  CHECK(b.size() == 0);
  CHECK(b.data() != nullptr);
  b.poison();
  b.upload({});
  CHECK(b.download().empty());
  CHECK(b.guard_hits().empty());
  // For n = 0 every write is out of bounds: element 0 is just past the end.
  run_write_at(b.data(), 0, 1, 1.0f);
  CHECK(indices(b.guard_hits()) == std::vector<std::int64_t>{0});
  const wb::Comparison c = wb::compare(std::vector<double>{}, b, wb::CompareOptions{});
  CHECK(c.pattern == wb::Pattern::out_of_bounds);
  SECTION("without guard zones") {
    wb::DeviceBuffer<float> bare(0, 0);
    CHECK(bare.download().empty());
    CHECK(bare.guard_hits().empty());
  }
}

TEST_CASE("compare() of a poisoned buffer the kernel never wrote says nothing was written", "[buffer]") {
  wb::DeviceBuffer<float> out(1000);
  out.poison();
  const wb::Comparison c = wb::compare(std::vector<double>(1000, 1.0), out, wb::CompareOptions{});
  CHECK(c.pattern == wb::Pattern::nothing_written);
  CHECK(c.unwritten == 1000);
}

TEST_CASE("compare() with a float reference gives the double reference's verdict", "[buffer]") {
  const std::size_t n = GENERATE(std::size_t(1000), std::size_t(1) << 21);  // serial and on every core
  CAPTURE(n);
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = 0.5f + float(i % 1000);
  wb::DeviceBuffer<float> out(values);
  wb::CompareOptions o;
  o.array = "c";
  CHECK(wb::compare(values, out, o).ok());
  CHECK(wb::compare(values, out, o).n == std::int64_t(n));
  run_write_at(out.data(), std::int64_t(n) - 3, 1, -1.0f);  // one wrong element
  run_write_at(out.data(), std::int64_t(n), 1, 7.0f);       // and one past the end
  const wb::Comparison f = wb::compare(values, out, o);
  const wb::Comparison d = wb::compare(std::vector<double>(values.begin(), values.end()), out, o);
  CHECK(f.pattern == wb::Pattern::out_of_bounds);
  CHECK(f.message() == d.message());
}

TEST_CASE("compare_unchanged() accepts an untouched input and names a changed one", "[buffer]") {
  const std::vector<float> original{1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f};
  wb::DeviceBuffer<float> in(original);
  CHECK(wb::compare_unchanged(original, in, "a", "c").ok());
  run_write_at(in.data(), 4, 1, 42.0f);
  const wb::Comparison c = wb::compare_unchanged(original, in, "a", "c");
  CHECK(c.pattern == wb::Pattern::chapter_specific);
  CHECK(c.wrong == 1);
  CHECK(c.first_wrong == 4);
  CHECK_THAT(c.message(), Catch::Matchers::ContainsSubstring("the kernel changed its input a: only c may be written"));
  CHECK_THAT(c.message(), Catch::Matchers::ContainsSubstring("a[4]: expected 5, got 42"));
}
