#include "timing.h"

#include <algorithm>
#include <stdexcept>

namespace tut {

TimingStats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no timing samples");
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  TimingStats s;
  s.median_ms = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.min_ms = samples.front();
  s.max_ms = samples.back();
  s.repeats = int(n);
  return s;
}

}  // namespace tut
