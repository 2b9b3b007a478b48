// reset NN [--yes]: puts the stub back (the pristine copy in tests/stubs/), after asking; the
// learner's version is kept in build/backups/.
#include <ctime>
#include <filesystem>
#include <iostream>

#include "wb.hpp"

namespace fs = std::filesystem;

namespace wb::cli {

int reset(Context& c, const std::string& name, bool yes, std::istream& in) {
  const Entry& e = c.entry(resolve(c, name));
  std::ostream& out = *c.out;
  const std::string k = e.kernel_file, file = c.path(k), stub = c.path(e.stub);
  if (e.stub.empty() || !fs::is_regular_file(stub)) {
    *c.err << "reset: the pristine copy of " << k << " (" << (e.stub.empty() ? "tests/stubs/..." : e.stub)
           << ") is missing from this checkout: git checkout -- tests/stubs restores it\n";
    return 1;
  }
  if (!exists(file)) {
    fs::copy_file(stub, file);
    out << k << " was missing: it is the stub again.\n";
    return 0;
  }
  if (slurp(stub) == slurp(file)) {
    out << k << " is already the stub: nothing to do.\n";
    return 0;
  }
  char when[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y%m%d-%H%M%S", std::localtime(&now));
  const std::string backup = c.state_dir + "/backups/" + e.id + "/" + fs::path(k).filename().string() + "." + when;
  if (!yes) {
    out << "Replace " << k << " with the stub? Your version is kept in " << relative(c, backup) << ". [y/N] " << std::flush;
    std::string answer;
    std::getline(in, answer);
    if (answer.empty() || (answer[0] != 'y' && answer[0] != 'Y')) {
      out << "Nothing changed.\n";
      return 0;
    }
  }
  fs::create_directories(fs::path(backup).parent_path());
  fs::copy_file(file, backup, fs::copy_options::overwrite_existing);
  fs::last_write_time(backup, fs::last_write_time(file));
  fs::copy_file(stub, file, fs::copy_options::overwrite_existing);
  out << k << " is the stub again. Your version: " << relative(c, backup) << " (cp it back to undo).\n";
  return 0;
}

}  // namespace wb::cli
