#pragma once
// Opening any trace a person has: Pipescope's own .pstrace, or a Chrome trace JSON (.json,
// .json.gz) from PyTorch's or TensorFlow's profiler, imported. One entry point for the CLI
// and the GUI, with progress and Cancel.

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

engine::Result<OpenedTrace> OpenTraceFile(const std::string& path,
                                          const std::function<bool(double)>& progress = {});

}  // namespace pipescope::session
