#include "instrumentation/trace/cpu_share.h"

#include <algorithm>

#include "instrumentation/trace/sampled_series.h"

namespace pipescope::trace {

using record::EventKind;

std::map<uint16_t, OpCpu> CpuOfOps(const Model& model, int64_t t0, int64_t t1) {
  std::map<uint32_t, std::map<uint16_t, double>> work;  // thread -> op -> ns
  for (const record::StageDef* stage : model.StagesInOrder()) {
    const EventKind kind = stage->asynchronous ? EventKind::kWork : EventKind::kCall;
    for (const Track* t : model.TracksOf(kind, stage->id)) {
      const Track::Sums s = t->SumRange(t0, t1);
      // A synchronous call's own time is its value; a worker's work is the span.
      const double ns = stage->asynchronous ? static_cast<double>(s.covered_ns) : s.value;
      if (ns > 0) work[t->key().thread][stage->id] += ns;
    }
  }
  std::map<uint16_t, OpCpu> out;
  for (const auto& [thread, ops] : work) {
    const Track* samples = model.FindTrack({EventKind::kCpuTime, record::kNoOp, thread});
    if (!samples) continue;
    const double cpu = AmountIn(*samples, t0, t1);
    double total = 0;
    for (const auto& [op, ns] : ops) total += ns;
    for (const auto& [op, ns] : ops) {
      OpCpu& c = out[op];
      c.cpu_ns += cpu * ns / total;
      c.work_ns += ns;
      ++c.threads;
    }
  }
  return out;
}

double ConsumerCpuNs(const Model& model, int64_t t0, int64_t t1) {
  double cpu = -1;
  for (const Track* waits : model.TracksOf(EventKind::kInputWait, record::kConsumerOp)) {
    const Track* samples =
        model.FindTrack({EventKind::kCpuTime, record::kNoOp, waits->key().thread});
    if (samples) cpu = std::max(cpu, 0.0) + AmountIn(*samples, t0, t1);
  }
  return cpu;
}

}  // namespace pipescope::trace
