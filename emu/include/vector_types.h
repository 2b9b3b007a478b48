// CPU backend: stands in for CUDA's <vector_types.h> (char1 ... double4, dim3), so that a file
// including it compiles whether or not CUDA is installed.
#pragma once
#include <wb_emu/runtime.hpp>
