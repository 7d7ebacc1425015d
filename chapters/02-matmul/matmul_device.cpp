// The course's functions take host pointers: each GPU stage's runs through this one wrapper,
// which allocates, copies, launches the stage's kernel and copies the product back.
#include "check.h"
#include "device.h"
#include "matmul.h"

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
