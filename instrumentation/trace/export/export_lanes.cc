#include "instrumentation/trace/export/export_lanes.h"

#include <cstdio>

namespace pipescope::trace {
namespace {

std::string GroupOf(const Model& model, uint16_t op) {
  if (op == record::kConsumerOp) return "consumer";
  if (op == record::kDeviceOp) return "device";
  const record::StageDef* stage = model.Stage(op);
  return stage ? stage->name : "op " + std::to_string(op);
}

}  // namespace

std::vector<ExportLane> ExportLanes(const Model& model) {
  std::vector<ExportLane> lanes;
  for (const auto& owned : model.tracks()) {
    const Track& track = *owned;
    if (track.empty()) continue;
    const TrackKey& key = track.key();
    ExportLane lane;
    lane.track = &track;
    lane.group = GroupOf(model, key.op);
    lane.counter = record::IsCounter(key.kind);
    const std::string kind = record::KindLabel(key.kind);
    lane.name = lane.group + ": " + kind;
    if (key.thread != 0) lane.name += " (" + model.ThreadName(key.thread) + ")";
    lane.slice_name = key.op == record::kConsumerOp || key.op == record::kDeviceOp
                          ? kind
                          : lane.group + " " + kind;
    lanes.push_back(std::move(lane));
  }
  return lanes;
}

size_t ExportedEvents(const std::vector<ExportLane>& lanes) {
  size_t events = 0;
  for (const auto& lane : lanes) events += lane.track->size();
  return events;
}

std::vector<ExportInstant> ExportInstants(const Model& model) {
  std::vector<ExportInstant> out;
  for (const auto& m : model.markers()) out.push_back({m.time_ns, m.text, "marker"});
  for (const auto& k : model.knob_changes()) {
    const record::StageDef* stage = model.Stage(k.op);
    out.push_back({k.time_ns,
                   k.who + " set " + (stage ? stage->name : "?") + "." + k.knob + " " +
                       std::to_string(k.from) + " -> " + std::to_string(k.to),
                   "knob"});
  }
  for (const auto& n : model.annotations()) out.push_back({n.start_ns, n.text, "note"});
  return out;
}

void AppendMicros(std::string& out, int64_t ns) {
  char buf[32];
  const bool negative = ns < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  const int n = std::snprintf(buf, sizeof buf, "%s%llu.%03llu", negative ? "-" : "",
                              static_cast<unsigned long long>(magnitude / 1000),
                              static_cast<unsigned long long>(magnitude % 1000));
  out.append(buf, static_cast<size_t>(n));
}

void AppendJsonEscaped(std::string& out, const std::string& text) {
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
}

}  // namespace pipescope::trace
