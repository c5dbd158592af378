#include "instrumentation/trace/wait_pattern.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace pipescope::trace {

WaitPattern WaitPatternOf(const Model& model, int64_t t0, int64_t t1) {
  std::vector<int64_t> lengths;
  for (const Track* t : model.TracksOf(record::EventKind::kInputWait, record::kConsumerOp)) {
    const size_t first = t->FirstStartingAtOrAfter(t0);
    const size_t last = t->FirstStartingAtOrAfter(t1, first);
    for (size_t i = first; i < last; ++i) {
      if (t->element(i) != 0) lengths.push_back(t->duration(i));  // the end of the data: none
    }
  }
  WaitPattern p;
  p.waits = static_cast<int64_t>(lengths.size());
  if (lengths.empty()) return p;
  const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  if (longest <= 0) return p;
  std::vector<int64_t> longs;
  int64_t all = 0, in_long = 0;
  for (const int64_t ns : lengths) {
    all += ns;
    if (2 * ns < longest) continue;
    longs.push_back(ns);
    in_long += ns;
  }
  std::nth_element(longs.begin(), longs.begin() + static_cast<std::ptrdiff_t>(longs.size() / 2),
                   longs.end());
  p.long_waits = static_cast<int64_t>(longs.size());
  p.long_wait_ns = longs[longs.size() / 2];
  p.long_share = static_cast<double>(in_long) / static_cast<double>(all);
  return p;
}

int64_t LongWaitEvery(const WaitPattern& p) {
  // A handful of long waits is no pattern (a run's first batches).
  if (p.long_waits < 3 || p.long_share < kLongWaitsShare) return 0;
  const double every = static_cast<double>(p.waits) / static_cast<double>(p.long_waits);
  const int64_t n = std::lround(every);
  // The range's ends cut a group: a count of waits between long ones within a tenth of a
  // whole number is that number.
  if (n < 2 || std::abs(every - static_cast<double>(n)) > 0.1 * static_cast<double>(n)) return 0;
  return n;
}

}  // namespace pipescope::trace
