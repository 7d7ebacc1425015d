#include "heat.h"

const std::vector<const HeatStage*>& heat_stages() {
  static const std::vector<const HeatStage*> stages = {&heat_v0, &heat_v0_omp, &heat_v1,
                                                       &heat_v2, &heat_v3,     &heat_v4};
  return stages;
}
