// The registry: each line of heat.stages joined with the code its file hands over.
#include "heat.h"

const std::vector<const HeatStage*>& heat_stages() {
#define STAGE(name, file, side, block, idea) \
  {{#name, idea, tut::Side::side, TUT_STAGE_SOURCE("01-heat", file)}, #block, heat_##name},
  static const HeatStage all[] = {
#include "heat.stages"
  };
#undef STAGE
  static const std::vector<const HeatStage*> stages = tut::registry(all);
  return stages;
}
