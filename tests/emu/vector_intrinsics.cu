// CUDA's vector types (sizes and alignments as CUDA documents them), their make_ functions and
// __ldg, and the integer, rounding and math intrinsics, in kernels on the CPU backend.
#include <math_constants.h>
#include <vector_types.h>

#include <type_traits>

#include "compat_runtime.hpp"

// CUDA's documented sizes and alignments: a 2-vector is aligned to its size, a 4-vector to its
// size up to 16, a 1- or 3-vector to its component.
static_assert(sizeof(char1) == 1 && alignof(char1) == 1, "char1");
static_assert(sizeof(char2) == 2 && alignof(char2) == 2, "char2");
static_assert(sizeof(char3) == 3 && alignof(char3) == 1, "char3");
static_assert(sizeof(uchar4) == 4 && alignof(uchar4) == 4, "uchar4");
static_assert(sizeof(short2) == 4 && alignof(short2) == 4, "short2");
static_assert(sizeof(short3) == 6 && alignof(short3) == 2, "short3");
static_assert(sizeof(ushort4) == 8 && alignof(ushort4) == 8, "ushort4");
static_assert(sizeof(int1) == 4 && alignof(int1) == 4, "int1");
static_assert(sizeof(int2) == 8 && alignof(int2) == 8, "int2");
static_assert(sizeof(int3) == 12 && alignof(int3) == 4, "int3");
static_assert(sizeof(int4) == 16 && alignof(int4) == 16, "int4");
static_assert(sizeof(uint4) == 16 && alignof(uint4) == 16, "uint4");
static_assert(sizeof(uint3) == 12 && alignof(uint3) == 4, "uint3");
static_assert(sizeof(float1) == 4 && alignof(float1) == 4, "float1");
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3");
static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4");
static_assert(sizeof(double1) == 8 && alignof(double1) == 8, "double1");
static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "double2");
static_assert(sizeof(double3) == 24 && alignof(double3) == 8, "double3");
static_assert(sizeof(double4) == 32 && alignof(double4) == 16, "double4");
static_assert(sizeof(longlong2) == 16 && alignof(longlong2) == 16, "longlong2");
static_assert(sizeof(ulonglong4) == 32 && alignof(ulonglong4) == 16, "ulonglong4");
static_assert(sizeof(long2) == 2 * sizeof(long) && alignof(long2) == 2 * sizeof(long), "long2");
static_assert(sizeof(ulong4) == 4 * sizeof(long) && alignof(ulong4) == 16, "ulong4");
struct __align__(16) Particle {
  float x, y, z;
};
static_assert(alignof(Particle) == 16 && sizeof(Particle) == 16, "__align__");
// CUDA's float overloads of the math functions, unqualified
static_assert(std::is_same<decltype(sqrt(2.0f)), float>::value, "sqrt(float) is float");
static_assert(std::is_same<decltype(max(-1, 2u)), unsigned>::value, "max(int, unsigned) is unsigned");
static_assert(std::is_same<decltype(min(1.0f, 2.0)), double>::value, "min(float, double) is double");

namespace compat_plain {

__global__ void vector_sum_kernel(const float4* f, const int4* i4, const double2* d, const uchar4* u,
                                  const short2* s, const longlong2* ll, VectorSums* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 a = __ldg(&f[i]);
  const int4 b = __ldg(&i4[i]);
  const double2 c = d[i];
  const uchar4 e = u[i];
  const short2 g = s[i];
  const longlong2 h = ll[i];
  const float4 twice = make_float4(2 * a.x, 2 * a.y, 2 * a.z, 2 * a.w);
  VectorSums r;
  r.f4 = (twice.x + twice.y + twice.z + twice.w) / 2;
  r.i4 = b.x + b.y + b.z + b.w;
  r.d2 = c.x + c.y;
  r.u4 = make_uint4(e.x, e.y, e.z, e.w).x + e.y + e.z + e.w;
  r.s2 = make_int2(g.x, g.y).x + g.y;
  r.ll2 = h.x + h.y;
  out[i] = r;
}

cudaError_t vector_sums(const float4* f, const int4* i4, const double2* d, const uchar4* u, const short2* s,
                        const longlong2* ll, VectorSums* out, int n) {
  vector_sum_kernel<<<(n + 31) / 32, 32>>>(f, i4, d, u, s, ll, out, n);
  return cudaDeviceSynchronize();
}

__global__ void intrinsics_kernel(unsigned long long* out, float zero, float minus_one) {
  using u64 = unsigned long long;
  const unsigned x = 0x11223344u, y = 0x55667788u, lo = 0x89abcdefu, hi = 0x01234567u;
  out[0] = static_cast<u64>(static_cast<long long>(__mul24(-3, 5)));
  out[1] = __umul24(0x1000001u, 3u);
  out[2] = static_cast<u64>(__mulhi(0x40000000, 8));
  out[3] = __umulhi(0xffffffffu, 0xffffffffu);
  out[4] = __sad(3, 10, 1u);
  out[5] = __usad(10u, 3u, 2u);
  out[6] = __byte_perm(x, y, 0x0123u);
  out[7] = __byte_perm(x, y, 0x7654u);
  out[8] = __funnelshift_l(lo, hi, 8);
  out[9] = __funnelshift_r(lo, hi, 8);
  out[10] = __funnelshift_lc(lo, hi, 40);
  out[11] = __funnelshift_l(lo, hi, 40);
  out[12] = static_cast<u64>(__clzll(1));
  out[13] = static_cast<u64>(__ffsll(0x100LL));
  out[14] = static_cast<u64>(__popcll(0xff00ffULL));
  out[15] = __brevll(1ULL);
  out[16] = __float2uint_rn(2.5f);
  out[17] = static_cast<u64>(__float2ll_rn(-3.5f));
  out[18] = static_cast<u64>(__double_as_longlong(1.0));
  out[19] = __float_as_uint(__fmul_rn(1.5f, 2.0f));
  out[20] = max(-1, 2u);
  out[21] = min(-1, 2u);
  const float inf = 1.0f / zero;
  out[22] = isnan(sqrt(minus_one)) && !isfinite(inf) && isinf(-inf) && isfinite(CUDART_PI_F) && CUDART_INF_F == inf;
  out[23] = __float_as_uint(fminf(2.0f, sqrtf(2.0f)));
  const long long t1 = clock64();
  __nanosleep(1000);
  const long long t2 = clock64();
  out[24] = t2 >= t1 + 1000;
  out[25] = __float_as_uint(__double2float_rn(0.1));
  out[26] = __float_as_uint(__ull2float_rn(16777217ULL));
  float s = 1.0f, c = 0.0f;
  __sincosf(0.0f, &s, &c);
  out[27] = __expf(0.0f) == 1.0f && __sinf(0.0f) == 0.0f && __logf(1.0f) == 0.0f && __powf(2.0f, 3.0f) == 8.0f &&
            s == 0.0f && c == 1.0f;
  out[28] = __umul64hi(0xffffffffffffffffULL, 2ULL);
  out[29] = __hiloint2double(0x3ff00000, 0) == 1.0;
  __threadfence_system();
}

cudaError_t intrinsics(unsigned long long* out) {
  intrinsics_kernel<<<1, 1>>>(out, 0.0f, -1.0f);
  return cudaDeviceSynchronize();
}

__global__ void trap_kernel(int* out) {
  out[threadIdx.x] = 1;
  if (threadIdx.x == 3) __trap();  // trap here
}

cudaError_t trap_in_kernel() {
  int* out = nullptr;
  cudaMalloc(&out, 32 * sizeof(int));
  trap_kernel<<<1, 32>>>(out);
  cudaError_t e = cudaDeviceSynchronize();
  cudaFree(out);
  return e;
}

}  // namespace compat_plain
