#pragma once
// What both exporters (Perfetto, Chrome JSON) write, in the order they write it: one lane
// per track of the model (an op's work on one thread, the consumer's waits, the device's
// steps, GPU activity, a counter), named as the timeline names it. A track's spans never
// overlap (Track::Append starts a span no earlier than the previous one ended), so each
// lane's slices nest as Perfetto and Chrome's viewer want them.

#include <string>
#include <vector>

#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct ExportLane {
  const Track* track = nullptr;
  std::string group;       // the op's name, "consumer", "device"
  std::string name;        // "decode: work (decode/0)"
  std::string slice_name;  // what each span is called: "decode work", "step"
  bool counter = false;
};

std::vector<ExportLane> ExportLanes(const Model& model);

// Nanoseconds as microseconds with three decimals ("1234.567"), as Chrome's JSON wants;
// exact, without going through a double.
void AppendMicros(std::string& out, int64_t ns);
// `text` as the inside of a JSON string (quotes, backslashes and control characters
// escaped).
void AppendJsonEscaped(std::string& out, const std::string& text);

}  // namespace pipescope::trace
