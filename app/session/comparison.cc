#include "app/session/comparison.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "instrumentation/trace/rate_interval.h"

namespace pipescope::session {
namespace {

std::string Value(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }

std::string Verdict(const Comparison& c) {
  const double a = c.a.analysis.steps_per_s, b = c.b.analysis.steps_per_s;
  const double ha = c.a.analysis.steps_per_s_half_width;
  const double hb = c.b.analysis.steps_per_s_half_width;
  char line[224];
  if (c.tie) {
    std::snprintf(line, sizeof line,
                  "%s and %s are a tie: %.1f ± %.1f and %.1f ± %.1f steps/s differ by less "
                  "than their noise",
                  c.name_a.c_str(), c.name_b.c_str(), a, ha, b, hb);
  } else {
    const bool b_faster = b > a;
    const double slower = b_faster ? a : b, faster = b_faster ? b : a;
    std::snprintf(line, sizeof line,
                  "%s is %.2fx faster than %s (%.1f ± %.1f vs %.1f ± %.1f steps/s)",
                  (b_faster ? c.name_b : c.name_a).c_str(), slower > 0 ? faster / slower : 0.0,
                  (b_faster ? c.name_a : c.name_b).c_str(), faster, b_faster ? hb : ha, slower,
                  b_faster ? ha : hb);
  }
  std::string verdict = line, changes;
  for (const auto& d : c.differences) {
    changes += (changes.empty() ? "" : ", ") + d.knob + " " + Value(d.a) + " -> " + Value(d.b);
  }
  if (!c.same_ops) changes = "the op order differs" + (changes.empty() ? "" : "; " + changes);
  if (!changes.empty()) verdict += ": " + changes;
  return verdict;
}

}  // namespace

std::vector<KnobDifference> DifferingKnobs(const std::vector<engine::KnobInfo>& a,
                                           const std::vector<engine::KnobInfo>& b) {
  std::map<std::string, KnobDifference> knobs;
  for (const auto& k : a) knobs[k.op + "." + k.knob].a = k.value;
  for (const auto& k : b) knobs[k.op + "." + k.knob].b = k.value;
  std::vector<KnobDifference> out;
  for (auto& [name, d] : knobs) {
    if (d.a == d.b) continue;
    d.knob = name;
    out.push_back(std::move(d));
  }
  return out;
}

bool SameOps(const spec::PipelineSpec& a, const spec::PipelineSpec& b) {
  if (a.ops_size() != b.ops_size()) return false;
  for (int i = 0; i < a.ops_size(); ++i) {
    if (a.ops(i).name() != b.ops(i).name()) return false;
  }
  return true;
}

Comparison Compare(SpecMeasurement a, SpecMeasurement b, bool same_ops, std::string name_a,
                   std::string name_b) {
  Comparison c;
  c.name_a = std::move(name_a);
  c.name_b = std::move(name_b);
  c.differences = DifferingKnobs(a.knobs, b.knobs);
  c.same_ops = same_ops;
  c.speedup_b_over_a =
      a.analysis.steps_per_s > 0 ? b.analysis.steps_per_s / a.analysis.steps_per_s : 0;
  const trace::RateInterval ra{a.analysis.steps_per_s, a.analysis.steps_per_s_half_width};
  const trace::RateInterval rb{b.analysis.steps_per_s, b.analysis.steps_per_s_half_width};
  c.noise_band = trace::DifferenceHalfWidth(ra, rb);
  c.tie = std::abs(ra.per_s - rb.per_s) <= c.noise_band;
  c.a = std::move(a);
  c.b = std::move(b);
  c.verdict = Verdict(c);
  return c;
}

engine::Result<Comparison> CompareSpecs(const spec::PipelineSpec& a, const spec::PipelineSpec& b,
                                        double seconds, const std::string& name_a,
                                        const std::string& name_b, MeasurementCanceller* canceller,
                                        const std::function<void(const std::string&)>& stage) {
  if (stage) stage("measuring " + name_a);
  ASSIGN_OR_RETURN(SpecMeasurement ma, MeasureSpec(a, seconds, canceller));
  if (stage) stage("measuring " + name_b);
  ASSIGN_OR_RETURN(SpecMeasurement mb, MeasureSpec(b, seconds, canceller));
  return Compare(std::move(ma), std::move(mb), SameOps(a, b), name_a, name_b);
}

}  // namespace pipescope::session
