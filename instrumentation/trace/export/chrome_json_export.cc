// Chrome trace JSON ("Trace Event Format"): {"traceEvents": [...]} with one process, a
// "thread" per exported lane (named by metadata events), complete events ("X") for spans,
// counter events ("C"), flow events ("s", "t", "f") joining each element's spans in time
// order, and global instants ("i") for markers, knob changes and notes. Times in µs. An
// imported trace's spans keep their names, categories and arguments, a thread's nested
// spans share its "thread", and its flows go from span to span.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "instrumentation/trace/export/export_lanes.h"
#include "instrumentation/trace/export/output_file.h"
#include "instrumentation/trace/export/trace_export.h"

namespace pipescope::trace {
namespace {

// Events separated by commas, each an object the caller fills between Begin() and End().
class JsonEvents {
 public:
  JsonEvents(OutputFile& file, const ExportProgress& progress, size_t total)
      : buffer_(file, progress, total) {}

  std::string& Begin() {
    std::string& out = buffer_.text();
    if (!first_) out += ",\n";
    first_ = false;
    out += '{';
    return out;
  }
  engine::Status End() {
    buffer_.text() += '}';
    return buffer_.ItemDone();
  }
  engine::Status Flush() { return buffer_.Flush(); }
  std::string& raw() { return buffer_.text(); }

 private:
  ExportBuffer buffer_;
  bool first_ = true;
};

void Field(std::string& out, const char* name, const std::string& text) {
  out += '"';
  out += name;
  out += "\":\"";
  AppendJsonEscaped(out, text);
  out += "\",";
}

void Time(std::string& out, const char* name, int64_t ns) {
  out += '"';
  out += name;
  out += "\":";
  AppendMicros(out, ns);
  out += ',';
}

void Ids(std::string& out, size_t tid) {
  out += "\"pid\":1,\"tid\":";
  out += std::to_string(tid);
}

struct FlowPoint {
  uint64_t element;
  int64_t ts;
  uint32_t tid;
};

}  // namespace

engine::Status ExportChromeJson(const Model& model, const std::string& path,
                                const ExportProgress& progress) {
  ASSIGN_OR_RETURN(auto file, OutputFile::Create(path));
  const std::vector<ExportLane> lanes = ExportLanes(model);
  JsonEvents events(*file, progress, 2 * ExportedEvents(lanes));  // spans, then flows
  std::string& head = events.raw();
  head += "{\"displayTimeUnit\":\"ns\",\"otherData\":{";
  Field(head, "producer",
        model.run_info().producer.empty() ? "pipescope" : model.run_info().producer);
  Field(head, "pipeline", model.run_info().pipeline_name);
  head.back() = '}';
  head += ",\"traceEvents\":[\n";
  {
    std::string& e = events.Begin();
    e += "\"ph\":\"M\",\"name\":\"process_name\",";
    Ids(e, 0);
    e += ",\"args\":{";
    Field(e, "name", "pipescope: " + model.run_info().pipeline_name);
    e.back() = '}';
    RETURN_IF_ERROR(events.End());
  }
  std::vector<FlowPoint> flow;
  // Which lane (tid) each track went to, for the flows between imported spans.
  std::vector<size_t> tid_of_track(model.tracks().size(), 0);
  for (size_t l = 0; l < lanes.size(); ++l) {
    const ExportLane& lane = lanes[l];
    const size_t tid = l + 1;
    for (const char* meta : {"thread_name", "thread_sort_index"}) {
      std::string& e = events.Begin();
      e += "\"ph\":\"M\",\"name\":\"";
      e += meta;
      e += "\",";
      Ids(e, tid);
      e += ",\"args\":{";
      if (std::string_view(meta) == "thread_name") {
        Field(e, "name", lane.name);
        e.back() = '}';
      } else {
        e += "\"sort_index\":" + std::to_string(tid) + "}";
      }
      RETURN_IF_ERROR(events.End());
    }
    for (const Track* t : lane.tracks) tid_of_track[t->id()] = tid;
    for (const LaneSpan& span : SpansInNestingOrder(lane)) {
      const Track& track = *span.track;
      const size_t i = span.index;
      std::string& e = events.Begin();
      if (lane.counter) {
        e += "\"ph\":\"C\",";
        Field(e, "name", lane.name);
        Time(e, "ts", track.start(i));
        Ids(e, tid);
        e += ",\"args\":{\"value\":";
        if (WholeReadings(track.key().kind)) {
          e += std::to_string(track.value(i));
        } else {
          char reading[32];
          std::snprintf(reading, sizeof reading, "%.3f", CounterReading(span));
          e += reading;
        }
        e += "}";
      } else {
        e += "\"ph\":\"X\",";
        Field(e, "name", SliceName(model, lane, span));
        Field(e, "cat", SliceCategory(model, span));
        Time(e, "ts", track.start(i));
        Time(e, "dur", track.duration(i));
        Ids(e, tid);
        const uint64_t element = track.element(i);
        const uint32_t calls = track.calls(i);
        if (const std::string_view args = model.args()[track.args(i)]; !args.empty()) {
          e += ",\"args\":";  // as the profiler wrote them
          e += args;
        } else if (element != 0 || calls > 1) {
          e += ",\"args\":{";
          if (element != 0) e += "\"element\":" + std::to_string(element);
          if (element != 0 && calls > 1) e += ",";
          if (calls > 1) e += "\"calls\":" + std::to_string(calls);  // a run (see FORMAT.md)
          e += "}";
        }
        if (element != 0) flow.push_back({element, track.start(i), static_cast<uint32_t>(tid)});
      }
      RETURN_IF_ERROR(events.End());
    }
  }
  // An imported trace's flows, from span to span, bound as Kineto binds them.
  for (size_t f = 0; f < model.flows().size(); ++f) {
    const Flow& link = model.flows()[f];
    for (const auto& [end, ph] : {std::pair{link.from, "\"ph\":\"s\","},
                                  std::pair{link.to, "\"ph\":\"f\",\"bp\":\"e\","}}) {
      const Track& track = *model.tracks()[end.track];
      if (tid_of_track[end.track] == 0) continue;
      std::string& e = events.Begin();
      e += ph;
      Field(e, "name", model.labels()[link.label].name);
      Field(e, "cat", model.labels()[link.label].category);
      e += "\"id\":" + std::to_string(f + 1) + ",";
      Time(e, "ts", track.start(end.index));
      Ids(e, tid_of_track[end.track]);
      RETURN_IF_ERROR(events.End());
    }
  }
  // Flows: each element's spans in time order, from the first ("s") through the middle
  // ones ("t") to the last ("f"), each bound to the span that starts there.
  std::sort(flow.begin(), flow.end(), [](const FlowPoint& a, const FlowPoint& b) {
    return a.element != b.element ? a.element < b.element : a.ts < b.ts;
  });
  for (size_t i = 0; i < flow.size(); ++i) {
    const bool first = i == 0 || flow[i - 1].element != flow[i].element;
    const bool last = i + 1 == flow.size() || flow[i + 1].element != flow[i].element;
    if (first && last) continue;  // one span: nothing to link
    std::string& e = events.Begin();
    e += first ? "\"ph\":\"s\"," : last ? "\"ph\":\"f\",\"bp\":\"e\"," : "\"ph\":\"t\",";
    e += "\"name\":\"element\",\"cat\":\"element\",\"id\":" + std::to_string(flow[i].element) + ",";
    Time(e, "ts", flow[i].ts);
    Ids(e, flow[i].tid);
    RETURN_IF_ERROR(events.End());
  }
  for (const ExportInstant& instant : ExportInstants(model)) {
    std::string& e = events.Begin();
    e += "\"ph\":\"i\",\"s\":\"g\",";
    Field(e, "name", instant.name);
    Field(e, "cat", instant.category);
    Time(e, "ts", instant.time_ns);
    Ids(e, 0);
    RETURN_IF_ERROR(events.End());
  }
  events.raw() += "\n]}\n";
  RETURN_IF_ERROR(events.Flush());
  return file->Commit();
}

}  // namespace pipescope::trace
