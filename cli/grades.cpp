// The grades document: the catalog's entries, each with its last verdict.
#include "grades.hpp"

#include "wb.hpp"  // slurp

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace wb::cli {

nlohmann::ordered_json read_catalog(const std::string& path) {
  nlohmann::ordered_json catalog;
  try {
    catalog = nlohmann::ordered_json::parse(slurp(path));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + " is not the build's catalog: " + e.what());
  }
  if (!catalog.is_object() || !catalog.contains("graded") || !catalog["graded"].is_array())
    throw std::runtime_error(path + " is not the build's catalog: it has no \"graded\" list");
  return catalog;
}

Verdict read_verdict_file(const std::string& path) {
  const std::string text = slurp(path);
  try {
    return verdict_from_json(text);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

nlohmann::ordered_json grades_document(const nlohmann::ordered_json& catalog, const std::string& grades_dir,
                                       const std::string& backend) {
  nlohmann::ordered_json doc = {{"schema", verdict_schema_version}, {"backend", backend}, {"graded", nlohmann::ordered_json::array()}};
  for (const auto& entry : catalog["graded"]) {
    const std::string id = entry.value("id", "");
    nlohmann::ordered_json row = {{"id", id},
                                  {"kind", entry.value("kind", "")},
                                  {"title", entry.value("title", "")},
                                  {"kernel_file", entry.value("kernel_file", "")},
                                  {"verdict", nullptr}};
    const std::string path = grades_dir + "/" + id + ".json";
    if (std::ifstream(path).good()) {
      try {
        row["verdict"] = nlohmann::ordered_json::parse(to_json(read_verdict_file(path)));
      } catch (const std::runtime_error& e) {
        row["error"] = e.what();
      }
    }
    doc["graded"].push_back(row);
  }
  return doc;
}

}  // namespace wb::cli
