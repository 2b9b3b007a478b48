// wb-emu-rewrite: turns a CUDA source file into C++ the host compiler accepts, for the CPU backend.
//
//   wb-emu-rewrite [--instrument] <input.cu> <output.cpp>
//
// These rewrites, everything else is copied byte for byte:
//   kernel<<<grid, block[, shmem[, stream]]>>>(args)
//     -> ::wb_emu::make_launch([&](auto&... wb_a) WB_EMU_NOT_INSTRUMENTED { kernel(wb_a...); }, "kernel",
//                              __FILE__, __LINE__,
//                              grid, block[, shmem[, stream]])(args)
//        (the kernel called as written: a template's arguments deduced, a qualified name, a pointer,
//        `table[i]`, `s.k`, `p->k`, `(*fp)`; in a #define's body too, its line splices kept)
//   __shared__ T a[dims], b;     (the words in any order, `static`, `volatile`, alignas/__align__)
//     -> auto& a = ::wb_emu::static_shared<T [dims]>([]{}, "a"); auto& b = ...
//        (per-block storage; the lambda's unique type keys the declaration)
//   extern __shared__ T name[];
//     -> auto* const name = ::wb_emu::dynamic_shared_named<T>("name");
//   (at namespace scope: a #define of the name, on a line of its own, and a #line after it)
//   __constant__ T name[dims];  (also `__device__` variables, scalars, initializers, several names)
//     -> the declaration as written, then on the same line, for each name:
//        static const bool wb_emu_symbol_name = ::wb_emu::register_symbol(&name, sizeof(name), "name", ...);
//        (cudaMemcpyToSymbol & co. accept only registered variables; `extern` and templates are left alone)
// Newlines inside a rewritten span are kept, and the output starts with a `#line 1 "<input>"`
// after the prelude include, so compiler errors and __LINE__ point at the learner's file.
// Comments, string and character literals are skipped, so `<<<` inside them is left alone.
// A __shared__ declaration it cannot read stops the rewrite with a message at its line; one it
// never sees (in a header, a macro's body) does not compile (emu/include/wb_emu/builtins.hpp).
//
// Before rewriting, what nvcc rejects in device code is an error at its line (check_device_code):
// a call from a __global__ or __device__ function to a host function of the file or to a host-only
// runtime call, and a __shared__ variable in a host function.
//
// --instrument (a file the build compiles with the compiler's access instrumentation, see
// emu/include/wb_emu/instrument.hpp) changes nothing in the code: launches become
// ::wb_emu::make_instrumented_launch(...), whose kernels report their accesses, and the file
// includes wb_emu/instrument.hpp.
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
  // Not instrumented: copying the arguments into the kernel's parameters is no access of the kernel's.
  const std::string kernel = "[&](auto&... wb_a) WB_EMU_NOT_INSTRUMENTED { " + c + "(wb_a...); }";
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


// ---- `__shared__` declarations ----

// `s[b, e)` split at its top-level commas (outside (), [], {} and template arguments).
std::vector<std::pair<std::size_t, std::size_t>> split_declarators(const std::string& s, std::size_t b, std::size_t e) {
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  int depth = 0, angle = 0;
  std::size_t start = b;
  for (std::size_t i = b; i < e; ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    else if (depth == 0 && c == '<') ++angle;
    else if (depth == 0 && c == '>' && angle > 0) --angle;
    else if (depth == 0 && angle == 0 && c == ',') {
      parts.emplace_back(start, i);
      start = i + 1;
    }
  }
  parts.emplace_back(start, e);
  return parts;
}

// `text` without the words (and their parenthesized arguments) that say where a shared variable
// lives or how it is aligned: __shared__, static, extern, alignas(N), __align__(N), __attribute__((...)).
// The arena aligns every declaration to its type, and to at least 16 bytes.
std::string strip_storage(const std::string& text, bool* is_extern) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (is_ident(text[i]) && (i == 0 || !is_ident(text[i - 1]))) {
      std::size_t e = i;
      while (e < text.size() && is_ident(text[e])) ++e;
      const std::string w = text.substr(i, e - i);
      if (w == "__shared__" || w == "static" || w == "extern") {
        if (w == "extern") *is_extern = true;
        i = e;
        continue;
      }
      if (w == "alignas" || w == "__align__" || w == "__attribute__") {
        std::size_t k = e;
        while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
        if (k < text.size() && text[k] == '(') {
          int depth = 0;
          for (; k < text.size(); ++k) {
            if (text[k] == '(') ++depth;
            else if (text[k] == ')' && --depth == 0) break;
          }
          i = k + 1;
          continue;
        }
      }
      out += w;
      i = e;
      continue;
    }
    out += text[i++];
  }
  return out;
}

// One declarator of a shared declaration: its type (what comes before its name, pointer and
// reference marks included), its name and its array dimensions ("[32][33]", "" for a scalar).
struct SharedDeclarator {
  std::string type, name, dims;
};

// Reads `text` (one declarator, with the declaration's type before it for the first one) as
// `<type> <name><dims>`; false when it is not one.
bool read_declarator(const std::string& text, SharedDeclarator* d) {
  std::size_t dims_at = text.size();
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(' || text[i] == '<') ++depth;
    else if (text[i] == ')' || text[i] == '>') --depth;
    else if (text[i] == '[' && depth == 0) { dims_at = i; break; }
  }
  std::size_t name_end = dims_at;
  while (name_end > 0 && std::isspace(static_cast<unsigned char>(text[name_end - 1]))) --name_end;
  std::size_t name_begin = name_end;
  while (name_begin > 0 && is_ident(text[name_begin - 1])) --name_begin;
  if (name_begin == name_end || std::isdigit(static_cast<unsigned char>(text[name_begin]))) return false;
  d->name = text.substr(name_begin, name_end - name_begin);
  d->type.clear();  // the type's words, one space between them (the storage class words are gone)
  for (char c : trim(one_line(text.substr(0, name_begin))))
    if (!(std::isspace(static_cast<unsigned char>(c)) && !d->type.empty() && d->type.back() == ' '))
      d->type += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
  d->dims = trim(one_line(text.substr(dims_at)));
  return true;
}

// The base type of a declaration (its first declarator's type without the pointer and reference
// marks that belong to that declarator): what a later declarator (`, *p`, `, b[4]`) adds its own to.
std::string base_type(const std::string& type) {
  std::string t = type;
  while (!t.empty() && (t.back() == '*' || t.back() == '&' || std::isspace(static_cast<unsigned char>(t.back()))))
    t.pop_back();
  return t;
}

// A declaration with `__shared__` at position p, of the statement that starts at `begin` and ends
// at its ';' (`semi`): `[static] [volatile] __shared__ [alignas(N)] T a[dims], b, *c;`, the words in
// any order (`float __shared__ x[4];`), and `extern __shared__ T name[];`. Each declarator becomes
// its block's storage; in a function body
//   __shared__ T a[dims];        -> auto& a = ::wb_emu::static_shared<T [dims]>([]{}, "a");
//   extern __shared__ T name[];  -> auto* const name = ::wb_emu::dynamic_shared_named<T>("name");
// (the lambda's type, unique to the declaration and to each instantiation of a template, keys its
// storage); at namespace scope, where no reference can be bound per block, a macro of the name on
// a line of its own, `#define a (::wb_emu::static_shared<T [dims]>(wb_emu_shared_tag_a{}, "a"))`,
// then a #line directive that puts the lines after it back in place. A declaration it cannot read
// fails the rewrite with a message at its line: never a variable of each thread.
std::string rewrite_shared(const Source& src, std::size_t p, std::size_t begin, std::size_t semi, bool in_function) {
  const std::string& s = src.text;
  std::string stmt = s.substr(begin, semi - begin);
  std::vector<SharedDeclarator> decls;
  bool is_extern = false;
  const auto parts = split_declarators(s, begin, semi);
  for (std::size_t k = 0; k < parts.size(); ++k) {
    std::string text = s.substr(parts[k].first, parts[k].second - parts[k].first);
    {
      int depth = 0;
      for (char c : text) {
        if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
        else if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
        else if (c == '=' && depth == 0)
          fail(src, p, "a __shared__ variable cannot have an initializer: assign it in the kernel, then __syncthreads()");
      }
    }
    // the words that only say where it lives go, wherever they are written
    text = strip_storage(text, &is_extern);
    SharedDeclarator d;
    if (k == 0) {
      if (!read_declarator(text, &d) || squeeze(d.type).empty())
        fail(src, p, "cannot read this __shared__ declaration: write `__shared__ T name[N];`");
    } else {
      if (!read_declarator(text, &d) || decls.empty())
        fail(src, p, "cannot read this __shared__ declaration: write `__shared__ T name[N];`");
      d.type = base_type(decls.front().type) + (d.type.empty() ? "" : " " + d.type);
    }
    decls.push_back(d);
  }
  if (is_extern)
    for (const SharedDeclarator& d : decls)
      if (squeeze(d.dims) != "[]")
        fail(src, p, "extern __shared__ must declare an unsized array, e.g. extern __shared__ float smem[];");
  auto storage = [&](const SharedDeclarator& d, const std::string& key) {
    if (is_extern) return "::wb_emu::dynamic_shared_named<" + d.type + ">(\"" + d.name + "\")";
    return "::wb_emu::static_shared<" + d.type + " " + d.dims + ">(" + key + ", \"" + d.name + "\")";
  };
  std::string out;
  if (in_function) {
    for (std::size_t k = 0; k < decls.size(); ++k) {
      const SharedDeclarator& d = decls[k];
      out += (k ? "; " : "") + std::string(is_extern ? "auto* const " : "auto& ") + d.name + " = " + storage(d, "[]{}");
    }
    return out + newlines_in(stmt);
  }
  int line = 1;
  for (std::size_t i = 0; i < semi; ++i) line += s[i] == '\n';
  for (const SharedDeclarator& d : decls) {
    const std::string tag = "wb_emu_shared_tag_" + d.name;
    if (!is_extern) out += "struct " + tag + " {}; ";
    out += "\n#define " + d.name + " (" + storage(d, tag + "{}") + ")";
  }
  return out + "\n#line " + std::to_string(line) + " \"" + escape(src.path) + "\"\n";
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
      // `cg::reduce(...)`, `std::min(...)`: another namespace's function, not the file's host one
      const bool qualified = i > 1 && s[i - 1] == ':' && s[i - 2] == ':';
      i = e - 1;
      if (!call || member || qualified) continue;
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
  }
  if (errors.empty()) return;
  std::sort(errors.begin(), errors.end());
  for (const auto& e : errors) report(src, e.first, e.second);
  std::exit(1);
}

// ---- headers ----
// A file's `#include "name"` that names a file beside it is rewritten too (its device code, its
// __shared__ declarations and launches are the program's as much as the .cu file's): into a copy
// under the output's header folder, named after its path, which the directive then names instead.
struct Rewrite {
  std::string header_dir;                 // where rewritten headers go ("" : headers are not followed)
  std::vector<std::string> read;          // every header read, for the depfile
  std::vector<std::string> done;          // headers already rewritten (their copies' paths)
};

std::string rewrite_source(const Source& src, Rewrite& rw);

std::string dir_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// `path` with `.` and `..` parts resolved (no file system look-up).
std::string normal_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i <= path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    const std::string part = path.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") parts.pop_back();
      else parts.push_back(part);
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out = !path.empty() && path[0] == '/' ? "/" : "";
  for (std::size_t k = 0; k < parts.size(); ++k) out += (k ? "/" : "") + parts[k];
  return out;
}

// The copy of header `path`, rewritten (once per run); "" when it cannot be read.
std::string rewritten_header(const std::string& path, Rewrite& rw) {
  std::string name = "h";
  for (char c : path) name += is_ident(c) || c == '.' || c == '-' ? c : '_';
  const std::string copy = rw.header_dir + "/" + name;
  for (const std::string& d : rw.done)
    if (d == copy) return copy;
  Source header;
  header.path = path;
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream ss;
  ss << in.rdbuf();
  header.text = ss.str();
  rw.read.push_back(path);
  rw.done.push_back(copy);
  const std::string text = "#line 1 \"" + escape(path) + "\"\n" + rewrite_source(header, rw);
  std::ofstream o(copy, std::ios::binary);
  if (!(o << text)) {
    std::cerr << "wb-emu-rewrite: cannot write " << copy << "\n";
    std::exit(1);
  }
  return copy;
}

// The quoted name of the `#include "..."` directive at position i (its '#'), and where it lies.
bool quoted_include(const std::string& s, std::size_t i, std::size_t* open, std::size_t* close) {
  std::size_t k = i + 1;
  while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
  if (s.compare(k, 7, "include") != 0) return false;
  k += 7;
  while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
  if (k >= s.size() || s[k] != '"') return false;
  const std::size_t e = s.find('"', k + 1);
  if (e == std::string::npos || s.find('\n', k) < e) return false;
  *open = k;
  *close = e;
  return true;
}

std::string rewrite_source(const Source& src, Rewrite& rw) {
  check_device_code(src);
  const std::string& s = src.text;
  std::string out;
  std::size_t copied = 0;  // s[copied, i) is pending copy
  // Where the current statement or declaration begins: after the last ';', '{' or '}' (or a
  // directive's line), and the function bodies, to tell a __shared__ in one from one at namespace scope.
  std::size_t stmt_begin = 0;
  const std::vector<Function> functions = scan_functions(src);
  auto in_function = [&functions](std::size_t pos) {
    for (const Function& f : functions)
      if (pos > f.body_begin && pos < f.body_end) return true;
    return false;
  };
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = skip_non_code(s, i);
    if (j != i) {
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
      continue;
    }
    std::string rep;
    std::size_t next = 0;
    if (s[i] == '_' && (word_at(s, i, "__constant__") || word_at(s, i, "__device__")) && !in_function(i)) {
      const bool constant = s[i + 2] == 'c';
      if (try_register_symbol(src, i, constant ? 12 : 10, constant ? "__constant__" : "__device__", rep, next)) {
        out.append(s, copied, i - copied);
        out += rep;
        copied = i = next;
        stmt_begin = i;
        continue;
      }
    }
    // A __shared__ declaration (not in a #define's body: the macro is left as written, and a
    // __shared__ it expands to does not compile, see builtins.hpp).
    if (s[i] == '_' && word_at(s, i, "__shared__") && directive_start(s, i) == std::string::npos) {
      std::size_t semi = i;
      int depth = 0;
      for (; semi < s.size(); ++semi) {
        const std::size_t k = skip_non_code(s, semi);
        if (k != semi) { semi = k - 1; continue; }
        const char c = s[semi];
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if (c == ')' || c == ']' || c == '}') { if (--depth < 0) break; }
        else if (c == ';' && depth == 0) break;
      }
      if (semi >= s.size() || s[semi] != ';') fail(src, i, "__shared__ declaration without ';'");
      std::size_t begin = stmt_begin < copied ? copied : stmt_begin;
      for (;;) {  // the declaration starts after the whitespace and comments before it
        while (begin < i && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
        const std::size_t after = skip_non_code(s, begin);
        if (after == begin || after > i) break;
        begin = after;
      }
      out.append(s, copied, begin - copied);
      out += rewrite_shared(src, i, begin, semi, in_function(i));
      copied = i = semi;  // the ';' is kept
      continue;
    }
    if (s[i] == '#' && !rw.header_dir.empty() && directive_start(s, i) == i) {
      std::size_t open = 0, close = 0;
      if (quoted_include(s, i, &open, &close)) {
        const std::string name = s.substr(open + 1, close - open - 1);
        const std::string path = normal_path(name[0] == '/' ? name : dir_of(src.path) + "/" + name);
        if (std::ifstream(path).good()) {
          const std::string copy = rewritten_header(path, rw);
          if (!copy.empty()) {
            out.append(s, copied, open + 1 - copied);
            out += escape(copy);
            copied = close;  // the closing quote is copied
            i = close + 1;
            continue;
          }
        }
      }
    }
    const char c = s[i];
    if (c == ';' || c == '{' || c == '}') stmt_begin = i + 1;
    if (c == '\n') {
      std::size_t k = i;
      if (k > 0 && s[k - 1] == '\r') --k;
      if ((k == 0 || s[k - 1] != '\\') && directive_start(s, i) != std::string::npos) stmt_begin = i + 1;
    }
    ++i;
  }
  out.append(s, copied, std::string::npos);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  Rewrite rw;
  std::string depfile;
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg == "--instrument") instrument = true;
    else if (arg == "--headers" && k + 1 < argc) rw.header_dir = argv[++k];
    else if (arg == "--depfile" && k + 1 < argc) depfile = argv[++k];
    else args.push_back(arg);
  }
  if (args.size() != 2) {
    std::cerr << "usage: wb-emu-rewrite [--instrument] [--headers <dir> [--depfile <file>]] <input.cu> <output.cpp>\n"
                 "  --instrument  launches report their kernels' accesses (the file is compiled instrumented)\n"
                 "  --headers     also rewrite the headers the file includes with #include \"...\" from beside it,\n"
                 "                into <dir>; --depfile lists them for the build\n";
    return 2;
  }
  Source src;
  src.path = args[0];
  {
    std::ifstream in(src.path, std::ios::binary);
    if (!in) { std::cerr << "wb-emu-rewrite: cannot read " << src.path << "\n"; return 1; }
    std::ostringstream ss;
    ss << in.rdbuf();
    src.text = ss.str();
  }
  const std::string out = std::string("#include <wb_emu/kernel_prelude.hpp>\n") +
                          (instrument ? "#include <wb_emu/instrument.hpp>\n" : "") + "#line 1 \"" +
                          escape(src.path) + "\"\n" + rewrite_source(src, rw);
  std::ofstream o(args[1], std::ios::binary);
  if (!(o << out)) { std::cerr << "wb-emu-rewrite: cannot write " << args[1] << "\n"; return 1; }
  if (!depfile.empty()) {
    std::ofstream d(depfile, std::ios::binary);
    d << args[1] << ":";
    for (const std::string& h : rw.read) d << " " << h;
    d << "\n";
  }
  return 0;
}
