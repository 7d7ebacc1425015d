#include "part2data_offload.h"

#include <algorithm>

#include "check.h"

void offload_part2data(const Part2DataStage& s, unsigned block, const Mesh& m, int np, const float* host_pos,
                       int* host_data, const std::vector<cudaStream_t>& streams, int chunks) {
  tut::DeviceBuffer<float> pos(size_t(np) * 3);
  tut::DeviceBuffer<int> data{size_t(np)};
  if (streams.empty()) {
    pos.upload(host_pos);
    s.code.on_device(m, np, pos.get(), data.get(), block, nullptr);
    data.download(host_data);
    return;  // the buffers' destructors free them
  }
  // Pieces start on multiples of 1024 particles, so every piece's arrays stay 16-byte aligned.
  const int piece = std::max(1024, (np / chunks + 1023) / 1024 * 1024);
  for (int first = 0, c = 0; first < np; first += piece, ++c) {
    const int n = std::min(piece, np - first);
    const cudaStream_t stream = streams[size_t(c) % streams.size()];
    CUDA_CHECK(cudaMemcpyAsync(pos.get() + size_t(first) * 3, host_pos + size_t(first) * 3, size_t(n) * 3 * sizeof(float),
                               cudaMemcpyHostToDevice, stream));
    s.code.on_device(m, n, pos.get() + size_t(first) * 3, data.get() + first, block, stream);
    CUDA_CHECK(cudaMemcpyAsync(host_data + first, data.get() + first, size_t(n) * sizeof(int), cudaMemcpyDeviceToHost,
                               stream));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

tut::TimingStats time_offload(const Part2DataStage& s, unsigned block, const Mesh& m, int np, const float* host_pos,
                              int* host_data, const std::vector<cudaStream_t>& streams, int chunks, int repeats) {
  return tut::time_device([&] { offload_part2data(s, block, m, np, host_pos, host_data, streams, chunks); }, nullptr,
                          1, repeats);
}
