// compute-sanitizer's report, read: its first finding in the verdict's words (wb/sanitizer.hpp).
// Every line of the tool's own starts "========= "; a finding is a line right after the bar
// ("Invalid __global__ read of size 4 bytes", "Error: Race reported between Write access at ...",
// "Barrier error detected. Divergent thread(s) in block") and the indented lines under it ("at
// <kernel>+0x2b0 in <file>:<line>", "by thread (0,3,0) in block (2,0,0)", "Address ... is out of
// bounds", "and Read access at ... in <file>:<line> [992 hazards]").
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "wb/sanitizer.hpp"

namespace wb {
namespace {

const std::string bar = "========= ";

bool starts(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

std::string lowered_first(std::string s) {
  if (!s.empty()) s[0] = char(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

// "... in /a/b/transpose.cu:24 ..." -> "transpose.cu:24" (the last " in <file>:<line>" of the line).
std::string place_in(const std::string& s) {
  for (std::size_t at = s.rfind(" in "); at != std::string::npos; at = at == 0 ? std::string::npos : s.rfind(" in ", at - 1)) {
    std::size_t b = at + 4, e = b;
    while (e < s.size() && s[e] != ' ') ++e;
    const std::string word = s.substr(b, e - b);
    // "<file>:<line>", or "<file>:<line>:<kernel>" (racecheck's hazard reports)
    for (std::size_t colon = word.find(':'); colon != std::string::npos; colon = word.find(':', colon + 1)) {
      std::size_t digits = colon + 1;
      while (digits < word.size() && std::isdigit(static_cast<unsigned char>(word[digits]))) ++digits;
      if (digits == colon + 1 || (digits < word.size() && word[digits] != ':')) continue;
      const std::string file = word.substr(0, colon);
      const std::size_t slash = file.rfind('/');
      return (slash == std::string::npos ? file : file.substr(slash + 1)) + word.substr(colon, digits - colon);
    }
  }
  return "";
}

// The kind of access in "Write access at ..." / "Read access at ...", as "a write" / "a read".
std::string access_of(const std::string& s) {
  const std::size_t at = s.find(" access at ");
  if (at == std::string::npos) return "an access";
  std::size_t b = at;
  while (b > 0 && s[b - 1] != ' ') --b;
  return "a " + lowered_first(s.substr(b, at - b));
}

// "[992 hazards]" at the end of a line, as "992 hazards".
std::string bracketed(const std::string& s) {
  const std::size_t open = s.rfind('['), close = s.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return s.substr(open + 1, close - open - 1);
}

// A line of the tool's that is not a finding.
bool chatter(const std::string& l) {
  for (const char* p : {"COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY", "Target application",
                        "Process ID", "This tool", "Saved host backtrace", "Warning: Race reported", "Warning:"})
    if (starts(l, p)) return true;
  return false;
}

struct Record {
  std::string head;
  std::vector<std::string> lines;  // the indented ones under it, trimmed
};

}  // namespace

std::string sanitizer_finding(const std::string& tool, const std::string& log) {
  std::istringstream in(log);
  std::vector<Record> records;
  std::string line, summary;
  while (std::getline(in, line)) {
    if (!starts(line, bar)) continue;
    const std::string rest = line.substr(bar.size());
    if (starts(rest, "ERROR SUMMARY: ") || starts(rest, "RACECHECK SUMMARY: ")) summary = trimmed(rest.substr(rest.find(": ") + 2));
    if (rest.empty() || rest[0] == ' ') {
      if (!records.empty() && !trimmed(rest).empty()) records.back().lines.push_back(trimmed(rest));
      continue;
    }
    if (chatter(rest)) {
      records.push_back({"", {}});  // its indented lines are not a finding's
      continue;
    }
    records.push_back({trimmed(rest), {}});
  }
  // The first finding, unless all there is is the failed call a fault leads to ("Program hit
  // cudaErrorLaunchFailure ..."), which comes after the fault itself.
  const Record* first = nullptr;
  for (const auto& r : records) {
    if (r.head.empty()) continue;
    if (starts(r.head, "Program hit ")) {
      if (!first) first = &r;
      continue;
    }
    if (!first || starts(first->head, "Program hit ")) first = &r;
    break;
  }
  if (!first) return "";
  std::string at = place_in(first->head), who, detail, other_access, other_at, hazards = bracketed(first->head);
  for (const auto& l : first->lines) {
    if (starts(l, "at ") && at.empty()) at = place_in(l);
    else if (starts(l, "by thread ") && who.empty()) who = l;
    else if (starts(l, "and ") && l.find(" access at ") != std::string::npos) {
      other_access = access_of(l);
      other_at = place_in(l);
      if (hazards.empty()) hazards = bracketed(l);
    } else if (starts(l, "Address ") && detail.empty()) {
      // "Address 0x7f3a5c000400 is out of bounds" -> "out of bounds"
      const std::size_t is = l.find(" is ");
      if (is != std::string::npos) detail = l.substr(is + 4);
    } else if (starts(l, "and is ") && !detail.empty()) {
      // "and is 1 bytes after the nearest allocation at 0x... of size 1024 bytes"
      std::string d = l.substr(7);
      const std::size_t a = d.find(" at 0x"), of = d.find(" of size ");
      if (a != std::string::npos && of != std::string::npos && of > a) d = d.substr(0, a) + ", of" + d.substr(of + 8);
      detail += ", " + d;
    }
  }
  std::string what;
  const std::string& h = first->head;
  if (h.find("Race reported between ") != std::string::npos) {
    // racecheck's analysis: "Error: Race reported between Write access at <kernel>+0x1c0 in <file>:19"
    const std::string between = h.substr(h.find("between ") + 8);
    what = "a shared-memory hazard between " + access_of(between) + (at.empty() ? "" : " at " + at);
    if (!other_access.empty()) what += " and " + other_access + (other_at.empty() ? "" : " at " + other_at);
    if (!hazards.empty()) what += " (" + hazards + ")";
    return "compute-sanitizer " + tool + " reported " + what;
  }
  if (h.find(" hazard detected") != std::string::npos) {
    // racecheck's hazards: "ERROR: Potential WAW hazard detected at __shared__ 0x0 in block (0,0,0) :",
    // then "Write Thread (0,0,0) at 0x138 in <file>:28:<kernel>" for each of the two accesses.
    std::string kind = h.substr(0, h.find(" hazard detected"));
    kind = kind.substr(kind.rfind(' ') + 1);
    std::vector<std::string> sides;
    for (const auto& l : first->lines) {
      const std::size_t t = l.find(" Thread ");
      if (t == std::string::npos) continue;
      const std::string p = place_in(l);
      sides.push_back("a " + lowered_first(l.substr(0, t)) + (p.empty() ? "" : " at " + p));
    }
    what = "a shared-memory " + kind + " hazard";
    if (sides.size() >= 2) what += " between " + sides[0] + " and " + sides[1];
    return "compute-sanitizer " + tool + " reported " + what;
  }
  std::string head = h;
  if (starts(head, "Error: ") || starts(head, "ERROR: ")) head = head.substr(7);
  // The head without its place and address ("... at <kernel>+0x2b0 in <file>:24").
  if (const std::size_t a = head.find(" at "); a != std::string::npos && head.find('+', a) != std::string::npos)
    head = head.substr(0, a);
  if (starts(head, "Barrier error detected. ")) head = "a barrier error: " + lowered_first(head.substr(24));
  else head = lowered_first(head);
  while (!head.empty() && (head.back() == '.' || head.back() == ':' || head.back() == ' ')) head.pop_back();
  if (starts(head, "invalid ") || starts(head, "out-of-range ") || starts(head, "unspecified ")) head = "an " + head;
  else if (starts(head, "misaligned ")) head = "a " + head;
  what = head + (at.empty() ? "" : " at " + at) + (who.empty() ? "" : ", " + who) + (detail.empty() ? "" : ": " + detail);
  if (!summary.empty() && !starts(summary, "0 ") && !starts(head, "program hit")) what += " (" + summary + " in all)";
  return "compute-sanitizer " + tool + " reported " + what;
}

}  // namespace wb
