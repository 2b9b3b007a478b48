// CPU backend: a kernel thread that overflows its fiber stack explained (stack_guard.cpp).
#pragma once

#include <wb_emu/fault.hpp>
#include <wb_emu/launch.hpp>

namespace wb_emu::internal {
struct Worker;
/// Records a thread's worker state, made on the thread, for the handler: it finds the faulting
/// thread's there, since thread-local storage is not safe to touch in a handler on a thread that
/// never ran kernels (its first access can allocate, in a library loaded at run time).
void register_worker(Worker* w);
/// Called by a launch on the thread that launches: makes sure the SIGSEGV and SIGBUS handler that
/// explains a kernel thread's stack overflow is installed (again, when another one, e.g. Catch2's
/// for each test case, has replaced it since; that one is kept and called after it), and that the
/// thread has an alternate signal stack for it to run on. The same handler, and one for SIGABRT,
/// give a last message when the process dies of a signal outside every kernel thread, naming
/// `site`, the launch most recently started.
void guard_kernel_stacks(const LaunchSite& site);
/// Gives the calling thread an alternate signal stack when it has none: every thread that runs
/// fibers needs one, since a handler cannot run on the stack that overflowed.
void alt_stack_for_this_thread();
/// After a kernel thread overflowed its stack (the process is dying of it): its fault's record,
/// copied to `*out` when not nullptr, and true; false before.
bool stack_overflow_fault(Fault* out);
}  // namespace wb_emu::internal
