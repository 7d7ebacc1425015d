// The registry: each line of heat.stages joined with the code its file hands over.
#include "heat.h"

#include <deque>

#define STAGE_FAMILY heat
#define STAGE_TYPE HeatStage
#define STAGE_FOLDER "01-heat"
#include "stage_registry.h"

const std::vector<const HeatStage*>& heat_stages_and_variants() {
  static const std::deque<HeatStage> variants = [] {
    std::deque<HeatStage> all;  // a deque: the registry below points into it
    for (const HeatStage* s : heat_stages())
      for (int v = 0; v < s->code.variant_count; ++v) {
        const HeatVariant& variant = s->code.variants[v];
        all.push_back({{variant.name, variant.idea, s->side, s->source},
                       HeatCode{variant.run, variant.block.x ? variant.block : s->code.block, variant.limits}});
      }
    return all;
  }();
  static const std::vector<const HeatStage*> stages = [] {
    std::vector<const HeatStage*> all = heat_stages();
    for (const HeatStage& v : variants) all.push_back(&v);
    return all;
  }();
  return stages;
}

std::vector<const HeatStage*> stage_and_variants(const HeatStage& stage) {
  std::vector<const HeatStage*> family{&stage};
  for (int v = 0; v < stage.code.variant_count; ++v)
    family.push_back(&tut::stage_named(heat_stages_and_variants(), stage.code.variants[v].name));
  return family;
}
