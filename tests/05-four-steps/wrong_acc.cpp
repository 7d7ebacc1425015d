// Wrong on purpose, for the acc suite to reject: step 3's OpenACC stage inside a data region that
// copies the state in and never back (copyin where the region changes the array: copy). The
// stage's own data region finds the state present and leaves it to the outer one, whose end
// drops the GPU's copy: every step runs, the clock advances, and the caller's state is as it was.
#include "step_support.h"

namespace {

void run_copyin_only(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const size_t state = kVars * p.mesh.plane();
#pragma acc data copyin(q[0:state])
  four_steps_acc3.run(p, q, work, clock, steps);
}

}  // namespace

extern const FourStepsCode four_steps_wrong_copyin{run_copyin_only, kFourPassWorkPlanes};
