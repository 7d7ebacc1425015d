// The OpenACC stages of chapter 05-four-steps against the tests' own reference, and a data
// region that copies the state in but never back, which the checks must reject. The program
// skips (exit 77) where the build has no OpenACC offloading or OpenACC finds no GPU
// (gpu_test_main.cpp asks openacc_unavailable()).
#include "four_steps_test_support.h"

INSTANTIATE_TEST_SUITE_P(four_steps, FourStepsStageTest,
                         testing::ValuesIn(tut::stages_on(four_steps_stages(), tut::Side::acc)),
                         stage_param_name<FourStepsStage>);

#if TUT_OPENACC
extern const FourStepsCode four_steps_wrong_copyin;  // wrong_acc.cpp, compiled with OpenACC

// Rejected after one time step: the state comes back as it went in.
TEST(SuiteRejectsWrongStage, AccDataRegionCopiesTheStateInOnly) {
  const FourStepsStage wrong = {{"wrong-copyin", "", tut::Side::acc, "tests/05-four-steps/wrong_acc.cpp"},
                                four_steps_wrong_copyin};
  EXPECT_FALSE(matches_reference(wrong, 37, 61, 1, 1e-3));
}
#endif
