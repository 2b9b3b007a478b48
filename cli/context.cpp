// The command's context: the repository, the backend, its build folder, and the chapters and
// exercises of the build's catalog; and the naming of one of them (resolve).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "wb.hpp"

#ifndef WB_SOURCE_ROOT
#define WB_SOURCE_ROOT "."
#endif

namespace fs = std::filesystem;

namespace wb::cli {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string absolute(const std::string& p) { return fs::absolute(p).lexically_normal().string(); }

// The entries the folders make when the build has no catalog yet (status, hint and reset work
// before the first grade): chapters/NN-topic -> NN-topic, exercises/NN-name -> xNN-name, each
// with its folder's one .cu file.
std::vector<Entry> entries_of_folders(const std::string& root) {
  std::vector<Entry> out;
  for (const auto& [top, prefix, stubs] : {std::tuple<std::string, std::string, std::string>{"chapters", "", ""},
                                           {"exercises", "x", "exercises/"}}) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& d : fs::directory_iterator(root + "/" + top, ec))
      if (d.is_directory() && std::isdigit(static_cast<unsigned char>(d.path().filename().string()[0])))
        names.push_back(d.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      Entry e;
      e.id = prefix + name;
      e.kind = prefix.empty() ? "chapter" : "exercise";
      e.folder = top + "/" + name;
      e.hints = e.folder + "/README.md";
      std::string kernel;
      for (const std::string& where : {root + "/" + e.folder, root + "/tests/stubs/" + stubs + name})
        for (const auto& f : fs::directory_iterator(where, ec))
          if (kernel.empty() && f.path().extension() == ".cu") kernel = f.path().filename().string();
      e.kernel_file = e.folder + "/" + (kernel.empty() ? "?.cu" : kernel);
      e.stub = "tests/stubs/" + stubs + name + "/" + kernel;
      out.push_back(e);
    }
  }
  return out;
}

std::vector<Entry> entries_of_catalog(const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(slurp(path));
  } catch (const std::exception& e) {
    throw std::runtime_error(path + " is not the build's catalog: " + e.what());
  }
  std::vector<Entry> out;
  for (const auto& j : doc.at("graded")) {
    Entry e;
    e.id = j.value("id", "");
    e.kind = j.value("kind", "");
    e.title = j.value("title", "");
    e.folder = j.value("folder", "");
    e.kernel_file = j.value("kernel_file", "");
    e.stub = j.value("stub", "");
    e.hints = j.value("hints", "");
    if (j.contains("targets"))
      for (const auto& [backend, t] : j["targets"].items()) {
        auto text = [&t](const char* key) {
          return t.contains(key) && t[key].is_string() ? t[key].get<std::string>() : std::string();
        };
        e.targets[backend] = Targets{text("grade"), text("inspect"), text("inspect_solution"), text("solution"),
                                     text("skipped")};
      }
    out.push_back(e);
  }
  return out;
}

}  // namespace

Context Context::from_environment(std::ostream& out, std::ostream& err) {
  Context c;
  c.out = &out;
  c.err = &err;
  c.root = absolute(env("WB_ROOT").empty() ? WB_SOURCE_ROOT : env("WB_ROOT"));
  c.backend = env("WB_BACKEND").empty() ? "cpu" : env("WB_BACKEND");
  if (c.backend != "cpu" && c.backend != "cuda") throw UsageError("WB_BACKEND must be cpu or cuda");
  c.preset = c.backend == "cpu" ? "cpu" : "gpu";
  c.dir_given = !env("WB_BUILD_DIR").empty();
  c.dir = c.dir_given ? absolute(env("WB_BUILD_DIR")) : c.root + "/build/" + c.preset;
  c.state_dir = env("WB_STATE_DIR").empty() ? c.root + "/build" : absolute(env("WB_STATE_DIR"));
  const unsigned cores = std::thread::hardware_concurrency();
  c.jobs = env("WB_JOBS").empty() ? int(cores ? cores : 2) : std::max(1, std::atoi(env("WB_JOBS").c_str()));
  c.load_entries();
  return c;
}

void Context::load_entries() {
  const std::string catalog = dir + "/catalog.json";
  entries = exists(catalog) ? entries_of_catalog(catalog) : entries_of_folders(root);
}

const Entry& Context::entry(const std::string& id) const {
  for (const auto& e : entries)
    if (e.id == id) return e;
  throw UsageError("no chapter or exercise '" + id + "'");
}

Targets Context::targets(const Entry& e) const {
  const auto it = e.targets.find(backend);
  return it == e.targets.end() ? Targets{} : it->second;
}

std::string Context::backend_words() const { return backend == "cpu" ? "the CPU backend" : "the GPU"; }

std::string resolve(const Context& c, const std::string& name) {
  const std::string want = lower(name);
  std::smatch m;
  std::optional<long> num;
  std::string kind;
  if (std::regex_match(want, m, std::regex("(ch)?0*([0-9]+)"))) {
    num = std::stol(m[2]);
    kind = "chapter";
  } else if (std::regex_match(want, m, std::regex("x0*([0-9]+)"))) {
    num = std::stol(m[1]);
    kind = "exercise";
  }
  auto number_of = [](const std::string& id) -> std::optional<long> {
    const std::string n = (id[0] == 'x' ? id.substr(1) : id).substr(0, id.find('-') - (id[0] == 'x'));
    if (n.empty() || !std::all_of(n.begin(), n.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
      return std::nullopt;
    return std::stol(n);
  };
  std::vector<std::string> matches;
  for (const auto& e : c.entries) {
    if (num) {
      if (number_of(e.id) == num && (e.id[0] == 'x') == (kind == "exercise")) matches.push_back(e.id);
    } else if (lower(e.id) == want) {
      matches = {e.id};
      break;
    } else if (lower(e.id).find(want) != std::string::npos) {
      matches.push_back(e.id);
    }
  }
  // A bare number no chapter has may still be an exercise's (7 -> x07-warp-reduce).
  if (matches.empty() && kind == "chapter" && want.rfind("ch", 0) != 0)
    for (const auto& e : c.entries)
      if (e.id[0] == 'x' && number_of(e.id) == num) matches.push_back(e.id);
  if (matches.size() == 1) return matches[0];
  std::ostringstream s;
  if (matches.empty()) {
    s << "no chapter or exercise matches '" << name << "'; they are:";
    for (const auto& e : c.entries) s << "\n  " << e.id;
  } else {
    s << "'" << name << "' matches more than one; name one of:";
    for (const auto& id : matches) s << "\n  " << id;
  }
  throw UsageError(s.str());
}

std::vector<std::string> resolve_all(const Context& c, const std::vector<std::string>& names) {
  std::vector<std::string> ids;
  if (names.empty())
    for (const auto& e : c.entries) ids.push_back(e.id);
  for (const auto& n : names) ids.push_back(resolve(c, n));
  return ids;
}

}  // namespace wb::cli
