/// \file
/// \brief Everything a chapter's grade.cpp includes (a libtorch chapter adds wb/torch.hpp).
#pragma once

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>

#include "wb/anchors.hpp"
#include "wb/buffer.hpp"
#include "wb/compare.hpp"
#include "wb/cuda_check.hpp"
#include "wb/device.hpp"
#include "wb/flow.hpp"
#include "wb/launches.hpp"
#include "wb/random.hpp"
#include "wb/report.hpp"
#include "wb/sanitizer.hpp"
#include "wb/speed.hpp"
#include "wb/timing.hpp"
#include "wb/watchdog.hpp"
