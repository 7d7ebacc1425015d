#include "validate.h"

#include <cstdio>

namespace tut {

// "(row=2, column=7)": the axes slowest first, those of extent 1 left out (all but x if every
// axis has extent 1).
static std::string position(const Extent3& e, const Mismatch& m) {
  const size_t extent[3] = {e.nx, e.ny, e.nz}, at[3] = {m.i, m.j, m.k};
  std::string text;
  for (int axis = 2; axis >= 0; --axis) {
    if (extent[axis] == 1 && !(axis == 0 && text.empty())) continue;
    text += (text.empty() ? "(" : ", ") + std::string(e.names[axis]) + "=" + std::to_string(at[axis]);
  }
  return text + ")";
}

std::string ValidationReport::summary() const {
  char line[256];
  if (checked > 0 && nans == checked) {
    std::snprintf(line, sizeof line, "all %zu elements are NaN (never written?)", checked);
    return line;
  }
  std::snprintf(line, sizeof line, "%zu of %zu elements differ", mismatches, checked);
  std::string text = line;
  if (nans > 0) {
    std::snprintf(line, sizeof line, " (%zu NaN: never written, or invalid); over the other %zu:", nans, checked - nans);
    text += line;
  }
  std::snprintf(line, sizeof line, "%s max abs err %.3g, max rel err %.3g", nans > 0 ? "" : ";", max_abs_err,
                max_rel_err);
  text += line;
  for (const Mismatch& m : first) {
    std::snprintf(line, sizeof line, ": got %.9g, expected %.9g", m.got, m.want);
    text += "\n  at " + position(extent, m) + line;
  }
  if (mismatches > first.size()) text += "\n  ...";
  return text;
}

}  // namespace tut
