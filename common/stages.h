// A chapter's stages, as its stage list declares them. The list (chapters/NN-name/FAMILY.stages)
// has one line per stage, in lesson order:
//   STAGE(name, file, side, ..., "the one change")
// Meson reads the first three fields (the sources, the tests, the skeleton checks); C++ reads
// the list as an X-macro, and each entry joins what the list says with the code the stage's
// file hands over, which it names FAMILY_name (heat_v1).
// A stage whose idea can be seen in its compiled code says how, on the line after its own:
//   IDEA(name, kind, pattern, rejects, "what is missing when the pattern is not found")
// kind ptx: the pattern (a regular expression) is in the PTX of the stage's file; symbol: the
// stage's object calls a function the pattern names; loads-per-store: the PTX has at most pattern
// (a number) global loads per global store; omp: the file starts OpenMP threads. The
// check runs on the stage (it must pass) and on the earlier stage of the same list that
// `rejects` names, which lacks the idea (it must fail: one stage, one idea); named, so that a
// stage inserted between them changes nothing.
// A stage whose file calls into another stage's file, or into a library, says so on a line
// after its own, so that the grader does not take the call for work done elsewhere:
//   CALLS(name, file or library, ...)      e.g. CALLS(gpu9, gpu8_every_shape.cu)
// (libraries: cublas, openblas). Meson and the tools read these lines; C++ skips them.
#pragma once
#ifndef IDEA
#define IDEA(...)
#endif
#ifndef CALLS
#define CALLS(...)
#endif
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace tut {

// multigpu: the stage's tests need two GPUs; acc: OpenACC on a GPU, built only where the C++
// compiler offloads to NVIDIA GPUs (GCC with nvptx offloading); mpi: on the CPU, over MPI
// processes, built only where MPI is found
enum class Side { cpu, gpu, multigpu, acc, mpi };

struct StageInfo {
  const char* name;    // "v0_omp": the same in --stage, the Meson test, the GoogleTest case, the lesson
  const char* idea;    // its one change, for tables
  Side side;
  const char* source;  // the file to edit: "exercises/01-heat/v0_omp.cpp" (or solutions/...)
  bool on_device() const { return side != Side::cpu && side != Side::mpi; }
};

// What a stage's file hands over where a CPU stage and a GPU stage differ in signature: a CPU
// stage's run, or a GPU stage's launcher with the launch shape it chose (its block).
template <class OnHost, class OnDevice, class Block>
struct HostOrDeviceCode {
  constexpr HostOrDeviceCode(OnHost run) : on_host(run) {}
  constexpr HostOrDeviceCode(OnDevice run, Block shape) : on_device(run), block(shape) {}
  OnHost on_host = nullptr;
  OnDevice on_device = nullptr;
  Block block{};
};

// The source a failing check names: the tree this build compiles (-Dkernels), the chapter, the file.
#define TUT_STAGE_SOURCE(chapter_dir, file) TUT_KERNELS_DIR "/" chapter_dir "/" #file

// The code a registry (stage_registry.h) joins with a stage's line: what its file hands over;
// for an acc stage only where the build compiled it (TUT_OPENACC: GCC offloads to nvptx), for an
// mpi stage only where it found MPI (TUT_MPI), else none: the stage is listed, and says why it
// cannot run.
#define TUT_STAGE_CODE_cpu(code) code
#define TUT_STAGE_CODE_gpu(code) code
#define TUT_STAGE_CODE_multigpu(code) code
#if TUT_OPENACC
#define TUT_STAGE_CODE_acc(code) code
#else
#define TUT_STAGE_CODE_acc(code) {}
#endif
#if TUT_MPI
#define TUT_STAGE_CODE_mpi(code) code
#else
#define TUT_STAGE_CODE_mpi(code) {}
#endif

// The registry over a list's entries: pointers, in lesson order.
template <class Stage, size_t N>
std::vector<const Stage*> registry(const Stage (&all)[N]) {
  std::vector<const Stage*> stages;
  for (const Stage& s : all) stages.push_back(&s);
  return stages;
}

template <class Stage>
const Stage* find_stage(const std::vector<const Stage*>& stages, const std::string& name) {
  const auto it = std::find_if(stages.begin(), stages.end(), [&](const Stage* s) { return name == s->name; });
  return it == stages.end() ? nullptr : *it;
}

// The stage called `name`, which the program knows is in the list (a reference stage).
template <class Stage>
const Stage& stage_named(const std::vector<const Stage*>& stages, const char* name) {
  if (const Stage* s = find_stage(stages, name)) return *s;
  throw std::logic_error(std::string("the stage list has no stage ") + name);
}

// The stages of one side: what a test program instantiates its tests with.
template <class Stage>
std::vector<const Stage*> stages_on(const std::vector<const Stage*>& stages, Side side) {
  std::vector<const Stage*> chosen;
  for (const Stage* s : stages)
    if (s->side == side) chosen.push_back(s);
  return chosen;
}

// "v0, v0_omp, v1": the stage names for --help and for error messages.
template <class Stage>
std::string stage_names(const std::vector<const Stage*>& stages) {
  std::string names;
  for (const Stage* s : stages) names += std::string(names.empty() ? "" : ", ") + s->name;
  return names;
}

}  // namespace tut
