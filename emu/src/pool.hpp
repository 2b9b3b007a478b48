// CPU backend: the worker threads that run a grid's blocks (as many as cores, or WB_EMU_THREADS).
#pragma once

#include <functional>

namespace wb_emu::internal {
/// Runs `job` on every worker thread of the process-wide pool and returns when all have finished.
void run_on_all_workers(const std::function<void()>& job);
}  // namespace wb_emu::internal
