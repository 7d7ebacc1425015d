// Random inputs for the programs and the tests: reproducible from a seed, and new in every
// grading run (the seed is mixed with the one the grader draws: graded.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <random>

#include "graded.h"

namespace tut {

// Uniform in [lo, hi), reproducible from the seed (and, in a grading run, the grader's seed).
template <class T>
void fill_random(T* data, size_t n, uint64_t seed, T lo = T(0), T hi = T(1)) {
  std::mt19937_64 gen(test_seed(seed));
  std::uniform_real_distribution<double> dist{double(lo), double(hi)};
  for (size_t idx = 0; idx < n; ++idx) data[idx] = T(dist(gen));
}

}  // namespace tut
