// CPU backend: fibers, the execution contexts of kernel threads, on Boost.Context (its `fiber`
// class: the library does the context switch, for x86-64 and arm64, ELF and Mach-O). Each fiber
// has its own stack (with a guard page below it, so a kernel that overflows its stack faults there)
// and switches to and from the scheduler of the worker thread it was made on.
#pragma once

#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <cstdint>

namespace wb_emu::internal {
/// The stack a fiber runs on (the guard page comes on top of it).
inline constexpr std::size_t kFiberStackBytes = 256 * 1024;

/// One fiber. Made, resumed, suspended and restarted on one worker thread only.
class Fiber {
 public:
  using Entry = void (*)(Fiber*);
  /// A fiber that runs entry(this) when first resumed. `entry` never returns.
  explicit Fiber(Entry entry);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  /// On the scheduler: runs the fiber until it suspends.
  void resume() { ctx_ = std::move(ctx_).resume(); }
  /// On the fiber: switches back to the scheduler that resumed it.
  void suspend() { caller_ = std::move(caller_).resume(); }
  /// On the scheduler, for a suspended fiber: abandons what it was running; the next resume()
  /// starts entry(this) afresh.
  void restart();
  /// Whether address `a` is on this fiber's stack (a kernel thread's own locals).
  bool on_stack(std::uintptr_t a) const {
    return a >= stack_lo_ && a < stack_hi_;
  }
  /// Whether address `a` is in the guard page below the stack.
  bool in_guard(std::uintptr_t a) const { return a >= guard_lo_ && a < stack_lo_; }
  /// The lowest address of the stack proper (the guard page ends there).
  std::uintptr_t stack_lo() const { return stack_lo_; }

  /// The scheduler's bookkeeping: parked, with no kernel thread to run.
  bool idle = true;

 private:
  Entry entry_;
  boost::context::stack_context stack_;  // the mapping, guard page included
  std::uintptr_t guard_lo_ = 0, stack_lo_ = 0, stack_hi_ = 0;  // guard [guard_lo_, stack_lo_), stack up to stack_hi_
  // The fiber while it is suspended (empty while it runs). In a union so that restart() can
  // abandon it without its destructor, which would unwind the kernel thread's stack by throwing
  // through the kernel's code.
  union {
    boost::context::fiber ctx_;
  };
  boost::context::fiber caller_;  // while the fiber runs: the scheduler that resumed it
};
}  // namespace wb_emu::internal
