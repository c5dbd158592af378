#include "instrumentation/trace/span_statistics.h"

#include <algorithm>
#include <set>

namespace pipescope::trace {

SpanStatistics SummarizeSpans(const Model& model, int64_t t0, int64_t t1) {
  SpanStatistics s;
  if (t1 <= t0) t1 = model.duration_ns() + 1;
  std::vector<NameTotals> by_label(model.labels().size());
  std::set<uint32_t> streams;
  for (const auto& track : model.tracks()) {
    const TrackKey& key = track->key();
    const bool device = record::IsGpuActivity(key.kind);
    // The spans as the profiler wrote them: on their threads (kCall) and device streams.
    // Steps and input waits are copies of thread spans; counters are not spans.
    if (key.kind != EventKind::kCall && !device) continue;
    const size_t first = track->FirstStartingAtOrAfter(t0);
    const size_t last = track->FirstStartingAtOrAfter(t1);
    if (first >= last) continue;
    s.max_depth = std::max<int>(s.max_depth, key.depth);
    if (device) {
      streams.insert(key.thread);
      s.device_spans += static_cast<int64_t>(last - first);
    }
    s.spans += static_cast<int64_t>(last - first);
    for (size_t i = first; i < last; ++i) {
      NameTotals& n = by_label[track->label(i)];
      ++n.count;
      n.total_ns += track->duration(i);
      n.self_ns += device ? track->duration(i) : static_cast<int64_t>(track->value(i));
      n.device = n.device || device;
    }
  }
  s.device_streams = static_cast<int>(streams.size());
  for (const Flow& f : model.flows()) {
    const int64_t start = model.tracks()[f.from.track]->start(f.from.index);
    s.flows += start >= t0 && start < t1;
  }
  for (size_t id = 0; id < by_label.size(); ++id) {
    NameTotals& n = by_label[id];
    if (n.count == 0) continue;
    n.name = id == 0 ? "(unnamed)" : model.labels()[static_cast<uint32_t>(id)].name;
    n.category = model.labels()[static_cast<uint32_t>(id)].category;
    s.names.push_back(std::move(n));
  }
  std::sort(s.names.begin(), s.names.end(), [](const NameTotals& a, const NameTotals& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return s;
}

}  // namespace pipescope::trace
