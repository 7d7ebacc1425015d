// Command-line parsing shared by every program: --help, "--name value" or "--name=value",
// and a check of every value. A bad argument ends the program with one line on stderr and
// exit code 2 (exit_code_for_failure does that), never a crash or a hang.
#pragma once
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "device.h"
#include "report.h"
#include "stages.h"

namespace tut {

constexpr int kUsageExitCode = 2;  // a UsageError's (check.h)

// A whole number in [min, max], or a UsageError naming the option and what was given.
long long parse_integer(const std::string& option, const std::string& text, long long min, long long max);

class Cli {
 public:
  Cli(std::string program, std::string summary) : program_(std::move(program)), summary_(std::move(summary)) {}

  void add_int(const std::string& name, int* target, const std::string& help, int min, int max);
  void add_flag(const std::string& name, bool* target, const std::string& help);
  // A value with its own parser, which throws UsageError on a bad value.
  void add_value(const std::string& name, const std::string& metavar, const std::string& help,
                 const std::string& default_text, std::function<void(const std::string&)> parse);
  // --csv and --json, exclusive; the table format defaults to human.
  void add_format(Format* target);

  // Prints the usage and exits 0 on --help; throws UsageError on anything else it cannot use.
  void parse(int argc, const char* const* argv);
  std::string usage() const;

 private:
  struct Option {
    std::string name, metavar, help, default_text;
    std::function<void(const std::string&)> parse;  // empty for flags
    bool* flag = nullptr;
    std::string range = {};  // an integer option's bounds, shown in the help: "3..65535"
  };
  const Option* find(const std::string& name) const;
  std::string program_, summary_;
  std::vector<Option> options_;
  Format* format_ = nullptr;
  bool csv_ = false, json_ = false;
};

// The names of a comma-separated list, in order; an empty name (a comma too many) or a name
// given twice is a UsageError naming the option.
std::vector<std::string> split_names(const std::string& option, const std::string& text);

// "all" or a comma-separated list of stage names, each checked against the known ones.
template <class Stage>
std::vector<const Stage*> parse_stage_list(const std::string& option, const std::string& text,
                                           const std::vector<const Stage*>& known) {
  if (text == "all") return known;
  std::vector<const Stage*> chosen;
  for (const std::string& name : split_names(option, text)) {
    auto it = std::find_if(known.begin(), known.end(), [&](const Stage* s) { return name == s->name; });
    if (it == known.end()) throw UsageError(option + ": unknown stage '" + name + "' (known: all, " + stage_names(known) + ")");
    chosen.push_back(*it);
  }
  return chosen;
}

// Without a usable GPU, stages that all run on the GPU leave a program nothing to do: it says
// why and exits 77 (NoDeviceError). With a CPU stage among them, it runs the CPU stages.
template <class Stage>
void require_device_unless_cpu_stages(const std::vector<const Stage*>& stages, const DeviceInfo& device) {
  if (!device.usable && std::all_of(stages.begin(), stages.end(), [](const Stage* s) { return s->on_device(); }))
    throw NoDeviceError("the stages asked for run on a GPU: " + device.why_not);
}

// What a program's main() returns for the exception it is handling, having said why on stderr:
// UsageError -> "program: error: ..." and exit 2; NoDeviceError -> "program: <why>" and exit 77;
// any other failure (a CUDA error, out of memory) -> exit 1. Every main() is a function-try-block:
//   int main(int argc, char** argv) try { ... } catch (...) { return tut::exit_code_for_failure("heat3d"); }
int exit_code_for_failure(const char* program);

}  // namespace tut
