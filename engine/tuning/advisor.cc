#include "engine/tuning/advisor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/tuning/advice_candidates.h"
#include "engine/tuning/move_rules.h"

namespace pipescope::engine {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string Rate(double steps_per_s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, steps_per_s < 10 ? "%.2f" : "%.1f", steps_per_s);
  return buf;
}

struct Tried {
  const AdviceCandidate* candidate = nullptr;
  double gain = 0;        // median over the seeds
  double least_gain = 0;  // the worst seed's
};

std::string TextOf(const AdviceCandidate& c, double measured, double predicted, double gain,
                   const std::string& what_changes) {
  char pct[32];
  std::snprintf(pct, sizeof pct, "%+.0f%%", 100 * gain);
  std::string text = c.action + ": " + Rate(measured) + " → " + Rate(predicted) +
                     " steps/s predicted (" + pct + ")";
  if (!what_changes.empty()) text += ". It changes the output: " + what_changes;
  return text;
}

}  // namespace

Result<AdvisorResult> Advise(const spec::PipelineSpec& spec, const trace::RangeAnalysis& measured,
                             const SimulatedRate& simulate, const AdvisorOptions& options) {
  AdvisorResult result;
  const int seeds = std::max(1, options.seeds);
  std::vector<double> base;
  for (int seed = 1; seed <= seeds; ++seed) {
    ASSIGN_OR_RETURN(double rate, simulate(spec, static_cast<uint64_t>(seed)));
    base.push_back(rate);
  }
  result.simulated_steps_per_s = Median(base);
  if (result.simulated_steps_per_s <= 0) return result;  // nothing reached the step
  const auto [lo, hi] = std::minmax_element(base.begin(), base.end());
  result.noise = std::max(options.min_gain, (*hi - *lo) / result.simulated_steps_per_s);

  const std::vector<AdviceCandidate> candidates = AdviceCandidates(spec, measured, options.cores);
  std::vector<Tried> confirmed;
  for (const AdviceCandidate& c : candidates) {
    std::vector<double> gains;
    bool failed = false;
    for (int seed = 1; seed <= seeds && !failed; ++seed) {
      auto rate = simulate(c.spec, static_cast<uint64_t>(seed));
      if (!rate.ok()) {
        failed = true;  // the simulator cannot run it: never advised
        break;
      }
      gains.push_back(*rate / base[static_cast<size_t>(seed - 1)] - 1);
    }
    ++result.tried;
    if (failed) continue;
    const double least = *std::min_element(gains.begin(), gains.end());
    if (least <= result.noise) continue;
    confirmed.push_back({&c, Median(gains), least});
  }

  // Per op and kind, the first (fewest threads, smallest buffer: the candidates' order)
  // within the noise of the best.
  std::map<std::pair<std::string, std::string>, double> best_gain;
  for (const Tried& t : confirmed) {
    double& g = best_gain[{t.candidate->kind, t.candidate->op}];
    g = std::max(g, t.gain);
  }
  const double measured_rate =
      measured.steps_per_s > 0 ? measured.steps_per_s : result.simulated_steps_per_s;
  for (const Tried& t : confirmed) {
    auto it = best_gain.find({t.candidate->kind, t.candidate->op});
    if (it == best_gain.end() || t.gain < it->second - result.noise) continue;
    best_gain.erase(it);  // this group is advised
    const AdviceCandidate& c = *t.candidate;
    Advice a;
    a.kind = c.kind;
    a.op = c.op;
    a.change = c.change;
    a.settings = c.settings;
    a.predicted_gain = t.gain;
    a.predicted_steps_per_s = measured_rate * (1 + t.gain);
    a.confidence = t.least_gain > 2 * result.noise ? "high" : "medium";
    a.what_changes = c.changes_output;
    if (a.what_changes.empty()) {
      const MoveAssessment assessed = AssessChange(spec, c.spec);
      if (!assessed.keeps_output) a.what_changes = assessed.explanation;
    }
    a.changes_output = !a.what_changes.empty();
    a.text = TextOf(c, measured_rate, a.predicted_steps_per_s, t.gain, a.what_changes);
    a.spec = c.spec;
    result.advice.push_back(std::move(a));
  }
  std::stable_sort(
      result.advice.begin(), result.advice.end(),
      [](const Advice& x, const Advice& y) { return x.predicted_gain > y.predicted_gain; });
  if (result.advice.empty() && measured.input_wait_fraction < 0.05) {
    Advice a;
    a.kind = "device_bound";
    a.predicted_steps_per_s = measured_rate;
    a.confidence = "high";
    a.text = "the training step is the limit: none of the " + std::to_string(result.tried) +
             " changes tried in the simulator gains, and the consumer waits for input " +
             std::to_string(std::lround(100 * measured.input_wait_fraction)) +
             "% of the time; a faster step (or a larger batch per step) is what would help";
    result.advice.push_back(std::move(a));
  }
  return result;
}

}  // namespace pipescope::engine
