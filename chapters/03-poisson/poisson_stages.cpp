#include <cstring>

#include "poisson.h"

const std::vector<const PoissonStage*>& poisson_stages() {
  static const std::vector<const PoissonStage*> stages = {&poisson_cpu,  &poisson_cpu_omp, &poisson_gpu1, &poisson_gpu2,
                                                          &poisson_gpu3, &poisson_multi,   &poisson_nccl};
  return stages;
}

const PoissonStage* find_poisson_stage(const char* name) {
  for (const PoissonStage* s : poisson_stages())
    if (std::strcmp(s->name, name) == 0) return s;
  return nullptr;
}
