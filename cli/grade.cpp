// grade [NN ...] [--verbose] [--json]: builds each grader with the learner's file, runs it, and
// prints its verdict block and a summary; grades/ID.json keeps each verdict for `status`.
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "grades.hpp"
#include "wb.hpp"
#include "wb/verdict.hpp"

namespace fs = std::filesystem;

namespace wb::cli {
namespace {

// Where a grader was when it died: the case (and section) of its progress file, or of its
// verdict, with what the case had captured.
std::string last_place(const std::string& progress, const std::optional<Verdict>& v) {
  std::string test, section;
  if (auto p = read_progress_file(progress)) test = p->test_case, section = p->section;
  if (test.empty() && v) test = v->failing_case;
  if (test.empty()) return "";
  std::string s = "in \"" + test + "\"";
  if (!section.empty()) s += ", section \"" + section + "\"";
  if (v && v->crash && !v->crash->captured.empty()) {
    std::string c;
    for (const auto& one : v->crash->captured) c += (c.empty() ? "" : ", ") + one;
    s += " (" + c + ")";
  }
  return s;
}

std::optional<Verdict> read_if_there(const std::string& path) {
  if (!exists(path)) return std::nullopt;
  try {
    return read_verdict_file(path);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A verdict the command concludes itself (does not compile, crashed), beside the graders' own.
void write_own_verdict(const Context& c, const Entry& e, VerdictKind kind, const std::string& detail,
                       const std::string& signal = "") {
  Verdict v;
  v.id = e.id;
  v.title = e.title;
  v.kernel_file = e.kernel_file;
  v.backend = c.backend;
  v.kind = kind;
  v.detail = detail;
  v.cause = detail;
  if (!signal.empty()) v.crash = Crash{signal, "", {}};
  const std::string path = c.grades_dir() + "/" + e.id + ".json";
  if (!write_verdict_file(v, path)) throw std::runtime_error("cannot write " + path);
}

}  // namespace

void grade_one(Context& c, const std::string& id, bool verbose, std::ostream& out) {
  const Entry& e = c.entry(id);
  const std::string g = c.grades_dir(), log = g + "/" + id + ".log", vfile = g + "/" + id + ".json",
                    progress = g + "/" + id + ".progress";
  fs::create_directories(g);
  fs::remove(vfile);
  fs::remove(progress);
  out << "== " << id << ": building" << std::endl;
  std::string target = c.targets(e).grade;
  if (target.empty()) target = "grade-" + id + "-" + c.backend;
  if (!build(c, {target}, log)) {
    const std::string detail = first_error(c, log, e.folder);
    write_own_verdict(c, e, VerdictKind::does_not_compile, detail);
    out << "   does not compile: " << detail << "\n   (whole compiler output: " << relative(c, log) << ")" << std::endl;
    return;
  }
  out << "== " << id << ": grading" << std::endl;
  Command grader{{c.dir + "/" + target}, {{"WB_VERDICT_FILE", vfile}, {"WB_PROGRESS_FILE", progress}}};
  grader.log = log;
  grader.append_log = true;
  // The log gets everything; the terminal, as it comes, only the line that says the checks passed
  // and the timing began (a GPU's timing takes seconds), then the verdict block.
  const Exit x = run(grader, [&](const std::string& line) {
    if (verbose || line.rfind("  correct so far: ", 0) == 0) out << line << std::endl;
  });
  const std::optional<Verdict> v = read_if_there(vfile);
  if (!verbose && v) out << verdict_block(*v) << std::flush;
  if (x.signal) {
    const std::string sig = signal_name(x.signal), where = last_place(progress, v);
    std::string detail = sig + (where.empty() ? "" : " " + where);
    if (v && v->crash) {  // Catch2 caught the signal: the grader wrote its verdict, then died
      if (!v->crash->explanation.empty()) detail += ": " + v->crash->explanation;
    } else if (v && !why_text(*v).empty()) {
      detail += "; before it: " + kind_name(v->kind) + ": " + why_text(*v);
    }
    detail = shorten(detail);
    write_own_verdict(c, e, VerdictKind::crashed, detail, sig);
    out << "  verdict: crashed: " << detail << "\n";
  } else if (!v) {
    const std::string where = last_place(progress, std::nullopt);
    const std::string detail = shorten("the grader ended (exit status " + std::to_string(x.code) +
                                       ") without a verdict" + (where.empty() ? "" : " " + where));
    write_own_verdict(c, e, VerdictKind::crashed, detail);
    out << "  verdict: crashed: " << detail << "\n";
  }
  out << "   (full log: " << relative(c, log) << ")" << std::endl;
  fs::remove(progress);
  // The last speed measured, for `status` after a later grade that was not timed.
  if (v && !v->speed.empty() && v->speed.rfind("not timed", 0) != 0) std::ofstream(g + "/" + id + ".speed") << v->speed << "\n";
}

void print_summary(const Context& c, const std::vector<std::string>& ids, std::ostream& out) {
  out << "\nSummary (" << (c.backend == "cpu" ? "CPU backend: correctness only" : "CUDA GPU") << "; full logs in "
      << relative(c, c.grades_dir()) << "/)\n";
  auto row = [&out](const std::string& a, const std::string& b, const std::string& why) {
    out << "  " << std::left << std::setw(18) << a << " " << std::setw(17) << b << " " << why << "\n";
  };
  row("chapter", "verdict", "why / speed");
  for (const auto& id : ids) {
    const auto v = read_if_there(c.grades_dir() + "/" + id + ".json");
    if (!v) {
      row(id, "?", "");
      continue;
    }
    std::string why = why_text(*v);
    if (!v->speed.empty()) why += (why.empty() ? "" : "; ") + v->speed;
    row(id, kind_name(v->kind), shorten(why));
  }
}

void grades_document(const Context& c, std::ostream* out) {
  const std::string text =
      wb::cli::grades_document(read_catalog(c.dir + "/catalog.json"), c.grades_dir(), c.backend).dump(2) + "\n";
  if (out) *out << text << std::flush;
  const std::string path = c.dir + "/grades.json", tmp = path + ".tmp";
  if (!(std::ofstream(tmp) << text) || std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot write " + path);
}

int grade(Context& c, const std::vector<std::string>& names, const GradeOptions& o) {
  const std::vector<std::string> ids = resolve_all(c, names);
  std::ostream& out = o.json ? *c.err : *c.out;        // --json: the grading on stderr, the document alone on stdout
  for (const auto& id : ids) grade_one(c, id, o.verbose, out);
  print_summary(c, ids, out);
  grades_document(c, o.json ? c.out : nullptr);
  return 0;
}

}  // namespace wb::cli
