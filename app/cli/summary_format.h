#pragma once
// The run summary as JSON (for scripts; field names are a stable interface) and as a
// table for people.

#include <string>

#include <nlohmann/json.hpp>

#include "engine/runtime/training_run.h"

namespace pipescope::cli {

nlohmann::json SummaryToJson(const engine::RunSummary& summary);
std::string SummaryToText(const engine::RunSummary& summary);

}  // namespace pipescope::cli
