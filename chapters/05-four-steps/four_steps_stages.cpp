// The registry: each line of four_steps.stages joined with the code its file hands over, and
// why the OpenACC and MPI stages cannot run in a build without them.
#include <string>

#include "four_steps.h"

#ifndef TUT_MPI
#define TUT_MPI 0
#endif
#if !TUT_OPENACC
std::string openacc_unavailable() {
  return "no OpenACC offloading compiler in this build: apt-get install gcc-" + std::to_string(__GNUC__) +
         "-offload-nvptx (for this GCC " + std::to_string(__GNUC__) + "), then meson setup --reconfigure on the build";
}
#endif

std::string mpi_unavailable() {
  if (TUT_MPI) return "";
  return "no MPI in this build: apt-get install libopenmpi-dev openmpi-bin, then meson setup --reconfigure on the build";
}

#define STAGE_FAMILY four_steps
#define STAGE_TYPE FourStepsStage
#define STAGE_FOLDER "05-four-steps"
#include "stage_registry.h"
