#include "particle_mesh.h"

const std::vector<const Part2DataStage*>& part2data_stages() {
  static const std::vector<const Part2DataStage*> stages = {&part2data_cpu, &part2data_cpu_omp, &part2data_gpu1,
                                                            &part2data_gpu2, &part2data_gpu3};
  return stages;
}

const std::vector<const ForceStage*>& force_stages() {
  static const std::vector<const ForceStage*> stages = {&force_cpu, &force_cpu_omp, &forcex_gpu1, &force_gpu_k,
                                                        &force_gpu2};
  return stages;
}

const char* axis_name(int axis) { return axis == kAxisX ? "x" : axis == kAxisY ? "y" : "z"; }

bool is_power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }
