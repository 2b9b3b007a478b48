// CPU backend: CUDA's <cusolverDn.h> is not available. This stand-in stops the build with one
// clear message instead of the errors of a GPU-only header (docs/cpu-backend.md lists them).
#pragma once
#error "the CPU backend has no cuSOLVER: <cusolverDn.h> needs NVIDIA's GPU library; build this file for a GPU (cmake --preset gpu)"
