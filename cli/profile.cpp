// profile NN: the learner's kernel beside the solution's: Nsight Compute's DRAM throughput,
// sectors per request, occupancy and top warp stall (GPU), or the CPU backend's sectors and
// wavefronts per request of each source line (WB_EMU_PROFILE rows).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

#include "wb.hpp"

namespace fs = std::filesystem;

namespace wb::cli {
namespace {

// What `profile` asks Nsight Compute for: time, DRAM throughput, global sectors per request (loads
// and stores), achieved occupancy, and every warp stall reason (the largest is shown).
const char* const ncu_metrics =
    "gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,"
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,"
    "sm__warps_active.avg.pct_of_peak_sustained_active,"
    "regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio$";

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

double num(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](char ch) { return ch == '"' || ch == ','; }), s.end());
  return s.empty() ? 0.0 : std::atof(s.c_str());
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> ncu_table(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  if (!exists(csv)) return rows;
  std::istringstream in(slurp(csv));
  std::string line;
  std::map<std::string, size_t> col;
  std::vector<std::string> unit;
  std::vector<std::string> seen;
  const std::regex stall_re(R"(^smsp__average_warps_issue_stalled_(.*)_per_issue_active\.ratio$)");
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '"') continue;
    // Every field is quoted: "a","b","c"
    std::vector<std::string> f;
    const std::string body = line.substr(1, line.size() >= 2 ? line.size() - 2 : 0);
    for (size_t start = 0;;) {
      const size_t end = body.find("\",\"", start);
      f.push_back(body.substr(start, end == std::string::npos ? std::string::npos : end - start));
      if (end == std::string::npos) break;
      start = end + 3;
    }
    auto at = [&](const std::string& name) { return col.count(name) && col[name] < f.size() ? f[col[name]] : ""; };
    if (col.empty()) {
      for (size_t i = 0; i < f.size(); ++i) col[f[i]] = i;
      continue;
    }
    if (at("ID").empty()) {  // the units row
      unit = f;
      continue;
    }
    std::string k = at("Kernel Name");
    for (size_t p; (p = k.find("(anonymous namespace)::")) != std::string::npos;) k.erase(p, 23);
    if (k.rfind("void ", 0) == 0) k.erase(0, 5);
    if (k.rfind("student::", 0) == 0) k.erase(0, 9);
    k = k.substr(0, k.find('('));
    if (k.empty()) k = "?";
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
    seen.push_back(k);
    double ms = num(at("gpu__time_duration.sum"));
    const size_t tcol = col.count("gpu__time_duration.sum") ? col["gpu__time_duration.sum"] : 0;
    const std::string u = tcol < unit.size() ? unit[tcol] : "";
    if (u == "nsecond" || u == "ns") ms /= 1e6;
    else if (u == "usecond" || u == "us") ms /= 1e3;
    else if (u == "second" || u == "s") ms *= 1e3;
    std::string top;
    double topv = -1;
    for (const auto& [name, i] : col) {
      std::smatch m;
      if (!std::regex_match(name, m, stall_re) || m[1] == "selected" || m[1] == "not_selected") continue;
      const double v = i < f.size() ? num(f[i]) : 0;
      if (v > topv) topv = v, top = m[1];
    }
    auto ratio = [&](const char* a, const char* b) {
      const double d = num(at(b));
      return d > 0 ? fmt("%.1f", num(at(a)) / d) : std::string("-");
    };
    rows.push_back({k, fmt("%.3f", ms), fmt("%.1f", num(at("dram__throughput.avg.pct_of_peak_sustained_elapsed"))),
                    ratio("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
                    ratio("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
                    fmt("%.1f", num(at("sm__warps_active.avg.pct_of_peak_sustained_active"))),
                    top.empty() ? "-" : top + " (" + fmt("%.1f", topv) + " cycles per instruction)"});
  }
  return rows;
}

std::string emu_profile_table(const Context& c, const std::string& tsv) {
  struct Row {
    std::string kernel, file, direction;
    long line = 0;
    double requests = 0, sectors = 0, ideal = 0;
  };
  std::vector<Row> rows;
  std::istringstream in(exists(tsv) ? slurp(tsv) : "");
  std::string line;
  while (std::getline(in, line)) {
    const auto f = split(line, '\t');
    if (f.size() < 8) continue;
    Row r{f[0], f[1], f[3], std::atol(f[2].c_str()), num(f[5]), num(f[6]), num(f[7])};
    auto same = [&r](const Row& o) {
      return o.kernel == r.kernel && o.file == r.file && o.line == r.line && o.direction == r.direction;
    };
    if (auto it = std::find_if(rows.begin(), rows.end(), same); it != rows.end()) {
      it->requests += r.requests, it->sectors += r.sectors, it->ideal += r.ideal;  // summed over launches
    } else {
      rows.push_back(r);
    }
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.kernel, a.file, a.line, a.direction) < std::tie(b.kernel, b.file, b.line, b.direction);
  });
  std::ostringstream out;
  auto table = [&](bool shared) {
    std::string last;
    bool printed = false;
    char b[256];
    for (const Row& r : rows) {
      if ((r.direction.rfind("shared-", 0) == 0) != shared) continue;
      if (r.kernel != last) {
        out << "  " << r.kernel << ", " << (shared ? "shared memory" : "global memory") << ":\n";
        std::snprintf(b, sizeof b, "    %-44s %-6s %9s %16s %6s\n", "line", "access", "requests",
                      shared ? "wavefronts/req" : "sectors/request", "ideal");
        out << b;
        last = r.kernel;
      }
      const std::string where = relative(c, r.file) + ":" + std::to_string(r.line);
      const std::string dir = shared ? r.direction.substr(7) : r.direction;
      std::snprintf(b, sizeof b, "    %-44s %-6s %9.0f %16.1f %6.1f\n", where.c_str(), dir.c_str(), r.requests,
                    r.requests > 0 ? r.sectors / r.requests : 0.0, r.requests > 0 ? r.ideal / r.requests : 0.0);
      out << b;
      printed = true;
    }
    return printed;
  };
  if (!table(false)) out << "  no instrumented launch recorded a global-memory access\n";
  table(true);
  return out.str();
}

int profile(Context& c, const std::string& name) {
  const Entry& e = c.entry(resolve(c, name));
  std::ostream& out = *c.out;
  const std::string g = c.grades_dir();
  fs::create_directories(g);
  const Targets t = c.targets(e);
  const std::string log = g + "/" + e.id + ".profile.log";
  if (c.backend == "cpu") {
    out << "== " << e.id << ": building your file and the solution instrumented (CPU backend)" << std::endl;
    if (!build_for_inspection(c, e, t.inspect, log)) return 0;
    if (!build_for_inspection(c, e, t.inspect_solution, g + "/" + e.id + ".profile-solution.log")) return 0;
    // The grader's own coalescing case where it has one (what its verdict counts), else check's.
    const std::string yours = c.dir + "/" + t.inspect;
    const std::string spec = !list_tests(c, yours, "[coalescing]").empty() ? "[coalescing]" : small_case(c, yours);
    fs::remove(log);
    for (const std::string who : {"yours", "solution"}) {
      const std::string exe = c.dir + "/" + (who == "yours" ? t.inspect : t.inspect_solution);
      const std::string tsv = g + "/" + e.id + ".profile-" + who + ".tsv";
      fs::remove(tsv);
      Command cmd{{exe, spec}, {{"WB_SANITIZER_CHILD", "1"}, {"WB_EMU_PROFILE", tsv}}, {"WB_VERDICT_FILE"}};
      cmd.log = log;
      cmd.append_log = true;
      run(cmd);
      out << "\n" << who << " (" << unescaped(spec) << "), per source line, summed over the run's launches:\n";
      if (exists(tsv) && fs::file_size(tsv) > 0)
        out << emu_profile_table(c, tsv);
      else
        out << "  no instrumented launch recorded a global-memory access (see " << relative(c, log) << ")\n";
    }
    out << "\n(CPU backend: sectors and wavefronts counted as a GPU's memory units count them; no times. Global:\n"
           " a full warp's coalesced 4-byte accesses take 4 sectors per request, one sector per thread 32.\n"
           " Shared: 1 wavefront per request without bank conflicts, n for an n-way conflict.)\n";
    return 0;
  }
  if (!on_path("ncu")) {
    *c.err << "profile: ncu (Nsight Compute) is not on PATH: it comes with the CUDA toolkit\n";
    return 1;
  }
  out << "== " << e.id << ": building your grader and the solution's" << std::endl;
  if (!build_for_inspection(c, e, t.grade, log)) return 0;
  if (!build_for_inspection(c, e, t.solution, g + "/" + e.id + ".profile-solution.log")) return 0;
  const std::string spec = "[timing]";  // the large input the speed is measured on: DRAM figures mean something there
  const bool print_only = std::getenv("WB_PRINT_COMMAND") != nullptr;
  std::map<std::string, std::vector<std::vector<std::string>>> tables;
  for (const std::string who : {"yours", "solution"}) {
    const std::string exe = c.dir + "/" + (who == "yours" ? t.grade : t.solution);
    const std::string csv = g + "/" + e.id + ".profile-" + who + ".csv";
    Command cmd{{"ncu", "--clock-control", "none", "--kernel-name-base", "demangled", "--kernel-name", "regex:student::",
                 "--launch-count", "4", "--metrics", ncu_metrics, "--csv", "--page", "raw", "--log-file", csv, exe, spec},
                {{"WB_SANITIZER_CHILD", "1"}}, {"WB_VERDICT_FILE"}};
    if (print_only) {
      out << "   " << words(cmd.argv) << "\n";
      continue;
    }
    out << "== " << e.id << ": Nsight Compute on " << who << " (" << spec
        << "; the first launches of each kernel of namespace student)" << std::endl;
    fs::remove(csv);
    cmd.log = log;
    cmd.append_log = true;
    run(cmd);
    tables[who] = ncu_table(csv);
  }
  if (print_only) return 0;
  const auto& y = tables["yours"];
  const auto& s = tables["solution"];
  const size_t n = std::max(y.size(), s.size());
  out << "\n";
  if (n == 0) out << "  no kernel of namespace student was profiled: did the case launch one?\n";
  const char* labels[] = {"kernel", "duration (ms)", "DRAM throughput (% of peak)", "global loads: sectors/request",
                          "global stores: sectors/request", "achieved occupancy (%)", "top warp stall"};
  char b[512];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "  %-32s %-26s %s\n", "", "yours", "solution");
    out << b;
    for (size_t k = 0; k < 7; ++k) {
      const std::string a = i < y.size() ? y[i][k] : "-", o = i < s.size() ? s[i][k] : "-";
      std::snprintf(b, sizeof b, "  %-32s %-26s %s\n", labels[k], a.c_str(), o.c_str());
      out << b;
    }
    if (i + 1 < n) out << "\n";
  }
  if (n > 0) out << "  (4 bytes per thread, fully coalesced: 4 sectors per request; 32 means one sector per thread)\n";
  out << "  (ncu --clock-control none; raw CSV: " << relative(c, g) << "/" << e.id << ".profile-<yours|solution>.csv)\n";
  return 0;
}

}  // namespace wb::cli
