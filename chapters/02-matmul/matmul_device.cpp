// The course's functions take host pointers: each GPU stage makes a DeviceProduct, launches its
// kernels on the device buffers, and copies C back.
#include "check.h"
#include "device.h"
#include "matmul.h"

DeviceProduct::DeviceProduct(int m, int n, int k, const double* A_host, const double* B_host)
    : A(size_t(m) * k), B(size_t(k) * n), C(size_t(m) * n) {
  A.upload(A_host);
  B.upload(B_host);
  CUDA_CHECK(cudaMemset(C.get(), 0xFF, C.bytes()));
}

void DeviceProduct::copy_c_to(double* C_host) {
  CUDA_CHECK(cudaDeviceSynchronize());
  C.download(C_host);
}

void matmult_on_device(int m, int n, int k, const double* A, const double* B, double* C, MatmulLaunch launch) {
  DeviceProduct on_gpu(m, n, k, A, B);
  launch(m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);
  on_gpu.copy_c_to(C);
}
