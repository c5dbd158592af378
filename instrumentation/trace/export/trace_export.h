#pragma once
// Writing a recorded trace in other tools' formats, for people who share traces with
// colleagues on Perfetto or Chrome's trace viewer:
// - Perfetto's protobuf trace: a track per op and thread, counter
//   tracks, flows linking an element's spans across ops (ui.perfetto.dev opens it);
// - Chrome trace JSON (gzipped when its name ends in .gz): complete events, counters, flow events,
// instants. Each span keeps its element id; markers, knob changes and notes become instants. Which
// one a file name asks for is session::WriteTraceFile's call (trace_formats.h).

#include <functional>
#include <string>

#include "engine/core/status.h"
#include "instrumentation/trace/model.h"

namespace pipescope::trace {

// `progress` gets the share done (0..1) and returns false to cancel (kCancelled; nothing is
// left at `path`).
using ExportProgress = std::function<bool(double share)>;

engine::Status ExportChromeJson(const Model& model, const std::string& path,
                                const ExportProgress& progress = {});
engine::Status ExportPerfetto(const Model& model, const std::string& path,
                              const ExportProgress& progress = {});

}  // namespace pipescope::trace
