#pragma once
// Writes a whole trace model to a new .pstrace file: "Save Trace As" for a loaded trace
// with the notes people added to it, or for a live run that was kept in memory only. The
// file is the same as one written while recording (chunks of one second of events), so
// every reader opens it.

#include <functional>
#include <string>

#include "engine/core/status.h"
#include "instrumentation/trace/format/pstrace.pb.h"
#include "instrumentation/trace/model.h"

namespace pipescope::pstrace {

// The header the model was read from or recorded with (its run info, back in the file's
// terms). The inverse of ApplyHeader.
TraceHeader HeaderOf(const trace::Model& model);

// `progress` gets the share written so far and returns false to cancel (the partial file is
// removed and kCancelled returned). Errors name the file.
engine::Status WriteModel(const trace::Model& model, const std::string& path,
                          const std::function<bool(double)>& progress = {});

}  // namespace pipescope::pstrace
