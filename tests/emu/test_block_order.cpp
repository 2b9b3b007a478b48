// The order in which the CPU backend starts a launch's blocks (<wb_emu/block_order.hpp>): a
// permutation drawn from a seed, so that a kernel that needs its blocks to start in index order (a
// chained scan whose block b waits for block b-1, with no ticket) fails here as it may on a GPU,
// and the same scan written with tickets passes whatever the order.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <wb_emu/block_order.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "support.hpp"

using Catch::Matchers::ContainsSubstring;

namespace {
std::vector<std::uint64_t> order_of(std::uint64_t size, std::uint64_t seed) {
  const wb_emu::BlockOrder order(size, seed);
  std::vector<std::uint64_t> out(size);
  for (std::uint64_t p = 0; p < size; ++p) out[p] = order(p);
  return out;
}
}  // namespace

TEST_CASE("a block order is a permutation of the blocks for any size and seed", "[emu][block-order]") {
  for (const std::uint64_t size : {1ull, 2ull, 3ull, 1000ull, (1ull << 20) + 7})
    for (const std::uint64_t seed : {1ull, 2ull, 12345ull, 0xdeadbeefcafeull}) {
      const wb_emu::BlockOrder order(size, seed);
      std::vector<bool> seen(size, false);
      std::uint64_t moved = 0;
      for (std::uint64_t p = 0; p < size; ++p) {
        const std::uint64_t b = order(p);
        REQUIRE(b < size);
        REQUIRE_FALSE(seen[b]);
        seen[b] = true;
        moved += b != p;
      }
      INFO("size " << size << ", seed " << seed);
      if (size >= 1000) CHECK(moved > size / 2);  // scrambled, not nearly the identity
    }
}

TEST_CASE("block order seed 0 is the index order, and a seed always gives the same order", "[emu][block-order]") {
  for (const std::uint64_t size : {1ull, 2ull, 3ull, 1000ull, (1ull << 20) + 7}) {
    const wb_emu::BlockOrder identity(size, 0);
    CHECK_FALSE(identity.scrambled());
    for (std::uint64_t p = 0; p < size; p += 1 + size / 1000) CHECK(identity(p) == p);
  }
  CHECK(order_of(1000, 42) == order_of(1000, 42));
  CHECK(order_of(1000, 42) != order_of(1000, 43));
  CHECK(order_of(3, 7) == order_of(3, 7));
  // a 2^24-block grid's order costs nothing to make: positions are computed, not stored
  const wb_emu::BlockOrder big(1ull << 24, 99);
  std::set<std::uint64_t> first;
  for (std::uint64_t p = 0; p < 1000; ++p) first.insert(big(p));
  CHECK(first.size() == 1000);
  CHECK(*first.rbegin() < (1ull << 24));
}

TEST_CASE("each launch gets an order of its own from the process's seed", "[emu][block-order]") {
  BlockSeed scope(2026);
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < 4; ++i) seeds.push_back(wb_emu::next_launch_order_seed());
  CHECK(std::set<std::uint64_t>(seeds.begin(), seeds.end()).size() == 4);
  wb_emu::set_block_order_seed(2026);  // the count of launches starts again: the same seeds
  for (int i = 0; i < 4; ++i) CHECK(wb_emu::next_launch_order_seed() == seeds[i]);
  wb_emu::set_block_order_seed(0);
  CHECK(wb_emu::next_launch_order_seed() == 0);
  CHECK_THAT(wb_emu::block_order_note(), ContainsSubstring("index order (WB_EMU_BLOCK_SEED=0)"));
  wb_emu::set_block_order_seed(77);
  CHECK_THAT(wb_emu::block_order_note(),
             ContainsSubstring("blocks ran in a scrambled order, seed 77; WB_EMU_BLOCK_SEED=77 repeats it"));
}

TEST_CASE("of a launch whose every block faults, the first block in start order is reported, the same for a seed",
          "[emu][block-order]") {
  const int blocks = 64;
  int* started = device_array<int>(1, 0);
  auto faulting_block = [&](std::uint64_t seed, std::string* err = nullptr) {
    BlockSeed scope(seed);
    *started = 0;
    cudaError_t e = cudaSuccess;
    const std::string text = capture_stderr([&] { e = emu_test::all_blocks_trap(blocks, started); });
    CHECK(e == cudaErrorLaunchFailure);
    wb_emu::Fault f;
    REQUIRE(wb_emu::last_fault(&f));
    CHECK(f.block_seed == seed);  // the record says how to repeat the order
    CHECK_THAT(wb_emu::fault_json(f), ContainsSubstring("\"block_seed\":" + std::to_string(seed) + ","));
    REQUIRE(cudaDeviceReset() == cudaSuccess);
    if (err) *err = text;
    return f.block[0];
  };
  CHECK(faulting_block(0) == 0);  // index order: the lowest block, as before
  std::set<unsigned> reported;
  for (const std::uint64_t seed : {1, 2, 3, 4, 5, 6, 7, 8}) {
    const unsigned first = faulting_block(seed);
    CHECK(faulting_block(seed) == first);  // repeatable
    reported.insert(first);
  }
  CHECK(reported.size() > 1);  // the order (and with it the block reported) depends on the seed
  cudaFree(started);
}

TEST_CASE("a chained scan whose block b waits for block b-1 finds it unstarted, for several seeds",
          "[emu][block-order]") {
  const int blocks = 64, chunk = 32;
  int* in = device_array<int>(blocks * chunk, 1);
  long long* prefix = device_array<long long>(blocks, 0);
  int* flag = device_array<int>(blocks, 0);
  int* gave_up = device_array<int>(1, 0);
  for (const std::uint64_t seed : {1, 2, 3, 4, 5}) {
    BlockSeed scope(seed);
    for (int b = 0; b < blocks; ++b) flag[b] = 0;
    *gave_up = 0;
    // a real kernel would spin forever (tests/unit: the watchdog names it); this one gives up after 5 ms
    REQUIRE(emu_test::naive_chained_scan(in, prefix, flag, blocks, chunk, 5000000, gave_up) == cudaSuccess);
    INFO("seed " << seed);
    CHECK(*gave_up > 0);
  }
  {
    BlockSeed scope(0);  // index order: every block's predecessor has started before it
    for (int b = 0; b < blocks; ++b) flag[b] = 0;
    *gave_up = 0;
    REQUIRE(emu_test::naive_chained_scan(in, prefix, flag, blocks, chunk, 5000000000ll, gave_up) == cudaSuccess);
    CHECK(*gave_up == 0);
    for (int b = 0; b < blocks; ++b) CHECK(prefix[b] == (b + 1) * chunk);
  }
  cudaFree(in);
  cudaFree(prefix);
  cudaFree(flag);
  cudaFree(gave_up);
}

TEST_CASE("a chained scan that waits only for lower tickets is right whatever the block order", "[emu][block-order]") {
  const int blocks = 200, chunk = 40;
  int* in = device_array<int>(blocks * chunk);
  for (int i = 0; i < blocks * chunk; ++i) in[i] = i % 7 - 2;
  long long* prefix = device_array<long long>(blocks, 0);
  int* flag = device_array<int>(blocks, 0);
  unsigned* tickets = device_array<unsigned>(1, 0);
  int* order = device_array<int>(blocks, -1);
  bool out_of_index_order = false;
  for (const std::uint64_t seed : {0, 1, 2, 3, 4, 5}) {
    BlockSeed scope(seed);
    for (int b = 0; b < blocks; ++b) flag[b] = 0, order[b] = -1;
    *tickets = 0;
    REQUIRE(emu_test::ticket_chained_scan(in, prefix, flag, blocks, chunk, tickets, order) == cudaSuccess);
    INFO("seed " << seed);
    long long expect = 0;
    std::set<int> took;
    for (int b = 0; b < blocks; ++b) {
      for (int i = 0; i < chunk; ++i) expect += in[b * chunk + i];
      CHECK(prefix[b] == expect);
      took.insert(order[b]);
      if (seed != 0 && order[b] != b) out_of_index_order = true;
    }
    CHECK(took.size() == static_cast<std::size_t>(blocks));
    CHECK(*took.begin() == 0);
  }
  CHECK(out_of_index_order);  // the blocks really started out of index order
  cudaFree(in);
  cudaFree(prefix);
  cudaFree(flag);
  cudaFree(tickets);
  cudaFree(order);
}
