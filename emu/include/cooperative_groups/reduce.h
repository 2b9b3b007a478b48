// CPU backend: stands in for CUDA's <cooperative_groups/reduce.h>; reduce, the scans and their
// operators are in emu/include/wb_emu/cooperative_groups.hpp, with the rest of the groups.
#pragma once
#include <cooperative_groups.h>
