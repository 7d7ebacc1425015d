// Helpers shared by the chapter's two programs, part2data and force.
#pragma once
#include <cstdio>
#include <string>

#include "ceilings.h"
#include "cli.h"
#include "device.h"
#include "particle_mesh.h"
#include "report.h"

// Notes the device and, with a GPU, the device-to-device copy measured in this run; returns
// the copy's GB/s (0 without a GPU).
inline double note_device_and_ceiling(tut::Table& table, const tut::DeviceInfo& device) {
  table.add_note("device", device.usable ? device.describe() : "none (" + device.why_not + ")");
  return device.usable ? tut::note_copy_ceiling(table) : 0;
}

// The check column of the cpu stage: the other stages are checked against it, and it by its own
// test alone (an unsolved skeleton of it, compared with itself, would read "ok").
inline constexpr const char* kReferenceNotChecked = "reference (its test checks it)";

inline std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}
