#include "app/cli/workers_format.h"

#include <cstdio>

namespace pipescope::cli {

engine::Result<session::RecordedRunResult> KeepWorkers(
    engine::Result<session::WorkersRun> all, std::optional<session::WorkersRun>& workers) {
  if (!all.ok()) return all.status();
  workers = std::move(all).value();
  return session::FirstWorkerResult(*workers);
}

std::string WorkersToText(const session::WorkersRun& run) {
  const size_t n = run.workers.size();
  std::string out = "\n" + std::to_string(n) +
                    " workers on one host, each with its own pipeline (shard index = worker; "
                    "the summary above is worker 0's):\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-8s %10s %12s %12s %12s\n", "worker", "steps/s", "input wait",
                "device busy", "elements/s");
  out += line;
  for (size_t w = 0; w < n; ++w) {
    const session::WorkerFigures& s = run.figures[w];
    std::snprintf(line, sizeof line, "%-8zu %10.1f %11.1f%% %11.1f%% %12.1f%s\n", w, s.steps_per_s,
                  100 * s.input_wait_fraction, 100 * s.device_busy_fraction, s.elements_per_s,
                  static_cast<int>(w) == run.slowest && n > 1 ? "  (slowest)" : "");
    out += line;
  }
  std::snprintf(line, sizeof line,
                "job: %.1f steps/s in all; a synchronous job (an all-reduce every step) waits for "
                "the slowest worker: %zu x %.1f = %.1f steps/s\n",
                run.total_steps_per_s, n, run.figures[static_cast<size_t>(run.slowest)].steps_per_s,
                run.synchronous_steps_per_s);
  out += line;
  return out;
}

nlohmann::json WorkersToJson(const session::WorkersRun& run) {
  nlohmann::json workers = nlohmann::json::array();
  for (size_t w = 0; w < run.workers.size(); ++w) {
    const session::WorkerFigures& s = run.figures[w];
    workers.push_back({{"worker", w},
                       {"steps", s.steps},
                       {"steps_per_s", s.steps_per_s},
                       {"elements_per_s", s.elements_per_s},
                       {"input_wait_fraction", s.input_wait_fraction},
                       {"device_busy_fraction", s.device_busy_fraction}});
  }
  return {{"workers", workers},
          {"job",
           {{"workers", run.workers.size()},
            {"steps_per_s", run.total_steps_per_s},
            {"slowest_worker", run.slowest},
            {"synchronous_steps_per_s", run.synchronous_steps_per_s}}}};
}

}  // namespace pipescope::cli
