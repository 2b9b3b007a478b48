// CPU backend: stands in for CUDA's <cooperative_groups.h> (thread blocks, tiles, the grid), so
// that a kernel file including it compiles with the host compiler whether or not CUDA is
// installed; see emu/include/wb_emu/cooperative_groups.hpp for what is provided.
#pragma once
#include <wb_emu/runtime.hpp>
#include <wb_emu/cooperative_groups.hpp>
