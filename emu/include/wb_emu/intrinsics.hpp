/// \file
/// \brief CUDA's device intrinsics (`__ldg`, `__popc`, `rsqrtf`...) and the device `min`/`max`
/// overloads, computed with the host's arithmetic on the CPU backend.
#pragma once

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>

// ---- common device intrinsics (glibc's <cmath> already has __expf, __logf, __sinf, __cosf, __powf) ----
/// \name Device intrinsics
///@{

/// CUDA's intrinsic of the same name, computed with the host's arithmetic (__ldg and the
/// cache-hinted loads and stores are plain accesses; fast-math variants are exact).
template <class T>
inline T __ldg(const T* p) { return *p; }
template <class T>
inline T __ldcs(const T* p) { return *p; }
template <class T>
inline T __ldcg(const T* p) { return *p; }
template <class T>
inline T __ldlu(const T* p) { return *p; }
template <class T>
inline void __stcs(T* p, T v) { *p = v; }
template <class T>
inline void __stcg(T* p, T v) { *p = v; }
template <class T>
inline void __stwt(T* p, T v) { *p = v; }
inline float __fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / __builtin_sqrt(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float __fmaf_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
inline int __float2int_rn(float x) { return static_cast<int>(__builtin_nearbyintf(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
inline float __int_as_float(int i) { float x; std::memcpy(&x, &i, 4); return x; }
inline unsigned __float_as_uint(float x) { unsigned i; std::memcpy(&i, &x, 4); return i; }
inline float __uint_as_float(unsigned i) { float x; std::memcpy(&x, &i, 4); return x; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) | __brev(static_cast<unsigned>(x >> 32));
}
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
// the 24-bit multiplies: the low 32 bits of the product of the operands' low 24 bits (sign-extended for __mul24)
inline int __mul24(int x, int y) {
  const std::int64_t a = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << 8) >> 8;
  const std::int64_t b = static_cast<std::int32_t>(static_cast<std::uint32_t>(y) << 8) >> 8;
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a * b));
}
inline unsigned __umul24(unsigned x, unsigned y) {
  return static_cast<unsigned>((static_cast<std::uint64_t>(x & 0xffffffu) * (y & 0xffffffu)) & 0xffffffffu);
}
// the high 32 (64) bits of the full product
inline int __mulhi(int x, int y) { return static_cast<int>((static_cast<std::int64_t>(x) * y) >> 32); }
inline unsigned __umulhi(unsigned x, unsigned y) { return static_cast<unsigned>((static_cast<std::uint64_t>(x) * y) >> 32); }
inline long long __mul64hi(long long x, long long y) { return static_cast<long long>((static_cast<__int128>(x) * y) >> 64); }
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}
// |x - y| + z
inline unsigned __sad(int x, int y, unsigned z) {
  return z + static_cast<unsigned>(x > y ? static_cast<long long>(x) - y : static_cast<long long>(y) - x);
}
inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return z + (x > y ? x - y : y - x); }
// Bytes 0-3 of x and 4-7 of y; each selector nibble of s (its low 3 bits) picks the result's byte.
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const std::uint64_t bytes = (static_cast<std::uint64_t>(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((bytes >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
// The 64-bit hi:lo shifted by `shift` (taken mod 32; clamped to 32 by the _c forms), high or low 32 bits kept.
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  const std::uint64_t v = (static_cast<std::uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift & 31u)) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
  const std::uint64_t v = (static_cast<std::uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift < 32 ? shift : 32)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  const std::uint64_t v = (static_cast<std::uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift & 31u));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
  const std::uint64_t v = (static_cast<std::uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift < 32 ? shift : 32));
}
///@}
/// \name Arithmetic and conversions with a named rounding
/// The host rounds to nearest even, which is what the _rn forms say; the other roundings of the
/// conversions are written out. (The host does not flush subnormals as -ftz=true would.)
///@{
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return __builtin_sqrtf(a); }
inline float __frsqrt_rn(float a) { return 1.0f / __builtin_sqrtf(a); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __drcp_rn(double a) { return 1.0 / a; }
inline double __dsqrt_rn(double a) { return __builtin_sqrt(a); }
inline double __fma_rn(double a, double b, double c) { return __builtin_fma(a, b, c); }
inline int __float2int_rd(float x) { return static_cast<int>(__builtin_floorf(x)); }
inline int __float2int_ru(float x) { return static_cast<int>(__builtin_ceilf(x)); }
inline unsigned __float2uint_rn(float x) { return static_cast<unsigned>(__builtin_nearbyintf(x)); }
inline unsigned __float2uint_rz(float x) { return static_cast<unsigned>(x); }
inline long long __float2ll_rn(float x) { return static_cast<long long>(__builtin_nearbyintf(x)); }
inline long long __float2ll_rz(float x) { return static_cast<long long>(x); }
inline unsigned long long __float2ull_rn(float x) { return static_cast<unsigned long long>(__builtin_nearbyintf(x)); }
inline float __double2float_rn(double x) { return static_cast<float>(x); }
inline int __double2int_rn(double x) { return static_cast<int>(__builtin_nearbyint(x)); }
inline int __double2int_rz(double x) { return static_cast<int>(x); }
inline long long __double2ll_rn(double x) { return static_cast<long long>(__builtin_nearbyint(x)); }
inline double __int2double_rn(int x) { return x; }
inline double __uint2double_rn(unsigned x) { return x; }
inline double __ll2double_rn(long long x) { return static_cast<double>(x); }
inline float __uint2float_rn(unsigned x) { return static_cast<float>(x); }
inline float __ll2float_rn(long long x) { return static_cast<float>(x); }
inline float __ull2float_rn(unsigned long long x) { return static_cast<float>(x); }
inline long long __double_as_longlong(double x) { long long i; std::memcpy(&i, &x, 8); return i; }
inline double __longlong_as_double(long long i) { double x; std::memcpy(&x, &i, 8); return x; }
inline int __double2hiint(double x) { return static_cast<int>(__double_as_longlong(x) >> 32); }
inline int __double2loint(double x) { return static_cast<int>(__double_as_longlong(x) & 0xffffffff); }
inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double(static_cast<long long>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(hi)) << 32) |
                                                     static_cast<std::uint32_t>(lo)));
}
///@}

// glibc declares __expf & co. (emu/src/intrinsics.cpp defines them for it); another C library
// declares none, so they are defined here.
#if !defined(__GLIBC__)
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline void __sincosf(float x, float* s, float* c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
#else
extern "C" void __sincosf(float x, float* s, float* c) noexcept;
#endif

/// \name CUDA's math names, unqualified in device code
/// CUDA's headers put the float overloads (`sqrt(float)`, `isnan(float)`...) in the global
/// namespace; <cmath> puts them in std, so a kernel's `sqrt(x)` of a float would compute in double.
///@{
using std::abs; using std::acos; using std::asin; using std::atan; using std::atan2; using std::cbrt;
using std::ceil; using std::copysign; using std::cos; using std::cosh; using std::erf; using std::erfc;
using std::exp; using std::exp2; using std::expm1; using std::fabs; using std::floor; using std::fma;
using std::fmax; using std::fmin; using std::fmod; using std::hypot; using std::isfinite; using std::isinf;
using std::isnan; using std::ldexp; using std::lgamma; using std::log; using std::log10; using std::log1p;
using std::log2; using std::lround; using std::nearbyint; using std::pow; using std::remainder; using std::rint;
using std::round; using std::signbit; using std::sin; using std::sinh; using std::sqrt; using std::tan;
using std::tanh; using std::tgamma; using std::trunc;
///@}

/// \name Time and traps
///@{
/// A clock of nanoseconds (cudaDevAttrClockRate says 1 GHz, so cycles / clockRate are ms, as on a
/// GPU); `clock()` is the C library's. Times on the CPU backend say nothing about a GPU.
inline long long clock64() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline void __nanosleep(unsigned ns) { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); }
namespace wb_emu {
namespace detail {
/// A kernel fault: the thread stopped the kernel at file:line (emu/src/cooperative.cpp).
[[noreturn]] void trap(const char* what, const char* file, int line);
}  // namespace detail
}  // namespace wb_emu
/// Stops the kernel: a kernel fault naming the line, then cudaErrorLaunchFailure (sticky), as a GPU's trap.
[[noreturn]] inline void __trap(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::wb_emu::detail::trap("__trap()", file, line);
}
[[noreturn]] inline void __brkpt(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::wb_emu::detail::trap("__brkpt()", file, line);
}
///@}
/// \name min and max
///@{

/// CUDA's device min and max overloads.
inline int min(int a, int b) { return a < b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline float min(float a, float b) { return __builtin_fminf(a, b); }
inline double min(double a, double b) { return __builtin_fmin(a, b); }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline float max(float a, float b) { return __builtin_fmaxf(a, b); }
inline double max(double a, double b) { return __builtin_fmax(a, b); }
// the mixed forms CUDA has: a signed and an unsigned integer compare as unsigned, float and double as double
inline unsigned min(int a, unsigned b) { return min(static_cast<unsigned>(a), b); }
inline unsigned min(unsigned a, int b) { return min(a, static_cast<unsigned>(b)); }
inline unsigned max(int a, unsigned b) { return max(static_cast<unsigned>(a), b); }
inline unsigned max(unsigned a, int b) { return max(a, static_cast<unsigned>(b)); }
inline long min(long a, long b) { return a < b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline unsigned long long min(long long a, unsigned long long b) { return min(static_cast<unsigned long long>(a), b); }
inline unsigned long long min(unsigned long long a, long long b) { return min(a, static_cast<unsigned long long>(b)); }
inline unsigned long long max(long long a, unsigned long long b) { return max(static_cast<unsigned long long>(a), b); }
inline unsigned long long max(unsigned long long a, long long b) { return max(a, static_cast<unsigned long long>(b)); }
inline double min(float a, double b) { return __builtin_fmin(a, b); }
inline double min(double a, float b) { return __builtin_fmin(a, b); }
inline double max(float a, double b) { return __builtin_fmax(a, b); }
inline double max(double a, float b) { return __builtin_fmax(a, b); }
///@}
