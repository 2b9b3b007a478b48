// Helpers the CPU backend's tests share: device arrays filled on the host (emulated device memory
// is host memory), and what a launch printed to stderr.
#pragma once

#include <catch2/catch_test_macros.hpp>

#include <cuda_runtime.h>
#include <wb_emu/block_order.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace {

// Line number of the line of tests/emu/<file> that contains `marker`.
int line_of(const char* file, const char* marker) {
  std::ifstream in(std::string(EMU_TEST_DIR) + "/" + file);
  std::string text;
  for (int line = 1; std::getline(in, text); ++line)
    if (text.find(marker) != std::string::npos) return line;
  FAIL("marker not found: " << marker);
  return 0;
}


template <class T>
T* device_array(std::size_t n, T fill = T{}) {
  T* p = nullptr;
  REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess);
  for (std::size_t i = 0; i < n; ++i) p[i] = fill;
  return p;
}

// What a launch printed, less the line that the process's first fault report of a launch in
// scrambled block order adds ("  (The blocks ran in a scrambled order, seed S; ...)"), which is
// not part of the fault's text (last_fault_message()).
inline std::string without_order_note(std::string err) {
  const std::string start = "  (The blocks ran in a scrambled order";
  const std::size_t at = err.find(start);
  if (at == std::string::npos) return err;
  const std::size_t end = err.find('\n', at);
  return err.erase(at, end == std::string::npos ? std::string::npos : end - at + 1);
}

// Sets the process's block-order seed (<wb_emu/block_order.hpp>) for a scope and puts the one it
// had back after; BlockSeed(0): blocks start in index order, for a test that needs a given block
// of several faulting ones to be the one reported.
struct BlockSeed {
  explicit BlockSeed(std::uint64_t seed) : saved(wb_emu::block_order_seed()) { wb_emu::set_block_order_seed(seed); }
  ~BlockSeed() { wb_emu::set_block_order_seed(saved); }
  BlockSeed(const BlockSeed&) = delete;
  BlockSeed& operator=(const BlockSeed&) = delete;
  std::uint64_t saved;
};

// Runs f with stderr sent to a file; returns what was written.
template <class F>
std::string capture_stderr(F f) {
  std::fflush(stderr);
  char path[] = "/tmp/wb-emu-test-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  const int saved = dup(2);
  dup2(fd, 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  unlink(path);
  return ss.str();
}

}  // namespace
