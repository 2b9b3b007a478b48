// A verdict as a value, and its JSON document (docs/verdict-schema.md), with nlohmann_json.
#include "wb/verdict.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

namespace wb {
namespace {

// ordered: the document's fields in the order docs/verdict-schema.md lists them
using json = nlohmann::ordered_json;

const std::pair<VerdictKind, const char*> kind_names[] = {
    {VerdictKind::correct, "correct"},         {VerdictKind::wrong, "wrong"},
    {VerdictKind::not_started, "not started"}, {VerdictKind::too_slow, "too slow"},
    {VerdictKind::skipped, "skipped"},         {VerdictKind::crashed, "crashed"},
    {VerdictKind::does_not_compile, "does not compile"},
};

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  return s;
}

// A field of `j` of the type T, or `fallback` when it is absent or null (optional fields).
template <class T>
T field(const json& j, const char* name, T fallback = T()) {
  const auto it = j.find(name);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw std::runtime_error(std::string("verdict: field \"") + name + "\" has the wrong type");
  }
}

}  // namespace

std::string kind_name(VerdictKind kind) {
  for (const auto& [k, name] : kind_names)
    if (k == kind) return name;
  return "wrong";
}

std::optional<VerdictKind> kind_from_name(const std::string& name) {
  for (const auto& [k, n] : kind_names)
    if (name == n) return k;
  return std::nullopt;
}

std::string to_json(const Verdict& v) {
  json speeds = json::array();
  for (const auto& s : v.speeds) speeds.push_back({{"ratio", s.ratio}, {"minimum", s.minimum}, {"detail", s.detail}});
  json crash = nullptr;
  if (v.crash)
    crash = {{"signal", v.crash->signal}, {"explanation", v.crash->explanation}, {"captured", v.crash->captured}};
  const json j = {
      {"schema", verdict_schema_version},
      {"id", v.id},
      {"title", v.title},
      {"kernel_file", v.kernel_file},
      {"backend", v.backend},
      {"device", v.device},
      {"kind", kind_name(v.kind)},
      {"detail", v.detail},
      {"cause", v.cause},
      {"cause_report", v.cause_report},
      {"fix", v.fix},
      {"case", v.failing_case},
      {"other_causes", v.other_causes},
      {"not_checked", v.not_checked},
      {"notes", v.notes},
      {"speed", v.speed},
      {"speeds", speeds},
      {"crash", crash},
  };
  // Invalid UTF-8 in a diagnosis (a kernel's garbage printed as text) is replaced, never thrown.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Verdict verdict_from_json(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(std::string("verdict: not JSON: ") + e.what());
  }
  if (!j.is_object()) throw std::runtime_error("verdict: not a JSON object");
  if (field<int>(j, "schema", 0) != verdict_schema_version)
    throw std::runtime_error("verdict: schema " + std::to_string(field<int>(j, "schema", 0)) + ", expected " +
                             std::to_string(verdict_schema_version));
  Verdict v;
  v.id = field<std::string>(j, "id");
  v.title = field<std::string>(j, "title");
  v.kernel_file = field<std::string>(j, "kernel_file");
  v.backend = field<std::string>(j, "backend");
  v.device = field<std::string>(j, "device");
  const auto kind = field<std::string>(j, "kind");
  const auto k = kind_from_name(kind);
  if (!k) throw std::runtime_error("verdict: unknown kind \"" + kind + "\"");
  v.kind = *k;
  v.detail = field<std::string>(j, "detail");
  v.cause = field<std::string>(j, "cause");
  v.cause_report = field<std::string>(j, "cause_report");
  v.fix = field<std::string>(j, "fix");
  v.failing_case = field<std::string>(j, "case");
  v.other_causes = field<std::vector<std::string>>(j, "other_causes");
  v.not_checked = field<std::vector<std::string>>(j, "not_checked");
  v.notes = field<std::vector<std::string>>(j, "notes");
  v.speed = field<std::string>(j, "speed");
  if (const auto it = j.find("speeds"); it != j.end() && it->is_array())
    for (const auto& s : *it)
      v.speeds.push_back({field<double>(s, "ratio"), field<double>(s, "minimum"), field<std::string>(s, "detail")});
  if (const auto it = j.find("crash"); it != j.end() && it->is_object())
    v.crash = Crash{field<std::string>(*it, "signal"), field<std::string>(*it, "explanation"),
                    field<std::vector<std::string>>(*it, "captured")};
  return v;
}

bool write_verdict_file(const Verdict& v, const std::string& path) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    if (!(f << to_json(v))) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

std::string wrap_words(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out, line;
  auto flush = [&] {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += (out.empty() ? "" : "\n" + indent) + line;
    line.clear();
  };
  bool first = true;  // the first line has no indent
  std::istringstream paragraphs(text);
  for (std::string para; std::getline(paragraphs, para);) {
    std::size_t at = 0;
    while (at < para.size()) {
      std::size_t end = para.find(' ', at);
      if (end == std::string::npos) end = para.size();
      const std::string word = para.substr(at, end - at);
      const std::size_t room = width - std::min(width, first ? std::size_t(0) : indent.size());
      if (!line.empty() && line.size() + word.size() > room) {
        flush();
        first = false;
      }
      line += word;
      if (end < para.size()) line += ' ';
      at = end + 1;
    }
    flush();
    first = false;
  }
  if (out.empty() && !line.empty()) flush();
  return out;
}

std::string cause_key(const std::string& diagnosis) {
  std::string key;
  for (std::size_t i = 0; i < diagnosis.size(); ++i) {
    const bool digit = diagnosis[i] >= '0' && diagnosis[i] <= '9';
    if (!digit) key += diagnosis[i];
    else if (key.empty() || key.back() != '#') key += '#';
  }
  return key;
}

std::size_t checks_like(const std::vector<FailedCheck>& checks, std::size_t i) {
  std::size_t same = 0;
  for (const auto& c : checks) same += c.key == checks[i].key;
  return same;
}

std::size_t leading_check(const std::vector<FailedCheck>& checks) {
  // certain, then naming a cause, then tentative, then nothing written: only the best rank present competes
  auto rank = [](const FailedCheck& c) { return c.certain ? 3 : c.nothing_written ? 0 : c.tentative ? 1 : 2; };
  int top = 0;
  for (const auto& c : checks) top = std::max(top, rank(c));
  auto candidate = [&](const FailedCheck& c) { return rank(c) == top; };
  std::size_t best = 0, best_count = 0;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    if (!candidate(checks[i])) continue;
    bool seen = false;  // only the first of a cause is counted (and may lead)
    for (std::size_t j = 0; j < i && !seen; ++j) seen = candidate(checks[j]) && checks[j].key == checks[i].key;
    if (seen) continue;
    std::size_t count = 0;
    for (const auto& c : checks) count += candidate(c) && c.key == checks[i].key;
    if (count > best_count) {
      best = i;
      best_count = count;
    }
  }
  return best;
}

std::string verdict_block(const Verdict& v) {
  std::ostringstream out;
  out << "\n==== " << v.id << (v.title.empty() ? "" : " (" + v.title + ")")
      << (v.device.empty() ? "" : " on " + v.device) << " ====\n";
  const std::string indent(4, ' ');
  auto line = [&](const std::string& text) { out << wrap_words(text, verdict_block_width, indent) << "\n"; };
  line("  verdict: " + kind_name(v.kind) + (v.detail.empty() ? "" : ": " + v.detail));
  for (const auto& u : v.not_checked) line("  not checked: " + u);
  for (const auto& n : v.notes) line("  note: " + n);
  if (!v.speed.empty()) line("  speed:   " + v.speed);
  return out.str();
}

std::string why_text(const Verdict& v) {
  std::string summary = v.detail;  // the detail, then what was not checked, then the notes
  for (const auto& u : v.not_checked) summary += (summary.empty() ? "" : "; ") + std::string("not checked: ") + u;
  for (const auto& n : v.notes) summary += (summary.empty() ? "" : "; ") + std::string("note: ") + n;
  return one_line(summary);
}

void write_progress_file(const Progress& p, const std::string& path) {
  std::ofstream f(path, std::ios::trunc);
  f << json{{"case", p.test_case}, {"section", p.section}}.dump() << "\n";
}

std::optional<Progress> read_progress_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return std::nullopt;
  try {
    const json j = json::parse(f);
    return Progress{j.value("case", ""), j.value("section", "")};
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

void write_requested_files(const Verdict& v) {
  if (const char* path = std::getenv("WB_VERDICT_FILE"); path && *path) {
    if (!write_verdict_file(v, path)) std::fprintf(stderr, "grader: could not write the verdict to %s\n", path);
  }
}

}  // namespace wb
