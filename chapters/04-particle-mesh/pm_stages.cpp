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

const char* axis_name(int axis) { return axis == kAxisX ? "x" : axis == kAxisY ? "y" : "z"; }

bool is_power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }
