#include "engine/device/host_step.h"

#include <algorithm>

#include "engine/work/cpu_work.h"
#include "instrumentation/record/clock.h"

namespace pipescope::engine {
namespace {
// The step's work is done in slices this long, so that a stopped run ends within one.
constexpr int64_t kSliceNs = 1'000'000;
}  // namespace

HostStep::HostStep(int64_t step_time_ns, CancellationToken& cancellation)
    : step_time_ns_(std::max<int64_t>(0, step_time_ns)), cancellation_(cancellation) {}

Status HostStep::Submit(const Element& batch) {
  const int64_t start = record::NowNs();
  for (int64_t done = 0; done < step_time_ns_; done += kSliceNs) {
    if (cancellation_.cancelled()) return Cancelled("run stopped");
    BurnCpuNs(std::min(kSliceNs, step_time_ns_ - done), batch.id + static_cast<uint64_t>(done));
  }
  const int64_t end = record::NowNs();
  busy_ns_ += end - start;
  if (recorder_) {
    recorder_->Record(record::Event{static_cast<uint64_t>(start), static_cast<uint64_t>(end),
                                    batch.id, 0, record::kDeviceOp, record::EventKind::kStep,
                                    record::kFlagTimesInNs});
  }
  return Status::Ok();
}

int64_t HostStep::BusyNs(int64_t) const { return busy_ns_; }

}  // namespace pipescope::engine
