#include "app/session/grid_search.h"

#include <algorithm>

#include "app/session/measurement.h"
#include "engine/runtime/pipeline.h"
#include "engine/spec/spec_overrides.h"
#include "instrumentation/trace/rate_interval.h"

namespace pipescope::session {
namespace {

bool IsPerformanceKnob(const std::string& knob) {
  return knob == "num_parallel_calls" || knob == "buffer_size";
}

}  // namespace

size_t GridPlan::points() const {
  size_t n = 1;
  for (const GridAxis& a : axes) n *= a.values.size();
  return n;
}

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

engine::Result<GridPlan> PlanGrid(const spec::PipelineSpec& spec,
                                  const std::vector<std::string>& wanted,
                                  const std::string& source) {
  GridPlan plan{spec, {}, {}};
  ASSIGN_OR_RETURN(auto pipeline, engine::Pipeline::Create(plan.spec, {}));
  const auto present = pipeline->Knobs();
  for (const auto& w : wanted) {
    if (!w.ends_with(".num_parallel_calls")) continue;
    const bool has = std::any_of(present.begin(), present.end(),
                                 [&](const auto& k) { return k.op + "." + k.knob == w; });
    spec::PipelineSpec with = plan.spec;
    if (!has && engine::ApplyOverride(with, w + "=1").ok()) {
      plan.notes.push_back(w.substr(0, w.rfind('.')) + " is sequential in " + source +
                           ": gridded from num_parallel_calls 1");
      plan.spec = std::move(with);
    }
  }
  // The knobs and their ranges, from the pipeline the spec builds (again, where a
  // sequential map was made parallel).
  if (!plan.notes.empty()) {
    pipeline.reset();
    ASSIGN_OR_RETURN(pipeline, engine::Pipeline::Create(plan.spec, {}));
  }
  const int cores = pipeline->cpu_cores();
  for (const auto& k : pipeline->Knobs()) {
    const std::string name = k.op + "." + k.knob;
    const bool chosen = wanted.empty()
                            ? IsPerformanceKnob(k.knob)
                            : std::find(wanted.begin(), wanted.end(), name) != wanted.end();
    if (chosen) plan.axes.push_back({name, GridValues(k.knob, k.value, k.min, k.max, cores)});
  }
  for (const auto& w : wanted) {
    if (std::none_of(plan.axes.begin(), plan.axes.end(),
                     [&](const GridAxis& a) { return a.knob == w; }))
      return engine::InvalidArgument(source + " has no knob '" + w + "'");
  }
  if (plan.axes.empty())
    return engine::InvalidArgument(source + " has no tunable knobs to grid over");
  return plan;
}

std::string GridPoint::Label(const std::vector<GridAxis>& axes) const {
  std::string label;
  for (size_t a = 0; a < axes.size() && a < values.size(); ++a)
    label += (label.empty() ? "" : " ") + axes[a].knob + "=" + std::to_string(values[a]);
  return label;
}

engine::Result<GridResult> RunGrid(
    const GridPlan& plan, double seconds,
    const std::function<bool(size_t, size_t, const GridPoint&)>& measured) {
  GridResult result{plan.axes, {}, 0, {}};
  const size_t points = plan.points();
  std::vector<size_t> index(plan.axes.size(), 0);
  for (size_t p = 0; p < points; ++p) {
    spec::PipelineSpec point = plan.spec;
    GridPoint g;
    for (size_t a = 0; a < plan.axes.size(); ++a) {
      const int64_t v = plan.axes[a].values[index[a]];
      g.values.push_back(v);
      RETURN_IF_ERROR(engine::ApplyOverride(point, plan.axes[a].knob + "=" + std::to_string(v)));
    }
    // Recorded and analysed without its start-up (MeasureSpec), so that each point's rate
    // comes with its interval and the best can be told from the points it ties with.
    auto m = MeasureSpec(point, seconds);
    if (!m.ok())
      return engine::Status(m.status().code(),
                            g.Label(plan.axes) + ": " + std::string(m.status().message()));
    g.steps_per_s = m->analysis.steps_per_s;
    g.half_width = m->analysis.steps_per_s_half_width;
    if (result.points.empty() || g.steps_per_s > result.points[result.best].steps_per_s)
      result.best = result.points.size();
    result.points.push_back(g);
    if (measured && !measured(p, points, result.points.back()))
      return engine::Status(engine::StatusCode::kCancelled, "grid cancelled");
    // The next point: an odometer over the axes, the last one fastest.
    for (size_t a = plan.axes.size(); a-- > 0;) {
      if (++index[a] < plan.axes[a].values.size()) break;
      index[a] = 0;
    }
  }
  // The points whose rate is within the noise of the best's: a tie with it.
  const GridPoint& best = result.points[result.best];
  const trace::RateInterval top{best.steps_per_s, best.half_width};
  for (size_t i = 0; i < result.points.size(); ++i) {
    const trace::RateInterval r{result.points[i].steps_per_s, result.points[i].half_width};
    if (i != result.best && top.per_s - r.per_s <= trace::DifferenceHalfWidth(top, r))
      result.ties.push_back(i);
  }
  return result;
}

GridChart ChartOf(const GridResult& result, const std::string& title) {
  GridChart chart;
  chart.title = title;
  for (const GridAxis& a : result.axes) {
    chart.knobs.push_back(a.knob);
    chart.knob_values.push_back(a.values);
  }
  for (const GridPoint& p : result.points)
    chart.points.push_back({p.values, p.steps_per_s, p.half_width});
  chart.best = result.best;
  return chart;
}

}  // namespace pipescope::session
