#include "app/cli/grid_command.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "app/cli/grid_plot.h"
#include "app/cli/spec_argument.h"
#include "app/session/measurement.h"
#include "engine/runtime/pipeline.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_overrides.h"
#include "instrumentation/trace/rate_interval.h"

namespace pipescope::cli {
namespace {

bool IsPerformanceKnob(const std::string& knob) {
  return knob == "num_parallel_calls" || knob == "buffer_size";
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

std::vector<int64_t> GridValues(const std::string& knob, int64_t value, int64_t min, int64_t max,
                                int cores) {
  int64_t top = std::max<int64_t>(4 * std::max<int64_t>(value, 1), 4);
  if (knob == "num_parallel_calls") top = std::max(2 * cores, 2);
  if (knob == "buffer_size") top = 16;
  std::vector<int64_t> values;
  if (min <= 0 && max >= 0 && knob == "buffer_size") values.push_back(0);
  for (int64_t v = std::max<int64_t>(min, 1); v <= std::min(top, max); v *= 2) values.push_back(v);
  if (values.empty()) values.push_back(std::clamp(value, min, max));
  return values;
}

int GridCommand(const GridCommandOptions& options, std::ostream& out, std::ostream& err) {
  auto spec = LoadSpecArgument(options.spec_path, options.overrides, &err);
  if (!spec.ok()) {
    err << "pipescope-cli: " << spec.status().message() << "\n";
    return 2;
  }
  const std::vector<std::string> wanted = SplitList(options.knobs);
  // A map written without num_parallel_calls runs sequentially and has no such knob; asked
  // for, it is made one at 1 (tf.data's sequential map), so that the grid can try more.
  for (const auto& w : wanted) {
    if (!w.ends_with(".num_parallel_calls")) continue;
    spec::PipelineSpec with = *spec;
    auto built = engine::Pipeline::Create(*spec, {});
    if (!built.ok()) break;  // said below, where the spec is built for the grid
    const auto present = (*built)->Knobs();
    const bool has = std::any_of(present.begin(), present.end(),
                                 [&](const auto& k) { return k.op + "." + k.knob == w; });
    if (!has && engine::ApplyOverride(with, w + "=1").ok()) {
      err << w.substr(0, w.rfind('.')) << " is sequential in " << options.spec_path
          << ": gridded from num_parallel_calls 1\n";
      *spec = std::move(with);
    }
  }
  // The knobs and their ranges, from the pipeline the spec builds.
  auto pipeline = engine::Pipeline::Create(*spec, {});
  if (!pipeline.ok()) {
    err << "pipescope-cli: " << pipeline.status().message() << "\n";
    return 2;
  }
  const int cores = (*pipeline)->cpu_cores();
  const auto knobs = (*pipeline)->Knobs();
  pipeline->reset();
  struct Axis {
    std::string name;  // "op.knob"
    std::vector<int64_t> values;
  };
  std::vector<Axis> axes;
  for (const auto& k : knobs) {
    const std::string name = k.op + "." + k.knob;
    const bool chosen = wanted.empty()
                            ? IsPerformanceKnob(k.knob)
                            : std::find(wanted.begin(), wanted.end(), name) != wanted.end();
    if (chosen) axes.push_back({name, GridValues(k.knob, k.value, k.min, k.max, cores)});
  }
  for (const auto& w : wanted) {
    if (std::none_of(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == w; })) {
      err << "pipescope-cli: " << options.spec_path << " has no knob '" << w << "'\n";
      return 2;
    }
  }
  if (axes.empty()) {
    err << "pipescope-cli: " << options.spec_path << " has no tunable knobs to grid over\n";
    return 2;
  }
  size_t points = 1;
  for (const auto& a : axes) points *= a.values.size();

  nlohmann::json results = nlohmann::json::array();
  nlohmann::json best;
  GridChart chart;
  {
    char per_point[32];
    std::snprintf(per_point, sizeof per_point, "%g s a point", options.duration_s);
    const std::string file = options.spec_path.substr(options.spec_path.find_last_of('/') + 1);
    chart.title = "steps/s by " + axes.front().name + ": " + file + ", " + per_point;
  }
  for (const auto& a : axes) {
    chart.knobs.push_back(a.name);
    chart.knob_values.push_back(a.values);
  }
  std::vector<size_t> index(axes.size(), 0);
  for (size_t p = 0; p < points; ++p) {
    spec::PipelineSpec point = *spec;
    nlohmann::json assignment = nlohmann::json::object();
    std::string label;
    for (size_t a = 0; a < axes.size(); ++a) {
      const int64_t v = axes[a].values[index[a]];
      assignment[axes[a].name] = v;
      label += (label.empty() ? "" : " ") + axes[a].name + "=" + std::to_string(v);
      if (auto s = engine::ApplyOverride(point, axes[a].name + "=" + std::to_string(v)); !s.ok()) {
        err << "pipescope-cli: " << s.message() << "\n";
        return 2;
      }
    }
    // Recorded and analysed without its start-up (MeasureSpec), so that each point's rate
    // comes with its interval and the best can be told from the points it ties with.
    auto m = session::MeasureSpec(point, options.duration_s);
    if (!m.ok()) {
      err << "pipescope-cli: " << label << ": " << m.status().message() << "\n";
      return 1;
    }
    const double steps_per_s = m->analysis.steps_per_s;
    const double half_width = m->analysis.steps_per_s_half_width;
    err << "point " << p + 1 << "/" << points << ": " << label << ": "
        << trace::StepRateText({steps_per_s, half_width}) << "\n";
    nlohmann::json row = {
        {"knobs", assignment}, {"steps_per_s", steps_per_s}, {"half_width", half_width}};
    if (best.is_null() || steps_per_s > best["steps_per_s"].get<double>()) {
      best = row;
      chart.best = chart.points.size();
    }
    GridChart::Point charted{{}, steps_per_s, half_width};
    for (size_t a = 0; a < axes.size(); ++a) charted.values.push_back(axes[a].values[index[a]]);
    chart.points.push_back(std::move(charted));
    results.push_back(std::move(row));
    // The next point: an odometer over the axes, the last one fastest.
    for (size_t a = axes.size(); a-- > 0;) {
      if (++index[a] < axes[a].values.size()) break;
      index[a] = 0;
    }
  }
  // The points whose rate is within the noise of the best's: a tie with it.
  const trace::RateInterval top{best["steps_per_s"].get<double>(),
                                best["half_width"].get<double>()};
  nlohmann::json ties = nlohmann::json::array();
  for (const auto& row : results) {
    const trace::RateInterval r{row["steps_per_s"].get<double>(), row["half_width"].get<double>()};
    if (row != best && top.per_s - r.per_s <= trace::DifferenceHalfWidth(top, r))
      ties.push_back(row["knobs"]);
  }
  if (!options.plot_path.empty()) {
    if (auto written = DrawGridChart(chart).WritePng(options.plot_path); !written.ok()) {
      err << "pipescope-cli: " << written.message() << "\n";
      return 1;
    }
    err << "wrote the chart to " << options.plot_path << "\n";
  }
  if (options.json) {
    out << nlohmann::json{{"spec", options.spec_path},
                          {"duration_s_per_point", options.duration_s},
                          {"results", results},
                          {"best", best},
                          {"tied_with_best", ties}}
               .dump(2)
        << "\n";
  } else {
    out << "best of " << points << " points: ";
    for (auto& [k, v] : best["knobs"].items()) out << k << "=" << v << " ";
    out << "at " << trace::StepRateText(top) << " (95% interval)\n";
    if (!ties.empty()) {
      out << "a tie with it, within the noise of both:";
      for (const auto& tied : ties) {
        std::string point;
        for (auto& [k, v] : tied.items())
          point += std::string(point.empty() ? " " : ",") + k + "=" + v.dump();
        out << point << ";";
      }
      out << "\n";
    }
  }
  return 0;
}

}  // namespace pipescope::cli
