// Error checking for the CUDA runtime: every failing call is reported with the call itself,
// the file and line, and CUDA's own explanation, then thrown so that tests can catch it.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tut {

struct CudaError : std::runtime_error {
  cudaError_t code;
  CudaError(cudaError_t c, const std::string& what) : std::runtime_error(what), code(c) {}
};

// No usable GPU: main() prints the reason and exits 77 (tut::exit_code_for_failure), which Meson reads as a skip.
struct NoDeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Input a program cannot use (an option's value, a size that does not fit): main() prints
// "program: error: ..." and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

}  // namespace tut

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    const cudaError_t cuda_check_status_ = (call);                              \
    if (cuda_check_status_ != cudaSuccess)                                      \
      ::tut::throw_cuda_error(cuda_check_status_, #call, __FILE__, __LINE__);   \
  } while (0)

// cuBLAS calls return their own status type.
#define CUBLAS_CHECK(call)                                                                    \
  do {                                                                                        \
    const int cublas_check_status_ = int(call);                                               \
    if (cublas_check_status_ != 0)                                                            \
      throw ::tut::CudaError(cudaErrorUnknown, std::string("cuBLAS error ") +                 \
                                                   std::to_string(cublas_check_status_) + ": " + \
                                                   #call + " failed at " + __FILE__ + ":" +   \
                                                   std::to_string(__LINE__));                 \
  } while (0)

// After a <<<...>>> launch: catches a bad configuration at once. Errors inside the
// kernel surface at the next synchronising call, which is checked as well.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
