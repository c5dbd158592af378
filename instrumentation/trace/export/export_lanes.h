#pragma once
// What both exporters (Perfetto, Chrome JSON) write, in the order they write it: one lane
// per track of a recording (an op's work on one thread, the consumer's waits, the device's
// steps, GPU activity, a counter), named as the timeline names it; an imported trace's
// lanes are its threads and GPU streams as the profiler wrote them, each holding the tracks
// of all its nesting depths, with the spans' own names (the steps and input waits derived
// from them are not written again: a reader derives them anew). A track's spans never
// overlap (Track::Append starts a span no earlier than the previous one ended), so a
// lane's slices nest as Perfetto and Chrome's viewer want them.

#include <string>
#include <vector>

#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct ExportLane {
  std::vector<const Track*> tracks;  // one, or an imported thread's depths, outermost first
  std::string group;       // the op's name, "consumer", "device"; an imported lane's process
  std::string name;        // "decode: work (decode/0)"; an imported lane's thread
  std::string slice_name;  // what an unnamed span is called: "decode work", "step"
  bool counter = false;
  std::string unit;  // a counter's readings' (CounterReading): "%" or "elements"
};

std::vector<ExportLane> ExportLanes(const Model& model);

// A lane's spans in the order to write them: by start, outer before inner.
struct LaneSpan {
  const Track* track;
  size_t index;
};
std::vector<LaneSpan> SpansInNestingOrder(const ExportLane& lane);
// The name a span is written with: its own, else the lane's.
std::string SliceName(const Model& model, const ExportLane& lane, const LaneSpan& span);
std::string SliceCategory(const Model& model, const LaneSpan& span);
// A counter's reading as both formats write it: an amount since the previous sample (a
// thread's CPU time, the disk's busy time) as the percent of that interval it filled, at
// most 100, as iostat's %util and top's %CPU say it; the device's per mille in percent; a
// buffer's level as recorded. A reader of the export then sees what the timeline's lane
// shows, not nanoseconds that depend on how often the recorder sampled.
double CounterReading(const LaneSpan& span);
// Whether the readings of `kind` are whole numbers (a buffer's level), written as such.
bool WholeReadings(record::EventKind kind);
// Spans and counter readings in all lanes: what an exporter's progress counts.
size_t ExportedEvents(const std::vector<ExportLane>& lanes);

// The moments both formats write as instants: markers, knob changes ("user set
// decode.num_parallel_calls 1 -> 2") and notes, with their category.
struct ExportInstant {
  int64_t time_ns;
  std::string name;
  const char* category;  // "marker", "knob", "note"
};
std::vector<ExportInstant> ExportInstants(const Model& model);

// Nanoseconds as microseconds with three decimals ("1234.567"), as Chrome's JSON wants;
// exact, without going through a double.
void AppendMicros(std::string& out, int64_t ns);
// `text` as the inside of a JSON string (quotes, backslashes and control characters
// escaped).
void AppendJsonEscaped(std::string& out, const std::string& text);

}  // namespace pipescope::trace
