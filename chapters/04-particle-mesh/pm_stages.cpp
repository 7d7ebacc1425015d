#include "particle_mesh.h"

// The registries: each line of part2data.stages and force.stages joined with the code its file
// hands over.
const std::vector<const Part2DataStage*>& part2data_stages() {
#define STAGE(name, file, side, idea) \
  {{#name, idea, tut::Side::side, TUT_STAGE_SOURCE("04-particle-mesh", file)}, part2data_##name},
  static const Part2DataStage all[] = {
#include "part2data.stages"
  };
#undef STAGE
  static const std::vector<const Part2DataStage*> stages = tut::registry(all);
  return stages;
}

const std::vector<const ForceStage*>& force_stages() {
#define STAGE(name, file, side, idea) {{#name, idea, tut::Side::side, TUT_STAGE_SOURCE("04-particle-mesh", file)}, force_##name},
  static const ForceStage all[] = {
#include "force.stages"
  };
#undef STAGE
  static const std::vector<const ForceStage*> stages = tut::registry(all);
  return stages;
}

const char* axis_name(int axis) { return axis == kAxisX ? "x" : axis == kAxisY ? "y" : "z"; }

bool is_power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }
