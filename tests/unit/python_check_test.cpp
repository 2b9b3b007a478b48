// wb::require_python_op_check (wb/python_check.hpp) with a stand-in for Python: a script that
// counts its runs and passes. A pass is reused only for the same library and test file, byte for
// byte; without a pass record the check always runs.
#include <catch2/catch_test_macros.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "wb/python_check.hpp"

namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

int runs(const std::string& dir) {
  std::ifstream in(dir + "/runs");
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace

TEST_CASE("a pass from Python is reused only for the same library and test file", "[python-cache]") {
  char tmpl[] = "/tmp/wb-unit-python-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const std::string python = dir + "/python";
  write(python, "#!/bin/sh\necho run >> '" + dir + "/runs'\necho '1 passed in 0.01s'\n");
  REQUIRE(chmod(python.c_str(), 0755) == 0);
  write(dir + "/op.so", "library v1");
  write(dir + "/test_op.py", "tests v1");
  wb::PythonOpCheck check{python, dir + "/test_op.py", "test_op.py", dir + "/op.so", "cpu", "", dir + "/passed"};
  wb::register_python_op_check(check);

  wb::require_python_op_check();
  CHECK(runs(dir) == 1);
  wb::require_python_op_check();
  CHECK(runs(dir) == 1);  // the same bytes: reused
  write(dir + "/op.so", "library v2");
  wb::require_python_op_check();
  CHECK(runs(dir) == 2);  // the library changed
  write(dir + "/test_op.py", "tests v2");
  wb::require_python_op_check();
  CHECK(runs(dir) == 3);  // the test file changed
  wb::require_python_op_check();
  CHECK(runs(dir) == 3);

  check.pass_record = "";  // the test suite's graders: never reused
  wb::register_python_op_check(check);
  wb::require_python_op_check();
  wb::require_python_op_check();
  CHECK(runs(dir) == 5);
  std::system(("rm -rf '" + dir + "'").c_str());
}
