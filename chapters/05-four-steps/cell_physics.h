// The physics of one cell or one face, written once: inline functions that a CUDA kernel and an
// OpenMP loop both call (the ONERA guideline's "copy / paste" protocol, without the copy).
// kFactored selects how the arithmetic is written: false as the formulas read (a division for
// every quotient, pow for a power), true as step 3 writes it (each inverse computed once and
// multiplied, constants folded, T^1.5 as T sqrt(T)). The two agree to rounding.
#pragma once
#include <cmath>

#include "four_steps.h"

#ifdef __CUDACC__
#define HD __host__ __device__ __forceinline__
#elif defined(_OPENACC)
// GCC's OpenACC pass (the acc stages): a function called in a compute region must be compiled
// for the GPU too; inlined into the region, it is (CUDA's __forceinline__, in GCC's words).
#define HD inline __attribute__((always_inline))
#else
#define HD inline
#endif
// Unroll the next loop completely, in device code (the host compiler at -O3 unrolls a loop of
// four by itself, and would warn about the pragma).
#ifdef __CUDA_ARCH__
#define UNROLL_FULLY _Pragma("unroll")
#else
#define UNROLL_FULLY
#endif

struct Cons {  // conservative variables of a cell or a reconstructed face state
  double rho, mx, my, e;
};

struct Prim {  // what the fluxes need
  double rho, u, v, p, T;
};

// The index of cell i + d on a periodic line of n cells, for d in [-2, 2] and n >= 2.
HD int wrap(int i, int d, int n) {
  const int k = i + d;
  return k < 0 ? k + n : k >= n ? k - n : k;
}

template <bool kFactored>
HD Prim primitive(const Gas& g, const Cons& c) {
  Prim w;
  w.rho = c.rho;
  if (kFactored) {
    const double inv_rho = 1.0 / c.rho;
    w.u = c.mx * inv_rho;
    w.v = c.my * inv_rho;
    w.p = (g.gamma - 1) * (c.e - 0.5 * (c.mx * w.u + c.my * w.v));
    w.T = w.p * inv_rho;
  } else {
    w.u = c.mx / c.rho;
    w.v = c.my / c.rho;
    w.p = (g.gamma - 1) * (c.e - 0.5 * c.rho * (w.u * w.u + w.v * w.v));
    w.T = w.p / c.rho;
  }
  return w;
}

// Sutherland's law: mu = mu_ref T^(3/2) (1 + S) / (T + S).
template <bool kFactored>
HD double viscosity(const Gas& g, double T) {
  if (kFactored) return g.mu_ref * (1 + g.sutherland) * T * sqrt(T) * (1.0 / (T + g.sutherland));
  return g.mu_ref * pow(T, 1.5) * (1 + g.sutherland) / (T + g.sutherland);
}

template <bool kFactored>
HD double sound_speed(const Gas& g, const Prim& w) {
  return kFactored ? sqrt(g.gamma * w.T) : sqrt(g.gamma * w.p / w.rho);
}

// The largest stable rate 1 / dt of a cell: convection (|u| + c) / dx in each direction and
// viscous diffusion 2 nu (1/dx^2 + 1/dy^2), nu = mu / rho times max(4/3, gamma / Pr).
template <bool kFactored>
HD double stable_rate(const Mesh& m, const Gas& g, const Cons& c) {
  const Prim w = primitive<kFactored>(g, c);
  const double a = sound_speed<kFactored>(g, w), mu = viscosity<kFactored>(g, w.T);
  if (kFactored) {
    const double nu = g.diffusion * mu * (1 / w.rho);
    return (fabs(w.u) + a) * m.inv_dx + (fabs(w.v) + a) * m.inv_dy + 2 * nu * (m.inv_dx * m.inv_dx + m.inv_dy * m.inv_dy);
  }
  const double nu = fmax(4.0 / 3.0, g.gamma / g.prandtl) * mu / w.rho;
  return (fabs(w.u) + a) / m.dx + (fabs(w.v) + a) / m.dy + 2 * nu * (1 / (m.dx * m.dx) + 1 / (m.dy * m.dy));
}

HD Cons minus(const Cons& a, const Cons& b) { return {a.rho - b.rho, a.mx - b.mx, a.my - b.my, a.e - b.e}; }

// Linear reconstruction at the face between cells b and c of a line a, b, c, d (centred slopes,
// no limiter: the vortex is smooth): the state just left of the face and just right of it.
HD double left_of_face(double a, double b, double c) { return b + 0.25 * (c - a); }
HD double right_of_face(double b, double c, double d) { return c - 0.25 * (d - b); }

HD Cons left_of_face(const Cons& a, const Cons& b, const Cons& c) {
  return {left_of_face(a.rho, b.rho, c.rho), left_of_face(a.mx, b.mx, c.mx), left_of_face(a.my, b.my, c.my),
          left_of_face(a.e, b.e, c.e)};
}
HD Cons right_of_face(const Cons& b, const Cons& c, const Cons& d) {
  return {right_of_face(b.rho, c.rho, d.rho), right_of_face(b.mx, c.mx, d.mx), right_of_face(b.my, c.my, d.my),
          right_of_face(b.e, c.e, d.e)};
}

// The Rusanov (local Lax-Friedrichs) flux through a face of normal x (kAlongY: normal y) from
// the states on its two sides: the mean of the two physical fluxes, minus the largest wave speed
// times the jump, over two.
template <bool kFactored, bool kAlongY>
HD Cons rusanov_flux(const Gas& g, const Cons& l, const Cons& r) {
  const Prim wl = primitive<kFactored>(g, l), wr = primitive<kFactored>(g, r);
  const double nl = kAlongY ? wl.v : wl.u, nr = kAlongY ? wr.v : wr.u;  // normal velocities
  const double s = fmax(fabs(nl) + sound_speed<kFactored>(g, wl), fabs(nr) + sound_speed<kFactored>(g, wr));
  Cons f;
  f.rho = 0.5 * (l.rho * nl + r.rho * nr) - 0.5 * s * (r.rho - l.rho);
  f.mx = 0.5 * (l.mx * nl + r.mx * nr + (kAlongY ? 0 : wl.p + wr.p)) - 0.5 * s * (r.mx - l.mx);
  f.my = 0.5 * (l.my * nl + r.my * nr + (kAlongY ? wl.p + wr.p : 0)) - 0.5 * s * (r.my - l.my);
  f.e = 0.5 * ((l.e + wl.p) * nl + (r.e + wr.p) * nr) - 0.5 * s * (r.e - l.e);
  return f;
}

// The viscous flux through a face of normal x (kAlongY: normal y), from the two cells beside it
// (l, r) and the cells beside those across the face's direction (l_minus, l_plus, r_minus,
// r_plus: the neighbours along y of a face of normal x), and the two cells' viscosities.
// Gradients across the face are one-sided differences; along it, the mean of the two cells'
// centred differences. Stress tau = mu (grad u + grad u^T - 2/3 div u), heat flux k grad T.
template <bool kFactored, bool kAlongY>
HD Cons viscous_flux(const Mesh& m, const Gas& g, const Prim& l, const Prim& r, const Prim& l_minus,
                     const Prim& l_plus, const Prim& r_minus, const Prim& r_plus, double mu_l, double mu_r) {
  double du_n, dv_n, dT_n, du_t, dv_t;  // derivatives normal to the face (n) and along it (t)
  if (kFactored) {
    const double inv_across = kAlongY ? m.inv_dy : m.inv_dx, quarter_inv_along = 0.25 * (kAlongY ? m.inv_dx : m.inv_dy);
    du_n = (r.u - l.u) * inv_across;
    dv_n = (r.v - l.v) * inv_across;
    dT_n = (r.T - l.T) * inv_across;
    du_t = (l_plus.u - l_minus.u + r_plus.u - r_minus.u) * quarter_inv_along;
    dv_t = (l_plus.v - l_minus.v + r_plus.v - r_minus.v) * quarter_inv_along;
  } else {
    const double across = kAlongY ? m.dy : m.dx, along = kAlongY ? m.dx : m.dy;
    du_n = (r.u - l.u) / across;
    dv_n = (r.v - l.v) / across;
    dT_n = (r.T - l.T) / across;
    du_t = (l_plus.u - l_minus.u + r_plus.u - r_minus.u) / (4 * along);
    dv_t = (l_plus.v - l_minus.v + r_plus.v - r_minus.v) / (4 * along);
  }
  // In x/y terms: du_dx, dv_dx across an x face, du_dy, dv_dy along it; the other way for y.
  const double du_dx = kAlongY ? du_t : du_n, dv_dx = kAlongY ? dv_t : dv_n;
  const double du_dy = kAlongY ? du_n : du_t, dv_dy = kAlongY ? dv_n : dv_t;
  const double mu = 0.5 * (mu_l + mu_r), u = 0.5 * (l.u + r.u), v = 0.5 * (l.v + r.v);
  const double conductivity = kFactored ? mu * g.conduction : mu * g.gamma / (g.gamma - 1) / g.prandtl;
  const double shear = mu * (du_dy + dv_dx);
  const double stretch = kAlongY ? 4 * dv_dy - 2 * du_dx : 4 * du_dx - 2 * dv_dy;
  const double normal = kFactored ? mu * stretch * (1.0 / 3.0) : mu * stretch / 3;
  Cons f;
  f.rho = 0;
  f.mx = kAlongY ? shear : normal;
  f.my = kAlongY ? normal : shear;
  f.e = u * f.mx + v * f.my + conductivity * dT_n;
  return f;
}

// One stage of the SSP Runge-Kutta scheme of order 3 (Shu and Osher), in the form
//   out = alpha U + beta (in + dt L(in)),  (alpha, beta) = (0, 1), (3/4, 1/4), (1/3, 2/3),
// where U is the state at the start of the step and `in` the previous stage's result.
struct RungeKuttaStage {
  double alpha, beta;
};
constexpr RungeKuttaStage kRungeKutta[3] = {{0.0, 1.0}, {0.75, 0.25}, {1.0 / 3.0, 2.0 / 3.0}};

HD double runge_kutta(RungeKuttaStage s, double u, double in, double dt, double residual) {
  return s.alpha * u + s.beta * (in + dt * residual);
}
