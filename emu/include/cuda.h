#pragma once
#include <wb_emu/runtime.hpp>
