// check NN: the learner's kernel on a short input under compute-sanitizer's memcheck, racecheck
// and synccheck (GPU), or built instrumented (CPU backend, whose kernel faults are records in
// WB_EMU_FAULTS): one line each.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "wb.hpp"

namespace fs = std::filesystem;

namespace wb::cli {
namespace {

std::string pad(const std::string& s, size_t width) { return s.size() >= width ? s : s + std::string(width - s.size(), ' '); }

std::string strip_root(const Context& c, std::string s) {
  const std::string prefix = c.root + "/";
  for (size_t at; (at = s.find(prefix)) != std::string::npos;) s.erase(at, prefix.size());
  return s;
}

bool starts(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

}  // namespace

std::vector<std::string> list_tests(const Context& c, const std::string& exe, const std::string& tag) {
  const std::string out = c.grades_dir() + "/list-tests.json";
  fs::create_directories(c.grades_dir());
  fs::remove(out);
  Command cmd{{exe, "--list-tests", tag, "--reporter", "json::out=" + out}};
  cmd.unset_env = {"WB_VERDICT_FILE"};
  run(cmd);
  std::vector<std::string> names;
  try {
    const auto j = nlohmann::json::parse(slurp(out));
    for (const auto& t : j.at("listings").at("tests")) names.push_back(t.at("name").get<std::string>());
  } catch (const std::exception&) {
  }
  return names;
}

std::string small_case(const Context& c, const std::string& exe) {
  if (!list_tests(c, exe, "[racecheck]").empty()) return "[racecheck]";
  const auto first = list_tests(c, exe, "[correctness]");
  return first.empty() ? "[correctness]" : catch_escape(first[0]);
}

bool build_for_inspection(const Context& c, const Entry& e, const std::string& target, const std::string& log) {
  std::ostream& out = *c.out;
  const Targets t = c.targets(e);
  if (target.empty() || !t.skipped.empty()) {
    out << "   " << e.id << " is not built for this on " << c.backend_words() << ": it is graded as skipped here"
        << (t.skipped.empty() ? "" : " (" + t.skipped + ")") << "\n";
    return false;
  }
  if (!build(c, {target}, log)) {
    out << "   " << target << " does not compile: " << first_error(c, log, e.folder) << "\n"
        << "   (whole compiler output: " << relative(c, log) << ")\n";
    return false;
  }
  return true;
}

std::string sanitizer_summary(const Context& c, const std::string& tool, const std::string& log, bool cases_failed) {
  std::istringstream in(exists(log) ? slurp(log) : "");
  const std::regex place_re(R"( in ([^ ]+:[0-9]+))");
  auto place = [&](const std::string& s) {
    std::smatch m;
    return std::regex_search(s, m, place_re) ? strip_root(c, m[1]) : std::string();
  };
  std::string line, count, first, where, who;
  const std::string bar = "========= ";
  while (std::getline(in, line)) {
    if (starts(line, bar + "ERROR SUMMARY: ") || starts(line, bar + "RACECHECK SUMMARY: ")) {
      const bool race = starts(line, bar + "RACECHECK");
      std::string rest = line.substr(line.find(": ") + 2);
      if (race) {
        if (auto at = rest.find(" displayed"); at != std::string::npos) rest.erase(at, 10);
        count = rest;
      } else if (tool != "racecheck") {
        count = rest;
      }
    } else if (starts(line, "=========     ")) {
      if (!first.empty() && where.empty()) where = place(line);
      if (!first.empty() && who.empty() && line.find("by thread") != std::string::npos)
        who = line.substr(line.find_first_not_of(' ', 9));
    } else if (line.size() > bar.size() && starts(line, bar) && line[bar.size()] != ' ' && first.empty() &&
               !std::regex_search(line, std::regex("COMPUTE-SANITIZER|Target application|Process ID|This tool"))) {
      first = line.substr(bar.size());
      where = place(first);
      first = std::regex_replace(first, std::regex(R"( in [^ ]+:[0-9]+.*)"), "");
    }
  }
  const std::string name = pad(tool + ":", 10);
  if (count.empty()) return name + " did not finish (no summary line): see the log";
  if (starts(count, "0 "))
    return name + " clean (" + count + ")" + (cases_failed ? "; but the cases themselves failed: grade it" : "");
  first = std::regex_replace(first, std::regex(R"( at [^+]*\+0x[0-9a-f]+)"), "");
  return name + " " + count + ": " + first + (where.empty() ? "" : " at " + where) + (who.empty() ? "" : " (" + who + ")");
}

std::vector<std::string> emu_fault_summary(const Context& c, const std::string& faults, bool cases_failed) {
  struct Group {
    const char* title;
    int n = 0;
    std::string first;
  };
  // The kinds of emu/include/wb_emu/fault.hpp, in the words of the GPU's tools that find them.
  std::map<std::string, Group> groups = {{"races", {"shared-memory races (as racecheck):"}},
                                         {"bounds", {"out-of-bounds or misaligned (as memcheck):"}},
                                         {"barriers", {"barriers and warp masks (as synccheck):"}},
                                         {"unwritten", {"reads of unwritten shared memory:"}},
                                         {"other", {"other kernel faults:"}}};
  auto group_of = [](const std::string& kind) -> std::string {
    if (kind == "race") return "races";
    if (kind == "out_of_bounds" || kind == "misaligned" || kind == "illegal_address") return "bounds";
    if (kind == "barrier" || kind == "warp") return "barriers";
    if (kind == "unwritten_read") return "unwritten";
    return "other";
  };
  std::istringstream in(exists(faults) ? slurp(faults) : "");
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    nlohmann::json f;
    try {
      f = nlohmann::json::parse(line);
    } catch (const std::exception&) {
      continue;  // a record cut short by a grader that died while writing it
    }
    Group& g = groups[group_of(f.value("kind", ""))];
    if (g.n++ > 0) continue;
    // The explanation's first line, and for a race the accesses that make it (its indented lines).
    std::istringstream body(f.value("explanation", ""));
    std::string head, more, l;
    std::getline(body, head);
    if (group_of(f.value("kind", "")) == "races") {
      if (auto at = head.find(": two threads touch it"); at != std::string::npos) head.resize(at);
      if (!head.empty() && head.back() == ':') head.pop_back();
      while (std::getline(body, l))
        if (starts(l, "    ")) more += (more.empty() ? "" : "; ") + l.substr(l.find_first_not_of(' '));
    }
    if (!head.empty() && head.back() == ':') head.pop_back();
    g.first = std::regex_replace(strip_root(c, head + (more.empty() ? "" : ": " + more)),
                                 std::regex(R"( \(threadIdx [0-9,]+\))"), "");
  }
  std::vector<std::string> out;
  for (const char* k : {"races", "bounds", "barriers", "unwritten", "other"}) {
    const Group& g = groups[k];
    // No GPU tool finds unwritten reads, and the rest are rare: said only when there are some.
    if (g.n == 0 && (std::string(k) == "unwritten" || std::string(k) == "other")) continue;
    out.push_back(pad(g.title, 43) + " " +
                  (g.n == 0 ? "none"
                            : std::to_string(g.n) + " fault" + (g.n == 1 ? "" : "s") + ", the first: " + g.first));
  }
  if (cases_failed) out.push_back("(some of these cases also failed their checks: grade it for the diagnosis)");
  return out;
}

int check(Context& c, const std::string& name) {
  const Entry& e = c.entry(resolve(c, name));
  std::ostream& out = *c.out;
  const std::string g = c.grades_dir();
  fs::create_directories(g);
  const Targets t = c.targets(e);
  if (c.backend == "cpu") {
    out << "== " << e.id << ": building your file instrumented (CPU backend)" << std::endl;
    const std::string log = g + "/" + e.id + ".check.log";
    if (!build_for_inspection(c, e, t.inspect, log)) return 0;
    const std::string exe = c.dir + "/" + t.inspect, spec = small_case(c, exe), faults = g + "/" + e.id + ".faults.jsonl";
    out << "== " << e.id << ": running " << unescaped(spec)
        << " instrumented: every shared-memory access checked, every global access placed" << std::endl;
    fs::remove(faults);
    Command run_it{{exe, spec}, {{"WB_SANITIZER_CHILD", "1"}, {"WB_EMU_FAULTS", faults}}, {"WB_VERDICT_FILE"}};
    run_it.log = log;
    run_it.append_log = true;
    const Exit x = run(run_it);
    for (const auto& l : emu_fault_summary(c, faults, !x.ok())) out << "  " << l << "\n";
    out << "  (CPU backend: what a GPU's compute-sanitizer would find, as the emulation sees it; full log: "
        << relative(c, log) << ")\n";
    return 0;
  }
  if (!on_path("compute-sanitizer")) {
    *c.err << "check: compute-sanitizer is not on PATH (it comes with the CUDA toolkit: add its bin folder to PATH)\n";
    return 1;
  }
  out << "== " << e.id << ": building" << std::endl;
  if (!build_for_inspection(c, e, t.grade, g + "/" + e.id + ".check.log")) return 0;
  const std::string exe = c.dir + "/" + t.grade, spec = small_case(c, exe);
  const bool print_only = std::getenv("WB_PRINT_COMMAND") != nullptr;
  for (const std::string tool : {"memcheck", "racecheck", "synccheck"}) {
    const std::string log = g + "/" + e.id + ".check-" + tool + ".log";
    Command cmd{{"compute-sanitizer", "--tool", tool, "--error-exitcode", "86", "--print-limit", "20", exe, spec},
                {{"WB_SANITIZER_CHILD", "1"}}, {"WB_VERDICT_FILE"}};
    if (print_only) {
      out << "   " << words(cmd.argv) << "\n";
      continue;
    }
    *c.err << "== " << e.id << ": compute-sanitizer --tool " << tool << " on " << unescaped(spec) << std::endl;
    cmd.log = log;
    const Exit x = run(cmd);
    out << "  " << sanitizer_summary(c, tool, log, !x.ok() && x.code != 86) << "\n";
  }
  out << "  (logs: " << relative(c, g) << "/" << e.id << ".check-<tool>.log)\n";
  return 0;
}

}  // namespace wb::cli
