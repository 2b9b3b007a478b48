// hint NN [N | --reset]: the hints of a chapter's or exercise's page, one at a time. A hint is
// <details><summary>Hint N: title</summary> ... </details> on the page (docs/command-line.md).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "wb.hpp"

namespace fs = std::filesystem;

namespace wb::cli {
std::vector<Hint> hints_of(const std::string& page) {
  std::vector<Hint> hints;
  if (!exists(page)) return hints;
  std::istringstream in(slurp(page));
  const std::regex start(R"(^<details><summary>Hint ([0-9]+): (.*)</summary>.*$)");
  std::string line;
  Hint* open = nullptr;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, start)) {
      hints.push_back(Hint{std::stoi(m[1]), m[2], {}});
      open = &hints.back();
    } else if (open && line.rfind("</details>", 0) == 0) {
      open = nullptr;
    } else if (open && !(open->lines.empty() && line.find_first_not_of(" \t") == std::string::npos)) {
      open->lines.push_back(line);
    }
  }
  for (auto& h : hints)
    while (!h.lines.empty() && h.lines.back().find_first_not_of(" \t") == std::string::npos) h.lines.pop_back();
  return hints;
}

int hint(Context& c, const std::string& name, const std::optional<int>& which, bool reset) {
  const Entry& e = c.entry(resolve(c, name));
  const std::vector<Hint> hints = hints_of(c.path(e.hints));
  const int total = int(hints.size());
  std::ostream& out = *c.out;
  const std::string state = c.state_dir + "/hints/" + e.id, again = c.me + " hint " + e.short_name();
  if (total == 0) {
    out << e.hints << " has no hints.\n";
    return 0;
  }
  if (reset) {
    fs::remove(state);
    out << "Hints of " << e.id << " forgotten: the next " << again << " shows hint 1 of " << total << ".\n";
    return 0;
  }
  int shown = 0;
  if (exists(state)) shown = std::atoi(slurp(state).c_str());
  int k = shown + 1;
  if (which) {
    k = *which;
    if (k < 1 || k > total) throw UsageError(e.id + " has hints 1 to " + std::to_string(total));
  } else if (k > total) {
    out << "All " << total << " hints of " << e.id << " are shown (" << again << " " << total << " shows the last again).\n"
        << "The worked solution is at the end of " << e.hints << ", after the hints; try the grader's messages first.\n";
    return 0;
  }
  const Hint& h = hints[size_t(k - 1)];
  out << "Hint " << k << " of " << total << " for " << e.id << ": " << h.title << "\n\n";
  for (const auto& l : h.lines) out << "  " << l << "\n";
  out << "\n";
  if (k > shown) {
    fs::create_directories(c.state_dir + "/hints");
    std::ofstream(state) << k << "\n";
    shown = k;
  }
  const int left = total - shown;
  if (left > 0)
    out << left << " more hint" << (left == 1 ? "" : "s") << ": " << again << "\n";
  else
    out << "That was the last hint.\n";
  return 0;
}

}  // namespace wb::cli
