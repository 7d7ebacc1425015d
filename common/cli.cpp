#include "cli.h"

#include "check.h"
#include "device.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <new>

namespace tut {

long long parse_integer(const std::string& option, const std::string& text, long long min, long long max) {
  const std::string expected =
      option + " must be a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  if (text.empty() || text.find_first_not_of("+-0123456789") != std::string::npos)
    throw UsageError(expected + ", got '" + text + "'");
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE || value < min || value > max)
    throw UsageError(expected + ", got '" + text + "'");
  return value;
}

void Cli::add_int(const std::string& name, int* target, const std::string& help, int min, int max) {
  add_value(name, "N", help, std::to_string(*target),
            [=](const std::string& text) { *target = int(parse_integer("--" + name, text, min, max)); });
  options_.back().range = std::to_string(min) + ".." + std::to_string(max);
}

void Cli::add_flag(const std::string& name, bool* target, const std::string& help) {
  options_.push_back({name, "", help, "", {}, target});
}

void Cli::add_value(const std::string& name, const std::string& metavar, const std::string& help,
                    const std::string& default_text, std::function<void(const std::string&)> parse) {
  options_.push_back({name, metavar, help, default_text, std::move(parse), nullptr});
}

void Cli::add_format(Format* target) {
  format_ = target;
  add_flag("csv", &csv_, "print the table as CSV (for tools and plots)");
  add_flag("json", &json_, "print the table as JSON");
}

const Cli::Option* Cli::find(const std::string& name) const {
  for (const Option& o : options_)
    if (o.name == name) return &o;
  return nullptr;
}

void Cli::parse(int argc, const char* const* argv) {
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    if (arg == "--help" || arg == "-h") {
      std::cout << usage();
      std::exit(0);
    }
    if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + arg + "' (see --help)");
    std::string name = arg.substr(2), value;
    const size_t eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const Option* option = find(name);
    if (!option) throw UsageError("unknown option '--" + name + "' (see --help)");
    if (option->flag) {
      if (inline_value) throw UsageError("--" + name + " takes no value");
      *option->flag = true;
      continue;
    }
    if (!inline_value) {
      if (a + 1 >= argc) throw UsageError("--" + name + " needs a value (" + option->metavar + ")");
      value = argv[++a];
    }
    option->parse(value);
  }
  if (format_) {
    if (csv_ && json_) throw UsageError("choose one of --csv and --json");
    *format_ = csv_ ? Format::csv : json_ ? Format::json : Format::human;
  }
}

std::string Cli::usage() const {
  // A summary that opens with its own usage line (a program with positional arguments) replaces ours.
  const bool own_usage = summary_.rfind("usage:", 0) == 0;
  std::string text = (own_usage ? "" : "usage: " + program_ + " [options]\n") + summary_ + "\n\noptions:\n";
  for (const Option& o : options_) {
    std::string left = "  --" + o.name + (o.metavar.empty() ? "" : " " + o.metavar);
    left.resize(std::max<size_t>(left.size() + 2, 22), ' ');
    const std::string range = o.range.empty() ? "" : o.range + (o.default_text.empty() ? "" : ", ");
    const std::string in_brackets = range + (o.default_text.empty() ? "" : "default " + o.default_text);
    text += left + o.help + (in_brackets.empty() ? "" : " (" + in_brackets + ")") + "\n";
  }
  return text + "  --help              show this help and exit\n";
}

std::vector<std::string> split_names(const std::string& option, const std::string& text) {
  std::vector<std::string> names;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) throw UsageError(option + ": an empty name in '" + text + "' (a comma too many?)");
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw UsageError(option + ": '" + name + "' is named twice");
    names.push_back(name);
  }
  return names;
}

int exit_code_for_failure(const char* program) {
  try {
    throw;
  } catch (const UsageError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return kUsageExitCode;
  } catch (const NoDeviceError& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return kSkipExitCode;
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": out of host memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tut
