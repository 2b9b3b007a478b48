/// \file
/// \brief The grades document (`grade --json`, `build/<preset>/grades.json`): every chapter and
/// exercise of the catalog CMake writes (`build/<preset>/catalog.json`), each with its last verdict
/// (docs/verdict-schema.md), read from the verdict files the grade command keeps.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "wb/verdict.hpp"

namespace wb::cli {

/// The catalog's document; throws std::runtime_error naming the file when it cannot be read.
nlohmann::ordered_json read_catalog(const std::string& path);

/// The grades document for `backend`: the catalog's entries in order, each with `verdict` set to
/// the verdict document in `<grades_dir>/<id>.json`, or null where there is none (not graded).
/// A verdict file that is not a verdict document is reported as its `error`, never skipped.
nlohmann::ordered_json grades_document(const nlohmann::ordered_json& catalog, const std::string& grades_dir,
                                       const std::string& backend);

/// The verdict in `path`; throws std::runtime_error when the file cannot be read or is no verdict.
Verdict read_verdict_file(const std::string& path);

}  // namespace wb::cli
