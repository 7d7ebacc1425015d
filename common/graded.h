// The grader's channel (tools/grade.py). In an instructor's grading run a stage's test process
// does not decide its own verdict: wherever a test has a stage's output in hand, it passes it
// to graded_output(). The process that runs the student's code (TUT_GRADE_RECORD_FD set) sends
// it down a pipe the grader opened; the same test built from the solutions, run beside it
// (TUT_GRADE_JUDGE_FD set), reads it back in place of its own output. Every check of that second
// run then judges the student's numbers, in a process that never loaded the student's code.
// The random inputs come from test_seed(), which mixes in a seed the grader draws for each run,
// and the tests' sizes include drawn_size()s, drawn from it too.
// Outside a grading run (a student's `meson test`) all of this does nothing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tut {

// SEED, or SEED mixed with TUT_GRADE_SEED: the tests' inputs are new in every grading run.
uint64_t test_seed(uint64_t seed);

// Whether this is a grading run (TUT_GRADE_SEED set).
bool grading_run();

// A size in [lo, hi] drawn from the grader's seed (SALT tells one run's draws apart). In a
// grading run the tests add such sizes to their own, so that a table of answers for the sizes
// compiled into the tests cannot pass.
int drawn_size(int lo, int hi, uint64_t salt);

// Sends (record) or replaces (judge) BYTES bytes at DATA; nothing outside a grading run.
void graded_bytes(void* data, size_t bytes);

template <class T>
void graded_output(std::vector<T>& values) {
  graded_bytes(values.data(), values.size() * sizeof(T));
}

template <class T>
void graded_output(T& value) {
  graded_bytes(&value, sizeof(T));
}

}  // namespace tut
