// Running a heat stage from a host field, shared by the driver and the tests.
#pragma once
#include <cstdint>
#include <vector>

#include "heat.h"

// Runs a stage from a host field and brings the result back. The second buffer's interior is
// poisoned with NaN first, so an interior cell the stage never writes shows up as NaN.
std::vector<float> run_stage(const HeatStage& stage, const HeatGrid& grid, dim3 block,
                             const std::vector<float>& initial, int steps);

// A field of uniform random values in [0, 1): the blog post's uniform field (10 everywhere)
// is a fixed point of the update and would hide any bug.
std::vector<float> random_field(const HeatGrid& grid, uint64_t seed);

// |x - ref| <= atol + rtol |ref| for a float field after a few steps from values in [0, 1).
constexpr double kHeatAtol = 1e-6, kHeatRtol = 1e-5;
