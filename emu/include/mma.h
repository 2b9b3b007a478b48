// CPU backend: CUDA's <mma.h> is not available. This stand-in stops the build with one
// clear message instead of the errors of a GPU-only header (docs/cpu-backend.md lists them).
#pragma once
#error "the CPU backend has no tensor cores (nvcuda::wmma): <mma.h> programs the GPU's matrix units, which the CPU backend does not emulate; build this file for a GPU (cmake --preset gpu)"
