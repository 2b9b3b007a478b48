// CPU backend: the scrambled order in which a launch's blocks start (<wb_emu/block_order.hpp>).
#include <wb_emu/block_order.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>

namespace wb_emu {
namespace {
// splitmix64: a good mix of one 64-bit word into another.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::mutex seed_mutex;
bool seed_set = false;
std::uint64_t process_seed = 0;
std::atomic<std::uint64_t> launches{0};

std::uint64_t seed_from_environment() {
  if (const char* env = std::getenv("WB_EMU_BLOCK_SEED"); env && *env) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 0);
    if (end && *end == '\0') return v;
    std::fprintf(stderr, "WB_EMU_BLOCK_SEED=%s is not a number: a seed is drawn instead\n", env);
  }
  std::random_device device;
  const std::uint64_t drawn =
      mix((std::uint64_t(device()) << 32) ^ device() ^
          static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  const std::uint64_t seed = drawn % 1000000000ull;  // short enough to type
  return seed ? seed : 1;
}
}  // namespace

BlockOrder::BlockOrder(std::uint64_t size, std::uint64_t seed) : size_(size) {
  scrambled_ = seed != 0 && size > 1;
  if (!scrambled_) return;
  unsigned bits = 1;
  while (bits < 64 && (std::uint64_t(1) << bits) < size) ++bits;
  mask_ = bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
  shift_ = bits / 2 + 1;
  std::uint64_t s = seed;
  for (int r = 0; r < 3; ++r) {
    key_[r] = (s = mix(s)) & mask_;
    mul_[r] = ((s = mix(s)) | 1) & mask_;
    if (mul_[r] == 0) mul_[r] = 1;
  }
}

// Each step is a bijection of [0, mask]: xor with a key, multiplication by an odd number modulo a
// power of two, and x ^ (x >> shift) (its top bits are kept, so the rest can be recovered).
std::uint64_t BlockOrder::permute(std::uint64_t x) const {
  for (int r = 0; r < 3; ++r) {
    x = (x ^ key_[r]) & mask_;
    x = (x * mul_[r]) & mask_;
    x ^= x >> shift_;
  }
  return x;
}

std::uint64_t BlockOrder::operator()(std::uint64_t position) const {
  if (!scrambled_) return position;
  // The range is below twice the size, so a walk takes two steps on average; it ends, because the
  // walk follows the cycle of a permutation of [0, mask] through `position`, which is below size.
  std::uint64_t x = permute(position);
  while (x >= size_) x = permute(x);
  return x;
}

std::uint64_t block_order_seed() {
  std::lock_guard<std::mutex> lock(seed_mutex);
  if (!seed_set) {
    process_seed = seed_from_environment();
    seed_set = true;
  }
  return process_seed;
}

void set_block_order_seed(std::uint64_t seed) {
  std::lock_guard<std::mutex> lock(seed_mutex);
  process_seed = seed;
  seed_set = true;
  launches = 0;
}

std::uint64_t next_launch_order_seed() {
  const std::uint64_t seed = block_order_seed();
  const std::uint64_t n = launches.fetch_add(1);
  if (seed == 0) return 0;
  const std::uint64_t s = mix(seed ^ mix(n));
  return s ? s : 1;
}

std::string block_order_note() {
  const std::uint64_t seed = block_order_seed();
  if (seed == 0) return "blocks ran in index order (WB_EMU_BLOCK_SEED=0)";
  const std::string s = std::to_string(seed);
  return "blocks ran in a scrambled order, seed " + s + "; WB_EMU_BLOCK_SEED=" + s +
         " repeats it (WB_EMU_BLOCK_SEED=0 runs them in index order)";
}

}  // namespace wb_emu
