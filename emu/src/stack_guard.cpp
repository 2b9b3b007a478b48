// CPU backend: a kernel thread that overflows its fiber stack. Each fiber's 256 KiB stack has a
// guard page below it (fiber.hpp), so the overflow ends in a SIGSEGV (SIGBUS on some systems) that
// the backend cannot recover from: the thread's stack is gone. A handler, run on an alternate
// signal stack, explains it first, in the words of the other kernel faults (launch.cpp): the
// kernel, its launch site and configuration, the block and the thread, and what to change (the
// fault's record, written by fault_format.hpp's functions, which allocate nothing: to stderr as
// text, to WB_EMU_FAULTS as JSON, and kept for wb_emu::last_fault()). Then
// the handler installed before it (Catch2's in a grader, or the default) takes the signal, on one
// thread only, and the process ends as it did: by the same signal. Any other fault of a kernel
// thread (an address the system refused) becomes the launch's illegal address, and the process goes
// on; any other signal goes straight on to that handler, as if this one had never been installed.
#include "stack_guard.hpp"

#include "bounds.hpp"
#include "fault_format.hpp"
#include "worker.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <ucontext.h>  // (macOS's needs _XOPEN_SOURCE, and its context is not read here)
#endif

namespace wb_emu::internal {
namespace {
// The handlers installed before ours, for SIGSEGV, SIGBUS and SIGABRT: the signal goes on to them.
struct sigaction previous[3];
int slot(int sig) { return sig == SIGBUS ? 1 : sig == SIGABRT ? 2 : 0; }

// The most recent launch (guard_kernel_stacks()), for the last message of a process that dies of a
// signal outside every kernel thread: the kernel that ran last is the first suspect.
std::atomic<const char*> last_kernel{nullptr}, last_file{nullptr};
std::atomic<int> last_line{0};
std::atomic<bool> last_words_said{false};
char last_words[2048];

// A signal outside every kernel thread, after a launch: the process cannot go on (its memory may be
// corrupt), and before the handler that ends it runs, it says which kernel ran last. With write(2)
// and a fixed buffer only: malloc's lock may be held, its heap broken.
void say_last_words(int sig, const siginfo_t* info) {
  const char* kernel = last_kernel.load();
  if (!kernel || last_words_said.exchange(true)) return;
  const char* file = last_file.load();
  BufferSink out(last_words, sizeof last_words);
  out.put("\nCPU backend: the process got ");
  out.put(sig == SIGABRT ? "SIGABRT (an abort)" : sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
  if (sig != SIGABRT && info->si_code > 0) {
    char a[24];
    std::size_t i = sizeof a;
    for (auto v = reinterpret_cast<std::uintptr_t>(info->si_addr);; v >>= 4) {
      a[--i] = "0123456789abcdef"[v & 15];
      if (v < 16) break;
    }
    out.put(" at 0x");
    out.put(a + i, sizeof a - i);
  }
  out.put(" outside every kernel thread; the last kernel launched was ");
  out.put(kernel);
  out.put(" at ");
  out.put(file && *file ? file : "?");
  out.put(":");
  out.put_int(last_line.load());
  out.put(".\n  A kernel that writes outside its arrays into the host's memory (a host pointer, an index far "
          "from its array) breaks what the grader keeps there: malloc then aborts (\"corrupted ...\") or the next "
          "access faults. The process cannot trust its memory any more and ends here.\n");
  std::size_t left = out.size();
  for (const char* p = last_words; left > 0;) {
    const ssize_t k = write(STDERR_FILENO, p, left);
    if (k <= 0) break;
    p += k;
    left -= static_cast<std::size_t>(k);
  }
}

// SIGABRT (malloc's "corrupted ..." aborts the process): the last words, then the handler before.
void on_abort(int sig, siginfo_t* info, void* context) {
  say_last_words(sig, info);
  sigaction(sig, &previous[slot(sig)], nullptr);
  const struct sigaction& p = previous[slot(sig)];
  if (p.sa_flags & SA_SIGINFO) {
    if (p.sa_sigaction) p.sa_sigaction(sig, info, context);
  } else if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN && p.sa_handler) {
    p.sa_handler(sig);
  }
  // Returning from abort()'s signal, the C library ends the process by SIGABRT's default action.
}
std::mutex install_mutex;

// The alternate signal stack of each thread that runs fibers: the handler's snprintf and whatever
// handler comes after it (Catch2's reports the failure) run there.
constexpr std::size_t kAltStackBytes = 64 * 1024;

std::atomic<bool> reported{false};  // one message, even when several threads overflow at once
std::atomic<bool> printed{false};
char message[16384];      // the fault's text, as printed
char explanation[4096];   // its explanation
char json[32768];         // its line of WB_EMU_FAULTS
FaultView overflow;       // its record (stack_overflow_fault()), once `printed`
char summary[512];  // stack_overflow_summary()

// Every thread's worker state (register_worker), a fixed table the handler can read.
constexpr int kMaxWorkers = 4096;
std::atomic<Worker*> workers[kMaxWorkers];
std::atomic<int> worker_count_seen{0};

// The calling thread's worker state while it runs a fiber, else nullptr. (A thread that ended
// leaves its record, whose `running` is nullptr: a new thread with the same id is told apart.)
const Worker* fiber_worker_of_this_thread() {
  const pthread_t me = pthread_self();
  const int n = worker_count_seen.load() < kMaxWorkers ? worker_count_seen.load() : kMaxWorkers;
  for (int i = 0; i < n; ++i) {
    const Worker* w = workers[i].load();
    if (w && pthread_equal(w->thread, me) && w->running) return w;
  }
  return nullptr;
}

// The stack pointer of the code the signal interrupted, where this system's ucontext is known
// (0 elsewhere: the fault address alone decides).
std::uintptr_t interrupted_sp(const void* context) {
#if defined(__linux__) && defined(__x86_64__)
  return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RSP]);
#elif defined(__linux__) && defined(__aarch64__)
  return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(context)->uc_mcontext.sp);
#else
  (void)context;
  return 0;
#endif
}

// The instruction the signal interrupted (nullptr where this system's ucontext is not known), and
// whether it wrote (1), read (0) or is not known to have done either (-1).
const void* interrupted_pc(const void* context) {
#if defined(__linux__) && defined(__x86_64__)
  return reinterpret_cast<const void*>(static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__linux__) && defined(__aarch64__)
  return reinterpret_cast<const void*>(static_cast<const ucontext_t*>(context)->uc_mcontext.pc);
#else
  (void)context;
  return nullptr;
#endif
}
int interrupted_write(const void* context) {
#if defined(__linux__) && defined(__x86_64__)
  return (static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;  // the page fault's W bit
#else
  (void)context;
  return -1;
#endif
}

// Whether the fault is the running fiber's stack overflow: the fault address is in the guard page
// below its stack (a call, a push, a write near the stack's end), or the stack pointer itself is
// below the stack (a frame larger than the stack moves it past the guard page at once, and its
// first access faults on whatever lies further down).
bool is_stack_overflow(const Worker& w, const siginfo_t* info, const void* context) {
  const Fiber* f = w.running;
  if (!f || !w.g) return false;
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const std::uintptr_t sp = interrupted_sp(context);
  return f->in_guard(addr) || (sp != 0 && sp < f->stack_lo());
}

void report(const Worker& w, int sig) {
  const Grid& g = *w.g;
  const LaunchSite& site = *g.site;
  FaultView& f = overflow;
  f.kind = FaultKind::stack_overflow;
  f.kernel = site.kernel ? site.kernel : "";
  f.launch_file = site.file ? site.file : "";
  f.launch_line = site.line;
  const unsigned grid[3] = {g.grid.x, g.grid.y, g.grid.z}, block_dim[3] = {g.block.x, g.block.y, g.block.z},
                 block[3] = {blockIdx.x, blockIdx.y, blockIdx.z}, thread[3] = {threadIdx.x, threadIdx.y, threadIdx.z};
  for (int i = 0; i < 3; ++i) {
    f.grid[i] = grid[i];
    f.block_dim[i] = block_dim[i];
    f.block[i] = block[i];
    f.thread[i] = thread[i];
  }
  f.has_thread = true;
  f.file = "";  // the line the stack ran out at is not looked up here (it would allocate)
  f.line = 0;
  std::snprintf(
      explanation, sizeof explanation,
      "thread (%u,%u,%u) overflowed its stack: it needed more than the %zu KiB of stack each kernel thread "
      "has on the CPU backend (a large local array, or deep recursion)\n"
      "  A GPU keeps a large local array in local memory (device memory, up to 512 KiB per thread: slow), and "
      "recursion is bounded by its per-thread stack limit (cudaLimitStackSize, see cudaDeviceSetLimit). Keep "
      "per-thread arrays small: data shared by a block belongs in shared memory, large per-thread data in global "
      "memory (cudaMalloc, indexed by thread); make deep recursion a loop.\n"
      "  The CPU backend cannot go on after this: the process ends with %s.",
      threadIdx.x, threadIdx.y, threadIdx.z, kFiberStackBytes / 1024, sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
  f.explanation = explanation;
  f.block_seed = w.block_seed;
  BufferSink text(message, sizeof message);
  write_text(f, text);
  const std::size_t text_bytes = text.size();
  text.put("\n", 1);
  std::snprintf(summary, sizeof summary,
                "thread (%u,%u,%u), block (%u,%u,%u) of %s overflowed its %zu KiB stack: a large local array or "
                "deep recursion",
                threadIdx.x, threadIdx.y, threadIdx.z, blockIdx.x, blockIdx.y, blockIdx.z, site.kernel,
                kFiberStackBytes / 1024);
  std::size_t left = text.size();
  for (const char* p = message; left > 0;) {
    const ssize_t k = write(STDERR_FILENO, p, left);
    if (k <= 0) break;
    p += k;
    left -= static_cast<std::size_t>(k);
  }
  // A line cut short would not be JSON: a text too long for the buffers is left out of the file.
  BufferSink line(json, sizeof json);
  write_json(f, message, text_bytes, line);
  if (!text.overflowed() && !line.overflowed()) append_fault_line(json, line.size());
}

// Signals this handler has passed on: bounds a loop with a handler that takes it for its own
// predecessor and passes the signal back (Catch2 restores its predecessor and raises the signal
// again), which the default action then ends.
std::atomic<int> sent_passes{0}, fault_passes{0};
constexpr int kMaxFaultPasses = 2 * kMaxWorkers;

// Runs the handler installed before this one, here and now (nothing for the default or SIG_IGN).
void call_previous(int sig, siginfo_t* info, void* context) {
  const struct sigaction& p = previous[slot(sig)];
  if (p.sa_flags & SA_SIGINFO) {
    if (p.sa_sigaction) p.sa_sigaction(sig, info, context);
  } else if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN && p.sa_handler) {
    p.sa_handler(sig);
  }
}

void on_fault(int sig, siginfo_t* info, void* context) {
  const bool sent = info->si_code <= 0;  // by kill() or raise(), not by a fault
  if (sent ? sent_passes.fetch_add(1) > 0 : fault_passes.fetch_add(1) > kMaxFaultPasses) {
    signal(sig, SIG_DFL);
    if (sent) raise(sig);
    return;
  }
  const Worker* w = sent ? nullptr : fiber_worker_of_this_thread();
  if (w && is_stack_overflow(*w, info, context)) {
    if (reported.exchange(true)) {
      // Another thread overflowed too: it writes the message and passes its signal on, which ends
      // the process. This one waits; should the process still live after 10 s, the default action
      // ends it.
      for (int i = 0; i < 10000; ++i) {
        const timespec ms{0, 1000 * 1000};
        nanosleep(&ms, nullptr);
      }
      signal(sig, SIG_DFL);
      return;
    }
    report(*w, sig);
    printed = true;
    // The handler that was there before (Catch2's reports the failure) runs on this thread alone:
    // this one stays installed meanwhile, so that other threads that overflow wait above (Catch2's
    // handler, run by two threads at once, can abort). Then the default action: the signal that
    // handler raised again, or the fault repeated, ends the process.
    call_previous(sig, info, context);
    signal(sig, SIG_DFL);
    return;
  }
  // Any other access of a kernel thread that the system refused (memory not mapped: the space after a
  // device allocation, a freed one, a wild pointer): the launch's illegal address, as on a GPU, and
  // the grader goes on. The thread leaves the handler for its block's scheduler, as a kernel fault
  // does, and never comes back; the signal is unblocked first, so that the next one is caught too.
  if (w && w->g && w->current >= 0) {
    fault_passes.fetch_sub(1);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
    illegal_address(*const_cast<Worker*>(w), reinterpret_cast<std::uintptr_t>(info->si_addr),
                    interrupted_write(context), interrupted_pc(context));
  }
  // Not a kernel thread's: the handler that was there before takes the signal, as if this one had
  // never been installed, after the last words (a fault, not a signal sent on purpose).
  if (!sent) say_last_words(sig, info);
  sigaction(sig, &previous[slot(sig)], nullptr);
  if (sent) raise(sig);  // sent again, it reaches that handler when this one returns
  // A fault: returning runs the faulting instruction again, which faults again, into that handler.
}
}  // namespace

void register_worker(Worker* w) {
  const int i = worker_count_seen.fetch_add(1);
  if (i < kMaxWorkers) workers[i].store(w);
}

void alt_stack_for_this_thread() {
  thread_local char* memory = nullptr;  // kept for the thread's life, as its Worker is
  stack_t now{};
  if (sigaltstack(nullptr, &now) == 0 && !(now.ss_flags & SS_DISABLE)) return;  // it has one
  if (!memory) memory = new char[kAltStackBytes];
  stack_t s{};
  s.ss_sp = memory;
  s.ss_size = kAltStackBytes;
  s.ss_flags = 0;
  sigaltstack(&s, nullptr);
}

void guard_kernel_stacks(const LaunchSite& site) {
  last_file = site.file;
  last_line = site.line;
  last_kernel = site.kernel ? site.kernel : "?";
  alt_stack_for_this_thread();
  std::lock_guard<std::mutex> lock(install_mutex);
  for (const int sig : {SIGSEGV, SIGBUS, SIGABRT}) {
    auto* const handler = sig == SIGABRT ? &on_abort : &on_fault;
    struct sigaction now {};
    if (sigaction(sig, nullptr, &now) != 0) continue;
    if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == handler) continue;  // ours already
    previous[slot(sig)] = now;
    struct sigaction ours {};
    ours.sa_sigaction = handler;
    ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&ours.sa_mask);
    sigaction(sig, &ours, nullptr);
  }
}
}  // namespace wb_emu::internal

namespace wb_emu::internal {
bool stack_overflow_fault(Fault* out) {
  if (!printed) return false;
  if (out) *out = fault_of(overflow);  // block_seed included
  return true;
}
}  // namespace wb_emu::internal

namespace wb_emu {
const char* stack_overflow_summary() { return internal::printed ? internal::summary : nullptr; }
}  // namespace wb_emu
