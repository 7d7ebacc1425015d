// The tests' own time stepping for chapter 05-four-steps, written apart from the stages: one
// sequential loop, no padding, and each cell's residual from its four faces, every face flux
// computed where it is needed (so each face twice), not stored and summed in passes. Only the
// physics of a face or a cell (cell_physics.h) is shared with the stages.
#pragma once
#include <algorithm>
#include <vector>

#include "cell_physics.h"
#include "four_steps.h"

// Mistakes a student makes, for the suites to prove that they catch them.
enum class Mistake {
  none,
  y_flux_sign,     // the y convective flux's momentum-y component with the wrong sign
  stale_east_flux  // east and north faces from the previous Runge-Kutta stage (see below)
};

// `steps` time steps from q (nx x ny cells per plane, no padding). The clock starts at *t (0
// when t is null) and is left there at the time reached.
inline std::vector<double> reference_vortex(const Problem& p, std::vector<double> q, int steps,
                                            Mistake mistake = Mistake::none, double* t = nullptr) {
  const Mesh& m = p.mesh;
  const Gas& g = p.gas;
  const int nx = m.nx, ny = m.ny;
  const size_t plane = m.cells();
  auto cell = [&](const std::vector<double>& s, int i, int j) {
    const size_t c = size_t((j + ny) % ny) * nx + (i + nx) % nx;  // periodic in both directions
    return Cons{s[c], s[plane + c], s[2 * plane + c], s[3 * plane + c]};
  };

  // The flux through the west face of cell (i, j) of state s, and through its south face:
  // convective (Rusanov on the reconstructed states) minus viscous.
  auto prim = [&](const std::vector<double>& s, int i, int j) { return primitive<false>(g, cell(s, i, j)); };
  auto mu = [&](const Prim& w) { return viscosity<false>(g, w.T); };
  auto west_flux = [&](const std::vector<double>& s, int i, int j) {
    const Cons c = rusanov_flux<false, false>(g, left_of_face(cell(s, i - 2, j), cell(s, i - 1, j), cell(s, i, j)),
                                              right_of_face(cell(s, i - 1, j), cell(s, i, j), cell(s, i + 1, j)));
    const Prim l = prim(s, i - 1, j), r = prim(s, i, j);
    return minus(c, viscous_flux<false, false>(m, g, l, r, prim(s, i - 1, j - 1), prim(s, i - 1, j + 1),
                                               prim(s, i, j - 1), prim(s, i, j + 1), mu(l), mu(r)));
  };
  auto south_flux = [&](const std::vector<double>& s, int i, int j) {
    Cons c = rusanov_flux<false, true>(g, left_of_face(cell(s, i, j - 2), cell(s, i, j - 1), cell(s, i, j)),
                                       right_of_face(cell(s, i, j - 1), cell(s, i, j), cell(s, i, j + 1)));
    if (mistake == Mistake::y_flux_sign) c.my = -c.my;
    const Prim l = prim(s, i, j - 1), r = prim(s, i, j);
    return minus(c, viscous_flux<false, true>(m, g, l, r, prim(s, i - 1, j - 1), prim(s, i + 1, j - 1),
                                              prim(s, i - 1, j), prim(s, i + 1, j), mu(l), mu(r)));
  };

  double clock = t ? *t : 0;
  std::vector<double> a(q.size()), b(q.size());
  // stale_east_flux: a merged kernel that reads its east and north neighbours' fluxes before
  // they are rewritten gets the fluxes of the previous stage's input. The run's first stage
  // has none before it and uses its own, so one stage alone is right; the error starts with
  // the second.
  std::vector<double> previous_in;
  for (int n = 0; n < steps; ++n) {
    double rate = 0;
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) rate = std::max(rate, stable_rate<false>(m, g, cell(q, i, j)));
    const double dt = std::max(0.0, std::min(p.cfl / rate, p.t_end - clock));  // never past t_end
    clock += dt;

    const std::vector<double>* in[3] = {&q, &a, &b};
    std::vector<double>* out[3] = {&a, &b, &q};
    for (int s = 0; s < 3; ++s) {
      const std::vector<double>& u = *in[s];
      const std::vector<double>& late = mistake == Mistake::stale_east_flux && !previous_in.empty() ? previous_in : u;
      std::vector<double> next(q.size());
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          const Cons w = west_flux(u, i, j), e = west_flux(late, i + 1, j);
          const Cons so = south_flux(u, i, j), no = south_flux(late, i, j + 1);
          const double residual[kVars] = {(w.rho - e.rho) / m.dx + (so.rho - no.rho) / m.dy,
                                          (w.mx - e.mx) / m.dx + (so.mx - no.mx) / m.dy,
                                          (w.my - e.my) / m.dx + (so.my - no.my) / m.dy,
                                          (w.e - e.e) / m.dx + (so.e - no.e) / m.dy};
          for (int v = 0; v < kVars; ++v) {
            const size_t k = v * plane + size_t(j) * nx + i;
            next[k] = runge_kutta(kRungeKutta[s], q[k], u[k], dt, residual[v]);
          }
        }
      if (mistake == Mistake::stale_east_flux) previous_in = u;
      *out[s] = next;  // written whole after the sweep: stage 2 reads q (as U) while it writes it
    }
  }
  if (t) *t = clock;
  return q;
}
