// The whole cost of running part2data on the GPU from host arrays, as the slides count it:
// allocate the device arrays, copy the positions in, run the kernel, copy the cells out, free.
#pragma once
#include <vector>

#include "particle_mesh.h"
#include "timing.h"

// streams == 0: one cudaMemcpy in, the kernel, one cudaMemcpy out, each waiting for the one
// before. streams > 0: the particles cut into `chunks` pieces, piece c on stream c % streams,
// each piece copied in, computed and copied out on its stream, so that one piece's copy in
// overlaps another's kernel and another's copy out (this needs pinned host memory: copies from
// pageable memory are staged through a driver buffer and do not overlap).
void offload_part2data(const Part2DataStage& s, unsigned block, const Mesh& m, int np, const float* host_pos,
                       int* host_data, const std::vector<cudaStream_t>& streams, int chunks);

// Median of `repeats` offloads after one warm-up, timed with CUDA events on the legacy default
// stream (allocation and free are host calls, and the events around them still see their cost:
// the stop event is recorded only after cudaFree returns).
tut::TimingStats time_offload(const Part2DataStage& s, unsigned block, const Mesh& m, int np, const float* host_pos,
                              int* host_data, const std::vector<cudaStream_t>& streams, int chunks, int repeats);
