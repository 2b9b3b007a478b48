// CPU backend: CUDA's <surface_functions.h> is not available. This stand-in stops the build with one
// clear message instead of the errors of a GPU-only header (docs/cpu-backend.md lists them).
#pragma once
#error "the CPU backend has no surfaces: surface objects (cudaSurfaceObject_t, surf2Dwrite) are not emulated; write the array through a pointer instead"
