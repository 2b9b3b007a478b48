// Included first by every .cu file the launch rewriter turns into C++ for the CPU backend.
#pragma once
#include <wb_emu/runtime.hpp>
