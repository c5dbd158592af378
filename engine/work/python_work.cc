#include "engine/work/python_work.h"

#include "engine/work/cpu_work.h"

namespace pipescope::engine {
namespace {

PythonProcess& MainProcess() {
  static PythonProcess main;
  return main;
}

thread_local PythonProcess* current_process = nullptr;  // null: the main process

}  // namespace

PythonProcess& CurrentPythonProcess() { return current_process ? *current_process : MainProcess(); }

std::mutex& InterpreterLock() { return CurrentPythonProcess().interpreter_lock(); }

PythonProcessScope::PythonProcessScope(PythonProcess& process) : previous_(current_process) {
  current_process = &process;
}

PythonProcessScope::~PythonProcessScope() { current_process = previous_; }

PythonWork::PythonWork(int64_t duration_ns, double gil_share)
    : locked_iterations_(CpuWorkIterations(static_cast<double>(duration_ns) * gil_share)),
      free_iterations_(CpuWorkIterations(static_cast<double>(duration_ns) * (1 - gil_share))) {}

void PythonWork::Call(uint64_t seed) const {
  volatile uint64_t sink = 0;
  if (locked_iterations_ > 0) {
    std::lock_guard held(InterpreterLock());
    sink = RunCpuWorkLoop(locked_iterations_, seed);
  }
  if (free_iterations_ > 0) sink = RunCpuWorkLoop(free_iterations_, seed + 1);
  (void)sink;
}

Status PythonWork::Apply(Element& element, CancellationToken&) const {
  Call(element.id);
  return Status::Ok();
}

Status PythonWork::ApplyBatched(Element& batch, int64_t, CancellationToken&) const {
  Call(batch.id);
  return Status::Ok();
}

}  // namespace pipescope::engine
