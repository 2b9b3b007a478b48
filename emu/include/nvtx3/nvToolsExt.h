// CPU backend: CUDA's <nvtx3/nvToolsExt.h> is not available. This stand-in stops the build with one
// clear message instead of the errors of a GPU-only header (docs/cpu-backend.md lists them).
#pragma once
#error "the CPU backend has no NVTX: NVTX ranges mark a GPU profiler's timeline, which the CPU backend does not have; guard them with #ifndef WB_EMU"
