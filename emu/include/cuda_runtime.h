// CPU backend: stands in for CUDA's <cuda_runtime.h> when a chapter is built for the CPU.
// The same .cu files and graders compile against this header with the host compiler; see
// emu/include/wb_emu/runtime.hpp for what is provided.
#pragma once
#include <wb_emu/runtime.hpp>
