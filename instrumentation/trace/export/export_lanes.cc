#include "instrumentation/trace/export/export_lanes.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "instrumentation/trace/sampled_series.h"

namespace pipescope::trace {
namespace {

using record::EventKind;

std::string GroupOf(const Model& model, uint16_t op) {
  if (op == record::kConsumerOp) return "consumer";
  if (op == record::kDeviceOp) return "device";
  const record::StageDef* stage = model.Stage(op);
  return stage ? stage->name : "op " + std::to_string(op);
}

}  // namespace

std::vector<ExportLane> ExportLanes(const Model& model) {
  std::vector<ExportLane> lanes;
  const bool imported = !model.run_info().imported_from.empty();
  std::map<uint32_t, size_t> thread_lane;  // imported: a lane per thread or stream
  for (const auto& owned : model.tracks()) {
    const Track& track = *owned;
    if (track.empty()) continue;
    const TrackKey& key = track.key();
    if (imported && !record::IsCounter(key.kind)) {
      // Steps and input waits are copies of thread spans (framework_mapping.h).
      if (key.kind == EventKind::kStep || key.kind == EventKind::kInputWait) continue;
      auto [it, added] = thread_lane.try_emplace(key.thread, lanes.size());
      if (added) {
        ExportLane lane;
        lane.name = model.ThreadName(key.thread);
        const size_t slash = lane.name.find(" / ");
        lane.group = slash == std::string::npos ? lane.name : lane.name.substr(0, slash);
        lane.slice_name = record::KindLabel(key.kind);
        lanes.push_back(std::move(lane));
      }
      lanes[it->second].tracks.push_back(&track);
      continue;
    }
    ExportLane lane;
    lane.tracks = {&track};
    lane.counter = record::IsCounter(key.kind);
    if (lane.counter) lane.unit = WholeReadings(key.kind) ? "elements" : "%";
    const std::string kind = record::KindLabel(key.kind);
    // What belongs to no op (a thread's CPU time, the disk's busy time) is grouped by its kind.
    lane.group = key.op == record::kNoOp ? kind : GroupOf(model, key.op);
    lane.name = key.op == record::kNoOp ? kind : lane.group + ": " + kind;
    if (key.thread != 0) lane.name += " (" + model.ThreadName(key.thread) + ")";
    lane.slice_name = key.op == record::kConsumerOp || key.op == record::kDeviceOp
                          ? kind
                          : lane.group + " " + kind;
    lanes.push_back(std::move(lane));
  }
  for (auto& lane : lanes) {
    std::stable_sort(lane.tracks.begin(), lane.tracks.end(), [](const Track* a, const Track* b) {
      return a->key().depth < b->key().depth;
    });
  }
  return lanes;
}

bool WholeReadings(EventKind kind) { return kind == EventKind::kBufferLevel; }

double CounterReading(const LaneSpan& span) {
  const Track& track = *span.track;
  switch (track.key().kind) {
    case EventKind::kCpuTime:
    case EventKind::kStorageBusy:
      return 100 * std::min(1.0, ShareOfInterval(track, span.index).value_or(0));
    case EventKind::kDeviceUtil:
      return static_cast<double>(track.value(span.index)) / 10;
    default:
      return static_cast<double>(track.value(span.index));
  }
}

std::vector<LaneSpan> SpansInNestingOrder(const ExportLane& lane) {
  std::vector<LaneSpan> spans;
  for (const Track* t : lane.tracks)
    for (size_t i = 0; i < t->size(); ++i) spans.push_back({t, i});
  if (lane.tracks.size() > 1) {
    std::stable_sort(spans.begin(), spans.end(), [](const LaneSpan& a, const LaneSpan& b) {
      const int64_t sa = a.track->start(a.index), sb = b.track->start(b.index);
      return sa != sb ? sa < sb : a.track->key().depth < b.track->key().depth;
    });
  }
  return spans;
}

std::string SliceName(const Model& model, const ExportLane& lane, const LaneSpan& span) {
  return span.track->label(span.index) != 0 ? std::string(model.SpanName(*span.track, span.index))
                                            : lane.slice_name;
}

std::string SliceCategory(const Model& model, const LaneSpan& span) {
  const uint32_t label = span.track->label(span.index);
  return label != 0 && !model.labels()[label].category.empty()
             ? model.labels()[label].category
             : record::KindLabel(span.track->key().kind);
}

size_t ExportedEvents(const std::vector<ExportLane>& lanes) {
  size_t events = 0;
  for (const auto& lane : lanes)
    for (const Track* t : lane.tracks) events += t->size();
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
