// CPU backend: CUDA's <cooperative_groups/memcpy_async.h> is not available; this stand-in stops the build with one clear message
// instead of the errors of a GPU-only header (docs/cpu-backend.md lists what is unsupported).
#pragma once
#error "the CPU backend has no cooperative_groups::memcpy_async: <cooperative_groups/memcpy_async.h> is not provided; copy with plain loads and g.sync()"
