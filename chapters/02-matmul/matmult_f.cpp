// matmult_f: the course's driver. Calls matmult_TYPE repeatedly on random matrices until
// MFLOPS_MIN_T seconds have passed (or MFLOPS_MAX_IT calls), then prints one line:
//   <memory kB> <Mflop/s> <error> # matmult_TYPE
// with memory = 8 (mk + kn + mn) / 1024 and error = the largest |C - C_lib| (0 when not compared).
//   usage: matmult_f TYPE m n k [bs]     (TYPE: a type of matmul.stages, or a variant the
//                                         benchmark sweeps, such as gpu4_8, run the same way)
//   environment: MATMULT_COMPARE={0|[1]} MATMULT_RESULTS={[0]|1} MFLOPS_MIN_T=[3.0] MFLOPS_MAX_IT=[inf]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli.h"
#include "device.h"
#include "matmul.h"
#include "random_inputs.h"
#include "validate.h"

namespace {

std::string shortest(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// The environment variable `name` as a number in [min, max], or `fallback` when it is not set.
// Set but empty (`MFLOPS_MIN_T= matmult_f ...`) is a mistake, not a default.
double env_number(const char* name, double fallback, double min, double max = INFINITY) {
  const char* text = std::getenv(name);
  if (!text) return fallback;
  if (!*text) throw tut::UsageError(std::string(name) + " is set but empty (unset it for its default)");
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || !(value >= min && value <= max))
    throw tut::UsageError(std::string(name) + " must be a number from " + shortest(min) + " to " +
                          (std::isinf(max) ? std::string("infinity") : shortest(max)) + ", got '" + text + "'");
  return value;
}

// A 0-or-1 environment variable, as the course's driver documents them.
bool env_switch(const char* name, bool fallback) {
  const double value = env_number(name, fallback ? 1 : 0, 0, 1);
  if (value != 0 && value != 1) throw tut::UsageError(std::string(name) + " must be 0 or 1, got '" + std::getenv(name) + "'");
  return value == 1;
}

constexpr double kMaxSeconds = 3600;  // MFLOPS_MIN_T beyond an hour is a typo, not a measurement

void print_matrix(const char* name, const std::vector<double>& M, int rows, int cols) {
  std::printf("%s =\n", name);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) std::printf(" %10.6f", M[size_t(i) * cols + j]);
    std::printf("\n");
  }
}

// A variant (gpu4_8, gpu7_k8, ...) by name: the course's call around its launcher.
const MatmulVariant* find_variant(const std::string& name) {
  const auto& all = matmul_variants();
  const auto it = std::find_if(all.begin(), all.end(), [&](const MatmulVariant* v) { return name == v->name; });
  return it == all.end() ? nullptr : *it;
}

std::string variant_names() { return tut::stage_names(matmul_variants()); }

}  // namespace

int main(int argc, char** argv) try {
  const std::string types = tut::stage_names(matmul_stages());
  const bool help = std::any_of(argv + 1, argv + argc, [](const char* a) {
    return std::string(a) == "--help" || std::string(a) == "-h";
  });
  if (help) {
    std::printf("usage: matmult_f TYPE m n k [bs]\n  TYPE: %s\n     or a variant: %s\n  C (m x n) = A (m x k) B (k x n), double, row-major\n"
                "environment: MATMULT_COMPARE={0|[1]} MATMULT_RESULTS={[0]|1} MFLOPS_MIN_T=[3.0] (seconds, at most 3600) "
                "MFLOPS_MAX_IT=[infinity]\n", types.c_str(), variant_names().c_str());
    return 0;
  }
  if (argc < 5 || argc > 6) throw tut::UsageError("usage: matmult_f TYPE m n k [bs] (see --help)");
  const std::string name = argv[1];
  const MatmulStage* stage = tut::find_stage(matmul_stages(), name);
  const MatmulVariant* variant = stage ? nullptr : find_variant(name);
  if (!stage && !variant)
    throw tut::UsageError("unknown TYPE '" + name + "' (known: " + types + "; variants: " + variant_names() + ")");
  const int m = int(tut::parse_integer("m", argv[2], 1, 1 << 20));
  const int n = int(tut::parse_integer("n", argv[3], 1, 1 << 20));
  const int k = int(tut::parse_integer("k", argv[4], 1, 1 << 20));
  if (argc == 6) tut::parse_integer("bs", argv[5], 1, 1 << 20);  // accepted for the course's blk, unused here
  const bool compare = env_switch("MATMULT_COMPARE", true);
  const bool results = env_switch("MATMULT_RESULTS", false);
  const double min_seconds = env_number("MFLOPS_MIN_T", 3.0, 0, kMaxSeconds);
  const double max_iterations = env_number("MFLOPS_MAX_IT", INFINITY, 1);
  if (!stage || stage->on_device()) tut::require_device();

  const size_t doubles = size_t(m) * k + size_t(k) * n + size_t(m) * n * (compare ? 2 : 1);  // A, B, C, OpenBLAS's C
  tut::require_host_memory(doubles * sizeof(double), "m x n x k = " + std::to_string(m) + " x " + std::to_string(n) +
                                                         " x " + std::to_string(k) + " (A, B and C on the host)");
  std::vector<double> A(size_t(m) * k), B(size_t(k) * n), C(size_t(m) * n);
  tut::fill_random(A.data(), A.size(), 1, -1.0, 1.0);
  tut::fill_random(B.data(), B.size(), 2, -1.0, 1.0);
  long long iterations = 0;
  const auto start = std::chrono::steady_clock::now();
  double seconds = 0;
  do {
    if (stage)
      stage->code.host(m, n, k, A.data(), B.data(), C.data());
    else
      matmult_on_device(m, n, k, A.data(), B.data(), C.data(), variant->launch);
    ++iterations;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (seconds < min_seconds && iterations < max_iterations);

  double error = 0;
  if (compare) {
    std::vector<double> reference(C.size());
    matmult_lib(m, n, k, A.data(), B.data(), reference.data());
    for (size_t e = 0; e < C.size(); ++e) error = std::fmax(error, std::isnan(C[e]) ? INFINITY : std::fabs(C[e] - reference[e]));
  }
  if (results) {
    print_matrix("A", A, m, k);
    print_matrix("B", B, k, n);
    print_matrix("C", C, m, n);
  }
  const double memory_kb = 8.0 * (double(m) * k + double(k) * n + double(m) * n) / 1024.0;
  const double mflops = 2.0 * m * n * double(k) * iterations / seconds / 1e6;
  std::printf("%12.3f %12.3f %e # matmult_%s\n", memory_kb, mflops, error, name.c_str());
  return 0;
} catch (...) {
  return tut::exit_code_for_failure("matmult_f");
}
