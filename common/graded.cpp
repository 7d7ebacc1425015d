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

// A record's header, each field at a fixed offset in a fixed width, little-endian. The numbers
// after it are in the machine's own order: the two processes share the machine.
constexpr size_t kHeaderBytes = 32;
struct Header {
  char magic[8];
  uint32_t version, sequence, kind, reserved;
  uint64_t count;
};

uint64_t width_of(NumberKind kind) {
  switch (kind) {
    case NumberKind::f32:
    case NumberKind::i32:
      return 4;
    case NumberKind::f64:
    case NumberKind::i64:
      return 8;
  }
  return 0;
}

Header header_for(NumberKind kind, uint64_t count) {
  Header h{};
  std::memcpy(h.magic, kRecordMagic, sizeof h.magic);
  h.version = kRecordVersion;
  h.sequence = uint32_t(sequence);
  h.kind = uint32_t(kind);
  h.count = count;
  return h;
}

void put(unsigned char* at, uint64_t value, int bytes) {
  for (int b = 0; b < bytes; ++b) at[b] = static_cast<unsigned char>(value >> (8 * b));
}

uint64_t get(const unsigned char* at, int bytes) {
  uint64_t value = 0;
  for (int b = 0; b < bytes; ++b) value |= uint64_t(at[b]) << (8 * b);
  return value;
}

void encode(const Header& h, unsigned char* out) {
  std::memcpy(out, h.magic, 8);
  put(out + 8, h.version, 4);
  put(out + 12, h.sequence, 4);
  put(out + 16, h.kind, 4);
  put(out + 20, h.reserved, 4);
  put(out + 24, h.count, 8);
}

Header decode(const unsigned char* in) {
  Header h{};
  std::memcpy(h.magic, in, 8);
  h.version = uint32_t(get(in + 8, 4));
  h.sequence = uint32_t(get(in + 12, 4));
  h.kind = uint32_t(get(in + 16, 4));
  h.reserved = uint32_t(get(in + 20, 4));
  h.count = get(in + 24, 8);
  return h;
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

void graded_numbers(NumberKind kind, void* data, uint64_t count) {
  ++sequence;
  if (record_fd < 0 && judge_fd < 0) return;
  const uint64_t bytes = count * width_of(kind);
  if (record_fd >= 0) {
    const Header header = header_for(kind, count);
    unsigned char encoded[kHeaderBytes];
    encode(header, encoded);
    if (!transfer(record_fd, reinterpret_cast<char*>(encoded), kHeaderBytes, false) ||
        !transfer(record_fd, static_cast<char*>(data), bytes, false))
      std::_Exit(3);  // the judge has stopped reading: it has its verdict
    return;
  }
  // The judge: the header first, every field checked against its own output's, before a
  // single number is read into that output.
  unsigned char encoded[kHeaderBytes];
  if (!transfer(judge_fd, reinterpret_cast<char*>(encoded), kHeaderBytes, true))
    judge_stops("the submission's test process never sent it (it ended, crashed or skipped before this point)");
  const Header sent = decode(encoded), due = header_for(kind, count);
  if (std::memcmp(sent.magic, due.magic, sizeof due.magic) != 0 || sent.version != due.version)
    judge_stops("the submission's test process sent something that is not a grading record (version " +
                std::to_string(kRecordVersion) + ")");
  if (sent.sequence != due.sequence)
    judge_stops("the submission's test process sent output " + std::to_string(sent.sequence) +
                " in its place (it took another path through the test)");
  if (sent.kind != due.kind || sent.count != due.count)
    judge_stops("the submission's test process sent " + std::to_string(sent.count) + " numbers of kind " +
                std::to_string(sent.kind) + " where " + std::to_string(due.count) + " of kind " +
                std::to_string(due.kind) + " were due (it took another path through the test)");
  if (!transfer(judge_fd, static_cast<char*>(data), bytes, true))
    judge_stops("the submission's test process ended while sending it");
}

}  // namespace tut
