#include "engine/work/python_work.h"

#include "engine/work/cpu_work.h"

namespace pipescope::engine {
namespace {

PythonProcess& MainProcess() {
  static PythonProcess main;
  return main;
}

thread_local PythonProcess* current_process = nullptr;  // null: the main process
// Where the calling thread's lock waits go (LockWaitsRecordedAs); null: nowhere.
thread_local record::Recorder* lock_wait_recorder = nullptr;
thread_local uint16_t lock_wait_op = record::kNoOp;

}  // namespace

PythonProcess& CurrentPythonProcess() { return current_process ? *current_process : MainProcess(); }

std::mutex& InterpreterLock() { return CurrentPythonProcess().interpreter_lock(); }

PythonProcessScope::PythonProcessScope(PythonProcess& process) : previous_(current_process) {
  current_process = &process;
}

PythonProcessScope::~PythonProcessScope() { current_process = previous_; }

LockWaitsRecordedAs::LockWaitsRecordedAs(record::Recorder* recorder, uint16_t op)
    : previous_recorder_(lock_wait_recorder), previous_op_(lock_wait_op) {
  lock_wait_recorder = recorder;
  lock_wait_op = op;
}

LockWaitsRecordedAs::~LockWaitsRecordedAs() {
  lock_wait_recorder = previous_recorder_;
  lock_wait_op = previous_op_;
}

std::unique_lock<std::mutex> TakeInterpreterLock() {
  std::unique_lock held(InterpreterLock(), std::try_to_lock);
  if (held.owns_lock()) return held;
  if (lock_wait_recorder == nullptr) {
    held.lock();
    return held;
  }
  const uint64_t start = record::Ticks();
  held.lock();
  lock_wait_recorder->RecordSpan(record::EventKind::kLockWait, lock_wait_op, start,
                                 record::Ticks());
  return held;
}

PythonWork::PythonWork(int64_t duration_ns, double gil_share, int64_t wait_ns, CallFileRead read,
                       StorageDevicePtr storage)
    : locked_iterations_(CpuWorkIterations(static_cast<double>(duration_ns) * gil_share)),
      free_iterations_(CpuWorkIterations(static_cast<double>(duration_ns) * (1 - gil_share))),
      wait_ns_(wait_ns),
      read_(read),
      storage_(std::move(storage)) {}

bool PythonWork::Call(uint64_t seed, CancellationToken& cancellation) const {
  // The call's files first (each call files of its own: a sample's image), read with the
  // lock released, as a blocked read() holds nothing.
  if (storage_ && read_.bytes > 0 &&
      !storage_->Read(read_.bytes, read_.files, seed, cancellation)) {
    return false;
  }
  volatile uint64_t sink = 0;
  if (locked_iterations_ > 0) {
    const std::unique_lock held = TakeInterpreterLock();
    sink = RunCpuWorkLoop(locked_iterations_, seed);
  }
  if (free_iterations_ > 0) sink = RunCpuWorkLoop(free_iterations_, seed + 1);
  (void)sink;
  // time.sleep and blocking reads release the lock: the wait holds nothing.
  return wait_ns_ <= 0 || cancellation.SleepFor(wait_ns_);
}

Status PythonWork::Apply(Element& element, CancellationToken& cancellation) const {
  return Call(element.id, cancellation) ? Status::Ok() : Cancelled();
}

Status PythonWork::ApplyBatched(Element& batch, int64_t /*rows*/,
                                CancellationToken& cancellation) const {
  return Call(batch.id, cancellation) ? Status::Ok() : Cancelled();
}

}  // namespace pipescope::engine
