// wb-verdicts: the grade command's reader and writer of verdicts (cmake/workbook.sh calls it), so
// that no script reads a grader's printed text:
//   wb-verdicts block <verdict.json>          the verdict's block, as the grader printed it
//   wb-verdicts status <verdict.json>         kind<TAB>detail and what was not checked<TAB>speed
//   wb-verdicts get <verdict.json> <field>   one field: kind, detail, speed, crash.signal, crash.explanation
//   wb-verdicts write <verdict.json> --id ... --kind crashed|"does not compile" --detail ...
//                                             a verdict the command itself concludes (and the
//                                             command's tests' stand-in graders' verdicts)
//   wb-verdicts document --catalog <catalog.json> --grades <folder> --backend <b> [--out <file>]
//                                             the grades document (`grade --json`) on stdout, and in <file>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "grades.hpp"
#include "wb/verdict.hpp"

int main(int argc, char** argv) {
  CLI::App app{"The grade command's verdicts (docs/verdict-schema.md)", "wb-verdicts"};
  app.require_subcommand(1);

  std::string file;
  auto* block = app.add_subcommand("block", "print a verdict's block, as its grader printed it");
  block->add_option("verdict", file, "a verdict document")->required();
  auto* status = app.add_subcommand("status", "print kind<TAB>why<TAB>speed, for the grade command's table");
  status->add_option("verdict", file, "a verdict document")->required();

  std::string name;
  auto* get = app.add_subcommand("get", "print one field of a verdict");
  get->add_option("verdict", file, "a verdict document")->required();
  get->add_option("field", name, "the field")->required()->check(
      CLI::IsMember({"kind", "detail", "cause", "case", "speed", "crash.signal", "crash.explanation"}));

  wb::Verdict made;
  std::string kind;
  auto* write = app.add_subcommand("write", "write a verdict the grade command concludes (crashed, does not compile)");
  std::vector<std::string> kinds;
  for (auto k : {wb::VerdictKind::correct, wb::VerdictKind::wrong, wb::VerdictKind::not_started,
                 wb::VerdictKind::too_slow, wb::VerdictKind::skipped, wb::VerdictKind::crashed,
                 wb::VerdictKind::does_not_compile})
    kinds.push_back(wb::kind_name(k));
  write->add_option("verdict", file, "the verdict document to write")->required();
  write->add_option("--id", made.id, "the chapter or exercise")->required();
  write->add_option("--kind", kind, "the verdict's kind")->required()->check(
      CLI::IsMember(kinds));
  write->add_option("--detail", made.detail, "the line shown after the kind");
  write->add_option("--title", made.title, "the chapter's title");
  write->add_option("--kernel-file", made.kernel_file, "the file graded");
  write->add_option("--backend", made.backend, "cpu or cuda");
  write->add_option("--device", made.device, "where it ran, e.g. \"the CPU backend\"");
  write->add_option("--speed", made.speed, "the speed line");
  write->add_option("--not-checked", made.not_checked, "what was not checked (repeatable)");
  std::string crash_signal, crash_explanation;
  write->add_option("--crash-signal", crash_signal, "the signal the grader died of (SIGSEGV)");
  write->add_option("--crash-explanation", crash_explanation, "what the signal means here");

  std::string catalog, grades, backend, out;
  auto* document = app.add_subcommand("document", "print the grades document: every chapter's and exercise's verdict");
  document->add_option("--catalog", catalog, "the build's catalog.json")->required();
  document->add_option("--grades", grades, "the folder of the verdict files (<id>.json)")->required();
  document->add_option("--backend", backend, "cpu or cuda")->required();
  document->add_option("--out", out, "also write the document to this file");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*block) std::cout << wb::verdict_block(wb::cli::read_verdict_file(file)) << std::flush;
    if (*status) std::cout << wb::status_line(wb::cli::read_verdict_file(file)) << std::flush;
    if (*get) {
      const wb::Verdict v = wb::cli::read_verdict_file(file);
      std::string value = name == "kind" ? wb::kind_name(v.kind)
                          : name == "detail" ? v.detail
                          : name == "cause" ? v.cause
                          : name == "case" ? v.failing_case
                          : name == "speed" ? v.speed
                          : !v.crash ? ""
                          : name == "crash.signal" ? v.crash->signal
                                                   : v.crash->explanation;
      std::cout << value << "\n";
    }
    if (*write) {
      made.kind = *wb::kind_from_name(kind);
      made.cause = made.detail;
      if (!crash_signal.empty()) made.crash = wb::Crash{crash_signal, crash_explanation};
      if (!wb::write_verdict_file(made, file)) throw std::runtime_error("cannot write " + file);
    }
    if (*document) {
      const std::string text = wb::cli::grades_document(wb::cli::read_catalog(catalog), grades, backend).dump(2) + "\n";
      std::cout << text << std::flush;
      if (!out.empty()) {
        const std::string tmp = out + ".tmp";
        if (!(std::ofstream(tmp) << text) || std::rename(tmp.c_str(), out.c_str()) != 0)
          throw std::runtime_error("cannot write " + out);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "wb-verdicts: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
