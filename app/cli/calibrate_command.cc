#include "app/cli/calibrate_command.h"

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/session/calibration.h"
#include "app/session/trace_files.h"
#include "engine/core/duration.h"
#include "engine/sim/cost_model_json.h"

namespace pipescope::cli {

int CalibrateCommand(const CalibrateCommandOptions& options, std::ostream& out, std::ostream& err) {
  auto loaded = session::OpenTraceFile(options.trace_path);
  if (!loaded.ok()) {
    err << "pipescope-cli: " << loaded.status().message() << "\n";
    return 1;
  }
  auto fitted = session::Calibrate(*loaded->model, options.trace_path);
  if (!fitted.ok()) {
    err << "pipescope-cli: " << fitted.status().message() << "\n";
    return 1;
  }
  if (auto s = sim::SaveCostModelFile(fitted->model, options.out_path); !s.ok()) {
    err << "pipescope-cli: " << s.message() << "\n";
    return 1;
  }
  for (const auto& note : fitted->notes) err << "pipescope-cli: note: " << note << "\n";
  if (options.json) {
    auto j = nlohmann::json::parse(sim::CostModelToJson(fitted->model));
    j["notes"] = fitted->notes;
    j["written_to"] = options.out_path;
    out << j.dump(2) << "\n";
    return 0;
  }
  out << "cost model of " << fitted->spec.name() << " fitted to " << options.trace_path << " ("
      << fitted->model.cores << " cores), written to " << options.out_path << "\n";
  out << std::left << std::setw(20) << "op" << std::setw(14) << "cpu/element" << std::setw(14)
      << "wait/element" << std::setw(8) << "cv"
      << "keep\n";
  for (const auto& [name, c] : fitted->model.ops) {
    const double cpu = c.cpu.mean_ns + c.cpu_per_row.mean_ns;
    out << std::left << std::setw(20) << name << std::setw(14)
        << engine::FormatDuration(static_cast<int64_t>(cpu)) << std::setw(14)
        << engine::FormatDuration(static_cast<int64_t>(c.wait.mean_ns)) << std::setw(8)
        << std::setprecision(2) << std::max(c.cpu.cv, c.wait.cv) << c.keep_fraction << "\n";
  }
  out << "device step: " << engine::FormatDuration(static_cast<int64_t>(fitted->model.step.mean_ns))
      << "; the training loop resumes "
      << engine::FormatDuration(static_cast<int64_t>(fitted->model.timer_wake.mean_ns))
      << " after the device frees; hand-off: " << engine::FormatDuration(fitted->model.handoff_ns);
  if (fitted->model.handoff_giver_ns >= 0) {
    out << " (" << engine::FormatDuration(fitted->model.handoff_giver_ns)
        << " of it the giver's where the taker waits)";
  }
  out << "; start-up: " << engine::FormatDuration(fitted->model.startup_ns) << "\n";
  return 0;
}

}  // namespace pipescope::cli
