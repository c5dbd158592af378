#include "app/cli/compare_command.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/cli/summary_format.h"
#include "app/session/comparison.h"
#include "app/session/figure_table.h"
#include "engine/spec/spec_loader.h"

namespace pipescope::cli {
namespace {

nlohmann::json Figures(const session::SpecMeasurement& m) {
  nlohmann::json figures;
  for (const session::RunFigure& f : session::RunFigureTable()) {
    if ((f.views & session::kJsonView) != 0u) figures[f.json_key] = FigureJson(f.value(m));
  }
  figures["verdict"] = m.analysis.verdict.text;
  return figures;
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
  for (const session::RunFigure& f : session::RunFigureTable()) {
    if ((f.views & session::kTextView) == 0u) continue;
    std::snprintf(line, sizeof line, "%-22s %12s %12s\n", session::HeaderWithUnit(f).c_str(),
                  session::FormatNumber(f, measured[0]).c_str(),
                  session::FormatNumber(f, measured[1]).c_str());
    out << line;
  }
  out << verdict << "\n";
  return 0;
}

}  // namespace pipescope::cli
