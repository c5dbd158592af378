#pragma once
// `run --workers N` and `simulate --workers N`: each worker's figures and the job's, as text
// (a table after worker 0's full summary) and as JSON ("workers", "job").

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "app/session/workers.h"

namespace pipescope::cli {

// Keeps a run of several workers in `workers` and gives worker 0's result, which the
// summary is made of (session::FirstWorkerResult), or the run's error.
engine::Result<session::RecordedRunResult> KeepWorkers(engine::Result<session::WorkersRun> all,
                                                       std::optional<session::WorkersRun>& workers);

std::string WorkersToText(const session::WorkersRun& run);
nlohmann::json WorkersToJson(const session::WorkersRun& run);

}  // namespace pipescope::cli
