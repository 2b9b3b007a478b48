// status [NN ...]: the last grade of every chapter and exercise, from grades/ID.json; nothing is built.
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "grades.hpp"
#include "wb.hpp"
#include "wb/verdict.hpp"

namespace fs = std::filesystem;

namespace wb::cli {

int status(Context& c, const std::vector<std::string>& names) {
  const std::vector<std::string> ids = resolve_all(c, names);
  std::ostream& out = *c.out;
  auto row = [&out](const std::string& a, const std::string& b, const std::string& why) {
    out << "  " << std::left << std::setw(18) << a << " " << std::setw(17) << b << " " << why << "\n";
  };
  out << "Your progress on the " << (c.backend == "cpu" ? "CPU backend" : "GPU")
      << ", from the last grade of each (grade refreshes it; nothing is rebuilt):\n";
  row("chapter", "verdict", "why / last speed");
  int correct = 0, graded = 0;
  for (const auto& id : ids) {
    const Entry& e = c.entry(id);
    const std::string f = c.grades_dir() + "/" + id + ".json";
    if (!exists(f)) {
      row(id, "not graded", "run: " + c.me + " grade " + e.short_name());
      continue;
    }
    ++graded;
    Verdict v;
    try {
      v = read_verdict_file(f);
    } catch (const std::exception& ex) {
      row(id, "?", std::string("unreadable verdict: ") + ex.what());
      continue;
    }
    if (v.kind == VerdictKind::correct) ++correct;
    std::string why = why_text(v), speed = v.speed;
    const std::string kept = c.grades_dir() + "/" + id + ".speed";
    if ((speed.empty() || speed.rfind("not timed", 0) == 0) && exists(kept)) {
      std::string last = slurp(kept);
      while (!last.empty() && last.back() == '\n') last.pop_back();
      speed = "last timed " + age(kept) + ": " + last;
    }
    if (!speed.empty()) why += (why.empty() ? "" : "; ") + speed;
    std::string note = "graded " + age(f);
    if (newer(c.path(e.kernel_file), f)) note += ", file changed since";
    row(id, kind_name(v.kind), shorten(why) + (why.empty() ? "" : " ") + "(" + note + ")");
  }
  out << correct << " of " << ids.size() << " correct; " << ids.size() - graded << " not graded yet.\n";
  // The other backend's grades are kept in its own build folder.
  const std::string other = c.backend == "cuda" ? "cpu" : "gpu", other_backend = c.backend == "cuda" ? "cpu" : "cuda";
  if (!c.dir_given) {
    std::error_code ec;
    bool any = false;
    for (const auto& f : fs::directory_iterator(c.root + "/build/" + other + "/grades", ec))
      any = any || f.path().extension() == ".json";
    if (any)
      out << "Grades on the " << (other == "gpu" ? "GPU" : "CPU backend") << " are kept apart: WB_BACKEND="
          << other_backend << " " << c.me << " status\n";
  }
  return 0;
}

}  // namespace wb::cli
