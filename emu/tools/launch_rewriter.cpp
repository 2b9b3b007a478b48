// wb-emu-rewrite: turns a CUDA source file into C++ the host compiler accepts, for the CPU backend.
//
//   wb-emu-rewrite [--instrument] <input.cu> <output.cpp>
//
// These rewrites, everything else is copied byte for byte:
//   kernel<<<grid, block[, shmem[, stream]]>>>(args)
//     -> ::wb_emu::make_launch(kernel, "kernel", __FILE__, __LINE__, grid, block[, shmem[, stream]])(args)
//   extern __shared__ T name[];
//     -> T* const name = ::wb_emu::dynamic_shared<T>();
//   __shared__ T name[dims];   (also a scalar `__shared__ T name;`, with `volatile` kept)
//     -> auto& name = ::wb_emu::static_shared<T [dims]>([]{});
//        (per-block storage; the lambda's unique type keys the declaration)
//   __constant__ T name[dims];  (also `__device__` variables, scalars, initializers, several names)
//     -> the declaration as written, then on the same line, for each name:
//        static const bool wb_emu_symbol_name = ::wb_emu::register_symbol(&name, sizeof(name), "name", ...);
//        (cudaMemcpyToSymbol & co. accept only registered variables; `extern` and templates are left alone)
// Newlines inside a rewritten span are kept, and the output starts with a `#line 1 "<input>"`
// after the prelude include, so compiler errors and __LINE__ point at the learner's file.
// Comments, string and character literals are skipped, so `<<<` inside them is left alone.
//
// --instrument (a file built with WB_EMU_INSTRUMENT=1, see emu/include/wb_emu/instrument.hpp)
// also makes its memory accesses recorded:
//   a pointer parameter of a __global__ or __device__ function, `const float* __restrict__ in`
//     -> `::wb_emu::gptr<const float> in`   (void pointers, references, arrays are left alone)
//   __shared__ T name[dims];
//     -> auto&& name = ::wb_emu::instrument_shared(::wb_emu::static_shared<T [dims]>([]{}, "name"), "name");
//        (its indices are checked against the extents)
//   extern __shared__ T name[];
//     -> const auto name = ::wb_emu::dynamic_shared_named<T>("name");
//   in the body of such a function, a local pointer declared with an initializer,
//   `const float4* v = reinterpret_cast<const float4*>(in);` -> `::wb_emu::gptr<const float4> v = ...;`
//   reinterpret_cast<U*>(p)   -> ::wb_emu::instrumented_cast<U*>(p)   (a gptr stays a gptr)
//   launches                  -> ::wb_emu::make_instrumented_launch(...)
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool instrument = false;

struct Source {
  std::string text;
  std::string path;
};

[[noreturn]] void fail(const Source& src, std::size_t pos, const std::string& what) {
  int line = 1;
  for (std::size_t i = 0; i < pos && i < src.text.size(); ++i) line += src.text[i] == '\n';
  std::cerr << src.path << ":" << line << ": error: " << what << "\n";
  std::exit(1);
}

// Index just past a comment or literal starting at i, or i itself when none starts there.
std::size_t skip_non_code(const std::string& s, std::size_t i) {
  if (s.compare(i, 2, "//") == 0) {
    std::size_t e = s.find('\n', i);
    return e == std::string::npos ? s.size() : e;
  }
  if (s.compare(i, 2, "/*") == 0) {
    std::size_t e = s.find("*/", i + 2);
    return e == std::string::npos ? s.size() : e + 2;
  }
  if (s[i] == '"' || s[i] == '\'') {
    // A raw string literal R"d( ... )d" needs its own delimiter.
    if (s[i] == '"' && i > 0 && s[i - 1] == 'R') {
      std::size_t open = s.find('(', i);
      if (open != std::string::npos) {
        std::string close = ")" + s.substr(i + 1, open - i - 1) + "\"";
        std::size_t e = s.find(close, open);
        return e == std::string::npos ? s.size() : e + close.size();
      }
    }
    // A digit separator (1'000) is not a character literal.
    if (s[i] == '\'' && i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1]))) return i;
    char q = s[i];
    std::size_t j = i + 1;
    while (j < s.size() && s[j] != q) {
      if (s[j] == '\\') ++j;
      if (s[j] == '\n') break;  // unterminated: leave the rest to the compiler
      ++j;
    }
    return j < s.size() ? j + 1 : s.size();
  }
  return i;
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Start of the callee expression that ends just before `end` (the `<<<`): a possibly qualified
// name with template arguments, e.g. `ns::kernel<float, 256>` or `kernel`.
std::size_t callee_start(const std::string& s, std::size_t end) {
  std::size_t i = end;
  auto skip_space_back = [&] { while (i > 0 && std::isspace(static_cast<unsigned char>(s[i - 1]))) --i; };
  for (;;) {
    skip_space_back();
    if (i > 0 && s[i - 1] == '>') {  // template argument list: find its matching '<'
      int depth = 0;
      while (i > 0) {
        char c = s[--i];
        if (c == '>') ++depth;
        else if (c == '<' && --depth == 0) break;
      }
      skip_space_back();
    }
    std::size_t name_end = i;
    while (i > 0 && is_ident(s[i - 1])) --i;
    if (i == name_end) return i;  // nothing name-like
    // A qualifier: `ns::` or `tmpl<T>::` goes on; a leading `::` ends the name. No whitespace is
    // crossed here, so a word before it (`return`, the end of a comment) is never taken for a scope.
    if (i >= 2 && s[i - 1] == ':' && s[i - 2] == ':') {
      i -= 2;
      if (i > 0 && (is_ident(s[i - 1]) || s[i - 1] == '>')) continue;
    }
    return i;
  }
}

// Index of the bracket that closes the one at `open` (one of ( [ {), skipping nested brackets,
// comments and literals.
std::size_t matching_close(const Source& src, std::size_t open) {
  const std::string& s = src.text;
  std::vector<char> stack{s[open]};
  for (std::size_t i = open + 1; i < s.size(); ++i) {
    std::size_t j = skip_non_code(s, i);
    if (j != i) { i = j - 1; continue; }
    char c = s[i];
    if (c == '(' || c == '[' || c == '{') stack.push_back(c);
    else if (c == ')' || c == ']' || c == '}') {
      char want = stack.back() == '(' ? ')' : stack.back() == '[' ? ']' : '}';
      if (c != want) fail(src, i, std::string("unbalanced '") + c + "' in a kernel launch");
      stack.pop_back();
      if (stack.empty()) return i;
    }
  }
  fail(src, open, "unclosed bracket in a kernel launch");
}

std::string newlines_in(const std::string& s) {
  std::string out;
  for (char c : s) if (c == '\n') out += '\n';
  return out;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') { out += ' '; continue; }
    out += c;
  }
  return out;
}

std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    out += c;
  }
  return out;
}

// `kernel<<<cfg>>>(args)` starting at the `<<<` at position lt: returns the replacement and
// sets `consumed_to` past the closing ')' of the argument list.
std::string rewrite_launch(const Source& src, std::size_t lt, std::size_t start, std::size_t& consumed_to) {
  const std::string& s = src.text;
  std::size_t cfg_begin = lt + 3;
  std::size_t gt = std::string::npos;
  int depth = 0;
  for (std::size_t i = cfg_begin; i + 2 < s.size(); ++i) {
    std::size_t j = skip_non_code(s, i);
    if (j != i) { i = j - 1; continue; }
    char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    else if (depth == 0 && s.compare(i, 3, ">>>") == 0) { gt = i; break; }
  }
  if (gt == std::string::npos) fail(src, lt, "'<<<' without a matching '>>>'");
  std::size_t paren = gt + 3;
  while (paren < s.size() && std::isspace(static_cast<unsigned char>(s[paren]))) ++paren;
  if (paren >= s.size() || s[paren] != '(') fail(src, gt, "a kernel launch needs its argument list: kernel<<<grid, block>>>(args)");
  std::size_t close = matching_close(src, paren);

  std::string callee = s.substr(start, lt - start);
  std::string cfg = s.substr(cfg_begin, gt - cfg_begin);
  std::string args = s.substr(paren + 1, close - paren - 1);
  // Newlines between the callee and the config, and between config and args, are moved after
  // the rewritten text's opening so the total line count stays the same.
  std::string out = std::string(instrument ? "::wb_emu::make_instrumented_launch(" : "::wb_emu::make_launch(") + callee + ", \"" + escape(squeeze(callee)) +
                    "\", __FILE__, __LINE__, " + cfg + ")" + newlines_in(s.substr(gt, paren - gt)) +
                    "(" + args + ")";
  consumed_to = close + 1;
  return out;
}

// `extern __shared__ <type> <name>[];` at position p (pointing at "extern").
bool try_rewrite_extern_shared(const Source& src, std::size_t p, std::string& out, std::size_t& consumed_to) {
  const std::string& s = src.text;
  if (s.compare(p, 6, "extern") != 0 || (p > 0 && is_ident(s[p - 1]))) return false;
  std::size_t i = p + 6;
  auto skip_ws = [&] { while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i; };
  skip_ws();
  if (s.compare(i, 10, "__shared__") != 0) return false;
  std::size_t semi = s.find(';', i);
  if (semi == std::string::npos) fail(src, p, "extern __shared__ declaration without ';'");
  std::string decl = s.substr(i + 10, semi - i - 10);
  // decl: " [alignas(N)] type name[]"
  std::size_t lb = decl.rfind('[');
  std::size_t rb = decl.rfind(']');
  if (lb == std::string::npos || rb == std::string::npos || squeeze(decl.substr(lb + 1, rb - lb - 1)) != "")
    fail(src, p, "extern __shared__ must declare an unsized array, e.g. extern __shared__ float smem[];");
  std::size_t name_end = lb;
  while (name_end > 0 && std::isspace(static_cast<unsigned char>(decl[name_end - 1]))) --name_end;
  std::size_t name_begin = name_end;
  while (name_begin > 0 && is_ident(decl[name_begin - 1])) --name_begin;
  std::string name = decl.substr(name_begin, name_end - name_begin);
  std::string type = decl.substr(0, name_begin);
  // drop alignas(...) : dynamic shared memory is always 16-byte aligned here
  std::size_t al = type.find("alignas");
  if (al != std::string::npos) {
    std::size_t close = type.find(')', al);
    type.erase(al, close == std::string::npos ? std::string::npos : close - al + 1);
  }
  out = squeeze(type).empty() ? "" : type;
  if (instrument)
    out = "const auto " + name + " = ::wb_emu::dynamic_shared_named<" + type + ">(\"" + name + "\")" +
          newlines_in(s.substr(p, semi - p));
  else
    out = "auto* const " + name + " = ::wb_emu::dynamic_shared<" + type + ">()" + newlines_in(s.substr(p, semi - p));
  consumed_to = semi;  // keep the ';'
  return true;
}


// `[static|volatile ...] __shared__ <type> <name>[dims];` with `__shared__` at position p.
// `stmt_begin` is where the qualifiers before `__shared__` start (out of `copied` so far).
bool try_rewrite_static_shared(const Source& src, std::size_t p, std::size_t copied, std::string& out,
                               std::size_t& begin, std::size_t& consumed_to) {
  const std::string& s = src.text;
  if (s.compare(p, 10, "__shared__") != 0 || (p > 0 && is_ident(s[p - 1])) ||
      (p + 10 < s.size() && is_ident(s[p + 10])))
    return false;
  // qualifiers written before __shared__
  std::string prefix;
  begin = p;
  for (;;) {
    std::size_t i = begin;
    while (i > copied && std::isspace(static_cast<unsigned char>(s[i - 1]))) --i;
    std::size_t e = i;
    while (i > copied && is_ident(s[i - 1])) --i;
    std::string word = s.substr(i, e - i);
    if (word == "static") { begin = i; continue; }
    if (word == "volatile") { begin = i; prefix += "volatile "; continue; }
    break;
  }
  std::size_t semi = s.find(';', p);
  if (semi == std::string::npos) fail(src, p, "__shared__ declaration without ';'");
  std::string decl = s.substr(p + 10, semi - p - 10);
  if (decl.find('=') != std::string::npos) fail(src, p, "a __shared__ variable cannot have an initializer");
  if (decl.find('(') != std::string::npos && decl.find("alignas") == std::string::npos &&
      decl.find("__align__") == std::string::npos)
    return false;  // not a plain declaration: leave it (and __shared__ expands to nothing)
  int depth = 0;
  for (char c : decl) {
    if (c == '<' || c == '[' || c == '(') ++depth;
    else if (c == '>' || c == ']' || c == ')') --depth;
    else if (c == ',' && depth == 0) fail(src, p, "declare one __shared__ variable per declaration");
  }
  // drop alignas(...) / __align__(...): the arena aligns to the type (at least 16 bytes)
  for (const char* kw : {"alignas", "__align__"}) {
    std::size_t al;
    while ((al = decl.find(kw)) != std::string::npos) {
      std::size_t close = decl.find(')', al);
      decl.erase(al, close == std::string::npos ? std::string::npos : close - al + 1);
    }
  }
  std::size_t lb = decl.find('[');
  std::string dims = lb == std::string::npos ? "" : decl.substr(lb);
  std::size_t name_end = lb == std::string::npos ? decl.size() : lb;
  while (name_end > 0 && std::isspace(static_cast<unsigned char>(decl[name_end - 1]))) --name_end;
  std::size_t name_begin = name_end;
  while (name_begin > 0 && is_ident(decl[name_begin - 1])) --name_begin;
  std::string name = decl.substr(name_begin, name_end - name_begin);
  std::string type = decl.substr(0, name_begin);
  if (name.empty() || squeeze(type).empty()) fail(src, p, "cannot read this __shared__ declaration: write `__shared__ T name[N];`");
  std::string squeezed_dims;
  for (char c : dims) if (c != '\n') squeezed_dims += c;
  if (instrument)
    out = "auto&& " + name + " = ::wb_emu::instrument_shared(::wb_emu::static_shared<" + prefix + type + " " +
          squeezed_dims + ">([]{}, \"" + name + "\"), \"" + name + "\")" + newlines_in(s.substr(begin, semi - begin));
  else
    out = "auto& " + name + " = ::wb_emu::static_shared<" + prefix + type + " " + squeezed_dims + ">([]{})" +
          newlines_in(s.substr(begin, semi - begin));
  consumed_to = semi;  // keep the ';'
  return true;
}
bool word_at(const std::string& s, std::size_t i, const char* word) {
  const std::size_t n = std::char_traits<char>::length(word);
  return s.compare(i, n, word) == 0 && (i == 0 || !is_ident(s[i - 1])) && (i + n >= s.size() || !is_ident(s[i + n]));
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// One parameter declaration: `const float* __restrict__ in` -> `::wb_emu::gptr<const float> in`;
// anything else is returned unchanged.
std::string rewrite_param(const std::string& param) {
  if (param.find_first_of("([&.") != std::string::npos) return param;
  std::string decl = param, def;
  int depth = 0;
  for (std::size_t i = 0; i < param.size(); ++i) {
    const char c = param[i];
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (c == '=' && depth == 0) {
      decl = param.substr(0, i);
      def = param.substr(i);
      break;
    }
  }
  std::size_t star = std::string::npos;
  depth = 0;
  for (std::size_t i = 0; i < decl.size(); ++i) {
    if (decl[i] == '<') ++depth;
    else if (decl[i] == '>') --depth;
    else if (decl[i] == '*' && depth == 0) star = i;
  }
  if (star == std::string::npos) return param;
  std::size_t lead = 0;
  while (lead < decl.size() && std::isspace(static_cast<unsigned char>(decl[lead]))) ++lead;
  std::string pointee = trim(decl.substr(lead, star - lead));
  const std::string sq = squeeze(pointee);
  if (pointee.empty() || sq == "void" || sq == "constvoid" || sq == "voidconst" || sq == "volatilevoid" ||
      sq == "constvolatilevoid")
    return param;
  bool top_const = false;
  std::string name;
  const std::string after = decl.substr(star + 1);
  for (std::size_t i = 0; i < after.size();) {
    if (std::isspace(static_cast<unsigned char>(after[i]))) { ++i; continue; }
    if (!is_ident(after[i])) return param;
    std::size_t j = i;
    while (j < after.size() && is_ident(after[j])) ++j;
    const std::string w = after.substr(i, j - i);
    if (w == "const") top_const = true;
    else if (w == "volatile" || w == "__restrict__" || w == "__restrict" || w == "restrict") {
    } else if (name.empty()) name = w;
    else return param;
    i = j;
  }
  for (char& c : pointee)
    if (c == '\n') c = ' ';
  return decl.substr(0, lead) + (top_const ? "const " : "") + "::wb_emu::gptr<" + pointee + ">" +
         (name.empty() ? "" : " " + name) + newlines_in(decl.substr(lead)) + def;
}

// `__global__`/`__device__` at p: if a function's parameter list follows, rewrites its pointer
// parameters; `open`/`close` are its brackets.
bool try_rewrite_params(const Source& src, std::size_t p, std::string& out, std::size_t& open, std::size_t& close) {
  const std::string& s = src.text;
  std::size_t i = p + 10;  // both keywords have 10 characters
  bool after_name = false;
  while (i < s.size()) {
    std::size_t j = skip_non_code(s, i);
    if (j != i) { i = j; continue; }
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (is_ident(c)) {
      std::size_t e = i;
      while (e < s.size() && is_ident(s[e])) ++e;
      const std::string w = s.substr(i, e - i);
      i = e;
      if (w == "__launch_bounds__" || w == "__align__" || w == "alignas" || w == "__attribute__" || w == "decltype") {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i >= s.size() || s[i] != '(') return false;
        i = matching_close(src, i) + 1;
        after_name = false;
        continue;
      }
      after_name = true;
      continue;
    }
    if (c == ':' && i + 1 < s.size() && s[i + 1] == ':') { i += 2; after_name = false; continue; }
    if (c == '*' || c == '&') { ++i; after_name = false; continue; }
    if (c == '<') {
      int depth = 0;
      for (; i < s.size(); ++i) {
        if (s[i] == '<') ++depth;
        else if (s[i] == '>' && --depth == 0) break;
        else if (s[i] == ';' || s[i] == '{') return false;
      }
      ++i;
      after_name = false;
      continue;
    }
    if (c == '(' && after_name) break;
    return false;
  }
  if (i >= s.size()) return false;
  open = i;
  close = matching_close(src, open);
  out.clear();
  int depth = 0;
  std::size_t start = open + 1;
  for (std::size_t k = open + 1; k <= close; ++k) {
    std::size_t j = skip_non_code(s, k);
    if (j != k) { k = j - 1; continue; }
    const char c = s[k];
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    else if ((c == ')' || c == ']' || c == '}' || c == '>') && k != close) --depth;
    if ((c == ',' && depth == 0) || k == close) {
      out += rewrite_param(s.substr(start, k - start));
      if (k != close) out += ',';
      start = k + 1;
    }
  }
  return true;
}
// At i, the start of a statement in an instrumented function's body: `[const] T* [const] name =`
// (one `*`, not void) becomes `[const] ::wb_emu::gptr<[const] T> name =`. Returns false otherwise.
bool try_rewrite_local_pointer(const std::string& s, std::size_t i, std::string& out, std::size_t& consumed_to) {
  std::size_t k = i;
  std::string type;
  bool any = false;
  for (;;) {  // the type: identifiers, `::`, template arguments
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    if (k < s.size() && is_ident(s[k]) && !std::isdigit(static_cast<unsigned char>(s[k]))) {
      std::size_t e = k;
      while (e < s.size() && is_ident(s[e])) ++e;
      const std::string w = s.substr(k, e - k);
      static const char* const not_types[] = {"return", "case", "delete", "throw", "else", "do", "goto",
                                              "sizeof", "new", "typedef", "using", "static_assert", "if",
                                              "while", "for", "switch", "auto", "void"};
      for (const char* kw : not_types)
        if (w == kw) return false;
      type += (type.empty() || type.back() == ':' || type.back() == '<' ? "" : " ") + w;
      k = e;
      any = true;
      continue;
    }
    if (s.compare(k, 2, "::") == 0) { type += "::"; k += 2; continue; }
    if (k < s.size() && s[k] == '<' && any) {
      int depth = 0;
      const std::size_t b = k;
      for (; k < s.size(); ++k) {
        if (s[k] == '<') ++depth;
        else if (s[k] == '>' && --depth == 0) break;
        else if (s[k] == ';' || s[k] == '{' || s[k] == '\n') return false;
      }
      if (k >= s.size()) return false;
      ++k;
      type += s.substr(b, k - b);
      continue;
    }
    break;
  }
  if (!any || k >= s.size() || s[k] != '*') return false;
  ++k;
  bool top_const = false;
  std::string name;
  for (;;) {
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    if (k >= s.size() || !is_ident(s[k])) break;
    std::size_t e = k;
    while (e < s.size() && is_ident(s[e])) ++e;
    const std::string w = s.substr(k, e - k);
    k = e;
    if (w == "const") top_const = true;
    else if (w == "__restrict__" || w == "__restrict" || w == "volatile") {
    } else if (name.empty()) name = w;
    else return false;
  }
  if (name.empty() || k + 1 >= s.size() || s[k] != '=' || s[k + 1] == '=') return false;
  const std::string sq = squeeze(type);
  if (sq == "const" || sq == "volatile" || sq == "constvolatile") return false;
  out = std::string(top_const ? "const " : "") + "::wb_emu::gptr<" + type + "> " + name + " ";
  consumed_to = k;  // the '=' is copied
  return true;
}

// Whether position i starts a statement: the previous code character is `;`, `{` or `}`.
bool statement_start(const std::string& s, std::size_t i, std::size_t floor) {
  std::size_t k = i;
  while (k > floor && std::isspace(static_cast<unsigned char>(s[k - 1]))) --k;
  return k > floor && (s[k - 1] == ';' || s[k - 1] == '{' || s[k - 1] == '}');
}

// Whether position i is on a preprocessor directive's line (`#define ... __constant__`).
bool on_directive_line(const std::string& s, std::size_t i) {
  std::size_t b = s.rfind('\n', i);
  b = b == std::string::npos ? 0 : b + 1;
  while (b < i && (s[b] == ' ' || s[b] == '\t')) ++b;
  return b < s.size() && s[b] == '#';
}

// A variable declaration with `__constant__` or `__device__` (of length `kw_len`) at p: the
// declaration is copied as it is, and a registration of each variable it declares is appended
// after its ';' on the same line, so that cudaMemcpyToSymbol & co. know the variable, its size
// and its name (wb_emu::register_symbol). Returns false when p starts no such variable
// declaration: a function (a '(' comes before any '[', '=', '{', ';' or ','), a variable template,
// an `extern` declaration, or a qualifier on a directive's line.
bool try_register_symbol(const Source& src, std::size_t p, std::size_t kw_len, const char* space, std::string& out,
                         std::size_t& consumed_to) {
  const std::string& s = src.text;
  if (on_directive_line(s, p)) return false;
  // what comes before: qualifiers, then `template <...>` (a variable template) or `extern`
  for (std::size_t k = p;;) {
    while (k > 0 && std::isspace(static_cast<unsigned char>(s[k - 1]))) --k;
    std::size_t e = k;
    while (k > 0 && is_ident(s[k - 1])) --k;
    const std::string w = s.substr(k, e - k);
    if (w == "extern") return false;
    if (w == "static" || w == "const" || w == "volatile" || w == "constexpr" || w == "inline" || w == "__device__" ||
        w == "__constant__" || w == "__managed__" || w == "__host__")
      continue;
    if (w.empty() && k > 0 && s[k - 1] == '>') return false;
    break;
  }
  // the declaration runs to the ';' at bracket depth 0
  std::size_t semi = std::string::npos;
  int depth = 0;
  for (std::size_t i = p + kw_len; i < s.size(); ++i) {
    std::size_t j = skip_non_code(s, i);
    if (j != i) { i = j - 1; continue; }
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) return false;
    } else if (c == ';' && depth == 0) { semi = i; break; }
  }
  if (semi == std::string::npos) return false;
  // the declarators: split at ',' outside brackets (and outside a type's template arguments)
  std::vector<std::string> names;
  std::string last_ident;
  bool in_init = false, after_name = false, named = false;
  depth = 0;
  int angle = 0;
  for (std::size_t i = p + kw_len; i <= semi; ++i) {
    std::size_t j = skip_non_code(s, i);
    if (j != i) { i = j - 1; continue; }
    const char c = s[i];
    if (is_ident(c)) {
      std::size_t e = i;
      while (e < semi && is_ident(s[e])) ++e;
      const std::string w = s.substr(i, e - i);
      i = e - 1;
      if (depth == 0 && !in_init) {
        if (w == "__align__" || w == "alignas" || w == "__attribute__" || w == "decltype") {
          std::size_t k = e;
          while (k < semi && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
          if (k < semi && s[k] == '(') i = matching_close(src, k);
          continue;
        }
        if (!std::isdigit(static_cast<unsigned char>(w[0])) && angle == 0) {
          last_ident = w;
          after_name = true;
        }
      }
      continue;
    }
    if (depth == 0 && !in_init && angle == 0 && !named && (c == '[' || c == '=' || c == '{' || c == ',' || c == ';')) {
      if (!after_name && c != '[') return false;
      if (!last_ident.empty()) names.push_back(last_ident);
      named = true;
    }
    if (c == '(' && depth == 0 && !in_init && angle == 0 && !named) return false;  // a function
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    else if (depth == 0 && !in_init && c == '<') ++angle;
    else if (depth == 0 && !in_init && c == '>' && angle > 0) --angle;
    else if (depth == 0 && c == '=') in_init = true;
    else if (depth == 0 && angle == 0 && c == ',') {
      in_init = named = after_name = false;
      last_ident.clear();
    }
    if (!std::isspace(static_cast<unsigned char>(c)) && c != '[' && c != ']') after_name = false;
  }
  if (names.empty()) return false;
  for (std::size_t k = p + kw_len; k < semi; ++k)
    if (word_at(s, k, "__constant__")) space = "__constant__";  // `__device__ __constant__ float w[4];`
  out = s.substr(p, semi + 1 - p);
  for (const std::string& name : names) {
    out += " [[maybe_unused]] static const bool wb_emu_symbol_" + name + " = ::wb_emu::register_symbol(" +
           "__builtin_addressof(" + name + "), sizeof(" + name + "), \"" + name + "\", \"" + space +
           "\", __FILE__, __LINE__);";
    if (std::string(space) == "__constant__")
      out += " static_assert(sizeof(" + name + ") <= 65536, \"__constant__ " + name +
             " is larger than the 64 KiB of constant memory a GPU has\");";
  }
  consumed_to = semi + 1;
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--instrument") {
    instrument = true;
    ++argv;
    --argc;
  }
  if (argc != 3) {
    std::cerr << "usage: wb-emu-rewrite <input.cu> <output.cpp>\n"
                 "       wb-emu-rewrite --instrument <input.cu> <output.cpp>   (memory accesses recorded)\n";
    return 2;
  }
  Source src;
  src.path = argv[1];
  {
    std::ifstream in(src.path, std::ios::binary);
    if (!in) { std::cerr << "wb-emu-rewrite: cannot read " << src.path << "\n"; return 1; }
    std::ostringstream ss;
    ss << in.rdbuf();
    src.text = ss.str();
  }
  const std::string& s = src.text;
  std::string out = std::string("#include <wb_emu/kernel_prelude.hpp>\n") +
                    (instrument ? "#include <wb_emu/instrument.hpp>\n" : "") + "#line 1 \"" + escape(src.path) + "\"\n";
  std::size_t copied = 0;  // s[copied, i) is pending copy
  std::size_t body_begin = 0, body_end = 0;  // the body of the last instrumented function
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = skip_non_code(s, i);
    if (j != i) { i = j; continue; }
    if (s.compare(i, 3, "<<<") == 0) {
      std::size_t start = callee_start(s, i);
      if (start == i) fail(src, i, "'<<<' must follow a kernel name");
      std::size_t next = 0;
      std::string rep = rewrite_launch(src, i, start, next);
      out.append(s, copied, start - copied);
      out += rep;
      copied = i = next;
      continue;
    }
    std::string rep;
    std::size_t next = 0;
    if (s[i] == 'e' && try_rewrite_extern_shared(src, i, rep, next)) {
      out.append(s, copied, i - copied);
      out += rep;
      copied = i = next;
      continue;
    }
    if (s[i] == '_' && (word_at(s, i, "__constant__") || word_at(s, i, "__device__"))) {
      const bool constant = s[i + 2] == 'c';
      if (!(i > body_begin && i < body_end) &&
          try_register_symbol(src, i, constant ? 12 : 10, constant ? "__constant__" : "__device__", rep, next)) {
        out.append(s, copied, i - copied);
        out += rep;
        copied = i = next;
        continue;
      }
    }
    if (instrument && s[i] == '_' && (word_at(s, i, "__global__") || word_at(s, i, "__device__"))) {
      std::size_t open = 0, close = 0;
      if (try_rewrite_params(src, i, rep, open, close)) {
        out.append(s, copied, open + 1 - copied);
        out += rep;
        copied = i = close;
        // the body, if this is a definition
        std::size_t b = close + 1;
        while (b < s.size() && s[b] != '{' && s[b] != ';') b = skip_non_code(s, b) == b ? b + 1 : skip_non_code(s, b);
        if (b < s.size() && s[b] == '{') {
          body_begin = b;
          body_end = matching_close(src, b);
        }
        continue;
      }
      i += 10;
      continue;
    }
    if (instrument && i > body_begin && i < body_end && is_ident(s[i]) && (i == 0 || !is_ident(s[i - 1])) &&
        statement_start(s, i, body_begin)) {
      std::size_t next = 0;
      if (try_rewrite_local_pointer(s, i, rep, next)) {
        out.append(s, copied, i - copied);
        out += rep;
        copied = i = next;
        continue;
      }
    }
    if (instrument && s[i] == 'r' && word_at(s, i, "reinterpret_cast")) {
      out.append(s, copied, i - copied);
      out += "::wb_emu::instrumented_cast";
      copied = i = i + 16;
      continue;
    }
    std::size_t begin = 0;
    if (s[i] == '_' && try_rewrite_static_shared(src, i, copied, rep, begin, next)) {
      out.append(s, copied, begin - copied);
      out += rep;
      copied = i = next;
      continue;
    }
    ++i;
  }
  out.append(s, copied, std::string::npos);
  std::ofstream o(argv[2], std::ios::binary);
  if (!(o << out)) { std::cerr << "wb-emu-rewrite: cannot write " << argv[2] << "\n"; return 1; }
  return 0;
}
