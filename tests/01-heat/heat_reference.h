// The tests' own reference for the heat update: written independently of the stages, with
// the neighbour sum accumulated in double and rounded to float once per cell and step.
#pragma once
#include <vector>

#include "heat.h"

inline std::vector<float> reference_heat(const HeatGrid& g, std::vector<float> field, int steps) {
  std::vector<float> next = field;
  auto at = [&](const std::vector<float>& f, int i, int j, int k) { return double(f[(size_t(k) * g.ny + j) * g.nx + i]); };
  for (int s = 0; s < steps; ++s) {
    for (int k = 1; k + 1 < g.nz; ++k)
      for (int j = 1; j + 1 < g.ny; ++j)
        for (int i = 1; i + 1 < g.nx; ++i) {
          const double centre = at(field, i, j, k);
          const double neighbours = at(field, i - 1, j, k) + at(field, i + 1, j, k) + at(field, i, j - 1, k) +
                                    at(field, i, j + 1, k) + at(field, i, j, k - 1) + at(field, i, j, k + 1);
          next[(size_t(k) * g.ny + j) * g.nx + i] = float(centre + double(kHeatCoeff) * (neighbours - 6.0 * centre));
        }
    field.swap(next);
  }
  return field;
}
