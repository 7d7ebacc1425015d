// Names each instance of a parameterised stage test after its stage, so that a GoogleTest case
// reads "Cpu/HeatStageTest.MatchesReferenceAtTheDefaultSize/v0_omp": the stage's own name, the
// one --stage, the Meson test and the lesson use. GoogleTest allows only letters, digits and
// '_' in these names (and --gtest_filter reads '-' as "except"), so stage names never hold '-'.
#pragma once
#include <gtest/gtest.h>

#include <string>

template <class Stage>
std::string stage_param_name(const testing::TestParamInfo<const Stage*>& info) {
  return info.param->name;
}
