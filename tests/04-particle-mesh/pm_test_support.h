// Checks shared by the particle-mesh suites: part2data stages against the tests' own binning,
// exactly; force stages against the tests' own differences in double, to float rounding.
// Failures name the file to edit.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "graded.h"
#include "particle_mesh.h"
#include "random_inputs.h"
#include "stage_param.h"
#include "validate.h"

inline void PrintTo(const Part2DataStage* s, std::ostream* out) { *out << s->name; }
inline void PrintTo(const ForceStage* s, std::ostream* out) { *out << s->name; }

// ---- part2data ----

// Meshes with an exact cell size (a power of two), inexact ones (0.1 and 0.01 are not binary
// fractions, so x / dx rounds: on the 100-cell mesh the largest position's quotient rounds up
// to 100, one past the last cell, so binning without the clamp writes out of range), and a
// single cell.
inline std::vector<Mesh> part2data_meshes() { return {{16, 1.0f / 16}, {37, 0.1f}, {100, 0.01f}, {1, 0.5f}}; }

// Particle counts that divide no block (the largest over a million), and one that every block
// and gpu3's four particles per thread divide; in a grading run, one more that the grader draws.
inline std::vector<int> particle_counts() {
  std::vector<int> counts = {1, 31, 1024, 1000003};
  if (tut::grading_run()) counts.push_back(tut::drawn_size(1, 200000, 1));
  return counts;
}

// Random positions (edges and last cells included, see random_positions); the first particle
// sits at the origin and the second at the largest position below N dx on every axis.
inline std::vector<float> test_positions(const Mesh& m, int np, uint64_t seed) {
  std::vector<float> pos = random_positions(m, np, seed);
  const float largest = std::nextafter(float(m.N) * m.dx, 0.0f);
  for (size_t c = 0; c < pos.size() && c < 6; ++c) pos[c] = c < 3 ? 0.0f : largest;
  return pos;
}

// The tests' own binning: floor of the float quotient, the last cell for quotients that round up to N.
inline std::vector<int> reference_cells(const Mesh& m, const std::vector<float>& pos) {
  std::vector<int> cells(pos.size() / 3);
  for (size_t p = 0; p < cells.size(); ++p) {
    int index = 0;
    for (int axis = 0; axis < 3; ++axis)
      index = index * m.N + std::min(int(std::floor(pos[3 * p + axis] / m.dx)), m.N - 1);
    cells[p] = index;
  }
  return cells;
}

inline testing::AssertionResult bins_exactly(const Part2DataStage& s, const Mesh& m, int np, unsigned block = 0,
                                             uint64_t seed = 1000) {
  const std::vector<float> pos = test_positions(m, np, seed + np);
  const std::vector<int> want = reference_cells(m, pos);
  std::vector<int> got = run_part2data(s, m, pos, block);
  tut::graded_output(got);  // a grading run judges it outside the student's process
  const tut::ValidationReport r = tut::compare(got.data(), want.data(), particles_extent(want.size()), {0, 0});
  if (r.ok()) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "stage " << s.name << " bins " << np << " particles on mesh " << m.N
                                     << " (dx " << m.dx << ", block " << (block ? block : s.code.block)
                                     << ") wrongly (-1: never written): " << r.summary()
                                     << "\n  -> edit " << s.source << " (stage " << s.name << ")";
}

// ---- forces ----

// Powers of two, as the stages' strips need; in a grading run, one more that the grader draws.
inline std::vector<int> force_sizes() {
  std::vector<int> sizes = {2, 4, 8, 16, 32, 64, 128, 256};
  if (tut::grading_run()) sizes.push_back(1 << tut::drawn_size(1, 7, 1));
  return sizes;
}

inline std::vector<float> random_potential(const Mesh& m, uint64_t seed) {
  std::vector<float> pot(size_t(m.cells()));
  tut::fill_random(pot.data(), pot.size(), seed);
  return pot;
}

// The tests' own difference, in double, neighbours wrapped with a modulo.
inline std::vector<double> reference_force(const Mesh& m, int axis, const std::vector<float>& pot) {
  const int N = m.N;
  std::vector<double> f(pot.size());
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k) {
        int up[3] = {i, j, k}, down[3] = {i, j, k};
        up[axis] = (up[axis] + 1) % N;
        down[axis] = (down[axis] + N - 1) % N;
        f[(size_t(i) * N + j) * N + k] = (double(pot[(size_t(up[0]) * N + up[1]) * N + up[2]]) -
                                          double(pot[(size_t(down[0]) * N + down[1]) * N + down[2]])) / (2.0 * m.dx);
      }
  return f;
}

// Two float roundings (the difference, the division): relative error below 1.2e-7.
inline testing::AssertionResult differentiates(const ForceStage& s, int N, int axis, int strip = 0,
                                               uint64_t seed = 77) {
  const Mesh m{N, 1.0f / float(N)};
  const std::vector<float> pot = random_potential(m, seed + N);
  std::vector<float> got = run_force(s, m, axis, pot, strip);
  tut::graded_output(got);
  const std::vector<double> want = reference_force(m, axis, pot);
  const std::vector<double> got_d(got.begin(), got.end());
  const tut::ValidationReport r = tut::compare(got_d.data(), want.data(), m.extent(), {1e-6, 1e-6});
  if (r.ok()) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "stage " << s.name << " gets force" << axis_name(axis) << " wrong on " << N
                                     << "^3" << (strip ? " with strip " + std::to_string(strip) : std::string())
                                     << " (NaN: never written): " << r.summary()
                                     << "\n  -> edit " << s.source << " (stage " << s.name << ")";
}

// The same sizes twice, new numbers the second time: a stage that keeps the first call's result
// and hands it back (a cache keyed by the sizes) fails here.
inline void expect_part2data_recomputes_when_only_the_inputs_change(const Part2DataStage& s) {
  EXPECT_TRUE(bins_exactly(s, {37, 0.1f}, 1003, 0, 11));
  EXPECT_TRUE(bins_exactly(s, {37, 0.1f}, 1003, 0, 23)) << "(the second call: same sizes, new inputs)";
}

inline void expect_force_recomputes_when_only_the_inputs_change(const ForceStage& s) {
  for (int axis : {kAxisX, kAxisY, kAxisZ})
    if (s.handles(axis)) {
      EXPECT_TRUE(differentiates(s, 4, axis, 0, 11));
      EXPECT_TRUE(differentiates(s, 4, axis, 0, 23)) << "(the second call: same sizes, new inputs)";
    }
}
