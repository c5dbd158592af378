#include "engine/work/python_work.h"

#include <cstring>

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

PythonWork::PythonWork(int64_t duration_ns, double gil_share, int64_t output_bytes)
    : locked_iterations_(CpuWorkIterations(static_cast<double>(duration_ns) * gil_share)),
      free_iterations_(CpuWorkIterations(static_cast<double>(duration_ns) * (1 - gil_share))),
      output_bytes_(output_bytes) {}

void PythonWork::Call(uint64_t seed) const {
  volatile uint64_t sink = 0;
  if (locked_iterations_ > 0) {
    std::lock_guard held(InterpreterLock());
    sink = RunCpuWorkLoop(locked_iterations_, seed);
  }
  if (free_iterations_ > 0) sink = RunCpuWorkLoop(free_iterations_, seed + 1);
  (void)sink;
}

// The call's result: a new array, its pages written as numpy's allocation writes them.
void PythonWork::Return(Element& element, int64_t rows) const {
  if (output_bytes_ <= 0) return;
  const Shape shape = rows > 0 ? Shape{rows, output_bytes_} : Shape{output_bytes_};
  Tensor out(DType::kUint8, shape);
  std::memset(out.raw(), static_cast<int>(element.id & 0xFF), out.byte_size());
  element.value = std::move(out);
  element.features.clear();
}

Status PythonWork::Apply(Element& element, CancellationToken&) const {
  Call(element.id);
  Return(element, 0);
  return Status::Ok();
}

Status PythonWork::ApplyBatched(Element& batch, int64_t rows, CancellationToken&) const {
  Call(batch.id);
  Return(batch, rows);
  return Status::Ok();
}

}  // namespace pipescope::engine
