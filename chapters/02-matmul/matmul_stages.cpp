#include <cstring>

#include "check.h"
#include "device.h"
#include "matmul.h"

const std::vector<const MatmulStage*>& matmul_stages() {
  static const std::vector<const MatmulStage*> stages = {&matmul_nat,  &matmul_lib,  &matmul_gpu1,
                                                         &matmul_gpu2, &matmul_gpu3, &matmul_gpu3r,
                                                         &matmul_gpu4, &matmul_gpu5, &matmul_gpulib};
  return stages;
}

const std::vector<const MatmulStage*>& matmul_gpu4_sweep() {
  static const std::vector<const MatmulStage*> sweep = {&matmul_gpu4_e2, &matmul_gpu4, &matmul_gpu4_e8,
                                                        &matmul_gpu4_e16};
  return sweep;
}

const MatmulStage* find_matmul_stage(const char* name) {
  for (const MatmulStage* s : matmul_stages())
    if (std::strcmp(s->name, name) == 0) return s;
  return nullptr;
}

void matmult_on_device(int m, int n, int k, const double* A, const double* B, double* C, MatmulLaunch launch) {
  tut::DeviceBuffer<double> dA(size_t(m) * k), dB(size_t(k) * n), dC(size_t(m) * n);
  dA.upload(A);
  dB.upload(B);
  // All bits set is a NaN in double: an element the kernel never writes comes back as NaN.
  CUDA_CHECK(cudaMemset(dC.get(), 0xFF, dC.bytes()));
  launch(m, n, k, dA.get(), dB.get(), dC.get(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());  // a fault inside the kernel surfaces here
  dC.download(C);
}
