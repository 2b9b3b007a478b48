// CUDA's fast single-precision math intrinsics (__expf, __logf...) for the CPU backend. glibc's
// <math.h> declares these names (its internal aliases of expf, logf...) but libm does not export
// them, so a kernel that calls one compiles and then fails to link. Defined here with glibc's C
// declarations, computed with the accurate host functions. Elsewhere (macOS) the C library declares
// none of them and wb_emu/intrinsics.hpp defines them inline.
#include <cmath>

#if defined(__GLIBC__)
extern "C" {
float __expf(float x) noexcept { return expf(x); }
float __exp10f(float x) noexcept { return exp10f(x); }
float __logf(float x) noexcept { return logf(x); }
float __log2f(float x) noexcept { return log2f(x); }
float __log10f(float x) noexcept { return log10f(x); }
float __sinf(float x) noexcept { return sinf(x); }
float __cosf(float x) noexcept { return cosf(x); }
float __tanf(float x) noexcept { return tanf(x); }
float __powf(float x, float y) noexcept { return powf(x, y); }
void __sincosf(float x, float* s, float* c) noexcept {
  *s = sinf(x);
  *c = cosf(x);
}
}
#endif
