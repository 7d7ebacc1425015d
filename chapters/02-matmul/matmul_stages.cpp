// The registry: each line of matmul.stages joined with the code its file hands over, and the
// variants the stages carry.
#include "matmul.h"

#define STAGE_FAMILY matmul
#define STAGE_TYPE MatmulStage
#define STAGE_FOLDER "02-matmul"
#include "stage_registry.h"

const std::vector<const MatmulVariant*>& matmul_variants() {
  static const std::vector<const MatmulVariant*> variants = [] {
    std::vector<const MatmulVariant*> all;
    for (const MatmulStage* s : matmul_stages())
      for (int v = 0; v < s->code.variant_count; ++v) all.push_back(&s->code.variants[v]);
    return all;
  }();
  return variants;
}
