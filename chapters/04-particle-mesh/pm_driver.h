// Helpers shared by the chapter's two programs, part2data and force.
#pragma once
#include <cstdio>
#include <string>

#include "ceilings.h"
#include "cli.h"
#include "device.h"
#include "particle_mesh.h"
#include "report.h"

// Measures the device-to-device copy in this run and notes it; returns it in GB/s (0 without a GPU).
inline double note_copy_ceiling(tut::Table& table, const tut::DeviceInfo& device) {
  table.add_note("device", device.usable ? device.describe() : "none (" + device.why_not + ")");
  if (!device.usable) return 0;
  const size_t bytes = size_t(512) << 20;
  const double gbps = tut::measure_copy_bandwidth(bytes).gb_per_s;
  char text[160];
  std::snprintf(text, sizeof text, "%.0f GB/s device-to-device copy of %s (read + write counted), median of 10",
                gbps, tut::format_bytes(double(bytes)).c_str());
  table.add_note("copy ceiling", text);
  return gbps;
}

inline std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}
