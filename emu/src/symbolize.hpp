// CPU backend: the source line of an instruction of a kernel file, for messages and per-line
// statistics of instrumented builds (symbolize.cpp).
#pragma once

#include <string>

namespace wb_emu::internal {
/// Where an instruction comes from: the file and line its object's line tables give ("?" and 0
/// when they give none: a file compiled without -g, or a system without the reader).
struct SourceLine {
  const char* file = "?";  ///< kept for the process
  int line = 0;
};
/// The source line of the instruction at `pc` (cached: each address is looked up once).
SourceLine source_line(const void* pc);
/// "file:line" of the instruction at `pc`.
std::string where_pc(const void* pc);
}  // namespace wb_emu::internal
