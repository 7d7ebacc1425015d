// Running a stage from host data, for the drivers and the tests.
#include <cmath>
#include <random>

#include "check.h"
#include "graded.h"
#include "particle_mesh.h"

std::vector<int> run_part2data(const Part2DataStage& s, const Mesh& m, const std::vector<float>& pos, unsigned block) {
  const int np = int(pos.size() / 3);
  std::vector<int> data(np, -1);  // -1: no particle's cell
  if (block == 0) block = s.code.block;
  if (!s.on_device()) {
    s.code.on_host(m, np, pos.data(), data.data());
    return data;
  }
  tut::DeviceBuffer<float> d_pos(pos.size());
  tut::DeviceBuffer<int> d_data{size_t(np)};
  d_pos.upload(pos.data());
  CUDA_CHECK(cudaMemset(d_data.get(), 0xff, d_data.bytes()));  // every int -1
  s.code.on_device(m, np, d_pos.get(), d_data.get(), block, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  d_data.download(data.data());
  return data;
}

std::vector<float> run_force(const ForceStage& s, const Mesh& m, int axis, const std::vector<float>& pot, int strip) {
  std::vector<float> f(pot.size(), NAN);
  if (!s.on_device()) {
    s.code.on_host(m, axis, pot.data(), f.data());
    return f;
  }
  tut::DeviceBuffer<float> d_pot(pot.size()), d_f(pot.size());
  d_pot.upload(pot.data());
  CUDA_CHECK(cudaMemset(d_f.get(), 0xff, d_f.bytes()));  // 0xffffffff is a NaN
  s.code.on_device(m, axis, d_pot.get(), d_f.get(), strip, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  d_f.download(f.data());
  return f;
}

std::vector<float> random_positions(const Mesh& m, int np, uint64_t seed) {
  std::mt19937_64 gen(tut::test_seed(seed));  // a grading run draws new positions
  const float top = float(m.N) * m.dx;
  std::uniform_real_distribution<float> anywhere(0.0f, top);
  std::uniform_int_distribution<int> cell(0, m.N - 1), kind(0, 7);
  std::vector<float> pos(size_t(np) * 3);
  for (float& x : pos) {
    switch (kind(gen)) {
      case 0: x = float(cell(gen)) * m.dx; break;         // on a cell edge
      case 1: x = std::nextafter(top, 0.0f); break;       // the largest position there is
      case 2: x = float(m.N - 1) * m.dx + anywhere(gen) / float(m.N); break;  // in the last cell
      default: x = anywhere(gen);
    }
    if (!(x < top)) x = std::nextafter(top, 0.0f);  // uniform_real_distribution may return its bound
  }
  return pos;
}

const char* axis_name(int axis) { return axis == kAxisX ? "x" : axis == kAxisY ? "y" : "z"; }

bool is_power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }
