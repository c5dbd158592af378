#include "engine/sim/sim_iterator.h"

namespace pipescope::sim {

void SimContext::Retire(std::unique_ptr<SimIterator> it) {
  if (!it) return;
  it->Cancel();
  retired.push_back(std::move(it));
}

Task<bool> SimIterator::GetNext(SimThread& thread, SimElement& out, int64_t* input_ns) {
  const int64_t start = now();
  const int64_t input_before = input_ns_;
  const bool got = co_await GetNextInternal(thread, out);
  const int64_t end = now();
  ctx_.trace->Span(got ? record::EventKind::kCall : record::EventKind::kCallEnd, stage_.id, thread,
                   start, end, got ? out.id : 0, SelfTime(start, end, input_before),
                   got ? 0 : record::kFlagEndOfSequence);
  if (input_ns != nullptr) *input_ns += end - start;
  co_return got;
}

Task<int64_t> SimIterator::GetNextRun(SimThread& thread, int64_t max_rows,
                                      std::vector<SimElement>& out, int64_t* input_ns) {
  const int64_t start = now();
  const int64_t input_before = input_ns_;
  const size_t first = out.size();
  const int64_t n = co_await GetNextRunInternal(thread, max_rows, out);
  RecordRunCall(thread, start, input_before, n, out.data() + first, 0, input_ns);
  co_return n;
}

Task<int64_t> SimIterator::GetNextRunTotals(SimThread& thread, int64_t max_rows,
                                            SimRunTotals& totals, int64_t* input_ns) {
  const int64_t start = now();
  const int64_t input_before = input_ns_;
  uint64_t first_id = 0;
  totals_scratch_.clear();
  const int64_t n =
      co_await GetNextRunTotalsInternal(thread, max_rows, totals, totals_scratch_, first_id);
  RecordRunCall(thread, start, input_before, n, totals_scratch_.data(), first_id, input_ns);
  co_return n;
}

void SimIterator::RecordRunCall(SimThread& thread, int64_t start, int64_t input_before, int64_t n,
                                const SimElement* elements, uint64_t first_id, int64_t* input_ns) {
  const int64_t end = now();
  if (input_ns != nullptr) *input_ns += end - start;
  const uint64_t self = SelfTime(start, end, input_before);
  if (n == 0) {
    ctx_.trace->Span(record::EventKind::kCallEnd, stage_.id, thread, start, end, 0, self,
                     record::kFlagEndOfSequence);
  } else if (first_id != 0) {
    ctx_.trace->ConsecutiveRun(record::EventKind::kCall, stage_.id, thread, start, end, first_id,
                               static_cast<uint32_t>(n), self);
  } else {
    ctx_.trace->Run(record::EventKind::kCall, stage_.id, thread, start, end, elements,
                    static_cast<size_t>(n), self);
  }
}

Task<int64_t> SimIterator::GetNextRunTotalsInternal(SimThread& thread, int64_t max_rows,
                                                    SimRunTotals& totals,
                                                    std::vector<SimElement>& elements,
                                                    uint64_t& /*first_id*/) {
  const int64_t n = co_await GetNextRunInternal(thread, max_rows, elements);
  totals.Add(elements.data(), elements.size());
  co_return n;
}

Task<void> SimContext::ChargeHoldingLock(SimThread& thread, int op, int64_t locked_ns,
                                         int64_t free_ns, int64_t wait_ns) {
  SimLock& lock = InterpreterLockOf(thread);
  if (lock.held) {  // another thread runs Python: wait, as the engine records it
    const int64_t start = scheduler->now();
    while (lock.held) co_await lock.released.Wait();
    trace->Span(record::EventKind::kLockWait, op, thread, start, scheduler->now());
  }
  lock.held = true;
  co_await scheduler->Compute(thread, locked_ns, 0);
  lock.held = false;
  lock.released.NotifyAll();
  co_await scheduler->Compute(thread, free_ns, wait_ns);
}

Task<void> SimIterator::ChargeHoldingLock(SimThread& thread, int64_t locked_ns, int64_t free_ns,
                                          int64_t wait_ns) {
  return ctx_.ChargeHoldingLock(thread, stage_.id, locked_ns, free_ns, wait_ns);
}

Task<int64_t> SimIterator::ChargeCalls(SimThread& thread, int64_t calls, bool under_lock,
                                       int64_t locked_ns, int64_t free_ns, int64_t wait_ns) {
  const int64_t bytes = stage_.cost->read_bytes;
  const bool reads = ctx_.storage && bytes > 0 && calls > 0;
  const int64_t parts = reads ? calls : 1;
  int64_t read_ns = 0;
  for (int64_t i = 0; i < parts; ++i) {
    if (reads) {
      const int64_t asked = now();
      const int64_t done =
          ctx_.storage->Serve(asked, bytes, stage_.cost->read_files, ++ctx_.files_read);
      co_await scheduler().Sleep(done - asked);
      read_ns += done - asked;
    }
    // Call i's share, so that the shares add up to the whole.
    const auto share = [i, parts](int64_t ns) { return ns * (i + 1) / parts - ns * i / parts; };
    if (under_lock) {
      co_await ChargeHoldingLock(thread, share(locked_ns), share(free_ns), share(wait_ns));
    } else {
      co_await Charge(thread, share(free_ns), share(wait_ns));
    }
  }
  co_return read_ns;
}

Task<bool> SimIterator::OneOfRun(SimThread& thread, SimElement& out) {
  one_.clear();
  const int64_t n = co_await GetNextRunInternal(thread, 1, one_);
  if (n == 0) co_return false;
  out = one_.front();
  co_return true;
}

Task<int64_t> SimIterator::GetNextRunInternal(SimThread& thread, int64_t /*max_rows*/,
                                              std::vector<SimElement>& out) {
  SimElement e;
  const bool got = co_await GetNextInternal(thread, e);
  if (!got) co_return 0;
  out.push_back(e);
  co_return 1;
}

}  // namespace pipescope::sim
