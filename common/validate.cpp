#include "validate.h"

#include <cstdio>

namespace tut {

std::string ValidationReport::summary() const {
  char line[256];
  std::snprintf(line, sizeof line, "%zu of %zu elements differ (%zu NaN: never written, or invalid); max abs err %.3g, max rel err %.3g",
                mismatches, checked, nans, max_abs_err, max_rel_err);
  std::string text = line;
  for (const Mismatch& m : first) {
    std::snprintf(line, sizeof line, "\n  at (i=%zu, j=%zu, k=%zu): got %.9g, expected %.9g", m.i, m.j, m.k, m.got, m.want);
    text += line;
  }
  if (mismatches > first.size()) text += "\n  ...";
  return text;
}

}  // namespace tut
