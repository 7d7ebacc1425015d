// The registry: each line of poisson.stages joined with the code its file hands over.
#include "poisson.h"

const std::vector<const PoissonStage*>& poisson_stages() {
#define STAGE(name, file, side, idea) {{#name, idea, tut::Side::side, TUT_STAGE_SOURCE("03-poisson", file)}, poisson_##name},
  static const PoissonStage all[] = {
#include "poisson.stages"
  };
#undef STAGE
  static const std::vector<const PoissonStage*> stages = tut::registry(all);
  return stages;
}
