// The registry of one stage list, written once for every chapter. A chapter's registry file
// names the list, then includes this file (once per list, so it has no include guard):
//   #define STAGE_FAMILY heat       // the list heat.stages, the function heat_stages()
//   #define STAGE_TYPE HeatStage    // its entries: the chapter's tut::StageInfo plus the code
//   #define STAGE_FOLDER "01-heat"
//   #include "stage_registry.h"
// which defines `const std::vector<const HeatStage*>& heat_stages()`: every line of heat.stages,
// in lesson order, joined with the code its stage's file hands over (heat_v1, ...).
#include <vector>

#include "stages.h"

#define TUT_TEXT(x) #x
#define TUT_LIST_FILE(family) TUT_TEXT(family.stages)
#define TUT_JOIN2(a, b) a##b
#define TUT_JOIN(a, b) TUT_JOIN2(a, b)

const std::vector<const STAGE_TYPE*>& TUT_JOIN(STAGE_FAMILY, _stages)() {
#define STAGE(name, file, side, idea) \
  {{#name, idea, tut::Side::side, TUT_STAGE_SOURCE(STAGE_FOLDER, file)}, TUT_STAGE_CODE_##side(TUT_JOIN(STAGE_FAMILY, _##name))},
  static const STAGE_TYPE all[] = {
#include TUT_LIST_FILE(STAGE_FAMILY)
  };
#undef STAGE
  static const std::vector<const STAGE_TYPE*> stages = tut::registry(all);
  return stages;
}

#undef STAGE_FAMILY
#undef STAGE_TYPE
#undef STAGE_FOLDER
