/// \file
/// \brief CUDA's device intrinsics (`__ldg`, `__popc`, `rsqrtf`...) and the device `min`/`max`
/// overloads, computed with the host's arithmetic on the CPU backend.
#pragma once

#include <cmath>
#include <cstring>

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
///@}
