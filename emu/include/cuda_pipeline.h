// CPU backend: CUDA's <cuda_pipeline.h> is not available. This stand-in stops the build with one
// clear message instead of the errors of a GPU-only header (docs/cpu-backend.md lists them).
#pragma once
#error "the CPU backend has no asynchronous copies (__pipeline_memcpy_async): <cuda_pipeline.h> is not provided; copy to shared memory with plain loads and __syncthreads()"
