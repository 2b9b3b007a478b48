// CPU backend: CUDA's <texture_indirect_functions.h> is not available. This stand-in stops the build with one
// clear message instead of the errors of a GPU-only header (docs/cpu-backend.md lists them).
#pragma once
#error "the CPU backend has no textures: texture objects (cudaTextureObject_t, tex1Dfetch, tex2D) are not emulated; read the array through a const T* __restrict__ pointer instead (or __ldg)"
