// The registry: each line of poisson.stages joined with the code its file hands over.
#include "poisson.h"

#define STAGE_FAMILY poisson
#define STAGE_TYPE PoissonStage
#define STAGE_FOLDER "03-poisson"
#include "stage_registry.h"
