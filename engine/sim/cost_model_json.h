#pragma once
// Cost models as JSON files (`calibrate --out MODEL`, `simulate --model MODEL`, a lesson's
// model.json):
//
//   { "format": "pipescope-cost-model", "version": 1, "origin": "run.pstrace",
//     "cores": 2, "oversubscription_cost": 0.02, "handoff_ns": 2000, "handoff_giver_ns": -1,
//     "step": {"mean_ns": 8e6, "cv": 0}, "step_host": {"mean_ns": 0, "cv": 0},
//     "timer_wake": {"mean_ns": 6e4, "cv": 0.5},
//     "startup_ns": 0,
//     "ops": { "decode": { "cpu": {"mean_ns": 3000, "cv": 0}, "cpu_per_row": {...},
//                          "wait": {...}, "open_wait": {...}, "request_wait": {...},
//                          "request_bytes": 0, "keep_fraction": 1,
//                          "out_bytes": 65536, "records": -1,
//                          "worker_startup_ns": -1 }, ... } }
//
// Every field is optional: what a file leaves out keeps the value of the model it is laid
// over (the spec's defaults), so a lesson can change one op's cost and nothing else.

#include <string>

#include "engine/core/status.h"
#include "engine/sim/cost_model.h"

namespace pipescope::sim {

std::string CostModelToJson(const CostModel& model);

// `where` names the text in errors ("model.json").
engine::Result<CostModel> ParseCostModelJson(const std::string& text, CostModel base,
                                             const std::string& where);
engine::Result<CostModel> LoadCostModelFile(const std::string& path, CostModel base);
engine::Status SaveCostModelFile(const CostModel& model, const std::string& path);

}  // namespace pipescope::sim
