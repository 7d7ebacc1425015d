#include "graded.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tut {
namespace {

int fd_from(const char* variable) {
  const char* text = std::getenv(variable);
  return text && *text ? std::atoi(text) : -1;
}

// The pipe's two ends, read once: the student's process records, the reference's run judges.
const int record_fd = fd_from("TUT_GRADE_RECORD_FD");
const int judge_fd = fd_from("TUT_GRADE_JUDGE_FD");
size_t sequence = 0;  // which output this is, for the judge's message

const char* grader_seed() {
  static const char* text = std::getenv("TUT_GRADE_SEED");
  return text && *text ? text : nullptr;
}

// The judge cannot go on without the student's output: it says why and ends with a failure.
[[noreturn]] void judge_stops(const std::string& why) {
  std::fprintf(stderr, "grading: output %zu of the stage: %s\n", sequence, why.c_str());
  std::fflush(nullptr);
  std::_Exit(3);
}

bool transfer(int fd, char* data, size_t bytes, bool reading) {
  while (bytes > 0) {
    const ssize_t done = reading ? read(fd, data, bytes) : write(fd, data, bytes);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return false;
    data += done;
    bytes -= size_t(done);
  }
  return true;
}

}  // namespace

uint64_t test_seed(uint64_t seed) {
  const char* grader = grader_seed();
  if (!grader) return seed;
  uint64_t mixed = seed ^ std::strtoull(grader, nullptr, 10);  // splitmix64: nearby seeds, unrelated streams
  mixed = (mixed ^ (mixed >> 30)) * 0xbf58476d1ce4e5b9ull;
  mixed = (mixed ^ (mixed >> 27)) * 0x94d049bb133111ebull;
  return mixed ^ (mixed >> 31);
}

bool grading_run() { return grader_seed() != nullptr; }

int drawn_size(int lo, int hi, uint64_t salt) { return lo + int(test_seed(~salt) % uint64_t(hi - lo + 1)); }

void graded_bytes(void* data, size_t bytes) {
  ++sequence;
  uint64_t size = bytes;
  if (record_fd >= 0) {
    if (!transfer(record_fd, reinterpret_cast<char*>(&size), sizeof size, false) ||
        !transfer(record_fd, static_cast<char*>(data), bytes, false))
      std::_Exit(3);  // the judge has stopped reading: it has its verdict
  } else if (judge_fd >= 0) {
    uint64_t sent = 0;
    if (!transfer(judge_fd, reinterpret_cast<char*>(&sent), sizeof sent, true))
      judge_stops("the submission's test process never sent it (it ended, crashed or skipped before this point)");
    if (sent != size)
      judge_stops("the submission's test process sent " + std::to_string(sent) + " bytes where " +
                  std::to_string(size) + " were due (it took another path through the test)");
    if (!transfer(judge_fd, static_cast<char*>(data), bytes, true))
      judge_stops("the submission's test process ended while sending it");
  }
}

}  // namespace tut
