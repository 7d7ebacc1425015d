// Unit tests of common/ that need no GPU: validation, timing statistics, tables, the
// command line, and the wording of CUDA errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "check.h"
#include "cli.h"
#include "device.h"
#include "random_inputs.h"
#include "report.h"
#include "timing.h"
#include "validate.h"

namespace {

std::vector<float> random_values(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  tut::fill_random(v.data(), n, seed, -1.0f, 1.0f);
  return v;
}

const tut::Extent3 kBox{5, 4, 3};
const tut::Tolerance kTight{1e-6, 1e-5};

TEST(Validate, AcceptsAnIdenticalRandomField) {
  const auto want = random_values(kBox.count(), 1);
  const tut::ValidationReport r = tut::compare(want.data(), want.data(), kBox, kTight);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.checked, kBox.count());
  EXPECT_EQ(r.max_abs_err, 0.0);
}

TEST(Validate, CatchesOneWrongElementAndNamesItsIndex) {
  const auto want = random_values(kBox.count(), 2);
  auto got = want;
  const size_t i = 3, j = 2, k = 1;
  got[(k * kBox.ny + j) * kBox.nx + i] += 0.01f;
  const tut::ValidationReport r = tut::compare(got.data(), want.data(), kBox, kTight);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.mismatches, 1u);
  ASSERT_EQ(r.first.size(), 1u);
  EXPECT_EQ(r.first[0].i, i);
  EXPECT_EQ(r.first[0].j, j);
  EXPECT_EQ(r.first[0].k, k);
  EXPECT_NEAR(r.max_abs_err, 0.01, 1e-6);
  EXPECT_NE(r.summary().find("at (k=1, j=2, i=3): got"), std::string::npos) << r.summary();
}

TEST(Validate, NamesRowsAndColumnsOfAMatrix) {
  const size_t rows = 3, columns = 7;
  const tut::Extent3 matrix{columns, rows, 1, {"column", "row", ""}};
  const auto want = random_values(matrix.count(), 8);
  auto got = want;
  got[2 * columns + 5] += 1.0f;  // row 2, column 5
  EXPECT_NE(tut::compare(got.data(), want.data(), matrix, kTight).summary().find("at (row=2, column=5): got"),
            std::string::npos);
  const tut::Extent3 one_row{columns, 1, 1, {"column", "row", ""}};  // an axis of extent 1 is left out
  EXPECT_NE(tut::compare(got.data() + 2 * columns, want.data() + 2 * columns, one_row, kTight)
                .summary()
                .find("at (column=5): got"),
            std::string::npos);
}

TEST(Validate, SaysSoWhenEveryElementIsNaN) {
  const auto want = random_values(kBox.count(), 9);
  std::vector<float> got(kBox.count());
  tut::poison(got.data(), got.size());
  const tut::ValidationReport r = tut::compare(got.data(), want.data(), kBox, kTight);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.summary(), "all 60 elements are NaN (never written?)");
}

TEST(Validate, CatchesANaN) {
  const auto want = random_values(kBox.count(), 3);
  auto got = want;
  got[7] = std::nanf("");
  const tut::ValidationReport r = tut::compare(got.data(), want.data(), kBox, kTight);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.nans, 1u);
}

TEST(Validate, CatchesAnElementNeverWrittenAfterPoisoning) {
  const auto want = random_values(kBox.count(), 4);
  std::vector<float> got(kBox.count());
  tut::poison(got.data(), got.size());
  for (size_t idx = 0; idx + 1 < got.size(); ++idx) got[idx] = want[idx];  // "forgets" the last one
  const tut::ValidationReport r = tut::compare(got.data(), want.data(), kBox, kTight);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.mismatches, 1u);
  EXPECT_EQ(r.first[0].i, kBox.nx - 1);
  EXPECT_EQ(r.first[0].k, kBox.nz - 1);
}

TEST(Validate, ToleranceIsAbsolutePlusRelative) {
  const std::vector<double> want = {100.0, 0.0};
  const std::vector<double> inside = {100.0 + 0.9e-3, 0.9e-6}, outside = {100.0 + 1.2e-3, 0.0};
  EXPECT_TRUE(tut::compare(inside.data(), want.data(), {2, 1, 1}, kTight).ok());  // 1e-6 + 1e-5 * 100 = 1.001e-3
  EXPECT_FALSE(tut::compare(outside.data(), want.data(), {2, 1, 1}, kTight).ok());
}

// The semantics every chapter's checks rest on, each pinned so that a plausible slip fails here.
TEST(Validate, RelativeToleranceIsTakenFromTheReference) {
  const tut::Tolerance relative{0.0, 0.5};  // within half of the reference's magnitude
  const std::vector<double> want = {1.0}, far = {1.9}, near = {1.4};
  EXPECT_FALSE(tut::compare(far.data(), want.data(), {1, 1, 1}, relative).ok());  // 0.9 > 0.5 * |1|, though < 0.5 * |1.9|
  EXPECT_TRUE(tut::compare(near.data(), want.data(), {1, 1, 1}, relative).ok());
}

TEST(Validate, AnErrorEqualToTheToleranceIsAccepted) {
  const tut::Tolerance tol{0.25, 0.5};  // exact in binary: the bound for a reference of 2 is 1.25
  const std::vector<double> want = {2.0}, on_bound = {3.25}, past_bound = {std::nextafter(3.25, 4.0)};
  EXPECT_TRUE(tut::compare(on_bound.data(), want.data(), {1, 1, 1}, tol).ok());
  EXPECT_FALSE(tut::compare(past_bound.data(), want.data(), {1, 1, 1}, tol).ok());
}

TEST(Validate, PoisonReachesEveryElement) {
  for (size_t n : {1, 2, 7, 1000}) {
    std::vector<float> f(n, 1.0f);
    std::vector<double> d(n, 1.0);
    tut::poison(f.data(), n);
    tut::poison(d.data(), n);
    EXPECT_TRUE(std::all_of(f.begin(), f.end(), [](float v) { return std::isnan(v); })) << n << " floats";
    EXPECT_TRUE(std::all_of(d.begin(), d.end(), [](double v) { return std::isnan(v); })) << n << " doubles";
  }
}

TEST(Validate, EveryElementIsCompared) {
  const auto want = random_values(kBox.count(), 11);
  for (size_t wrong : {size_t(0), kBox.count() / 2, kBox.count() - 1}) {
    auto got = want;
    got[wrong] += 1.0f;
    const tut::ValidationReport r = tut::compare(got.data(), want.data(), kBox, kTight);
    EXPECT_EQ(r.mismatches, 1u) << "element " << wrong;
  }
}

TEST(Validate, RandomFillIsReproducibleAndNotConstant) {
  const auto a = random_values(1000, 5), b = random_values(1000, 5), c = random_values(1000, 6);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(*std::min_element(a.begin(), a.end()), *std::max_element(a.begin(), a.end()));
}

TEST(Timing, SummaryIsTheMedianWithMinAndMax) {
  const tut::TimingStats odd = tut::summarize({5, 1, 3});
  EXPECT_EQ(odd.median_ms, 3);
  EXPECT_EQ(odd.min_ms, 1);
  EXPECT_EQ(odd.max_ms, 5);
  EXPECT_EQ(tut::summarize({4, 1, 3, 2}).median_ms, 2.5);
  EXPECT_THROW(tut::summarize({}), std::invalid_argument);
}

TEST(Timing, HostTimerSkipsWarmupsAndTimesEachRepeat) {
  int calls = 0;
  const tut::TimingStats t = tut::time_host([&] { ++calls; }, 2, 5);
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(t.repeats, 5);
  EXPECT_GE(t.min_ms, 0.0);
}

tut::Table sample_table() {
  tut::Table t({{"stage", "stage", ""}, {"time_s", "time", "s", "%.2f"}});
  t.add_note("device", "test, \"quoted\"");
  t.add_row().set("stage", "v1").set("time_s", 1.23456);
  t.add_row().set("stage", "v22");  // no time: the cell is missing
  return t;
}

std::string printed(const tut::Table& t, tut::Format f) {
  std::ostringstream out;
  t.print(out, f);
  return out.str();
}

TEST(Report, HumanTableIsAlignedWithUnits) {
  EXPECT_EQ(printed(sample_table(), tut::Format::human),
            "device: test, \"quoted\"\n"
            "stage  time (s)\n"
            "v1         1.23\n"
            "v22           -\n");
}

TEST(Report, CsvQuotesAndKeepsFullPrecision) {
  EXPECT_EQ(printed(sample_table(), tut::Format::csv),
            "device,stage,time_s\n"
            "\"test, \"\"quoted\"\"\",v1,1.23456\n"
            "\"test, \"\"quoted\"\"\",v22,\n");
}

TEST(Report, CsvKeepsLargeWholeNumbersExact) {
  tut::Table t({{"bytes", "size", "B", "%.0f"}});
  t.add_row().set("bytes", 1073741824.0);
  t.add_row().set("bytes", 68719476736.0);
  EXPECT_EQ(printed(t, tut::Format::csv), "bytes\n1073741824\n68719476736\n");
}

TEST(Report, JsonHasNotesColumnsAndNulls) {
  const std::string json = printed(sample_table(), tut::Format::json);
  EXPECT_NE(json.find("\"device\": \"test, \\\"quoted\\\"\""), std::string::npos) << json;
  EXPECT_NE(json.find("{\"stage\": \"v1\", \"time_s\": 1.23456}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"time_s\": null"), std::string::npos) << json;
}

TEST(Report, UnknownColumnsAndNumbersInTextColumnsAreRefused) {
  tut::Table t({{"a", "a", ""}});
  EXPECT_THROW(t.add_row().set("b", "x"), std::invalid_argument);
  EXPECT_THROW(t.add_row().set("a", 1.0), std::invalid_argument);
}

void parse(tut::Cli& cli, std::vector<const char*> args) {
  args.insert(args.begin(), "prog");
  cli.parse(int(args.size()), args.data());
}

TEST(Cli, ReadsIntegersInBothSpellings) {
  int n = 1, m = 1;
  tut::Cli cli("prog", "test");
  cli.add_int("n", &n, "", 1, 100);
  cli.add_int("m", &m, "", 1, 100);
  parse(cli, {"--n", "42", "--m=7"});
  EXPECT_EQ(n, 42);
  EXPECT_EQ(m, 7);
}

TEST(Cli, RejectsBadNumbersWithOneLineNamingTheOption) {
  for (const char* bad : {"-5", "0", "abc", "12x", "", "101", "99999999999999999999"}) {
    int n = 1;
    tut::Cli cli("prog", "test");
    cli.add_int("n", &n, "", 1, 100);
    try {
      parse(cli, {"--n", bad});
      ADD_FAILURE() << "accepted --n '" << bad << "'";
    } catch (const tut::UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("--n must be a whole number from 1 to 100"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
}

TEST(Cli, RejectsUnknownOptionsMissingValuesAndStrayArguments) {
  int n = 1;
  bool flag = false;
  tut::Cli cli("prog", "test");
  cli.add_int("n", &n, "", 1, 100);
  cli.add_flag("fast", &flag, "");
  EXPECT_THROW(parse(cli, {"--bogus", "1"}), tut::UsageError);
  EXPECT_THROW(parse(cli, {"--n"}), tut::UsageError);
  EXPECT_THROW(parse(cli, {"stray"}), tut::UsageError);
  EXPECT_THROW(parse(cli, {"--fast=yes"}), tut::UsageError);
  parse(cli, {"--fast"});
  EXPECT_TRUE(flag);
}

TEST(Cli, CsvAndJsonAreExclusive) {
  tut::Format format = tut::Format::human;
  tut::Cli cli("prog", "test");
  cli.add_format(&format);
  parse(cli, {"--csv"});
  EXPECT_EQ(format, tut::Format::csv);
  tut::Cli both("prog", "test");
  both.add_format(&format);
  EXPECT_THROW(parse(both, {"--csv", "--json"}), tut::UsageError);
}

// main()'s catch (...) hands the exception to exit_code_for_failure: it must map each kind.
template <class Failure>
int exit_code_when_thrown(const Failure& failure) {
  try {
    throw failure;
  } catch (...) {
    return tut::exit_code_for_failure("prog");
  }
}

TEST(Cli, FailuresMapToTheirExitCodes) {
  EXPECT_EQ(exit_code_when_thrown(tut::UsageError("bad")), 2);
  EXPECT_EQ(exit_code_when_thrown(std::runtime_error("broken")), 1);
  EXPECT_EQ(exit_code_when_thrown(std::bad_alloc()), 1);
  EXPECT_EQ(exit_code_when_thrown(tut::NoDeviceError("no GPU here")), tut::kSkipExitCode);
}

TEST(Check, CudaErrorNamesTheCallTheFileAndTheLine) {
  // Fails with or without a GPU: there is no device number 12345.
  try {
    CUDA_CHECK(cudaSetDevice(12345));
    FAIL() << "cudaSetDevice(12345) succeeded";
  } catch (const tut::CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cudaSetDevice(12345)"), std::string::npos) << what;
    EXPECT_NE(what.find("test_common.cpp:"), std::string::npos) << what;
  }
}

TEST(Device, BytesAreFormattedWithBinaryUnits) {
  EXPECT_EQ(tut::format_bytes(512), "512 B");
  EXPECT_EQ(tut::format_bytes(8.0 * 1024 * 1024), "8.0 MiB");
  EXPECT_EQ(tut::format_bytes(1.5 * 1024 * 1024 * 1024), "1.5 GiB");
}

}  // namespace
