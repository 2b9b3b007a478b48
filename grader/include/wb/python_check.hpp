/// \file
/// \brief The chapter's op checked from Python: its pytest file run on a shared library built
/// from the graded kernel file. Needs no libtorch itself (Python loads it), so the source that
/// registers the check compiles without libtorch's headers.
#pragma once

#include <string>

namespace wb {

/// The chapter's pytest file run on a Python op library built from the graded kernel file: the
/// op as Python sees it (torch.ops.load_library, opcheck, gradcheck). workbook_add_torch_op()
/// registers one for the learner's grader (the learner's file) and the solution's.
struct PythonOpCheck {
  std::string python;       ///< the interpreter that has torch and pytest
  std::string pytest_file;  ///< the chapter's test file, e.g. chapters/05-autograd/test_op.py
  std::string shown_file;   ///< the same, as the report names it (relative to the repository)
  std::string library;      ///< the op library, for torch.ops.load_library (WB_OPS_LIBRARY)
  std::string device;       ///< "cpu" or "cuda" (WB_OPS_DEVICE)
  std::string skip_reason;  ///< why it cannot run here ("" when it can)
  /// Where a pass is remembered ("" for never): the learner's grader reuses a pass on a library
  /// and test file that are byte for byte the ones that passed, with the same interpreter and
  /// device, instead of starting Python again (about 13 s on the H200 machine, most of it
  /// importing torch). Any change to either file, or a failure, runs the check again.
  std::string pass_record;
};

/// Registers the check this grader runs (at static initialization, from the source that
/// workbook_add_torch_op() generates for the grader). Returns true.
bool register_python_op_check(PythonOpCheck check);

/// The body of a test case that runs the registered check. Skipped, saying why, when none is
/// registered (the test suite's mutant graders), when it cannot run here, or when an earlier check
/// of this run failed (the C++ checks' diagnosis leads); otherwise runs the pytest file on the
/// library and fails with the first failed test's name and message. With a pass_record, a pass on
/// the same files is reused and says so.
void require_python_op_check();

}  // namespace wb
