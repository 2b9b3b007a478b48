// CPU backend: fibers (fiber.hpp): a hand-written context switch (x86-64 System V), stacks with a
// guard page.
#include "fiber.hpp"

#include <cstdio>
#include <cstdlib>

#include <sys/mman.h>
#include <unistd.h>

extern "C" void wb_emu_switch(void** save_sp, void* load_sp);
extern "C" void wb_emu_fiber_start();
#if defined(__x86_64__)
// Saves the callee-saved registers and the FP control words on the current stack, stores the
// stack pointer in *save_sp, and resumes the context whose stack pointer is load_sp.
asm(R"(
  .text
  .globl wb_emu_switch
  .hidden wb_emu_switch
  .type wb_emu_switch,@function
wb_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size wb_emu_switch,.-wb_emu_switch

  .globl wb_emu_fiber_start
  .hidden wb_emu_fiber_start
  .type wb_emu_fiber_start,@function
wb_emu_fiber_start:
  movq %r12, %rdi
  andq $-16, %rsp
  callq *%r13
  ud2
  .size wb_emu_fiber_start,.-wb_emu_fiber_start
)");
#else
#error "the CPU backend's fibers need an x86-64 context switch (port wb_emu_switch to this architecture)"
#endif

namespace wb_emu::internal {
namespace {
// The stack pointer of the scheduler of this worker thread, while a fiber runs.
thread_local void* scheduler_sp = nullptr;
}  // namespace

void Fiber::start(void* self) {
  auto* f = static_cast<Fiber*>(self);
  f->entry_(f);
}

Fiber::Fiber(Entry entry) : entry_(entry) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
  const std::size_t mapped = kFiberStackBytes + page;
  void* m = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    std::fprintf(stderr, "wb_emu: cannot map a fiber stack\n");
    std::abort();
  }
  mprotect(m, page, PROT_NONE);  // guard page: a kernel that overflows its stack faults here
  stack_lo_ = reinterpret_cast<std::uintptr_t>(m);
  stack_hi_ = stack_lo_ + mapped;
  restart();
}

// (Re)starts the fiber at start(this), discarding whatever it was running.
void Fiber::restart() {
  auto top = stack_hi_ & ~std::uintptr_t(15);
  void** sp = reinterpret_cast<void**>(top);
  *--sp = nullptr;                                          // alignment slot
  *--sp = reinterpret_cast<void*>(&wb_emu_fiber_start);     // return address of the first switch
  *--sp = nullptr;                                          // rbp
  *--sp = nullptr;                                          // rbx
  *--sp = this;                                             // r12: the argument
  *--sp = reinterpret_cast<void*>(&Fiber::start);           // r13: the entry point
  *--sp = nullptr;                                          // r14
  *--sp = nullptr;                                          // r15
  *--sp = reinterpret_cast<void*>(std::uintptr_t(0x1F80) | (std::uintptr_t(0x037F) << 32));  // mxcsr, x87 cw
  sp_ = sp;
  idle = true;
}

void Fiber::resume() { wb_emu_switch(&scheduler_sp, sp_); }

void Fiber::suspend() { wb_emu_switch(&sp_, scheduler_sp); }
}  // namespace wb_emu::internal
