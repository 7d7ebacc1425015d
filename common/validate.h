// Validation against a reference: an element passes when |x - ref| <= atol + rtol * |ref|.
// Outputs are poisoned with NaN before a run, so an element a stage never wrote shows up as
// a NaN mismatch; a NaN anywhere (output or reference) is always a mismatch.
#pragma once
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace tut {

struct Tolerance {
  double atol, rtol;
};

struct Extent3 {  // x fastest: the element at (x, y, z) is at (z * ny + y) * nx + x
  size_t nx = 1, ny = 1, nz = 1;
  // What each axis (x, y, z) is called in messages: {"column", "row", ""} for a row-major
  // matrix. Positions are printed slowest axis first, as in C's a[z][y][x], and an axis of
  // extent 1 is left out: "at (row=2, column=7)", "at (k=1, j=2, i=3)".
  std::array<const char*, 3> names = {"i", "j", "k"};
  size_t count() const { return nx * ny * nz; }
};

struct Mismatch {
  size_t i, j, k;
  double got, want;
};

struct ValidationReport {
  Extent3 extent;
  size_t checked = 0, mismatches = 0, nans = 0;
  double max_abs_err = 0, max_rel_err = 0;  // over the elements that are not NaN
  std::vector<Mismatch> first;              // the first few, in memory order
  bool ok() const { return mismatches == 0; }
  std::string summary() const;  // one line, then one line per listed mismatch
};

template <class T>
ValidationReport compare(const T* got, const T* want, Extent3 ext, Tolerance tol, size_t listed = 5) {
  ValidationReport r;
  r.extent = ext;
  r.checked = ext.count();
  for (size_t idx = 0; idx < r.checked; ++idx) {
    const double g = double(got[idx]), w = double(want[idx]);
    const bool nan = std::isnan(g) || std::isnan(w);
    const double err = std::fabs(g - w);
    if (nan) {
      ++r.nans;
    } else {
      r.max_abs_err = std::max(r.max_abs_err, err);
      if (w != 0) r.max_rel_err = std::max(r.max_rel_err, err / std::fabs(w));
    }
    if (nan || !(err <= tol.atol + tol.rtol * std::fabs(w))) {
      if (r.first.size() < listed)
        r.first.push_back({idx % ext.nx, idx / ext.nx % ext.ny, idx / (ext.nx * ext.ny), g, w});
      ++r.mismatches;
    }
  }
  return r;
}

template <class T>
void poison(T* data, size_t n) {
  static_assert(std::numeric_limits<T>::has_quiet_NaN, "poison() is for floating-point outputs");
  for (size_t idx = 0; idx < n; ++idx) data[idx] = std::numeric_limits<T>::quiet_NaN();
}

}  // namespace tut
