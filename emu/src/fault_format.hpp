// CPU backend: a kernel fault's record written out, as text (wb_emu::describe) and as a line of
// JSON (wb_emu::fault_json, WB_EMU_FAULTS), by code that allocates nothing: the stack-overflow
// handler (stack_guard.cpp), which runs in a signal handler, writes its fault with the same
// functions as a launch does, into fixed buffers.
#pragma once

#include <wb_emu/fault.hpp>

#include <cstddef>

namespace wb_emu::internal {

/// A fault's fields as plain pointers (nothing owned): what the writers below read. A Fault gives
/// one (view_of); the stack-overflow handler fills one from its launch's state.
struct FaultView {
  FaultKind kind = FaultKind::other;
  const char* kernel = "";
  const char* launch_file = "";  ///< "" when unknown (the text then says "?")
  int launch_line = 0;
  unsigned grid[3] = {1, 1, 1}, block_dim[3] = {1, 1, 1}, block[3] = {0, 0, 0};
  bool has_block = true;
  bool has_thread = false;
  unsigned thread[3] = {0, 0, 0};
  const char* file = "";  ///< the access's or operation's file, "" when unknown
  int line = 0;
  const char* explanation = "";
  unsigned long long block_seed = 0;  ///< Fault::block_seed
};

/// The view of `f` (valid while `f` lives and is not changed).
FaultView view_of(const Fault& f);
/// The record a view shows (the stack-overflow record, read back once the handler has filled it).
Fault fault_of(const FaultView& v);

/// Where the writers put their bytes.
class Sink {
 public:
  virtual void put(const char* s, std::size_t n) = 0;
  void put(const char* s);
  void put_uint(unsigned long long v);
  void put_int(long long v);

 protected:
  ~Sink() = default;
};

/// A fixed buffer, always NUL-terminated; `overflowed` once something did not fit (the rest is
/// dropped). Allocates nothing: usable in a signal handler.
class BufferSink final : public Sink {
 public:
  BufferSink(char* buffer, std::size_t capacity);
  using Sink::put;
  void put(const char* s, std::size_t n) override;
  std::size_t size() const { return n_; }
  bool overflowed() const { return overflowed_; }

 private:
  char* p_;
  std::size_t cap_, n_ = 0;
  bool overflowed_ = false;
};

/// The fault's text (see wb_emu::describe()).
void write_text(const FaultView& f, Sink& out);
/// The fault as one line of JSON, without its newline; `text` is write_text()'s output.
void write_json(const FaultView& f, const char* text, std::size_t text_bytes, Sink& out);
/// `s` as a JSON string, quotes included.
void write_json_string(const char* s, std::size_t n, Sink& out);

/// Appends `line` and a newline to the file WB_EMU_FAULTS names, with one write() (lines that
/// several processes append do not interleave); nothing when the variable is unset or empty, or the
/// file cannot be opened. Allocates nothing.
void append_fault_line(const char* line, std::size_t n);

}  // namespace wb_emu::internal
