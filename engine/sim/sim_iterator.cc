#include "engine/sim/sim_iterator.h"

namespace pipescope::sim {

void SimContext::Retire(std::unique_ptr<SimIterator> it) {
  if (!it) return;
  it->Cancel();
  retired.push_back(std::move(it));
}

Task<bool> SimIterator::GetNext(SimThread& thread, SimElement& out) {
  const int64_t start = now();
  const int64_t input_before = input_ns_;
  const bool got = co_await GetNextInternal(thread, out);
  const int64_t end = now();
  const int64_t self = asynchronous_ ? 0 : (end - start) - (input_ns_ - input_before);
  ctx_.trace->Span(got ? record::EventKind::kCall : record::EventKind::kCallEnd, stage_.id, thread,
                   start, end, got ? out.id : 0,
                   record::SaturateU32(static_cast<uint64_t>(std::max<int64_t>(0, self))),
                   got ? 0 : record::kFlagEndOfSequence);
  co_return got;
}

Task<bool> SimIterator::Pull(SimIterator& input, SimThread& thread, SimElement& out) {
  const int64_t start = now();
  const bool got = co_await input.GetNext(thread, out);
  input_ns_ += now() - start;
  co_return got;
}

Task<void> SimIterator::Charge(SimThread& thread, int64_t cpu_ns, int64_t wait_ns) {
  co_await scheduler().Compute(thread, cpu_ns);
  co_await scheduler().Sleep(wait_ns);
}

}  // namespace pipescope::sim
