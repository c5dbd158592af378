#include "app/cli/grid_command.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "app/cli/spec_argument.h"
#include "app/session/grid_search.h"
#include "instrumentation/trace/rate_interval.h"

namespace pipescope::cli {
namespace {

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

nlohmann::json KnobsOf(const session::GridPoint& point,
                       const std::vector<session::GridAxis>& axes) {
  nlohmann::json knobs = nlohmann::json::object();
  for (size_t a = 0; a < axes.size(); ++a) knobs[axes[a].knob] = point.values[a];
  return knobs;
}

nlohmann::json RowOf(const session::GridPoint& point, const std::vector<session::GridAxis>& axes) {
  return {{"knobs", KnobsOf(point, axes)},
          {"steps_per_s", point.steps_per_s},
          {"half_width", point.half_width}};
}

}  // namespace

int GridCommand(const GridCommandOptions& options, std::ostream& out, std::ostream& err) {
  auto spec =
      LoadSpecArgument(options.spec_path, options.overrides, &err, {.pipeline = options.pipeline});
  if (!spec.ok()) {
    err << "pipescope-cli: " << spec.status().message() << "\n";
    return 2;
  }
  auto plan = session::PlanGrid(*spec, SplitList(options.knobs), options.spec_path);
  if (!plan.ok()) {
    err << "pipescope-cli: " << plan.status().message() << "\n";
    return 2;
  }
  for (const std::string& note : plan->notes) err << note << "\n";
  const size_t points = plan->points();
  auto result = session::RunGrid(
      *plan, options.duration_s, [&](size_t p, size_t total, const session::GridPoint& point) {
        err << "point " << p + 1 << "/" << total << ": " << point.Label(plan->axes) << ": "
            << trace::StepRateText({point.steps_per_s, point.half_width}) << "\n";
        return true;
      });
  if (!result.ok()) {
    err << "pipescope-cli: " << result.status().message() << "\n";
    return 1;
  }
  const session::GridPoint& best = result->points[result->best];
  if (!options.plot_path.empty()) {
    char per_point[32];
    std::snprintf(per_point, sizeof per_point, "%g s a point", options.duration_s);
    const std::string file = options.spec_path.substr(options.spec_path.find_last_of('/') + 1);
    const session::GridChart chart = session::ChartOf(
        *result, "steps/s by " + result->axes.front().knob + ": " + file + ", " + per_point);
    if (auto written = session::DrawGridChart(chart).WritePng(options.plot_path); !written.ok()) {
      err << "pipescope-cli: " << written.message() << "\n";
      return 1;
    }
    err << "wrote the chart to " << options.plot_path << "\n";
  }
  if (options.json) {
    nlohmann::json results = nlohmann::json::array();
    for (const auto& point : result->points) results.push_back(RowOf(point, result->axes));
    nlohmann::json ties = nlohmann::json::array();
    for (const size_t t : result->ties) ties.push_back(KnobsOf(result->points[t], result->axes));
    out << nlohmann::json{{"spec", options.spec_path},
                          {"duration_s_per_point", options.duration_s},
                          {"results", results},
                          {"best", RowOf(best, result->axes)},
                          {"tied_with_best", ties}}
               .dump(2)
        << "\n";
  } else {
    out << "best of " << points << " points: ";
    for (auto& [k, v] : KnobsOf(best, result->axes).items()) out << k << "=" << v << " ";
    out << "at " << trace::StepRateText({best.steps_per_s, best.half_width}) << " (95% interval)\n";
    if (!result->ties.empty()) {
      out << "a tie with it, within the noise of both:";
      for (const size_t t : result->ties) {
        std::string point;
        for (auto& [k, v] : KnobsOf(result->points[t], result->axes).items())
          point += std::string(point.empty() ? " " : ",") + k + "=" + v.dump();
        out << point << ";";
      }
      out << "\n";
    }
  }
  return 0;
}

}  // namespace pipescope::cli
