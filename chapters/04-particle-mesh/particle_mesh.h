// Chapter 04-particle-mesh: two kernels of a cosmological particle-mesh code.
//   part2data: each particle's position -> the index of the mesh cell that holds it;
//   forces:    the gradient of the potential by central differences on a periodic mesh.
// The mesh has N cells of size dx along each axis; an array over it is [i][j][k] with k the
// fastest axis: cell (i, j, k) is at (i * N + j) * N + k. Axis x is i, y is j, z is k.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "device.h"
#include "stages.h"
#include "validate.h"

using tut::blocks_for;

struct Mesh {
  int N;     // cells per side; a power of two for the forces (indices wrap with & (N - 1))
  float dx;  // cell size: positions lie in [0, N dx)
  int cells() const { return N * N * N; }  // N <= 1024: fits an int
  // For comparisons: k is the fastest axis, and a position reads "(i=.., j=.., k=..)".
  tut::Extent3 extent() const { return {size_t(N), size_t(N), size_t(N), {"k", "j", "i"}}; }
};

// For comparisons of one value per particle: a position reads "(particle=17)".
inline tut::Extent3 particles_extent(size_t np) { return {np, 1, 1, {"particle", "", ""}}; }

// Kernels index with ints: 3 np floats and N^3 cells must stay below 2^31.
constexpr int kMaxParticles = 1 << 29;
constexpr int kMaxMeshSide = 1024;

// ---- part2data ----------------------------------------------------------------------------

// The cell of one particle: ix * N^2 + iy * N + iz with ix = floor(x / dx). The division is
// IEEE-rounded on the CPU and the GPU alike (nvcc's default -prec-div=true), so every stage
// computes the same cell. Rounding can push x / dx up to N for the largest floats below
// N dx: those belong to the last cell, hence the min.
__host__ __device__ inline int cell_index(const Mesh& m, float x, float y, float z) {
  const int ix = int(x / m.dx), iy = int(y / m.dx), iz = int(z / m.dx);
  const int last = m.N - 1;
  return (ix < last ? ix : last) * m.N * m.N + (iy < last ? iy : last) * m.N + (iz < last ? iz : last);
}

// Every stage: data[p] = cell of particle p, for p < np, from pos[3 p .. 3 p + 2] (x, y, z: an
// array of structures). A CPU stage works on host pointers; a GPU stage gets device pointers
// and only enqueues its work on the stream, in blocks of `block` threads.
using Part2DataOnHost = void (*)(const Mesh& m, int np, const float* pos, int* data);
using Part2DataOnDevice = void (*)(const Mesh& m, int np, const float* pos, int* data, unsigned block,
                                   cudaStream_t stream);

// What a part2data stage's file hands over, as `const Part2DataCode part2data_<stage>`: its
// run, and a GPU stage's own threads per block.
using Part2DataCode = tut::HostOrDeviceCode<Part2DataOnHost, Part2DataOnDevice, unsigned>;

struct Part2DataStage : tut::StageInfo {
  Part2DataCode code;
};

// ---- forces -------------------------------------------------------------------------------

enum Axis { kAxisX = 0, kAxisY = 1, kAxisZ = 2 };
const char* axis_name(int axis);  // "x", "y", "z"
constexpr unsigned kEveryAxis = 0b111;

// Every stage: f = (pot[cell + 1 along axis] - pot[cell - 1 along axis]) / (2 dx) on every cell,
// indices wrapping around the mesh. A GPU stage that walks strips along the axis takes their
// length as `strip` (0: its own); the others ignore it.
using ForceOnHost = void (*)(const Mesh& m, int axis, const float* pot, float* f);
using ForceOnDevice = void (*)(const Mesh& m, int axis, const float* pot, float* f, int strip, cudaStream_t stream);

// What a force stage's file hands over, as `const ForceCode force_<stage>`.
struct ForceCode {
  constexpr ForceCode(ForceOnHost run, unsigned axis_bits) : on_host(run), axes(axis_bits) {}
  constexpr ForceCode(ForceOnDevice run, unsigned axis_bits, int own_strip = 0)
      : on_device(run), axes(axis_bits), strip(own_strip) {}
  ForceOnHost on_host = nullptr;
  ForceOnDevice on_device = nullptr;
  unsigned axes;  // bit a set: the stage computes axis a
  int strip = 0;  // the length of its strips, for a stage that walks them (0: it does not)
};

struct ForceStage : tut::StageInfo {
  ForceCode code;
  bool handles(int axis) const { return code.axes >> axis & 1u; }
};

#define STAGE(name, ...) extern const Part2DataCode part2data_##name;
#include "part2data.stages"
#undef STAGE
#define STAGE(name, ...) extern const ForceCode force_##name;
#include "force.stages"
#undef STAGE
const std::vector<const Part2DataStage*>& part2data_stages();
const std::vector<const ForceStage*>& force_stages();

// ---- running a stage from host data (drivers and tests) -------------------------------------

// The output is poisoned first (-1 for cells, NaN for forces), so an element a stage never
// writes cannot pass. block 0: the stage's own.
std::vector<int> run_part2data(const Part2DataStage& s, const Mesh& m, const std::vector<float>& pos, unsigned block = 0);
std::vector<float> run_force(const ForceStage& s, const Mesh& m, int axis, const std::vector<float>& pot, int strip = 0);

// Uniform random positions in [0, N dx), with some exactly on cell edges (multiples of dx),
// some in the last cell, up to the largest float below N dx.
std::vector<float> random_positions(const Mesh& m, int np, uint64_t seed);
bool is_power_of_two(long long n);
