#pragma once
// Opening any trace a person has, whatever its name: Pipescope's own .pstrace, or a Chrome
// trace JSON (gzipped or not) from PyTorch's or TensorFlow's profiler, imported; the format
// is recognised by content (trace_formats.h). One entry point for the CLI and the GUI, with
// progress and Cancel.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "instrumentation/trace/model.h"

namespace pipescope::session {

struct OpenedTrace {
  std::shared_ptr<trace::Model> model;
  std::vector<std::string> warnings;
  bool imported = false;  // run_info().imported_from names the framework
};

// A host's name from its trace's file: "worker-1" for ".../worker-1.pt.trace.json.gz".
std::string HostNameOf(const std::string& path);

engine::Result<OpenedTrace> OpenTraceFile(const std::string& path,
                                          const std::function<bool(double)>& progress = {});

}  // namespace pipescope::session
