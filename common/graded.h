// The grader's channel (tools/grade.py). In an instructor's grading run a stage's test process
// does not decide its own verdict: wherever a test has a stage's output in hand, it passes it
// to graded_output(). The process that runs the student's code (TUT_GRADE_RECORD_FD set) sends
// it down a pipe the grader opened; the same test built from the solutions, run beside it
// (TUT_GRADE_JUDGE_FD set), reads it back in place of its own output. Every check of that second
// run then judges the student's numbers, in a process that never loaded the student's code.
// The random inputs come from test_seed(), which mixes in a seed the grader draws for each run,
// and the tests' sizes include drawn_size()s, drawn from it too.
// Outside a grading run (a student's `meson test`) all of this does nothing.
//
// What crosses the pipe is plain numbers, never an object's bytes: each output is one record,
// a fixed header (kRecordMagic, kRecordVersion, its sequence number, the kind and count of its
// numbers, each field written out explicitly) and then the numbers. The judge accepts a record
// only if every header field is the one it expects (its own output's kind and count), so the
// student's process can choose the values of numbers, and nothing else. A struct's fields are
// sent one by one: graded_output(result.iterations), graded_output(result.change_norm).
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

// The kinds of number a record may carry: its header names one, and the judge's must match.
enum class NumberKind : uint32_t { f32 = 1, f64 = 2, i32 = 3, i64 = 4 };

inline constexpr char kRecordMagic[8] = {'T', 'U', 'T', 'G', 'R', 'A', 'D', 'E'};
inline constexpr uint32_t kRecordVersion = 1;

// Sends (record) or replaces (judge) COUNT numbers of KIND at DATA; nothing outside a grading run.
void graded_numbers(NumberKind kind, void* data, uint64_t count);

// Only these types cross the pipe: no other type has a graded_output().
inline void graded_output(std::vector<float>& v) { graded_numbers(NumberKind::f32, v.data(), v.size()); }
inline void graded_output(std::vector<double>& v) { graded_numbers(NumberKind::f64, v.data(), v.size()); }
inline void graded_output(std::vector<int32_t>& v) { graded_numbers(NumberKind::i32, v.data(), v.size()); }
inline void graded_output(std::vector<int64_t>& v) { graded_numbers(NumberKind::i64, v.data(), v.size()); }
inline void graded_output(float& x) { graded_numbers(NumberKind::f32, &x, 1); }
inline void graded_output(double& x) { graded_numbers(NumberKind::f64, &x, 1); }
inline void graded_output(int32_t& x) { graded_numbers(NumberKind::i32, &x, 1); }
inline void graded_output(int64_t& x) { graded_numbers(NumberKind::i64, &x, 1); }

}  // namespace tut
