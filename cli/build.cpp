// The backend's build (cmake/workbook.sh configured it), target by target.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "wb.hpp"

namespace fs = std::filesystem;

namespace wb::cli {

bool build(const Context& c, const std::vector<std::string>& targets, const std::string& log) {
  // Ninja itself where the build is Ninja's (the presets'), which re-runs CMake when it must: one
  // process fewer than `cmake --build`, whose start costs a Python interpreter where CMake came
  // from pip (the GPU machine's).
  Command cmd{{"ninja", "-C", c.dir, "-j", std::to_string(c.jobs)}};
  if (!exists(c.dir + "/build.ninja") || !on_path("ninja"))
    cmd.argv = {"cmake", "--build", c.dir, "-j", std::to_string(c.jobs), "--target"};
  cmd.argv.insert(cmd.argv.end(), targets.begin(), targets.end());
  cmd.log = log;
  return run(cmd).ok();
}

std::string first_error(const Context& c, const std::string& log, const std::string& folder) {
  std::istringstream in(exists(log) ? slurp(log) : "");
  const std::regex in_folder(std::regex_replace(folder, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                             R"(/[^:]+:[0-9]+(:[0-9]+)?: (fatal )?error)");
  std::string line, first_any, first_own;
  while (std::getline(in, line)) {
    if (first_own.empty() && std::regex_search(line, in_folder)) first_own = line;
    if (first_any.empty() && line.find("error") != std::string::npos) first_any = line;
  }
  std::string e = first_own.empty() ? first_any : first_own;
  const std::string prefix = c.root + "/";
  if (e.rfind(prefix, 0) == 0) e.erase(0, prefix.size());
  return e;
}

}  // namespace wb::cli
