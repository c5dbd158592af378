#pragma once
// Two configurations of a pipeline measured one after the other for the same time, set
// side by side: their figures, the knobs that differ, and a one-line verdict ("autotuned
// is 2.80x faster than yours (...): decode.num_parallel_calls 1 -> 4", or a tie when the
// difference is within the noise of the two rates). What `pipescope-cli
// compare` prints and the GUI's Compare window shows.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/session/measurement.h"

namespace pipescope::session {

struct KnobDifference {
  std::string knob;          // "op.knob"
  std::optional<int64_t> a;  // nullopt: that side has no such knob
  std::optional<int64_t> b;
};

struct Comparison {
  std::string name_a, name_b;  // how the verdict calls them ("A", "yours", ...)
  SpecMeasurement a, b;
  std::vector<KnobDifference> differences;
  bool same_ops = true;  // both run the same ops in the same order
  double speedup_b_over_a = 0;
  // The 95% half width of the difference of their rates (rate_interval.h); a difference
  // within it is a tie, whichever measured faster.
  double noise_band = 0;
  bool tie = false;
  std::string verdict;
  // b is a prediction (a what-if simulated on a model of a trace), not a measurement: only
  // the figures the prediction gives are shown, with what it rests on.
  bool b_predicted = false;
  std::vector<std::string> notes;  // the prediction's assumptions
};

// The knobs whose values differ (or that only one side has), by name.
std::vector<KnobDifference> DifferingKnobs(const std::vector<engine::KnobInfo>& a,
                                           const std::vector<engine::KnobInfo>& b);

// Sets two measurements side by side; `same_ops` says whether their specs have the same
// op order.
Comparison Compare(SpecMeasurement a, SpecMeasurement b, bool same_ops, std::string name_a,
                   std::string name_b);

// Whether two specs run the same ops (by name) in the same order.
bool SameOps(const spec::PipelineSpec& a, const spec::PipelineSpec& b);

// Measures `a` then `b` for `seconds` each. `stage` hears "measuring <name>" before each.
engine::Result<Comparison> CompareSpecs(const spec::PipelineSpec& a, const spec::PipelineSpec& b,
                                        double seconds, const std::string& name_a,
                                        const std::string& name_b,
                                        MeasurementCanceller* canceller = nullptr,
                                        const std::function<void(const std::string&)>& stage = {});

}  // namespace pipescope::session
