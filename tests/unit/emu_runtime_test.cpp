// Unit tests of the CPU backend's runtime (emu/): launches through its API directly, as the
// launch rewriter's output calls it, and the CUDA runtime calls it stands in for.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

namespace {

// What one thread saw: the built-in variables, and how many times it ran.
struct Seen {
  std::atomic<int> runs{0};
  uint3 block, thread;
  dim3 block_dim, grid_dim;
};

struct Record {
  Seen* seen;
  std::uint64_t total;
  std::atomic<int>* out_of_range;
};

// Every thread finds its own slot from blockIdx/threadIdx and the dimensions; a thread that ran
// twice, or with the wrong indices, shows as a slot counted twice and another never counted.
void record_kernel(Record r) {
  const std::uint64_t block = (std::uint64_t(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const std::uint64_t thread = (std::uint64_t(threadIdx.z) * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const std::uint64_t slot = block * (std::uint64_t(blockDim.x) * blockDim.y * blockDim.z) + thread;
  if (slot >= r.total || blockIdx.x >= gridDim.x || threadIdx.x >= blockDim.x) {
    ++*r.out_of_range;
    return;
  }
  Seen& s = r.seen[slot];
  s.block = blockIdx;
  s.thread = threadIdx;
  s.block_dim = blockDim;
  s.grid_dim = gridDim;
  ++s.runs;
}

void count_kernel(std::atomic<int>* runs) { ++*runs; }

// Launches `kernel` on (grid, block) and returns the last error, cleared.
template <class Kernel, class... Args>
cudaError_t launch(Kernel* kernel, dim3 grid, dim3 block, std::size_t shared, Args... args) {
  wb_emu::make_launch(kernel, "k", __FILE__, __LINE__, grid, block, shared)(args...);
  return cudaGetLastError();
}

}  // namespace

TEST_CASE("every thread of every block runs exactly once, with its own indices", "[emu][launch]") {
  struct Shape {
    dim3 grid, block;
  };
  const Shape shape = GENERATE(Shape{dim3(7), dim3(33)},                // 1-D
                               Shape{dim3(1000), dim3(1)},              // many one-thread blocks
                               Shape{dim3(1), dim3(1024)},              // one full block
                               Shape{dim3(3, 5), dim3(7, 9)},           // 2-D
                               Shape{dim3(2, 3, 4), dim3(5, 3, 2)},     // 3-D
                               Shape{dim3(1, 1, 6), dim3(1, 1, 64)});   // z at its limit
  const dim3 g = shape.grid, b = shape.block;
  CAPTURE(g.x, g.y, g.z, b.x, b.y, b.z);
  const std::uint64_t per_block = std::uint64_t(b.x) * b.y * b.z;
  const std::uint64_t total = std::uint64_t(g.x) * g.y * g.z * per_block;
  std::vector<Seen> seen(total);
  std::atomic<int> out_of_range{0};
  REQUIRE(launch(record_kernel, g, b, 0, Record{seen.data(), total, &out_of_range}) == cudaSuccess);
  REQUIRE(out_of_range == 0);
  std::uint64_t wrong = 0;
  for (std::uint64_t slot = 0; slot < total; ++slot) {
    const Seen& s = seen[slot];
    const std::uint64_t block = slot / per_block, thread = slot % per_block;
    const bool ok = s.runs == 1 && s.block.x == block % g.x && s.block.y == (block / g.x) % g.y &&
                    s.block.z == block / (std::uint64_t(g.x) * g.y) && s.thread.x == thread % b.x &&
                    s.thread.y == (thread / b.x) % b.y && s.thread.z == thread / (std::uint64_t(b.x) * b.y) &&
                    s.block_dim.x == b.x && s.block_dim.y == b.y && s.block_dim.z == b.z && s.grid_dim.x == g.x &&
                    s.grid_dim.y == g.y && s.grid_dim.z == g.z;
    if (!ok && wrong++ == 0) {
      CAPTURE(slot, s.runs.load(), s.block.x, s.block.y, s.block.z, s.thread.x, s.thread.y, s.thread.z);
      FAIL_CHECK("the first thread that ran wrongly");
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("a launch has finished when it returns", "[emu][launch]") {
  std::atomic<int> runs{0};
  REQUIRE(launch(count_kernel, dim3(37), dim3(129), 0, &runs) == cudaSuccess);
  CHECK(runs == 37 * 129);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(runs == 37 * 129);
}

TEST_CASE("an invalid configuration is reported once by cudaGetLastError, and nothing runs", "[emu][errors]") {
  struct Config {
    const char* what;
    dim3 grid, block;
    std::size_t shared;
    cudaError_t error;
  };
  // A grid with a 0 dimension is answered with cudaErrorInvalidValue, as CUDA 13 on an H200 does.
  const Config c = GENERATE(Config{"0 blocks", dim3(0), dim3(256), 0, cudaErrorInvalidValue},
                            Config{"0 blocks in y", dim3(4, 0), dim3(256), 0, cudaErrorInvalidValue},
                            Config{"0 threads", dim3(4), dim3(0), 0, cudaErrorInvalidConfiguration},
                            Config{"1025 threads", dim3(1), dim3(1025), 0, cudaErrorInvalidConfiguration},
                            Config{"block.z = 65", dim3(1), dim3(1, 1, 65), 0, cudaErrorInvalidConfiguration},
                            Config{"32 x 32 x 2 = 2048 threads", dim3(1), dim3(32, 32, 2), 0,
                                   cudaErrorInvalidConfiguration},
                            Config{"grid.y = 65536", dim3(1, 65536), dim3(1), 0, cudaErrorInvalidConfiguration},
                            Config{"48 KiB + 1 byte of dynamic shared memory", dim3(1), dim3(32), 48 * 1024 + 1,
                                   cudaErrorInvalidConfiguration});
  CAPTURE(c.what);
  std::atomic<int> runs{0};
  wb_emu::make_launch(count_kernel, "count_kernel", __FILE__, __LINE__, c.grid, c.block, c.shared)(&runs);
  CHECK(runs == 0);
  CHECK(cudaPeekAtLastError() == c.error);  // peek leaves it there
  CHECK(cudaGetLastError() == c.error);
  CHECK(cudaGetLastError() == cudaSuccess);  // not sticky
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  // The next valid launch runs as usual.
  CHECK(launch(count_kernel, dim3(3), dim3(5), 0, &runs) == cudaSuccess);
  CHECK(runs == 15);
}

TEST_CASE("configurations at the limits are accepted", "[emu][launch]") {
  std::atomic<int> runs{0};
  CHECK(launch(count_kernel, dim3(1), dim3(1024), 0, &runs) == cudaSuccess);
  CHECK(launch(count_kernel, dim3(1), dim3(1, 1024), 0, &runs) == cudaSuccess);
  CHECK(launch(count_kernel, dim3(1, 65535), dim3(1), 0, &runs) == cudaSuccess);
  CHECK(launch(count_kernel, dim3(1), dim3(1), 48 * 1024, &runs) == cudaSuccess);
  CHECK(runs == 1024 + 1024 + 65535 + 1);
}

TEST_CASE("cudaMemcpy with a host pointer on the device side is an invalid value", "[emu][memory]") {
  std::vector<float> host(64, 1.0f), other(64, 2.0f);
  float* dev = nullptr;
  REQUIRE(cudaMalloc(&dev, 64 * sizeof(float)) == cudaSuccess);
  REQUIRE(dev != nullptr);
  SECTION("host to device, into host memory") {
    CHECK(cudaMemcpy(other.data(), host.data(), 64 * sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(other[0] == 2.0f);  // nothing copied
  }
  SECTION("device to host, from host memory") {
    CHECK(cudaMemcpy(other.data(), host.data(), 64 * sizeof(float), cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  }
  SECTION("device to device, one side on the host") {
    CHECK(cudaMemcpy(dev, host.data(), 64 * sizeof(float), cudaMemcpyDeviceToDevice) == cudaErrorInvalidValue);
  }
  SECTION("past the end of the allocation") {
    CHECK(cudaMemcpy(dev + 1, host.data(), 64 * sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  }
  SECTION("a null pointer") {
    CHECK(cudaMemcpy(nullptr, dev, 4, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  }
  // The error is also the last error, and only once.
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
  // A right copy still works, both ways, at an offset.
  CHECK(cudaMemcpy(dev + 3, host.data(), 61 * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(cudaMemcpy(other.data(), dev + 3, 61 * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(other[60] == 1.0f);
  CHECK(cudaFree(dev) == cudaSuccess);
}

TEST_CASE("cudaMemset outside an allocation is an invalid value", "[emu][memory]") {
  std::vector<unsigned char> host(16);
  CHECK(cudaMemset(host.data(), 0, 16) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  unsigned char* dev = nullptr;
  REQUIRE(cudaMalloc(&dev, 10) == cudaSuccess);
  CHECK(cudaMemset(dev, 0x5A, 10) == cudaSuccess);
  CHECK(cudaMemset(dev + 5, 0, 6) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(dev[9] == 0x5A);
  CHECK(cudaFree(dev) == cudaSuccess);
}

TEST_CASE("cudaFree of anything but an allocation's start is an invalid value", "[emu][memory]") {
  int on_stack = 0;
  CHECK(cudaFree(&on_stack) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  char* dev = nullptr;
  REQUIRE(cudaMalloc(&dev, 100) == cudaSuccess);
  CHECK(cudaFree(dev + 1) == cudaErrorInvalidValue);  // inside, but not the start
  CHECK(cudaFree(dev) == cudaSuccess);
  CHECK(cudaFree(dev) == cudaErrorInvalidValue);  // twice
  CHECK(cudaFree(nullptr) == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("cudaMalloc of 0 bytes gives a null pointer and no error", "[emu][memory]") {
  void* p = reinterpret_cast<void*>(0x1);
  CHECK(cudaMalloc(&p, 0) == cudaSuccess);
  CHECK(p == nullptr);
  CHECK(cudaMalloc(static_cast<void**>(nullptr), 8) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
}

TEST_CASE("cudaGetErrorName and cudaGetErrorString name each error as CUDA does", "[emu][errors]") {
  struct Named {
    cudaError_t code;
    const char* name;
    const char* text;
  };
  const Named e = GENERATE(Named{cudaSuccess, "cudaSuccess", "no error"},
                           Named{cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
                           Named{cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
                           Named{cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
                                 "invalid configuration argument"},
                           Named{cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
                                 "an illegal memory access was encountered"},
                           Named{cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
                           Named{cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"});
  CHECK(std::string(cudaGetErrorName(e.code)) == e.name);
  CHECK(std::string(cudaGetErrorString(e.code)) == e.text);
  CHECK(int(cudaErrorInvalidConfiguration) == 9);  // numbered as CUDA numbers them
  CHECK(int(cudaErrorIllegalAddress) == 700);
}

TEST_CASE("an error code the runtime does not know still gets a name and a string", "[emu][errors]") {
  const cudaError_t odd = static_cast<cudaError_t>(12345);
  REQUIRE(cudaGetErrorName(odd) != nullptr);
  REQUIRE(cudaGetErrorString(odd) != nullptr);
  CHECK(std::string(cudaGetErrorName(odd)) == "cudaErrorUnknown");
}

// ---- dynamic shared memory ----

struct SharedSeen {
  int fresh;     // every byte was the poison byte when the block's first thread started
  int count;     // threads of the block that added to the block's counter
  void* base;
};

// Thread 0 checks the poison and zeroes a counter; every thread then adds one. Blocks sharing
// storage (or seeing the previous block's) would show a wrong count or a stale byte.
void shared_kernel(SharedSeen* seen, int bytes) {
  unsigned char* raw = wb_emu::dynamic_shared<unsigned char>();
  int* counter = wb_emu::dynamic_shared<int>();
  SharedSeen& s = seen[blockIdx.x];
  if (threadIdx.x == 0) {
    s.fresh = 1;
    for (int k = 0; k < bytes; ++k) s.fresh &= raw[k] == wb_emu::shared_poison_byte;
    s.base = raw;
    std::memset(raw, 0x11, bytes);
    *counter = 0;
  }
  const int before = *counter;
  std::this_thread::yield();  // give another block's worker the chance to interfere
  *counter = before + 1;
  if (threadIdx.x == blockDim.x - 1) s.count = *counter;
}

void null_shared_kernel(int* nulls) {
  if (wb_emu::dynamic_shared<float>() == nullptr) ++nulls[blockIdx.x];
}

TEST_CASE("dynamic shared memory is per block and poisoned at every block's start", "[emu][shared]") {
  const int bytes = GENERATE(4, 1000, 48 * 1024);
  CAPTURE(bytes);
  const int blocks = 97, threads = 45;
  std::vector<SharedSeen> seen(blocks, SharedSeen{0, 0, nullptr});
  REQUIRE(launch(shared_kernel, dim3(blocks), dim3(threads), std::size_t(bytes), seen.data(), bytes) == cudaSuccess);
  for (int b = 0; b < blocks; ++b) {
    CAPTURE(b);
    REQUIRE(seen[b].fresh == 1);
    REQUIRE(seen[b].count == threads);
    REQUIRE(seen[b].base != nullptr);
  }
}

TEST_CASE("a launch without dynamic shared memory sees none", "[emu][shared]") {
  // First a launch with shared memory, so a stale pointer would show.
  std::vector<SharedSeen> seen(8, SharedSeen{0, 0, nullptr});
  REQUIRE(launch(shared_kernel, dim3(8), dim3(3), 64, seen.data(), 64) == cudaSuccess);
  std::vector<int> nulls(16, 0);
  REQUIRE(launch(null_shared_kernel, dim3(16), dim3(2), 0, nulls.data()) == cudaSuccess);
  CHECK(nulls == std::vector<int>(16, 2));
}

// ---- the worker threads ----

std::mutex ids_mutex;
std::set<std::thread::id> ids;

void which_thread_kernel() {
  std::lock_guard<std::mutex> lock(ids_mutex);
  ids.insert(std::this_thread::get_id());
}

TEST_CASE("blocks are spread over at most worker_count() threads, WB_EMU_THREADS when set", "[emu][workers]") {
  const char* env = std::getenv("WB_EMU_THREADS");
  const int expected = env && std::atoi(env) > 0 ? std::atoi(env)
                                                 : std::max(1, int(std::thread::hardware_concurrency()));
  CHECK(wb_emu::worker_count() == expected);
  cudaDeviceProp prop;
  REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
  CHECK(prop.multiProcessorCount == expected);
  CHECK(std::string(prop.name) == "CPU backend (" + std::to_string(expected) + " worker threads)");
  ids.clear();
  REQUIRE(launch(which_thread_kernel, dim3(500), dim3(7), 0) == cudaSuccess);
  CHECK(ids.size() >= 1);
  CHECK(int(ids.size()) <= expected);
}
