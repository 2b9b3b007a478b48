// CPU backend: fibers, the execution contexts of kernel threads. Each has its own stack (with a
// guard page below it, so a kernel that overflows its stack faults there) and switches to and from
// the scheduler of the worker thread it was made on.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wb_emu::internal {
/// The stack a fiber runs on.
inline constexpr std::size_t kFiberStackBytes = 256 * 1024;

/// One fiber. Made, resumed, suspended and restarted on one worker thread only.
class Fiber {
 public:
  using Entry = void (*)(Fiber*);
  /// A fiber that runs entry(this) when first resumed. `entry` never returns.
  explicit Fiber(Entry entry);
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  /// On the scheduler: runs the fiber until it suspends.
  void resume();
  /// On the fiber: switches back to the scheduler that resumed it.
  void suspend();
  /// On the scheduler, for a suspended fiber: abandons what it was running; the next resume()
  /// starts entry(this) afresh.
  void restart();
  /// Whether address `a` is on this fiber's stack (a kernel thread's own locals).
  bool on_stack(std::uintptr_t a) const {
    return a >= stack_lo_ && a < stack_hi_;
  }

  /// The scheduler's bookkeeping: parked, with no kernel thread to run.
  bool idle = true;

 private:
  static void start(void* self);
  Entry entry_;
  void* sp_ = nullptr;
  std::uintptr_t stack_lo_ = 0, stack_hi_ = 0;  // the mapping, guard page included
};
}  // namespace wb_emu::internal
