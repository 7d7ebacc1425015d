#include "check.h"
#include "device.h"
#include "matmul.h"

#define STAGE_FAMILY matmul
#define STAGE_TYPE MatmulStage
#define STAGE_FOLDER "02-matmul"
#include "stage_registry.h"

const std::vector<const MatmulVariant*>& matmul_variants() {
  static const std::vector<const MatmulVariant*> variants = [] {
    std::vector<const MatmulVariant*> all;
    for (const MatmulStage* s : matmul_stages())
      for (int v = 0; v < s->code.variant_count; ++v) all.push_back(&s->code.variants[v]);
    return all;
  }();
  return variants;
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
