/// \file
/// \brief CUDA's built-in vector types on the CPU backend: `char1` to `double4`, each with the size
/// and alignment CUDA gives it (so a struct or an array of them has the layout it has on a GPU, and
/// a `float4` load is a 16-byte aligned access in both), their `make_` functions, and `__align__`.
/// `dim3` and the built-in variables stay in wb_emu/builtins.hpp, which includes this header.
#pragma once

// CUDA's own header's guard, which helper headers test.
#define __VECTOR_TYPES_H__

/// CUDA's `__align__(n)`: the alignment of a type or a variable, as `alignas(n)` in standard C++.
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif
/// Marks CUDA's built-in types in its own headers; nothing to mark on the host.
#ifndef __device_builtin__
#define __device_builtin__
#endif

// ---- the vector types: a component type, 1 to 4 components, CUDA's alignment ----
// CUDA aligns a vector of 2 components to its whole size, of 4 components to its whole size up to
// 16 bytes, and a vector of 3 (and of 1) to its component: char3 is 3 bytes aligned to 1, float3 12
// aligned to 4, double4 32 aligned to 16. The member names are x, y, z, w, as there.
#define WB_EMU_VECTOR_TYPES(T, name, a2, a4)                                                   \
  struct name##1 { T x; };                                                                     \
  struct alignas(a2) name##2 { T x, y; };                                                      \
  struct name##3 { T x, y, z; };                                                               \
  struct alignas(a4) name##4 { T x, y, z, w; };                                                \
  inline name##1 make_##name##1(T x) { return name##1{x}; }                                    \
  inline name##2 make_##name##2(T x, T y) { return name##2{x, y}; }                            \
  inline name##3 make_##name##3(T x, T y, T z) { return name##3{x, y, z}; }                    \
  inline name##4 make_##name##4(T x, T y, T z, T w) { return name##4{x, y, z, w}; }

/// \name Vector types
///@{

/// CUDA's vector types and their make_ functions (`make_float4(x, y, z, w)`).
WB_EMU_VECTOR_TYPES(signed char, char, 2, 4)
WB_EMU_VECTOR_TYPES(unsigned char, uchar, 2, 4)
WB_EMU_VECTOR_TYPES(short, short, 4, 8)
WB_EMU_VECTOR_TYPES(unsigned short, ushort, 4, 8)
WB_EMU_VECTOR_TYPES(int, int, 8, 16)
WB_EMU_VECTOR_TYPES(unsigned int, uint, 8, 16)
WB_EMU_VECTOR_TYPES(long, long, 2 * sizeof(long), 16)
WB_EMU_VECTOR_TYPES(unsigned long, ulong, 2 * sizeof(unsigned long), 16)
WB_EMU_VECTOR_TYPES(long long, longlong, 16, 16)
WB_EMU_VECTOR_TYPES(unsigned long long, ulonglong, 16, 16)
WB_EMU_VECTOR_TYPES(float, float, 8, 16)
WB_EMU_VECTOR_TYPES(double, double, 16, 16)
///@}
#undef WB_EMU_VECTOR_TYPES
