// CPU backend: a kernel fault's record as text and as JSON (fault_format.hpp), and the record's
// public calls (wb_emu::describe, wb_emu::fault_json, wb_emu::fault_kind_name).
#include "fault_format.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

namespace wb_emu {

const char* fault_kind_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::race: return "race";
    case FaultKind::unwritten_read: return "unwritten_read";
    case FaultKind::out_of_bounds: return "out_of_bounds";
    case FaultKind::misaligned: return "misaligned";
    case FaultKind::illegal_address: return "illegal_address";
    case FaultKind::barrier: return "barrier";
    case FaultKind::warp: return "warp";
    case FaultKind::stack_overflow: return "stack_overflow";
    case FaultKind::resources: return "resources";
    case FaultKind::cooperative: return "cooperative";
    case FaultKind::other: return "other";
  }
  return "other";
}

namespace internal {

FaultView view_of(const Fault& f) {
  FaultView v;
  v.kind = f.kind;
  v.kernel = f.kernel.c_str();
  v.launch_file = f.launch_file.c_str();
  v.launch_line = f.launch_line;
  for (int i = 0; i < 3; ++i) {
    v.grid[i] = f.grid[i];
    v.block_dim[i] = f.block_dim[i];
    v.block[i] = f.block[i];
    v.thread[i] = f.thread[i];
  }
  v.has_block = f.has_block;
  v.has_thread = f.has_thread;
  v.file = f.file.c_str();
  v.line = f.line;
  v.explanation = f.explanation.c_str();
  v.block_seed = f.block_seed;
  return v;
}

Fault fault_of(const FaultView& v) {
  Fault f;
  f.kind = v.kind;
  f.kernel = v.kernel;
  f.launch_file = v.launch_file;
  f.launch_line = v.launch_line;
  for (int i = 0; i < 3; ++i) {
    f.grid[i] = v.grid[i];
    f.block_dim[i] = v.block_dim[i];
    f.block[i] = v.block[i];
    f.thread[i] = v.thread[i];
  }
  f.has_block = v.has_block;
  f.has_thread = v.has_thread;
  f.file = v.file;
  f.line = v.line;
  f.explanation = v.explanation;
  f.block_seed = v.block_seed;
  return f;
}

void Sink::put(const char* s) { put(s, std::strlen(s)); }

void Sink::put_uint(unsigned long long v) {
  char b[24];
  std::size_t i = sizeof b;
  do {
    b[--i] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  put(b + i, sizeof b - i);
}

void Sink::put_int(long long v) {
  if (v < 0) {
    put("-", 1);
    put_uint(0ull - static_cast<unsigned long long>(v));
  } else {
    put_uint(static_cast<unsigned long long>(v));
  }
}

BufferSink::BufferSink(char* buffer, std::size_t capacity) : p_(buffer), cap_(capacity) {
  if (cap_) p_[0] = '\0';
}

void BufferSink::put(const char* s, std::size_t n) {
  if (cap_ == 0) {
    overflowed_ = overflowed_ || n > 0;
    return;
  }
  const std::size_t room = cap_ - 1 - n_;
  if (n > room) {
    overflowed_ = true;
    n = room;
  }
  std::memcpy(p_ + n_, s, n);
  n_ += n;
  p_[n_] = '\0';
}

namespace {
class StringSink final : public Sink {
 public:
  using Sink::put;
  void put(const char* s, std::size_t n) override { text.append(s, n); }
  std::string text;
};

void put_triple(Sink& out, const unsigned* v) {
  out.put("(");
  out.put_uint(v[0]);
  out.put(",");
  out.put_uint(v[1]);
  out.put(",");
  out.put_uint(v[2]);
  out.put(")");
}

void put_json_array(Sink& out, const unsigned* v) {
  out.put("[");
  out.put_uint(v[0]);
  out.put(",");
  out.put_uint(v[1]);
  out.put(",");
  out.put_uint(v[2]);
  out.put("]");
}

// The length of the well-formed UTF-8 sequence at s (at most n bytes), 0 when it is not one
// (a stray continuation byte, a truncated, overlong or surrogate sequence, past U+10FFFF).
std::size_t utf8_sequence(const unsigned char* s, std::size_t n) {
  const unsigned c = s[0];
  std::size_t len;
  unsigned lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (len > n || s[1] < lo || s[1] > hi) return 0;
  for (std::size_t i = 2; i < len; ++i)
    if (s[i] < 0x80 || s[i] > 0xBF) return 0;
  return len;
}
}  // namespace

void write_json_string(const char* s, std::size_t n, Sink& out) {
  static const char hexdigits[] = "0123456789abcdef";
  const auto* u = reinterpret_cast<const unsigned char*>(s);
  out.put("\"", 1);
  std::size_t plain = 0;  // the start of the run of bytes copied as they are
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = u[i];
    const char* esc = nullptr;
    char ctl[7] = {'\\', 'u', '0', '0', 0, 0, 0};
    std::size_t skip = 1;
    if (c == '"') {
      esc = "\\\"";
    } else if (c == '\\') {
      esc = "\\\\";
    } else if (c == '\n') {
      esc = "\\n";
    } else if (c == '\t') {
      esc = "\\t";
    } else if (c == '\r') {
      esc = "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      ctl[4] = hexdigits[c >> 4];
      ctl[5] = hexdigits[c & 15];
      esc = ctl;
    } else if (c >= 0x80) {
      const std::size_t len = utf8_sequence(u + i, n - i);
      if (len) {
        i += len;
        continue;
      }
      esc = "\\ufffd";  // not UTF-8: the replacement character
    } else {
      ++i;
      continue;
    }
    out.put(s + plain, i - plain);
    out.put(esc);
    i += skip;
    plain = i;
  }
  out.put(s + plain, n - plain);
  out.put("\"", 1);
}

void write_text(const FaultView& f, Sink& out) {
  out.put(*f.launch_file ? f.launch_file : "?");
  out.put(":");
  out.put_int(f.launch_line);
  out.put(": error: kernel fault in ");
  out.put(f.kernel);
  out.put(", launched here with grid ");
  put_triple(out, f.grid);
  out.put(" and block ");
  put_triple(out, f.block_dim);
  if (f.has_block) {
    out.put("; in block ");
    put_triple(out, f.block);
  }
  out.put(":\n  ");
  out.put(f.explanation);
}

void write_json(const FaultView& f, const char* text, std::size_t text_bytes, Sink& out) {
  auto string = [&out](const char* s) { write_json_string(s, std::strlen(s), out); };
  out.put("{\"kind\":");
  string(fault_kind_name(f.kind));
  out.put(",\"kernel\":");
  string(f.kernel);
  out.put(",\"launch\":{\"file\":");
  string(f.launch_file);
  out.put(",\"line\":");
  out.put_int(f.launch_line);
  out.put("},\"grid\":");
  put_json_array(out, f.grid);
  out.put(",\"block_dim\":");
  put_json_array(out, f.block_dim);
  out.put(",\"block\":");
  if (f.has_block) {
    put_json_array(out, f.block);
  } else {
    out.put("null");
  }
  out.put(",\"block_seed\":");
  out.put_uint(f.block_seed);
  out.put(",\"thread\":");
  if (f.has_thread) {
    put_json_array(out, f.thread);
  } else {
    out.put("null");
  }
  out.put(",\"at\":");
  if (*f.file) {
    out.put("{\"file\":");
    string(f.file);
    out.put(",\"line\":");
    out.put_int(f.line);
    out.put("}");
  } else {
    out.put("null");
  }
  out.put(",\"explanation\":");
  string(f.explanation);
  out.put(",\"text\":");
  write_json_string(text, text_bytes, out);
  out.put("}");
}

void append_fault_line(const char* line, std::size_t n) {
  const char* path = std::getenv("WB_EMU_FAULTS");
  if (!path || !*path) return;
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char newline = '\n';
  iovec parts[2] = {{const_cast<char*>(line), n}, {&newline, 1}};
  const ssize_t want = static_cast<ssize_t>(n + 1);
  ssize_t done = writev(fd, parts, 2);
  // A regular file takes the whole line at once; should a write stop short, the rest follows.
  while (done >= 0 && done < want) {
    const std::size_t at = static_cast<std::size_t>(done);
    const ssize_t k = at < n ? write(fd, line + at, n - at) : write(fd, &newline, 1);
    if (k <= 0) break;
    done += k;
  }
  close(fd);
}

}  // namespace internal

std::string describe(const Fault& fault) {
  internal::StringSink out;
  internal::write_text(internal::view_of(fault), out);
  return std::move(out.text);
}

std::string fault_json(const Fault& fault) {
  const std::string text = describe(fault);
  internal::StringSink out;
  internal::write_json(internal::view_of(fault), text.data(), text.size(), out);
  return std::move(out.text);
}

}  // namespace wb_emu
