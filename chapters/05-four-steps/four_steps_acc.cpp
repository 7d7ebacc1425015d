// The OpenACC side's support, compiled by GCC with -fopenacc (built only where GCC offloads to
// NVIDIA GPUs): the time step, a data region around a stage's passes, and whether OpenACC finds
// a GPU to run on.
#include <openacc.h>

#include <cmath>
#include <string>

#include "device.h"
#include "step_support.h"

void acc_time_step(const Problem& p, const double* q, Clock* clock) {
  const Mesh m = p.mesh;
  const Gas g = p.gas;
  double rate = 0;
#pragma acc parallel loop gang firstprivate(m, g) deviceptr(q) reduction(max : rate)
  for (int j = 0; j < m.ny; ++j) {
#pragma acc loop vector reduction(max : rate)
    for (int i = 0; i < m.nx; ++i) rate = fmax(rate, stable_rate<false>(m, g, load_cell(m, q, at(m, i, j))));
  }
  const double cfl = p.cfl, t_end = p.t_end;
#pragma acc parallel num_gangs(1) deviceptr(clock)  // outside a loop: one thread of the gang runs it
  {
    clock->dt = fmax(0.0, fmin(cfl / rate, t_end - clock->t));
    clock->t += clock->dt;
  }
}

void in_data_region(const Problem& p, double* q, double* work, int work_planes, Clock* clock, int steps,
                    FourStepsRun passes) {
  const size_t state = kVars * p.mesh.plane(), scratch = size_t(work_planes) * p.mesh.plane();
#pragma acc data copy(q[0:state], clock[0:1]) create(work[0:scratch])
#pragma acc host_data use_device(q, work, clock)
  passes(p, q, work, clock, steps);
}

std::string openacc_unavailable() {
  const tut::DeviceInfo device = tut::find_device();
  if (!device.usable) return device.why_not;
  // Without its nvptx plugin beside it, libgomp sees no NVIDIA device and would run every region
  // on the host, where the GPU addresses the regions get mean nothing.
  if (acc_get_num_devices(acc_device_nvidia) > 0) return "";
  return "OpenACC finds no NVIDIA GPU: libgomp.so.1 has no libgomp-plugin-nvptx.so.1 beside it (apt-get install "
         "libgomp-plugin-nvptx1, or put both libraries from its package on LD_LIBRARY_PATH)";
}
