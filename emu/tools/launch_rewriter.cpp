// wb-emu-rewrite: turns a CUDA source file into C++ the host compiler accepts, for the CPU backend.
//
//   wb-emu-rewrite [--instrument] <input.cu> <output.cpp>
//
// These rewrites, everything else is copied byte for byte:
//   kernel<<<grid, block[, shmem[, stream]]>>>(args)
//     -> ::wb_emu::make_launch([&](auto&... wb_a) { kernel(wb_a...); }, "kernel", __FILE__, __LINE__,
//                              grid, block[, shmem[, stream]])(args)
//        (the kernel called as written: a template's arguments deduced, a qualified name, a pointer,
//        `table[i]`, `s.k`, `p->k`, `(*fp)`; in a #define's body too, its line splices kept)
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
// Before rewriting, what nvcc rejects in device code is an error at its line (check_device_code):
// a call from a __global__ or __device__ function to a host function of the file or to a host-only
// runtime call, and a __shared__ variable outside device code.
//
// --instrument (a file built with WB_EMU_INSTRUMENT=1, see emu/include/wb_emu/instrument.hpp)
// also makes its memory accesses recorded:
//   a pointer parameter of a __device__ function, `const float* __restrict__ in`
//     -> `::wb_emu::gptr<const float> in`   (void pointers, references, arrays are left alone)
//   a pointer parameter of a __global__ function keeps its type under another name, and the body
//   starts (on the line of its '{') with the recorded pointer:
//     `const float* in` -> `const float* wb_emu_raw_in` ... `{ ::wb_emu::gptr<const float> in(wb_emu_raw_in);`
//   __shared__ T name[dims];
//     -> auto&& name = ::wb_emu::instrument_shared(::wb_emu::static_shared<T [dims]>([]{}, "name"), "name");
//        (its indices are checked against the extents)
//   extern __shared__ T name[];
//     -> const auto name = ::wb_emu::dynamic_shared_named<T>("name");
//   in the body of such a function, a local pointer declaration (after a comment or directive too,
//   in a for loop's init, with or without an initializer, several declarators),
//   `const float4* v = reinterpret_cast<const float4*>(in);` -> `::wb_emu::gptr<const float4> v = ...;`
//   and `auto* p = ...` -> `auto p = ...`
//   reinterpret_cast<U*>(p)   -> ::wb_emu::instrumented_cast<U*>(p)   (a gptr stays a gptr)
//   launches                  -> ::wb_emu::make_instrumented_launch(...)
#include <algorithm>
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

void report(const Source& src, std::size_t pos, const std::string& what) {
  int line = 1;
  for (std::size_t i = 0; i < pos && i < src.text.size(); ++i) line += src.text[i] == '\n';
  std::cerr << src.path << ":" << line << ": error: " << what << "\n";
}

[[noreturn]] void fail(const Source& src, std::size_t pos, const std::string& what) {
  report(src, pos, what);
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

bool is_keyword(const std::string& w) {
  static const char* const keywords[] = {"return", "case", "else", "do", "throw", "co_return", "co_yield", "new",
                                         "delete", "sizeof", "typedef", "using", "goto"};
  for (const char* k : keywords)
    if (w == k) return true;
  return false;
}

// Start of the callee expression that ends just before `end` (the `<<<`): a possibly qualified
// name with template arguments (`ns::kernel<float, 256>`, `kernel`), a member (`table.k`,
// `p->k`), a subscript or call of one (`kernels[i]`, `pick(n)`), or a parenthesized expression
// (`(*fp)`). Returns `end` when there is none.
std::size_t callee_start(const std::string& s, std::size_t end) {
  std::size_t i = end;
  while (i > 0 && std::isspace(static_cast<unsigned char>(s[i - 1]))) --i;
  for (;;) {
    const std::size_t part_end = i;
    // brackets after a name, right to left: template arguments, subscripts, calls
    while (i > 0 && (s[i - 1] == '>' || s[i - 1] == ']' || s[i - 1] == ')')) {
      const char close = s[i - 1];
      const char open = close == '>' ? '<' : close == ']' ? '[' : '(';
      int depth = 0;
      std::size_t k = i;
      while (k > 0) {
        const char c = s[--k];
        if (c == close) ++depth;
        else if (c == open && --depth == 0) break;
      }
      if (depth != 0) return end;
      i = k;
      if (close == '>')  // `kernel <float>`
        while (i > 0 && std::isspace(static_cast<unsigned char>(s[i - 1]))) --i;
    }
    const std::size_t name_end = i;
    while (i > 0 && is_ident(s[i - 1])) --i;
    if (i == name_end) {
      // no name: a parenthesized expression stands alone, `(*fp)<<<...>>>`
      if (i < part_end && s[i] == '(' && (i == 0 || (s[i - 1] != '.' && s[i - 1] != ':' && s[i - 1] != '>')))
        return i;
      return end;
    }
    if (std::isdigit(static_cast<unsigned char>(s[i]))) return end;
    if (is_keyword(s.substr(i, name_end - i)))  // `return k<<<`: no callee; `return(k)<<<`: the parentheses
      return name_end == part_end || s[name_end] != '(' ? end : name_end;
    // A qualifier or member access goes on: `ns::`, `tmpl<T>::`, `obj.`, `p->`; a leading `::`
    // ends the name. No whitespace is crossed here, so a word before it (`return`, the end of a
    // comment) is never taken for a scope.
    if (i >= 2 && s[i - 1] == ':' && s[i - 2] == ':') {
      i -= 2;
      if (i > 0 && (is_ident(s[i - 1]) || s[i - 1] == '>')) continue;
      return i;
    }
    {  // token pasting in a macro's body: `prefix##_kernel`
      std::size_t k = i;
      while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t')) --k;
      if (k >= 3 && s[k - 1] == '#' && s[k - 2] == '#') {
        k -= 2;
        while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t')) --k;
        if (k > 0 && is_ident(s[k - 1])) {
          i = k;
          continue;
        }
      }
    }
    if (i >= 1 && s[i - 1] == '.' && i >= 2 && (is_ident(s[i - 2]) || s[i - 2] == ']' || s[i - 2] == ')')) {
      i -= 1;
      continue;
    }
    if (i >= 2 && s[i - 1] == '>' && s[i - 2] == '-' && i >= 3 && (is_ident(s[i - 3]) || s[i - 3] == ']' || s[i - 3] == ')')) {
      i -= 2;
      continue;
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

// The line breaks of `s`, to keep the line count of a rewritten span; a line splice (a
// backslash before the newline, as in a multi-line #define) stays one.
std::string newlines_in(const std::string& s) {
  std::string out;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (s[k] != '\n') continue;
    std::size_t b = k;
    if (b > 0 && s[b - 1] == '\r') --b;
    out += b > 0 && s[b - 1] == '\\' ? "\\\n" : "\n";
  }
  return out;
}

// `s` on one line: line splices and newlines become spaces.
std::string one_line(const std::string& s) {
  std::string out;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (s[k] == '\\' && k + 1 < s.size() && (s[k + 1] == '\n' || s[k + 1] == '\r')) continue;
    out += s[k] == '\n' || s[k] == '\r' ? ' ' : s[k];
  }
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

bool is_ident(char c);
std::string trim(const std::string& s);

// A kernel's name for messages: the callee as written, its spacing made regular
// (`ns::k<float, 4>`, `k<unsigned int>`).
std::string display_name(const std::string& callee) {
  std::string out;
  bool space = false;
  for (char c : one_line(callee)) {
    if (std::isspace(static_cast<unsigned char>(c))) { space = true; continue; }
    if (space && !out.empty() && is_ident(out.back()) && is_ident(c)) out += ' ';
    space = false;
    out += c;
    if (c == ',') out += ' ';
  }
  return out;
}

// Where the preprocessor directive holding position i starts (its '#'), following line splices
// back; npos when i is on no directive's line.
std::size_t line_begin(const std::string& s, std::size_t i) {
  const std::size_t nl = i == 0 ? std::string::npos : s.rfind('\n', i - 1);
  return nl == std::string::npos ? 0 : nl + 1;
}
std::size_t directive_start(const std::string& s, std::size_t i) {
  std::size_t b = line_begin(s, i);
  while (b >= 2) {  // the previous line ends with a splice: the directive may start there
    std::size_t k = b - 1;
    if (k >= 1 && s[k - 1] == '\r') --k;
    if (k < 1 || s[k - 1] != '\\') break;
    b = line_begin(s, b - 1);
  }
  while (b < i && (s[b] == ' ' || s[b] == '\t')) ++b;
  return b < s.size() && s[b] == '#' ? b : std::string::npos;
}

// The parameters of the function-like macro whose #define holds position i (empty when none).
std::vector<std::string> macro_params(const std::string& s, std::size_t i) {
  std::vector<std::string> params;
  std::size_t k = directive_start(s, i);
  if (k == std::string::npos) return params;
  ++k;
  while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
  if (s.compare(k, 6, "define") != 0) return params;
  k += 6;
  while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
  while (k < s.size() && is_ident(s[k])) ++k;
  if (k >= s.size() || s[k] != '(') return params;  // an object-like macro
  for (++k; k < s.size() && s[k] != ')' && s[k] != '\n';) {
    if (is_ident(s[k])) {
      std::size_t e = k;
      while (e < s.size() && is_ident(s[e])) ++e;
      params.push_back(s.substr(k, e - k));
      k = e;
    } else {
      ++k;
    }
  }
  return params;
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

  const std::string callee = s.substr(start, lt - start);
  const std::string cfg = s.substr(cfg_begin, gt - cfg_begin);
  const std::string args = s.substr(paren + 1, close - paren - 1);
  // The kernel is called through a generic lambda, so that a kernel template's arguments are
  // deduced from the launch's, as nvcc deduces them.
  const std::string c = trim(one_line(callee));
  const std::string kernel = "[&](auto&... wb_a) { " + c + "(wb_a...); }";
  // Its name for messages; in a function-like macro whose parameter is the kernel, the argument.
  std::string name = "\"" + escape(display_name(callee)) + "\"";
  for (const std::string& param : macro_params(s, lt))
    if (param == c) name = "#" + c;
  // Newlines in the callee, between the callee and the config, and between config and args, are
  // moved after the rewritten text's opening so the total line count stays the same.
  std::string out = std::string(instrument ? "::wb_emu::make_instrumented_launch(" : "::wb_emu::make_launch(") +
                    kernel + ", " + name + ", __FILE__, __LINE__, " + cfg + ")" + newlines_in(callee) +
                    newlines_in(s.substr(gt, paren - gt)) + "(" + args + ")";
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
// For a kernel's parameter (`kernel`), the parameter keeps its type, under another name, and
// `shadow` gets the declaration of the recorded pointer with the parameter's name, for the start
// of the body: `const float* in` -> `const float* wb_emu_raw_in` and
// `::wb_emu::gptr<const float> in(wb_emu_raw_in);`. The kernel's type stays the one nvcc sees,
// so a template's arguments are deduced from a launch's raw pointers and function pointers to it
// have the written type.
std::string rewrite_param(const std::string& param, bool kernel, std::string& shadow) {
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
  std::size_t name_at = 0;
  const std::string after = decl.substr(star + 1);
  for (std::size_t i = 0; i < after.size();) {
    if (std::isspace(static_cast<unsigned char>(after[i]))) { ++i; continue; }
    if (!is_ident(after[i])) return param;
    std::size_t j = i;
    while (j < after.size() && is_ident(after[j])) ++j;
    const std::string w = after.substr(i, j - i);
    if (w == "const") top_const = true;
    else if (w == "volatile" || w == "__restrict__" || w == "__restrict" || w == "restrict") {
    } else if (name.empty()) {
      name = w;
      name_at = star + 1 + i;
    } else return param;
    i = j;
  }
  for (char& c : pointee)
    if (c == '\n') c = ' ';
  if (kernel) {
    if (name.empty()) return param;  // unnamed: never used
    shadow += std::string(top_const ? "const " : "") + "::wb_emu::gptr<" + pointee + "> " + name + "(wb_emu_raw_" +
              name + "); ";
    return decl.substr(0, name_at) + "wb_emu_raw_" + decl.substr(name_at) + def;
  }
  return decl.substr(0, lead) + (top_const ? "const " : "") + "::wb_emu::gptr<" + pointee + ">" +
         (name.empty() ? "" : " " + name) + newlines_in(decl.substr(lead)) + def;
}

// `__global__`/`__device__` at p: if a function's parameter list follows, rewrites its pointer
// parameters; `open`/`close` are its brackets.
bool try_rewrite_params(const Source& src, std::size_t p, bool kernel, std::string& out, std::string& shadows,
                        std::size_t& open, std::size_t& close) {
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
      out += rewrite_param(s.substr(start, k - start), kernel, shadows);
      if (k != close) out += ',';
      start = k + 1;
    }
  }
  return true;
}
// An edit the main loop makes when it reaches `pos`: `erase` characters there replaced by `text`.
struct Edit {
  std::size_t pos, erase;
  std::string text;
};

// At i, the start of a statement (or of a for loop's init) in an instrumented function's body:
// `[const] T* [const] name [= init]` (one `*`, not void) becomes
// `[const] ::wb_emu::gptr<[const] T> name [= init]`, and `auto* name =` becomes `auto name =`.
// Further declarators of the declaration: `, *b = init` loses its `*` (an edit at the `*`), and
// `, n = init` (not a pointer) becomes a declaration of its own, `; T n = init` (not in a for
// loop's init, where the declaration is left as it is). Returns false when i starts no such
// declaration.
bool try_rewrite_local_pointer(const Source& src, std::size_t i, bool for_init, std::string& out,
                               std::size_t& consumed_to, std::vector<Edit>& edits) {
  const std::string& s = src.text;
  std::size_t k = i;
  std::string type;
  bool any = false, is_auto = false;
  for (;;) {  // the type: identifiers, `::`, template arguments
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    if (k < s.size() && is_ident(s[k]) && !std::isdigit(static_cast<unsigned char>(s[k]))) {
      std::size_t e = k;
      while (e < s.size() && is_ident(s[e])) ++e;
      const std::string w = s.substr(k, e - k);
      static const char* const not_types[] = {"return", "case", "delete", "throw", "else", "do", "goto",
                                              "sizeof", "new", "typedef", "using", "static_assert", "if",
                                              "while", "for", "switch", "void"};
      for (const char* kw : not_types)
        if (w == kw) return false;
      if (w == "auto") {
        if (any) return false;  // `const auto* p`: left alone
        is_auto = true;
      }
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
  if (is_auto && type != "auto") return false;
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
  if (name.empty() || k >= s.size()) return false;
  const bool init = s[k] == '=' && k + 1 < s.size() && s[k + 1] != '=';
  if (!init && s[k] != ';' && s[k] != ',') return false;
  if (is_auto && !init) return false;
  const std::string sq = squeeze(type);
  if (sq == "const" || sq == "volatile" || sq == "constvolatile") return false;
  if (is_auto) {
    out = "auto " + name + " ";
    consumed_to = k;
    return true;
  }
  out = std::string(top_const ? "const " : "") + "::wb_emu::gptr<" + type + "> " + name + " ";
  consumed_to = k;  // the '=' (or ';' or ',') is copied
  // the declaration's other declarators, up to its ';' (bracket depth 0)
  std::vector<Edit> more;
  int depth = 0;
  for (std::size_t j = k; j < s.size(); ++j) {
    const std::size_t n = skip_non_code(s, j);
    if (n != j) { j = n - 1; continue; }
    const char c = s[j];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) break;
    } else if (c == ';' && depth == 0) break;
    else if (c == ',' && depth == 0) {
      std::size_t d = j + 1;
      while (d < s.size() && std::isspace(static_cast<unsigned char>(s[d]))) ++d;
      std::size_t e = d + (d < s.size() && s[d] == '*' ? 1 : 0);
      while (e < s.size() && (s[e] == ' ' || s[e] == '\t')) ++e;
      std::size_t f = e;
      while (f < s.size() && is_ident(s[f])) ++f;
      if (f == e || std::isdigit(static_cast<unsigned char>(s[e]))) continue;  // not a declarator (or not one we know)
      const std::string w = s.substr(e, f - e);
      std::size_t g = f;
      while (g < s.size() && (s[g] == ' ' || s[g] == '\t')) ++g;
      if (w == "const" || w == "__restrict__" || w == "__restrict" || w == "volatile" || g >= s.size() ||
          (s[g] != '=' && s[g] != ',' && s[g] != ';'))
        continue;
      if (s[d] == '*') {
        if (top_const) return true;  // `T* const a = x, *b`: b would be const too; left as it was
        more.push_back(Edit{d, 1, ""});
      } else if (!for_init) {
        more.push_back(Edit{j, 1, "; " + type});
      }
    }
  }
  edits.insert(edits.end(), more.begin(), more.end());
  return true;
}

// Whether the code character before position `prev` (the last one the main loop saw, a '(')
// closes the word `for`: a for loop's init follows.
bool after_for(const std::string& s, std::size_t prev) {
  std::size_t k = prev;
  while (k > 0 && std::isspace(static_cast<unsigned char>(s[k - 1]))) --k;
  return k >= 3 && s.compare(k - 3, 3, "for") == 0 && (k == 3 || !is_ident(s[k - 4]));
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
  if (directive_start(s, p) != std::string::npos) return false;
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

// ---- what nvcc rejects in device code, checked where nvcc is not there to say it ----

// A function definition of the file: its name, its body's braces and where it runs.
struct Function {
  std::string name;
  std::size_t name_at, body_begin, body_end;
  bool global, device, host;  // __global__; __device__; callable on the host (no qualifier, or __host__)
};

// Index just past the preprocessor directive starting at i (its '#'), line splices followed.
std::size_t skip_directive(const std::string& s, std::size_t i) {
  for (;;) {
    std::size_t e = s.find('\n', i);
    if (e == std::string::npos) return s.size();
    std::size_t k = e;
    if (k > 0 && s[k - 1] == '\r') --k;
    if (k > 0 && s[k - 1] == '\\') { i = e + 1; continue; }
    return e;
  }
}

// The function definitions at namespace or class scope: a '{' after a parameter list `name(...)`
// (and qualifiers such as `const`), that is not a control statement's. Their specifiers, from the
// end of the previous declaration to the name, say where they run.
std::vector<Function> scan_functions(const Source& src) {
  const std::string& s = src.text;
  std::vector<Function> found;
  std::size_t boundary = 0;  // where the current declaration starts
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::size_t j = skip_non_code(s, i);
    if (j != i) { i = j - 1; continue; }
    const char c = s[i];
    if (c == '#' && directive_start(s, i) == i) {
      i = skip_directive(s, i);
      boundary = i;
      continue;
    }
    if (c == ';' || c == '}') { boundary = i + 1; continue; }
    if (c != '{') continue;
    // back over qualifiers after the parameter list: `) const {`, `) noexcept {`
    std::size_t k = i;
    for (;;) {
      while (k > boundary && std::isspace(static_cast<unsigned char>(s[k - 1]))) --k;
      std::size_t w = k;
      while (w > boundary && is_ident(s[w - 1])) --w;
      const std::string word = s.substr(w, k - w);
      if (word == "const" || word == "noexcept" || word == "override" || word == "final" || word == "volatile") {
        k = w;
        continue;
      }
      break;
    }
    bool is_function = false;
    std::string name;
    std::size_t name_at = 0;
    if (k > boundary && s[k - 1] == ')') {
      int depth = 0;
      std::size_t open = k - 1;
      for (std::size_t m = k; m > boundary;) {
        const char d = s[--m];
        if (d == ')') ++depth;
        else if (d == '(' && --depth == 0) { open = m; break; }
      }
      std::size_t e = open;
      while (e > boundary && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
      std::size_t b = e;
      while (b > boundary && is_ident(s[b - 1])) --b;
      name = s.substr(b, e - b);
      name_at = b;
      static const char* const not_functions[] = {"if", "for", "while", "switch", "catch", "return", "sizeof",
                                                  "decltype", "alignas", "__launch_bounds__", "noexcept"};
      is_function = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
      for (const char* kw : not_functions)
        if (name == kw) is_function = false;
      // a constructor's member initializers, `: a(1), b(2) {`, are no function
      std::size_t q = b;
      while (q > boundary && std::isspace(static_cast<unsigned char>(s[q - 1]))) --q;
      if (q > boundary && (s[q - 1] == ',' || (s[q - 1] == ':' && (q < 2 || s[q - 2] != ':')))) is_function = false;
    }
    if (!is_function) { boundary = i + 1; continue; }
    Function f{name, name_at, i, matching_close(src, i), false, false, false};
    for (std::size_t m = boundary; m < name_at; ++m) {
      const std::size_t n = skip_non_code(s, m);
      if (n != m) { m = n - 1; continue; }
      if (word_at(s, m, "__global__")) f.global = true;
      else if (word_at(s, m, "__device__")) f.device = true;
      else if (word_at(s, m, "__host__")) f.host = true;
    }
    if (!f.global && !f.device) f.host = true;
    found.push_back(f);
    i = f.body_end;  // nested braces (lambdas, local classes) belong to this body
    boundary = i + 1;
  }
  return found;
}

// Runtime calls nvcc refuses in device code (or that need relocatable device code, which the
// workbook does not build: cudaMalloc and cudaFree there fail at link time).
bool host_only_api(const std::string& name) {
  static const char* const apis[] = {
      "cudaMalloc", "cudaFree", "cudaMallocHost", "cudaFreeHost", "cudaMallocManaged", "cudaMemcpy",
      "cudaMemcpyAsync", "cudaMemset", "cudaMemsetAsync", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
      "cudaDeviceSynchronize", "cudaDeviceReset", "cudaSetDevice", "cudaGetDeviceProperties",
      "cudaStreamCreate", "cudaStreamDestroy", "cudaStreamSynchronize", "cudaEventCreate", "cudaEventRecord",
      "cudaEventSynchronize", "cudaEventElapsedTime", "cudaEventDestroy", "cudaMemGetInfo"};
  for (const char* a : apis)
    if (name == a) return true;
  return false;
}

// What nvcc rejects and the host compiler would accept: a call from a __global__ or __device__
// function to a host function of this file or to a host-only runtime call, and a __shared__
// variable outside device code. The first one found fails the rewrite, at its line.
void check_device_code(const Source& src) {
  const std::string& s = src.text;
  std::vector<std::pair<std::size_t, std::string>> errors;
  auto fail = [&errors](const Source&, std::size_t pos, const std::string& what) { errors.emplace_back(pos, what); };
  const std::vector<Function> functions = scan_functions(src);
  std::vector<std::string> host_only;  // host functions with no __device__ function of the same name
  for (const Function& f : functions) {
    if (!f.host || f.device || f.global) continue;
    bool device_too = false;
    for (const Function& g : functions) device_too = device_too || (g.name == f.name && (g.device || g.global));
    if (!device_too) host_only.push_back(f.name);
  }
  for (const Function& f : functions) {
    if (!f.global && !f.device) continue;
    const std::string where = std::string(f.global ? "a __global__" : "a __device__") + " function(\"" + f.name + "\")";
    for (std::size_t i = f.body_begin + 1; i < f.body_end; ++i) {
      const std::size_t j = skip_non_code(s, i);
      if (j != i) { i = j - 1; continue; }
      if (!is_ident(s[i]) || (i > 0 && is_ident(s[i - 1])) || std::isdigit(static_cast<unsigned char>(s[i]))) continue;
      std::size_t e = i;
      while (e < s.size() && is_ident(s[e])) ++e;
      const std::string name = s.substr(i, e - i);
      std::size_t k = e;
      while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
      const bool call = k < s.size() && s[k] == '(';
      const bool member = (i > 0 && s[i - 1] == '.') || (i > 1 && s[i - 1] == '>' && s[i - 2] == '-');
      i = e - 1;
      if (!call || member) continue;
      if (host_only_api(name))
        fail(src, i, "calling a __host__ function(\"" + name + "\") from " + where +
                         " is not allowed: runtime calls that allocate, copy, set memory or synchronize are made on "
                         "the host, before or after the launch");
      for (const std::string& h : host_only)
        if (h == name)
          fail(src, i, "calling a __host__ function(\"" + name + "\") from " + where +
                           " is not allowed: declare it __device__ (or __host__ __device__ to call it from both sides)");
    }
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::size_t j = skip_non_code(s, i);
    if (j != i) { i = j - 1; continue; }
    if (s[i] == '#' && directive_start(s, i) == i) { i = skip_directive(s, i); continue; }
    if (s[i] != '_' || !word_at(s, i, "__shared__")) continue;
    const Function* in = nullptr;
    for (const Function& f : functions)
      if (i > f.body_begin && i < f.body_end) in = &f;
    if (in && (in->global || in->device)) continue;
    if (in)
      fail(src, i, "a __shared__ variable declaration is not allowed inside a host function body (in \"" + in->name +
                       "\"): declare it in the __global__ or __device__ function that uses it");
    else
      fail(src, i, "the CPU backend supports __shared__ variables only inside a __global__ or __device__ function: "
                 "declare it in the kernel that uses it");
  }
  if (errors.empty()) return;
  std::sort(errors.begin(), errors.end());
  for (const auto& e : errors) report(src, e.first, e.second);
  std::exit(1);
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
  check_device_code(src);
  const std::string& s = src.text;
  std::string out = std::string("#include <wb_emu/kernel_prelude.hpp>\n") +
                    (instrument ? "#include <wb_emu/instrument.hpp>\n" : "") + "#line 1 \"" + escape(src.path) + "\"\n";
  std::size_t copied = 0;  // s[copied, i) is pending copy
  std::size_t body_begin = 0, body_end = 0;  // the body of the last instrumented function
  // The last code character seen (comments skipped; ';' at the end of a directive's line) and its
  // position: a declaration starts after ';', '{' or '}', or after `for (`.
  char prev_code = ';';
  std::size_t prev_pos = 0;
  std::vector<Edit> edits;  // made when the loop reaches them, in order
  for (std::size_t i = 0; i < s.size();) {
    if (!edits.empty() && edits.front().pos <= i) {
      if (edits.front().pos == i) {
        out.append(s, copied, i - copied);
        out += edits.front().text;
        copied = i = i + edits.front().erase;
      }
      edits.erase(edits.begin());
      continue;
    }
    std::size_t j = skip_non_code(s, i);
    if (j != i) {
      if (s[i] == '"' || s[i] == '\'') prev_code = '"';
      i = j;
      continue;
    }
    if (s.compare(i, 3, "<<<") == 0) {
      std::size_t start = callee_start(s, i);
      if (start == i) fail(src, i, "'<<<' must follow a kernel name");
      std::size_t next = 0;
      std::string rep = rewrite_launch(src, i, start, next);
      out.append(s, copied, start - copied);
      out += rep;
      copied = i = next;
      prev_code = ')';
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
        prev_code = ';';
        continue;
      }
    }
    if (instrument && s[i] == '_' && (word_at(s, i, "__global__") || word_at(s, i, "__device__"))) {
      std::size_t open = 0, close = 0;
      std::string shadows;
      const bool kernel = s[i + 2] == 'g';
      if (try_rewrite_params(src, i, kernel, rep, shadows, open, close)) {
        out.append(s, copied, open + 1 - copied);
        out += rep;
        copied = i = close;
        // the body, if this is a definition
        std::size_t b = close + 1;
        while (b < s.size() && s[b] != '{' && s[b] != ';') b = skip_non_code(s, b) == b ? b + 1 : skip_non_code(s, b);
        if (b < s.size() && s[b] == '{') {
          body_begin = b;
          body_end = matching_close(src, b);
          if (!shadows.empty()) {  // a kernel's recorded pointers, on the line of its '{'
            out.append(s, copied, b + 1 - copied);
            out += " " + shadows;
            copied = i = b + 1;
            prev_code = '{';
            prev_pos = b;
          }
        }
        continue;
      }
      i += 10;
      prev_code = '_';
      continue;
    }
    if (instrument && i > body_begin && i < body_end && is_ident(s[i]) && (i == 0 || !is_ident(s[i - 1])) &&
        (prev_code == ';' || prev_code == '{' || prev_code == '}' || (prev_code == '(' && after_for(s, prev_pos)))) {
      std::size_t next = 0;
      if (try_rewrite_local_pointer(src, i, prev_code == '(', rep, next, edits)) {
        out.append(s, copied, i - copied);
        out += rep;
        copied = i = next;
        prev_code = 'x';
        continue;
      }
    }
    if (instrument && s[i] == 'r' && word_at(s, i, "reinterpret_cast")) {
      out.append(s, copied, i - copied);
      out += "::wb_emu::instrumented_cast";
      copied = i = i + 16;
      prev_code = 't';
      continue;
    }
    std::size_t begin = 0;
    if (s[i] == '_' && try_rewrite_static_shared(src, i, copied, rep, begin, next)) {
      out.append(s, copied, begin - copied);
      out += rep;
      copied = i = next;
      continue;
    }
    if (s[i] == '\n') {
      std::size_t k = i;
      if (k > 0 && s[k - 1] == '\r') --k;
      if ((k == 0 || s[k - 1] != '\\') && directive_start(s, i) != std::string::npos) prev_code = ';';
    } else if (!std::isspace(static_cast<unsigned char>(s[i]))) {
      prev_code = s[i];
      prev_pos = i;
    }
    ++i;
  }
  out.append(s, copied, std::string::npos);
  std::ofstream o(argv[2], std::ios::binary);
  if (!(o << out)) { std::cerr << "wb-emu-rewrite: cannot write " << argv[2] << "\n"; return 1; }
  return 0;
}
