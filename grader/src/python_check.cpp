#include "wb/python_check.hpp"

#include <catch2/catch_test_macros.hpp>

#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>

#include "wb/report.hpp"

namespace wb {

namespace {
PythonOpCheck& python_op_check() {
  static PythonOpCheck check;
  return check;
}

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// What a pass of the Python check depends on: both files' bytes (FNV-1a), the interpreter and the
// device. "" when a file cannot be read (then nothing is reused).
std::string python_check_key(const PythonOpCheck& c) {
  std::ostringstream key;
  key << c.python << '\n' << c.device << '\n';
  for (const std::string* path : {&c.library, &c.pytest_file}) {
    std::ifstream in(*path, std::ios::binary);
    if (!in) return "";
    std::uint64_t h = 14695981039346656037ull;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
      for (std::streamsize i = 0; i < in.gcount(); ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ull;
    }
    key << *path << ' ' << std::hex << h << std::dec << '\n';
  }
  return key.str();
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return in ? s.str() : "";
}
}  // namespace

bool register_python_op_check(PythonOpCheck check) {
  python_op_check() = std::move(check);
  return true;
}

void require_python_op_check() {
  const PythonOpCheck& c = python_op_check();
  if (c.python.empty() && c.skip_reason.empty()) SKIP("this grader has no Python op library to check");
  if (!c.skip_reason.empty()) SKIP("not checked from Python: " + c.skip_reason);
  if (failures_so_far() > 0) SKIP("not checked from Python: the checks above failed first");
  const std::string key = c.pass_record.empty() ? "" : python_check_key(c);
  if (!key.empty() && file_text(c.pass_record) == key) {
    std::cout << "From Python: " << c.shown_file << " passed in an earlier grade on this same library, byte for byte;\n"
              << "  not run again (delete " << c.pass_record << " to run it)\n" << std::flush;
    return;
  }
  if (!c.pass_record.empty()) std::remove(c.pass_record.c_str());
  setenv("WB_OPS_LIBRARY", c.library.c_str(), 1);
  setenv("WB_OPS_DEVICE", c.device.c_str(), 1);
  setenv("COLUMNS", "250", 1);  // pytest cuts its summary's lines to the terminal's width
  // `timeout`: a kernel that never ends inside Python ends the check, not the grader.
  const std::string cmd = "timeout 300 " + shell_quoted(c.python) + " -m pytest -q -rfEs -p no:cacheprovider " +
                          shell_quoted(c.pytest_file) + " 2>&1";
  std::cout << "From Python: " << c.shown_file << " on " << c.library << "\n" << std::flush;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) FAIL("could not run " + cmd);
  std::string out, first_failure, last;
  char buf[4096];
  while (fgets(buf, sizeof buf, p)) {
    std::string line(buf);
    std::cout << line;
    out += line;
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (first_failure.empty() && (line.rfind("FAILED ", 0) == 0 || line.rfind("ERROR ", 0) == 0)) first_failure = line;
    if (!line.empty()) last = line;
  }
  std::cout << std::flush;
  const int status = pclose(p);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (rc == 0) {
    if (!key.empty()) std::ofstream(c.pass_record, std::ios::binary) << key;
    return;
  }
  if (rc == 5) SKIP("not checked from Python: " + last);  // pytest ran no test: the module skipped itself
  std::string why;
  if (rc == 124) {
    why = c.shown_file + " did not finish in 300 s (a kernel that never ends?)";
  } else if (!first_failure.empty()) {
    // "FAILED <file>::<test> - <message>": the test's name and its message
    std::string rest = first_failure.substr(first_failure.find(' ') + 1);
    const auto sep = rest.find("::");
    if (sep != std::string::npos) rest = rest.substr(sep + 2);
    why = "from Python (" + c.shown_file + "): " + rest;
  } else {
    why = "from Python: " + c.shown_file + " exited with " + std::to_string(rc) + ": " + last;
  }
  note_error(why);
  FAIL(why);
}

}  // namespace wb
