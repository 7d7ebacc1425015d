// The MPI stage of chapter 05-four-steps (cpu5) against the tests' own reference, run by Meson as
// 3 processes (mpirun), so that meshes split into row blocks and the blocks exchange their halos;
// and a stage that forgets to reduce the time step across the processes, which the checks must
// reject. Without MPI in the build the program skips (exit 77).
#include <cstdio>

#include "four_steps_test_support.h"
#include "step_support.h"

INSTANTIATE_TEST_SUITE_P(four_steps, FourStepsStageTest,
                         testing::ValuesIn(tut::stages_on(four_steps_stages(), tut::Side::mpi)),
                         stage_param_name<FourStepsStage>);

#if TUT_MPI
namespace {

// Wrong on purpose: each process takes the time step from its own rows' largest rate, not the
// largest over all processes. Each block then advances by its own dt: the blocks drift apart,
// and the state gathered at the end mixes them. With one process it would be right.
void run_own_time_step(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  run_row_blocks(p, q, work, clock, steps, nullptr);
}

const FourStepsStage own_time_step = {{"wrong-own-time-step", "", tut::Side::mpi, "tests/05-four-steps/test_mpi.cpp"},
                                      {run_own_time_step, kRungeKuttaPlanes}};

}  // namespace

TEST(SuiteRejectsWrongStage, MpiTimeStepNotReducedAcrossProcesses) {
  EXPECT_FALSE(matches_reference(own_time_step, 37, 61, 2, 1e-3));
}
#endif

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();  // the cases, on any machine
  if (!mpi_unavailable().empty()) {
    std::printf("skipped: %s\n", mpi_unavailable().c_str());
    return 77;
  }
  return RUN_ALL_TESTS();
}
