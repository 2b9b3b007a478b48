// CPU backend: the worker pool. Its threads start with the first launch of more than one block
// and live for the process; each runs the same job (take blocks from a shared counter) per launch.
#include "pool.hpp"
#include "stack_guard.hpp"

#include <wb_emu/launch.hpp>

#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace wb_emu {
namespace internal {
namespace {
class Pool {
 public:
  explicit Pool(int n) {
    for (int i = 0; i < n; ++i) workers_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int size() const { return static_cast<int>(workers_.size()); }

  /// Runs job(worker) on every worker and waits for all of them.
  void run_on_all(const std::function<void()>& job) {
    std::unique_lock<std::mutex> lock(m_);
    job_ = &job;
    pending_ = size();
    ++generation_;
    cv_.notify_all();
    done_cv_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop() {
    alt_stack_for_this_thread();  // it runs kernel threads' fibers (stack_guard.hpp)
    std::uint64_t seen = 0;
    for (;;) {
      const std::function<void()>* job;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      (*job)();
      {
        std::lock_guard<std::mutex> lock(m_);
        if (--pending_ == 0) done_cv_.notify_all();
      }
    }
  }
  std::vector<std::thread> workers_;
  std::mutex m_;
  std::condition_variable cv_, done_cv_;
  const std::function<void()>* job_ = nullptr;
  int pending_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};

Pool& pool() {
  static Pool p(worker_count());
  return p;
}

}  // namespace

void run_on_all_workers(const std::function<void()>& job) { pool().run_on_all(job); }
}  // namespace internal

int worker_count() {
  static const int n = [] {
    if (const char* env = std::getenv("WB_EMU_THREADS")) {
      int v = std::atoi(env);
      if (v > 0) return v;
    }
    unsigned hc = std::thread::hardware_concurrency();
    return hc ? static_cast<int>(hc) : 1;
  }();
  return n;
}
}  // namespace wb_emu
