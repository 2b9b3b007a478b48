// Small things the commands share: lines cut to length, ages of files, paths.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "wb.hpp"

namespace fs = std::filesystem;

namespace wb::cli {

std::string shorten(const std::string& s) {
  if (s.size() <= 180) return s;
  std::string cut = s.substr(0, 177);
  if (const auto sp = cut.rfind(' '); sp != std::string::npos) cut.resize(sp);
  return cut + "...";
}

namespace {
// The file's modification time in seconds (stat: std::filesystem's clock is not the system's in C++17).
bool mtime(const std::string& path, struct timespec* t) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
#ifdef __APPLE__
  *t = st.st_mtimespec;
#else
  *t = st.st_mtim;
#endif
  return true;
}
}  // namespace

std::string age(const std::string& path) {
  struct timespec t {};
  if (!mtime(path, &t)) return "?";
  const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch()).count();
  const long long s = std::max(0LL, now - static_cast<long long>(t.tv_sec));
  if (s < 120) return std::to_string(s) + " s ago";
  if (s < 7200) return std::to_string(s / 60) + " min ago";
  if (s < 172800) return std::to_string(s / 3600) + " h ago";
  return std::to_string(s / 86400) + " days ago";
}

bool newer(const std::string& a, const std::string& b) {
  struct timespec ta {}, tb {};
  if (!mtime(a, &ta) || !mtime(b, &tb)) return false;
  return ta.tv_sec != tb.tv_sec ? ta.tv_sec > tb.tv_sec : ta.tv_nsec > tb.tv_nsec;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

std::string relative(const Context& c, const std::string& path) {
  const std::string prefix = c.root + "/";
  return path.rfind(prefix, 0) == 0 ? path.substr(prefix.size()) : path;
}

std::string catch_escape(const std::string& name) {
  std::string s;
  for (char ch : name) {
    if (ch == '\\' || ch == ',' || ch == '[' || ch == ']') s += '\\';
    s += ch;
  }
  return s;
}

std::string words(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::string unescaped(std::string spec) {
  spec.erase(std::remove(spec.begin(), spec.end(), '\\'), spec.end());
  return spec;
}

}  // namespace wb::cli
