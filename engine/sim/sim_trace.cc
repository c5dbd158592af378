#include "engine/sim/sim_trace.h"

#include <algorithm>
#include <cmath>

#include "instrumentation/record/populate_pages.h"

namespace pipescope::sim {

SimThread& SimTrace::NewThread(std::string name) {
  SimThread& t = threads_.emplace_back();
  t.id = static_cast<uint32_t>(threads_.size());
  t.name = std::move(name);
  if (recording()) batch_.threads.push_back({t.id, t.name});
  return t;
}

void SimTrace::DefineStage(const record::StageDef& stage) {
  if (recording()) batch_.stages.push_back(stage);
}

void SimTrace::Marker(int64_t time_ns, std::string text) {
  if (recording()) batch_.markers.push_back({time_ns, std::move(text)});
}

void SimTrace::AddRun(record::EventKind kind, uint16_t op, uint32_t thread, int64_t start,
                      int64_t end, const SimElement* elements, size_t n, uint64_t value) {
  if (n == 0) return;
  if (IdsAreConsecutive(elements, n)) {
    Add(kind, op, thread, start, end, elements[0].id, value, 0, static_cast<uint32_t>(n));
    return;
  }
  const double ns_per = static_cast<double>(end - start) / static_cast<double>(n);
  const double value_per = static_cast<double>(value) / static_cast<double>(n);
  size_t i = 0;
  int64_t part_start = start;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && elements[j].id == elements[j - 1].id + 1) ++j;
    const int64_t part_end =
        j == n ? end : start + static_cast<int64_t>(ns_per * static_cast<double>(j));
    const auto part_value =
        static_cast<uint64_t>(std::llround(value_per * static_cast<double>(j - i)));
    Add(kind, op, thread, part_start, part_end, elements[i].id, part_value, 0,
        static_cast<uint32_t>(j - i));
    part_start = part_end;
    i = j;
  }
}

void SimTrace::Flush(int64_t time_ns, bool final) {
  if (!recording()) return;
  batch_.time_ns = time_ns;
  sink_thread_->Hand(batch_, final);
  ReserveBatch();
}

void SimTrace::PopulateAhead() {
  auto& events = batch_.events;
  const size_t size = events.size();
  // As far ahead as the batch holds already, up to kPopulateEvents: a batch of a few events
  // (a small pipeline's) would not use the pages. No room left: the next event grows the
  // vector, and the one after populates the new room.
  const size_t ahead = std::clamp<size_t>(size, 4096 / sizeof(record::TraceEvent), kPopulateEvents);
  const size_t n = std::min(events.capacity() - size, ahead);
  if (n > 0) record::PopulatePagesForWrite(events.data() + size, n * sizeof(record::TraceEvent));
  populated_ = size + std::max<size_t>(n, 1);
}

}  // namespace pipescope::sim
