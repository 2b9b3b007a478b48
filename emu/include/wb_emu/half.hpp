/// \file
/// \brief CUDA's 16-bit floating-point types on the CPU backend: `__half` and `__half2`
/// (<cuda_fp16.h>), `__nv_bfloat16` and `__nv_bfloat162` (<cuda_bf16.h>). Each value is stored in
/// 16 bits, as on a GPU (a `__half` array has the same bytes, and a shuffle moves it); arithmetic is
/// done in float and rounded back to nearest, ties to even, which gives the correctly rounded result
/// for + - * / and sqrt, since float carries more than twice the bits of either format plus two.
#pragma once

// The guards of CUDA's <cuda_fp16.h> and <cuda_bf16.h>, which helper headers test.
#define __CUDA_FP16_H__
#define __CUDA_BF16_H__

#include <wb_emu/vector_types.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace wb_emu {
namespace detail {
/// The 16-bit pattern nearest to `v` (ties to even) in a format of `ebits` exponent bits and
/// `mbits` stored mantissa bits (5, 10 for half; 8, 7 for bfloat16), subnormals included. A NaN
/// becomes the canonical 0x7fff, as CUDA's conversions give it; too large a value becomes infinity.
inline std::uint16_t round_to_16(double v, int ebits, int mbits) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  const std::uint16_t sign = static_cast<std::uint16_t>((b >> 48) & 0x8000u);
  const int e = static_cast<int>((b >> 52) & 0x7ff);
  std::uint64_t m = b & ((std::uint64_t(1) << 52) - 1);
  const int all_ones = (1 << ebits) - 1, bias = (1 << (ebits - 1)) - 1;
  const std::uint16_t inf = static_cast<std::uint16_t>(sign | (all_ones << mbits));
  if (e == 0x7ff) return m ? std::uint16_t(0x7fff) : inf;
  if (e == 0) return sign;  // zero, or a double subnormal: far below either format's least value
  m |= std::uint64_t(1) << 52;
  int te = e - 1023 + bias;  // the target's biased exponent
  if (te >= all_ones) return inf;
  int shift = 52 - mbits;
  if (te < 1) {  // a subnormal of the target: fewer mantissa bits are kept
    shift += 1 - te;
    te = 0;
  }
  if (shift > 60) return sign;  // below half the least subnormal: rounds to zero
  std::uint64_t q = m >> shift;
  const std::uint64_t rem = m & ((std::uint64_t(1) << shift) - 1), halfway = std::uint64_t(1) << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1))) ++q;
  // A normal result keeps the implicit bit out of the stored field; a carry out of the mantissa
  // moves into the exponent by itself (and to infinity past the largest finite value).
  std::uint64_t r = te >= 1 ? (std::uint64_t(te) << mbits) + q - (std::uint64_t(1) << mbits) : q;
  if (r >= std::uint64_t(all_ones) << mbits) return inf;
  return static_cast<std::uint16_t>(sign | r);
}
/// The exact float value of a 16-bit half pattern.
inline float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ffu;
  std::uint32_t bits;
  if (e == 0x1f) {
    bits = sign | 0x7f800000u | (m << 13);  // infinity, or a NaN with its payload
  } else if (e == 0) {
    const float f = std::ldexp(static_cast<float>(m), -24);  // a subnormal (or zero): m * 2^-24, exact
    return sign ? -f : f;
  } else {
    bits = sign | ((e - 15 + 127) << 23) | (m << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
/// The exact float value of a 16-bit bfloat16 pattern (the upper half of a float's bits).
inline float bf16_bits_to_float(std::uint16_t h) {
  const std::uint32_t bits = std::uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
}  // namespace detail
}  // namespace wb_emu

// The two scalar types share everything but their format: one macro writes each (TYPE, its raw
// struct, its float conversions).
#define WB_EMU_HALF_TYPE(TYPE, RAW, EBITS, MBITS, TOFLOAT)                                          \
  struct RAW {                                                                                       \
    unsigned short x;                                                                                \
  };                                                                                                 \
  struct alignas(2) TYPE {                                                                           \
    unsigned short __x;                                                                              \
    TYPE() = default;                                                                                \
    constexpr TYPE(const RAW& r) : __x(r.x) {}                                                       \
    TYPE(float f) : __x(::wb_emu::detail::round_to_16(f, EBITS, MBITS)) {}                           \
    TYPE(double f) : __x(::wb_emu::detail::round_to_16(f, EBITS, MBITS)) {}                          \
    TYPE(int i) : TYPE(static_cast<double>(i)) {}                                                    \
    TYPE(unsigned int i) : TYPE(static_cast<double>(i)) {}                                           \
    TYPE(short i) : TYPE(static_cast<double>(i)) {}                                                  \
    TYPE(unsigned short i) : TYPE(static_cast<double>(i)) {}                                         \
    TYPE(long i) : TYPE(static_cast<double>(i)) {}                                                   \
    TYPE(unsigned long i) : TYPE(static_cast<double>(i)) {}                                          \
    TYPE(long long i) : TYPE(static_cast<double>(i)) {}                                              \
    TYPE(unsigned long long i) : TYPE(static_cast<double>(i)) {}                                     \
    TYPE& operator=(const RAW& r) {                                                                  \
      __x = r.x;                                                                                     \
      return *this;                                                                                  \
    }                                                                                                \
    operator RAW() const { return RAW{__x}; }                                                        \
    operator float() const { return ::wb_emu::detail::TOFLOAT(__x); }                                \
    explicit operator bool() const { return (__x & 0x7fffu) != 0; }                                  \
    explicit operator int() const { return static_cast<int>(static_cast<float>(*this)); }            \
    explicit operator unsigned int() const { return static_cast<unsigned>(static_cast<float>(*this)); } \
    explicit operator long long() const { return static_cast<long long>(static_cast<float>(*this)); } \
    explicit operator double() const { return static_cast<float>(*this); }                           \
  };                                                                                                 \
  /* the operators CUDA defines: computed in float, rounded back */                                 \
  inline TYPE operator+(const TYPE& a, const TYPE& b) { return TYPE(float(a) + float(b)); }          \
  inline TYPE operator-(const TYPE& a, const TYPE& b) { return TYPE(float(a) - float(b)); }          \
  inline TYPE operator*(const TYPE& a, const TYPE& b) { return TYPE(float(a) * float(b)); }          \
  inline TYPE operator/(const TYPE& a, const TYPE& b) { return TYPE(float(a) / float(b)); }          \
  inline TYPE& operator+=(TYPE& a, const TYPE& b) { return a = a + b; }                              \
  inline TYPE& operator-=(TYPE& a, const TYPE& b) { return a = a - b; }                              \
  inline TYPE& operator*=(TYPE& a, const TYPE& b) { return a = a * b; }                              \
  inline TYPE& operator/=(TYPE& a, const TYPE& b) { return a = a / b; }                              \
  inline TYPE operator+(const TYPE& a) { return a; }                                                 \
  inline TYPE operator-(const TYPE& a) { return TYPE(RAW{static_cast<unsigned short>(a.__x ^ 0x8000u)}); } \
  inline TYPE& operator++(TYPE& a) { return a = a + TYPE(1.0f); }                                    \
  inline TYPE& operator--(TYPE& a) { return a = a - TYPE(1.0f); }                                    \
  inline TYPE operator++(TYPE& a, int) { TYPE o = a; ++a; return o; }                                \
  inline TYPE operator--(TYPE& a, int) { TYPE o = a; --a; return o; }                                \
  inline bool operator==(const TYPE& a, const TYPE& b) { return float(a) == float(b); }              \
  inline bool operator!=(const TYPE& a, const TYPE& b) { return float(a) != float(b); }              \
  inline bool operator<(const TYPE& a, const TYPE& b) { return float(a) < float(b); }                \
  inline bool operator>(const TYPE& a, const TYPE& b) { return float(a) > float(b); }                \
  inline bool operator<=(const TYPE& a, const TYPE& b) { return float(a) <= float(b); }              \
  inline bool operator>=(const TYPE& a, const TYPE& b) { return float(a) >= float(b); }

// The pair types (__half2, __nv_bfloat162): two values in 4 bytes, x the low half, as on a GPU.
#define WB_EMU_HALF_PAIR(PAIR, RAW2, TYPE)                                                          \
  struct RAW2 {                                                                                      \
    unsigned short x, y;                                                                             \
  };                                                                                                 \
  struct alignas(4) PAIR {                                                                           \
    TYPE x, y;                                                                                       \
    PAIR() = default;                                                                                \
    constexpr PAIR(const TYPE& a, const TYPE& b) : x(a), y(b) {}                                     \
    PAIR(const RAW2& r) : x(RAW2_LOW(r)), y(RAW2_HIGH(r)) {}                                         \
    operator RAW2() const { return RAW2{x.__x, y.__x}; }                                             \
  };                                                                                                 \
  inline PAIR operator+(const PAIR& a, const PAIR& b) { return PAIR(a.x + b.x, a.y + b.y); }         \
  inline PAIR operator-(const PAIR& a, const PAIR& b) { return PAIR(a.x - b.x, a.y - b.y); }         \
  inline PAIR operator*(const PAIR& a, const PAIR& b) { return PAIR(a.x * b.x, a.y * b.y); }         \
  inline PAIR operator/(const PAIR& a, const PAIR& b) { return PAIR(a.x / b.x, a.y / b.y); }         \
  inline PAIR& operator+=(PAIR& a, const PAIR& b) { return a = a + b; }                              \
  inline PAIR& operator-=(PAIR& a, const PAIR& b) { return a = a - b; }                              \
  inline PAIR& operator*=(PAIR& a, const PAIR& b) { return a = a * b; }                              \
  inline PAIR& operator/=(PAIR& a, const PAIR& b) { return a = a / b; }                              \
  inline PAIR operator+(const PAIR& a) { return a; }                                                 \
  inline PAIR operator-(const PAIR& a) { return PAIR(-a.x, -a.y); }                                  \
  /* a comparison of pairs holds when it holds for both halves, as CUDA's operators say */          \
  inline bool operator==(const PAIR& a, const PAIR& b) { return a.x == b.x && a.y == b.y; }          \
  inline bool operator!=(const PAIR& a, const PAIR& b) { return a.x != b.x && a.y != b.y; }          \
  inline bool operator<(const PAIR& a, const PAIR& b) { return a.x < b.x && a.y < b.y; }             \
  inline bool operator>(const PAIR& a, const PAIR& b) { return a.x > b.x && a.y > b.y; }             \
  inline bool operator<=(const PAIR& a, const PAIR& b) { return a.x <= b.x && a.y <= b.y; }          \
  inline bool operator>=(const PAIR& a, const PAIR& b) { return a.x >= b.x && a.y >= b.y; }

#define RAW2_LOW(r) RAW_OF(r.x)
#define RAW2_HIGH(r) RAW_OF(r.y)

// ---- __half ----
#define RAW_OF(v) __half_raw{v}
WB_EMU_HALF_TYPE(__half, __half_raw, 5, 10, half_bits_to_float)
WB_EMU_HALF_PAIR(__half2, __half2_raw, __half)
#undef RAW_OF
// ---- __nv_bfloat16 ----
#define RAW_OF(v) __nv_bfloat16_raw{v}
WB_EMU_HALF_TYPE(__nv_bfloat16, __nv_bfloat16_raw, 8, 7, bf16_bits_to_float)
WB_EMU_HALF_PAIR(__nv_bfloat162, __nv_bfloat162_raw, __nv_bfloat16)
#undef RAW_OF
#undef RAW2_LOW
#undef RAW2_HIGH
#undef WB_EMU_HALF_TYPE
#undef WB_EMU_HALF_PAIR

/// CUDA's other names of the types.
using half = __half;
using half2 = __half2;
using nv_bfloat16 = __nv_bfloat16;
using nv_bfloat162 = __nv_bfloat162;

// ---- the intrinsics, for both formats ----
// CUDA names the bfloat16 conversions apart (__float2bfloat16) and overloads the arithmetic
// (__hadd of two __nv_bfloat16); the conversions are written out per format, the rest once.
#define WB_EMU_HALF_FUNCS(T, T2, F2T, T2F, F2T2, FS2T2, T22F2, LOW2T, HIGH2T, TS2T2, T2T2, LOWS2T2, HIGHS2T2) \
  inline T F2T(float f) { return T(f); }                                                               \
  inline T F2T##_rn(float f) { return T(f); }                                                          \
  inline float T2F(T h) { return float(h); }                                                           \
  inline T2 F2T2##_rn(float f) { return T2(T(f), T(f)); }                                              \
  inline T2 FS2T2##_rn(float a, float b) { return T2(T(a), T(b)); }                                    \
  inline float2 T22F2(T2 h) { return float2{float(h.x), float(h.y)}; }                                 \
  inline T LOW2T(T2 h) { return h.x; }                                                                 \
  inline T HIGH2T(T2 h) { return h.y; }                                                                \
  inline T2 TS2T2(T a, T b) { return T2(a, b); }                                                       \
  inline T2 T2T2(T a) { return T2(a, a); }                                                             \
  inline T2 LOWS2T2(T2 a, T2 b) { return T2(a.x, b.x); }                                               \
  inline T2 HIGHS2T2(T2 a, T2 b) { return T2(a.y, b.y); }                                              \
  inline T __hadd(T a, T b) { return a + b; }                                                          \
  inline T __hsub(T a, T b) { return a - b; }                                                          \
  inline T __hmul(T a, T b) { return a * b; }                                                          \
  inline T __hdiv(T a, T b) { return a / b; }                                                          \
  inline T __hneg(T a) { return -a; }                                                                  \
  inline T __habs(T a) { return T(std::fabs(float(a))); }                                              \
  inline T __hfma(T a, T b, T c) { return T(std::fma(double(float(a)), double(float(b)), double(float(c)))); } \
  inline T __hadd_sat(T a, T b) { return T(std::fmin(1.0f, std::fmax(0.0f, float(a) + float(b)))); }  \
  inline T __hmax(T a, T b) { return float(a) >= float(b) || std::isnan(float(b)) ? a : b; }           \
  inline T __hmin(T a, T b) { return float(a) <= float(b) || std::isnan(float(b)) ? a : b; }           \
  inline bool __heq(T a, T b) { return a == b; }                                                       \
  inline bool __hne(T a, T b) { return a != b; }                                                       \
  inline bool __hlt(T a, T b) { return a < b; }                                                        \
  inline bool __hle(T a, T b) { return a <= b; }                                                       \
  inline bool __hgt(T a, T b) { return a > b; }                                                        \
  inline bool __hge(T a, T b) { return a >= b; }                                                       \
  inline bool __hisnan(T a) { return std::isnan(float(a)); }                                           \
  inline int __hisinf(T a) { return std::isinf(float(a)) ? (float(a) < 0 ? -1 : 1) : 0; }              \
  inline T2 __hadd2(T2 a, T2 b) { return a + b; }                                                      \
  inline T2 __hsub2(T2 a, T2 b) { return a - b; }                                                      \
  inline T2 __hmul2(T2 a, T2 b) { return a * b; }                                                      \
  inline T2 __h2div(T2 a, T2 b) { return a / b; }                                                      \
  inline T2 __hneg2(T2 a) { return -a; }                                                               \
  inline T2 __habs2(T2 a) { return T2(__habs(a.x), __habs(a.y)); }                                     \
  inline T2 __hfma2(T2 a, T2 b, T2 c) { return T2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }     \
  inline T2 __hmax2(T2 a, T2 b) { return T2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }                     \
  inline T2 __hmin2(T2 a, T2 b) { return T2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }                     \
  inline bool __hbeq2(T2 a, T2 b) { return a == b; }                                                   \
  inline bool __hblt2(T2 a, T2 b) { return a < b; }                                                    \
  inline T hsqrt(T a) { return T(std::sqrt(float(a))); }                                               \
  inline T hrsqrt(T a) { return T(1.0f / std::sqrt(float(a))); }                                       \
  inline T hrcp(T a) { return T(1.0f / float(a)); }                                                    \
  inline T hexp(T a) { return T(std::exp(float(a))); }                                                 \
  inline T hexp2(T a) { return T(std::exp2(float(a))); }                                               \
  inline T hlog(T a) { return T(std::log(float(a))); }                                                 \
  inline T hlog2(T a) { return T(std::log2(float(a))); }                                               \
  inline T hsin(T a) { return T(std::sin(float(a))); }                                                 \
  inline T hcos(T a) { return T(std::cos(float(a))); }                                                 \
  inline T htanh(T a) { return T(std::tanh(float(a))); }                                               \
  inline T hfloor(T a) { return T(std::floor(float(a))); }                                             \
  inline T hceil(T a) { return T(std::ceil(float(a))); }                                               \
  inline T htrunc(T a) { return T(std::trunc(float(a))); }                                             \
  inline T hrint(T a) { return T(std::nearbyint(float(a))); }                                          \
  inline T2 h2sqrt(T2 a) { return T2(hsqrt(a.x), hsqrt(a.y)); }                                        \
  inline T2 h2exp(T2 a) { return T2(hexp(a.x), hexp(a.y)); }                                           \
  inline T2 h2log(T2 a) { return T2(hlog(a.x), hlog(a.y)); }                                           \
  inline T2 h2rcp(T2 a) { return T2(hrcp(a.x), hrcp(a.y)); }

/// \name The half and bfloat16 intrinsics
///@{

/// As CUDA's of the same names (<cuda_fp16.h>, <cuda_bf16.h>), computed in float and rounded to
/// nearest even.
WB_EMU_HALF_FUNCS(__half, __half2, __float2half, __half2float, __float2half2, __floats2half2, __half22float2,
                  __low2half, __high2half, __halves2half2, __half2half2, __lows2half2, __highs2half2)
WB_EMU_HALF_FUNCS(__nv_bfloat16, __nv_bfloat162, __float2bfloat16, __bfloat162float, __float2bfloat162,
                  __floats2bfloat162, __bfloat1622float2, __low2bfloat16, __high2bfloat16, __halves2bfloat162,
                  __bfloat162bfloat162, __lows2bfloat162, __highs2bfloat162)
#undef WB_EMU_HALF_FUNCS

inline __half __double2half(double d) { return __half(d); }
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(d); }
inline float __low2float(__half2 h) { return float(h.x); }
inline float __high2float(__half2 h) { return float(h.y); }
inline float __low2float(__nv_bfloat162 h) { return float(h.x); }
inline float __high2float(__nv_bfloat162 h) { return float(h.y); }
inline __half2 __lowhigh2highlow(__half2 h) { return __half2(h.y, h.x); }
inline __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 h) { return __nv_bfloat162(h.y, h.x); }
/// Toward zero: the float truncated to the format's mantissa, the exponent range checked as above.
inline __half __float2half_rz(float f) {
  const __half n(f);
  return std::fabs(float(n)) > std::fabs(f) ? __half(__half_raw{static_cast<unsigned short>(n.__x - 1)}) : n;
}
inline __nv_bfloat16 __float2bfloat16_rz(float f) {
  unsigned bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (std::isnan(f)) return __nv_bfloat16(__nv_bfloat16_raw{0x7fff});
  return __nv_bfloat16(__nv_bfloat16_raw{static_cast<unsigned short>(bits >> 16)});
}
inline int __half2int_rn(__half h) { return static_cast<int>(std::nearbyint(float(h))); }
inline int __half2int_rz(__half h) { return static_cast<int>(float(h)); }
inline __half __int2half_rn(int i) { return __half(i); }
inline short __half_as_short(__half h) { return static_cast<short>(h.__x); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __short_as_half(short s) { return __half(__half_raw{static_cast<unsigned short>(s)}); }
inline __half __ushort_as_half(unsigned short s) { return __half(__half_raw{s}); }
inline short __bfloat16_as_short(__nv_bfloat16 h) { return static_cast<short>(h.__x); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
inline __nv_bfloat16 __short_as_bfloat16(short s) { return __nv_bfloat16(__nv_bfloat16_raw{static_cast<unsigned short>(s)}); }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short s) { return __nv_bfloat16(__nv_bfloat16_raw{s}); }
///@}

/// CUDA's constants of <cuda_fp16.h> and <cuda_bf16.h>: infinity, a NaN, the largest finite value, 0 and 1.
#define CUDART_INF_FP16 __ushort_as_half(static_cast<unsigned short>(0x7C00U))
#define CUDART_NAN_FP16 __ushort_as_half(static_cast<unsigned short>(0x7FFFU))
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half(static_cast<unsigned short>(0x7BFFU))
#define CUDART_ZERO_FP16 __ushort_as_half(static_cast<unsigned short>(0x0000U))
#define CUDART_ONE_FP16 __ushort_as_half(static_cast<unsigned short>(0x3C00U))
#define CUDART_INF_BF16 __ushort_as_bfloat16(static_cast<unsigned short>(0x7F80U))
#define CUDART_NAN_BF16 __ushort_as_bfloat16(static_cast<unsigned short>(0x7FFFU))
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16(static_cast<unsigned short>(0x7F7FU))
#define CUDART_ZERO_BF16 __ushort_as_bfloat16(static_cast<unsigned short>(0x0000U))
#define CUDART_ONE_BF16 __ushort_as_bfloat16(static_cast<unsigned short>(0x3F80U))
