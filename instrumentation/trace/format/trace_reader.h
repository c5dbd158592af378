#pragma once
// Reads .pstrace files into a trace::Model. Files are untrusted: every length, count,
// id and checksum is checked, allocation is bounded by the file's size (FORMAT.md), and
// any problem is an error naming the record, its byte offset and what is wrong. A file
// that ends inside a record (the recording process was killed) loads up to its last
// complete chunk, with a warning.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"
#include "instrumentation/trace/format/pstrace.pb.h"
#include "instrumentation/trace/model.h"

namespace pipescope::pstrace {

struct ReadOptions {
  // Called now and then with the share of the file read; return false to cancel.
  std::function<bool(double)> progress;
};

struct LoadedTrace {
  std::unique_ptr<trace::Model> model;
  TraceHeader header;
  bool complete = false;              // the footer and trailer were there
  std::vector<std::string> warnings;  // e.g. the file was cut off
};

engine::Result<LoadedTrace> ReadTraceFile(const std::string& path, const ReadOptions& options = {});
// `name` is used in messages.
engine::Result<LoadedTrace> ReadTraceBytes(std::string_view bytes, const std::string& name,
                                           const ReadOptions& options = {});

// Fills a model's RunInfo from a header (also used when recording, so that a live model
// and a loaded one describe the run alike).
void ApplyHeader(const TraceHeader& header, trace::Model& model);

}  // namespace pipescope::pstrace
