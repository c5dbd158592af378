#include "engine/sim/sim_trace.h"

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

void SimTrace::Add(record::EventKind kind, uint16_t op, uint32_t thread, int64_t start, int64_t end,
                   uint64_t element, uint32_t value, uint8_t flags) {
  batch_.events.push_back(record::TraceEvent{start, end, element, value, thread, op, kind, flags});
  ++events_;
}

void SimTrace::Flush(int64_t time_ns, bool final) {
  if (!recording()) return;
  batch_.time_ns = time_ns;
  sink_thread_->Hand(batch_, final);
}

}  // namespace pipescope::sim
