#include "particle_mesh.h"

// The registries: each line of part2data.stages and force.stages joined with the code its file
// hands over.
#define STAGE_FAMILY part2data
#define STAGE_TYPE Part2DataStage
#define STAGE_FOLDER "04-particle-mesh"
#include "stage_registry.h"

#define STAGE_FAMILY force
#define STAGE_TYPE ForceStage
#define STAGE_FOLDER "04-particle-mesh"
#include "stage_registry.h"
