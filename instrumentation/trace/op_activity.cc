#include "instrumentation/trace/op_activity.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <queue>
#include <string>
#include <vector>

namespace pipescope::trace {
namespace {

int64_t Covered(const Model& model, EventKind kind, uint16_t op, int64_t t0, int64_t t1) {
  int64_t ns = 0;
  for (const Track* t : model.TracksOf(kind, op)) ns += t->SumRange(t0, t1).covered_ns;
  return ns;
}

}  // namespace

OpActivity ActivityOf(const Model& model, const record::StageDef& stage, int64_t t0, int64_t t1) {
  OpActivity a;
  a.lock_wait_ns = Covered(model, EventKind::kLockWait, stage.id, t0, t1);
  a.receive_ns = Covered(model, EventKind::kReceive, stage.id, t0, t1);
  if (stage.asynchronous) {
    a.own_ns = Covered(model, EventKind::kWork, stage.id, t0, t1);
    a.input_ns = Covered(model, EventKind::kWaitInput, stage.id, t0, t1);
    a.blocked_ns = Covered(model, EventKind::kBlocked, stage.id, t0, t1);
    a.idle_ns = Covered(model, EventKind::kIdle, stage.id, t0, t1);
    if (stage.Has(record::kTraitWorkerProcesses) || stage.Has(record::kTraitEnqueuerWorkers)) {
      // A start-up that began before t0 and runs into the interval is part of its time (a
      // wait that begins as an epoch's workers start), counted as a start only where it began.
      std::vector<std::pair<int64_t, int64_t>> starting;
      for (const Track* t : model.TracksOf(EventKind::kWork, stage.id)) {
        for (size_t i = t->FirstEndingAfter(t0); i < t->size() && t->start(i) < t1; ++i) {
          if (t->element(i) != 0) continue;
          if (t->start(i) >= t0) ++a.startups;
          starting.emplace_back(std::max(t->start(i), t0), std::min(t->end(i), t1));
          a.startup_ns += starting.back().second - starting.back().first;
        }
      }
      std::sort(starting.begin(), starting.end());
      int64_t covered_to = t0;
      for (const auto& [start, end] : starting) {
        a.startup_covered_ns += std::max<int64_t>(0, end - std::max(start, covered_to));
        covered_to = std::max(covered_to, end);
      }
      a.own_ns = std::max<int64_t>(0, a.own_ns - a.startup_ns);
    }
    return a;
  }
  for (const Track* t : model.TracksOf(EventKind::kCall, stage.id)) {
    const Track::Sums s = t->SumRange(t0, t1);
    if (s.events == 0) continue;
    ++a.call_threads;
    const auto self = static_cast<int64_t>(s.value);
    a.own_ns += self;
    // A source has no input: a run of its calls spans the gaps between them, which are its
    // caller's time (call_runs.h), not waiting.
    if (stage.input >= 0) a.input_ns += std::max<int64_t>(0, s.covered_ns - self);
  }
  return a;
}

int ConcurrentCallThreads(const Model& model, const record::StageDef& stage, int64_t t0,
                          int64_t t1) {
  struct Cursor {
    const Track* track;
    size_t next;
  };
  std::vector<Cursor> cursors;
  for (const Track* t : model.TracksOf(EventKind::kCall, stage.id)) {
    const size_t first = t->FirstEndingAfter(t0);
    if (first < t->size() && t->start(first) < t1) cursors.push_back({t, first});
  }
  if (cursors.size() < 2) return static_cast<int>(cursors.size());
  // The calls of all threads in order of their starts (each thread's are in order and never
  // overlap): their summed length against the length of their union. A heap of the threads
  // by their next call's start: an interleave whose files each run a parallel map of their
  // own has thousands of threads, and a scan of them all for every call made the report of a
  // one-second simulation take 5 s.
  const auto later = [](const Cursor& a, const Cursor& b) {
    return a.track->start(a.next) > b.track->start(b.next);
  };
  std::priority_queue<Cursor, std::vector<Cursor>, decltype(later)> next_call(later,
                                                                              std::move(cursors));
  const int threads = static_cast<int>(next_call.size());
  int64_t summed = 0, joined = 0, union_end = INT64_MIN;
  while (!next_call.empty()) {
    Cursor earliest = next_call.top();
    next_call.pop();
    const int64_t start = std::max(earliest.track->start(earliest.next), t0);
    const int64_t end = std::min(earliest.track->end(earliest.next), t1);
    ++earliest.next;
    if (earliest.next < earliest.track->size() && earliest.track->start(earliest.next) < t1) {
      next_call.push(earliest);
    }
    if (end <= start) continue;
    summed += end - start;
    const int64_t from = std::max(start, union_end);
    if (end > from) joined += end - from;
    union_end = std::max(union_end, end);
  }
  // Calls that overlap for less than a twentieth of their time take turns.
  if (summed * 20 <= joined * 21) return 1;
  // Inside the datasets an asynchronous op opens per element (an interleave's), its workers
  // read them, at most as many at once as it has: a file read on one thread after another
  // (cycle elements opened ahead, replaced as they end) is not more readers.
  if (const record::StageDef* parent = model.ParentOf(stage); parent && parent->asynchronous) {
    const int workers = static_cast<int>(std::lround(AverageParallelism(model, *parent, t0, t1)));
    return std::clamp(workers, 1, threads);
  }
  return threads;
}

double AverageParallelism(const Model& model, const record::StageDef& stage, int64_t t0,
                          int64_t t1) {
  if (!stage.asynchronous || stage.Has(record::kTraitOneProducer)) return 1;
  return model.KnobAverage(stage.id, std::string(ParallelismKnob(stage)), t0, t1,
                           stage.parallelism);
}

std::string_view ParallelismKnob(const record::StageDef& stage) {
  if (stage.Has(record::kTraitEnqueuerWorkers)) return "workers";  // Keras's word
  return stage.Has(record::kTraitWorkerProcesses) ? "num_workers" : "num_parallel_calls";
}

}  // namespace pipescope::trace
