#include "app/cli/compare_command.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/session/comparison.h"
#include "engine/spec/spec_loader.h"

namespace pipescope::cli {
namespace {

nlohmann::json Figures(const session::SpecMeasurement& m) {
  return {{"steps_per_s", m.analysis.steps_per_s},
          {"steps_per_s_half_width", m.analysis.steps_per_s_half_width},
          {"input_wait_fraction", m.analysis.input_wait_fraction},
          {"device_busy_fraction", m.analysis.device_busy_fraction},
          {"worker_threads", m.worker_threads},
          {"cpu_cores_busy", m.cpu_cores_busy},
          {"buffered_elements", m.buffered_elements},
          {"buffer_bytes", m.buffer_bytes},
          {"verdict", m.analysis.verdict.text}};
}

}  // namespace

int CompareCommand(const CompareCommandOptions& options, std::ostream& out, std::ostream& err) {
  // Both specs are loaded before either runs, so a typo costs no run.
  const std::string paths[2] = {options.a_path, options.b_path};
  spec::PipelineSpec specs[2];
  for (int i = 0; i < 2; ++i) {
    auto spec = engine::LoadSpecFile(paths[i]);
    if (!spec.ok()) {
      err << "pipescope-cli: " << spec.status().message() << "\n";
      return 2;
    }
    specs[i] = std::move(spec).value();
  }
  session::SpecMeasurement measured[2];
  for (int i = 0; i < 2; ++i) {
    err << "running " << paths[i] << " for " << options.duration_s << " s\n";
    auto m = session::MeasureSpec(specs[i], options.duration_s);
    if (!m.ok()) {
      err << "pipescope-cli: " << paths[i] << ": " << m.status().message() << "\n";
      return 1;
    }
    measured[i] = std::move(m).value();
  }
  const session::Comparison c =
      session::Compare(measured[0], measured[1], session::SameOps(specs[0], specs[1]), "A", "B");
  nlohmann::json differences = nlohmann::json::array();
  for (const auto& d : c.differences) {
    differences.push_back({{"knob", d.knob},
                           {"a", d.a ? nlohmann::json(*d.a) : nlohmann::json()},
                           {"b", d.b ? nlohmann::json(*d.b) : nlohmann::json()}});
  }
  const double a = c.a.analysis.steps_per_s, b = c.b.analysis.steps_per_s;
  const std::string& verdict = c.verdict;
  if (options.json) {
    out << nlohmann::json{{"a", {{"spec", options.a_path}, {"figures", Figures(measured[0])}}},
                          {"b", {{"spec", options.b_path}, {"figures", Figures(measured[1])}}},
                          {"duration_s", options.duration_s},
                          {"speedup_b_over_a", c.speedup_b_over_a},
                          {"noise_band", c.noise_band},
                          {"tie", c.tie},
                          {"same_ops", c.same_ops},
                          {"knob_differences", differences},
                          {"verdict", verdict}}
               .dump(2)
        << "\n";
    return 0;
  }
  char line[256];
  std::snprintf(line, sizeof line, "%-22s %12s %12s\n", "", "A", "B");
  out << line;
  auto row = [&](const char* name, double va, double vb, const char* format) {
    char fa[32], fb[32];
    std::snprintf(fa, sizeof fa, format, va);
    std::snprintf(fb, sizeof fb, format, vb);
    std::snprintf(line, sizeof line, "%-22s %12s %12s\n", name, fa, fb);
    out << line;
  };
  row("steps/s", a, b, "%.1f");
  row("  ± (95% interval)", measured[0].analysis.steps_per_s_half_width,
      measured[1].analysis.steps_per_s_half_width, "%.1f");
  row("input wait %", 100 * measured[0].analysis.input_wait_fraction,
      100 * measured[1].analysis.input_wait_fraction, "%.0f");
  row("device busy %", 100 * measured[0].analysis.device_busy_fraction,
      100 * measured[1].analysis.device_busy_fraction, "%.0f");
  row("worker threads", static_cast<double>(measured[0].worker_threads),
      static_cast<double>(measured[1].worker_threads), "%.0f");
  row("CPU cores busy", measured[0].cpu_cores_busy, measured[1].cpu_cores_busy, "%.2f");
  row("buffered elements", static_cast<double>(measured[0].buffered_elements),
      static_cast<double>(measured[1].buffered_elements), "%.0f");
  row("buffer memory KiB", static_cast<double>(measured[0].buffer_bytes) / 1024,
      static_cast<double>(measured[1].buffer_bytes) / 1024, "%.0f");
  out << verdict << "\n";
  return 0;
}

}  // namespace pipescope::cli
