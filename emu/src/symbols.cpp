// CPU backend: the symbols, the `__constant__` and `__device__` variables of the rewritten .cu
// files, and the calls that name them: cudaMemcpyToSymbol, cudaMemcpyFromSymbol (and their Async
// forms), cudaGetSymbolAddress, cudaGetSymbolSize. The launch rewriter registers each variable as
// the program starts (wb_emu::register_symbol); memory.cpp counts a symbol's bytes as device memory.
#include "errors.hpp"
#include "memory.hpp"

#include <wb_emu/api.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>

namespace wb_emu::internal {
std::uintptr_t symbols_lo = 0, symbols_hi = 0;

namespace {
struct Symbol {
  std::size_t bytes;
  const char* name;
  const char* space;  // "__constant__" or "__device__"
  const char* file;
  int line;
};

// Function-local statics: registration runs during the static initialisation of other files.
std::mutex& symbol_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::uintptr_t, Symbol>& symbols() {
  static std::map<std::uintptr_t, Symbol> m;
  return m;
}

Allocation as_allocation(std::uintptr_t base, const Symbol& s) {
  Allocation a;
  a.base = base;
  a.bytes = s.bytes;
  a.kind = s.space;
  return a;
}

// The symbol whose first byte is `address`, or nullptr.
const Symbol* symbol_at(const void* address) {
  std::lock_guard<std::mutex> lock(symbol_mutex());
  auto it = symbols().find(reinterpret_cast<std::uintptr_t>(address));
  return it == symbols().end() ? nullptr : &it->second;
}

// A refused call's reason, on stderr when WB_EMU_VERBOSE is set (the error code says the rest).
cudaError_t refuse(cudaError_t e, const char* call, const std::string& why) {
  if (std::getenv("WB_EMU_VERBOSE")) std::fprintf(stderr, "wb_emu: %s: %s\n", call, why.c_str());
  return record(e);
}

std::string describe(const Symbol& s) {
  return "`" + std::string(s.name) + "` (" + s.space + ", " + std::to_string(s.bytes) + " bytes, declared at " +
         s.file + ":" + std::to_string(s.line) + ")";
}

// The checks both directions share; on success `*found` is the symbol.
cudaError_t check_symbol_copy(const char* call, const void* symbol, std::size_t count, std::size_t offset,
                              bool kind_ok, const Symbol** found) {
  if (cudaError_t e = sticky()) return record(e);
  const Symbol* s = symbol_at(symbol);
  if (!s)
    return refuse(cudaErrorInvalidSymbol, call,
                  "the symbol is no __constant__ or __device__ variable of a .cu file (pass the variable itself, "
                  "not its address or a host variable)");
  if (!kind_ok) return refuse(cudaErrorInvalidMemcpyDirection, call, "the copy's kind does not fit a symbol");
  if (offset > s->bytes || count > s->bytes - offset)
    return refuse(cudaErrorInvalidValue, call,
                  std::to_string(count) + " bytes at offset " + std::to_string(offset) + " do not fit in " +
                      describe(*s));
  *found = s;
  return cudaSuccess;
}
}  // namespace

bool symbol_holding(std::uintptr_t a, std::uintptr_t e, Allocation* found) {
  std::lock_guard<std::mutex> lock(symbol_mutex());
  auto it = symbols().upper_bound(a);
  if (it == symbols().begin()) return false;
  --it;
  if (e > it->first + it->second.bytes) return false;
  *found = as_allocation(it->first, it->second);
  return true;
}

bool nearest_symbol(std::uintptr_t a, Allocation* found) {
  std::lock_guard<std::mutex> lock(symbol_mutex());
  const auto& m = symbols();
  auto distance = [a](std::uintptr_t base, std::size_t bytes) { return a < base ? base - a : a - (base + bytes); };
  bool any = false;
  std::uintptr_t best = 0;
  auto it = m.upper_bound(a);
  if (it != m.end()) {
    *found = as_allocation(it->first, it->second);
    best = distance(it->first, it->second.bytes);
    any = true;
  }
  if (it != m.begin()) {
    --it;
    if (!any || distance(it->first, it->second.bytes) < best) *found = as_allocation(it->first, it->second);
    any = true;
  }
  return any;
}
}  // namespace wb_emu::internal

bool wb_emu::register_symbol(const void* address, std::size_t bytes, const char* name, const char* space,
                             const char* file, int line) {
  std::lock_guard<std::mutex> lock(internal::symbol_mutex());
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  internal::symbols()[a] = internal::Symbol{bytes, name, space, file, line};
  // Registration runs as the program starts, before any kernel reads these.
  if (internal::symbols_lo == 0 || a < internal::symbols_lo) internal::symbols_lo = a;
  if (a + bytes > internal::symbols_hi) internal::symbols_hi = a + bytes;
  return true;
}

using namespace wb_emu::internal;

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, std::size_t count, std::size_t offset,
                               cudaMemcpyKind kind) {
  const bool kind_ok = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault;
  const Symbol* s = nullptr;
  if (cudaError_t e = check_symbol_copy("cudaMemcpyToSymbol", symbol, count, offset, kind_ok, &s)) return e;
  if (count == 0) return cudaSuccess;
  if (!src) return refuse(cudaErrorInvalidValue, "cudaMemcpyToSymbol", "the source is a null pointer");
  if (kind == cudaMemcpyDeviceToDevice && !in_allocation(src, count))
    return refuse(cudaErrorInvalidValue, "cudaMemcpyToSymbol", "the source is not device memory (kind DeviceToDevice)");
  std::memmove(static_cast<char*>(const_cast<void*>(symbol)) + offset, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, std::size_t count, std::size_t offset,
                                 cudaMemcpyKind kind) {
  const bool kind_ok = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault;
  const Symbol* s = nullptr;
  if (cudaError_t e = check_symbol_copy("cudaMemcpyFromSymbol", symbol, count, offset, kind_ok, &s)) return e;
  if (count == 0) return cudaSuccess;
  if (!dst) return refuse(cudaErrorInvalidValue, "cudaMemcpyFromSymbol", "the destination is a null pointer");
  if (kind == cudaMemcpyDeviceToDevice && !in_allocation(dst, count))
    return refuse(cudaErrorInvalidValue, "cudaMemcpyFromSymbol",
                  "the destination is not device memory (kind DeviceToDevice)");
  std::memmove(dst, static_cast<const char*>(symbol) + offset, count);
  return cudaSuccess;
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, std::size_t count, std::size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, std::size_t count, std::size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void** dev_ptr, const void* symbol) {
  if (!dev_ptr) return record(cudaErrorInvalidValue);
  if (!symbol_at(symbol))
    return refuse(cudaErrorInvalidSymbol, "cudaGetSymbolAddress", "the symbol is no __constant__ or __device__ variable");
  *dev_ptr = const_cast<void*>(symbol);
  return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(std::size_t* size, const void* symbol) {
  if (!size) return record(cudaErrorInvalidValue);
  const Symbol* s = symbol_at(symbol);
  if (!s) return refuse(cudaErrorInvalidSymbol, "cudaGetSymbolSize", "the symbol is no __constant__ or __device__ variable");
  *size = s->bytes;
  return cudaSuccess;
}
