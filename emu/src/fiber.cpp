// CPU backend: fibers (fiber.hpp) on Boost.Context: stacks with a guard page from the library's
// protected_fixedsize_stack, each fiber made on its stack in place (preallocated) so that a fiber
// abandoned by a faulted block starts afresh on the same stack.
#include "fiber.hpp"

#include <boost/context/preallocated.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <boost/context/stack_traits.hpp>

#include <cstdio>
#include <cstdlib>
#include <new>
#include <utility>

namespace wb_emu::internal {
namespace {
// The stack allocator a fiber is made with: the stack is the Fiber's, unmapped by ~Fiber, so the
// library has nothing to free (it would only when an entry returned, and none does).
struct FiberOwnsStack {
  void deallocate(boost::context::stack_context&) noexcept {}
};
}  // namespace

Fiber::Fiber(Entry entry) : entry_(entry) {
  try {
    stack_ = boost::context::protected_fixedsize_stack(kFiberStackBytes).allocate();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "wb_emu: cannot map a fiber stack\n");
    std::abort();
  }
  // The mapping is [sp - size, sp); its lowest page is the guard (PROT_NONE).
  stack_hi_ = reinterpret_cast<std::uintptr_t>(stack_.sp);
  guard_lo_ = stack_hi_ - stack_.size;
  stack_lo_ = guard_lo_ + boost::context::stack_traits::page_size();
  restart();
}

Fiber::~Fiber() {
  // ctx_ is abandoned, not destroyed (see restart()); then the stack goes.
  boost::context::protected_fixedsize_stack().deallocate(stack_);
}

// (Re)makes the fiber at the top of its stack, discarding whatever it was running.
void Fiber::restart() {
  new (&ctx_) boost::context::fiber(
      std::allocator_arg, boost::context::preallocated(stack_.sp, stack_.size, stack_), FiberOwnsStack{},
      [this](boost::context::fiber&& scheduler) {
        caller_ = std::move(scheduler);
        entry_(this);
        std::abort();  // entry never returns
        return std::move(caller_);
      });
  idle = true;
}
}  // namespace wb_emu::internal
