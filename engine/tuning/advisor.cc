#include "engine/tuning/advisor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>

#include "engine/spec/spec_overrides.h"
#include "engine/tuning/advice_candidates.h"
#include "engine/tuning/move_rules.h"

namespace pipescope::engine {
namespace {

// An op busy this share of the time can go no faster as it is.
constexpr double kFullyBusy = 0.9;

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

// `from`: the spec as given, simulated.
std::string TextOf(const AdviceCandidate& c, double from, double predicted, double gain,
                   const std::string& what_changes) {
  char pct[32];
  std::snprintf(pct, sizeof pct, "%+.0f%%", 100 * gain);
  std::string text = c.action + ": " + Rate(from) + " → " + Rate(predicted) +
                     " steps/s predicted, steady (" + pct + ")";
  if (!what_changes.empty()) text += ". It changes the output. " + what_changes;
  return text;
}

// Moving a map after batch gains by its batched form's lower cost per row, and also by the
// batch's work running apart from the map's. A vectorising that gains no more than a
// prefetch does gained only the second: it is the prefetch's advice, not its own.
void DropBufferingCalledVectorising(std::vector<Advice>& advice, double noise) {
  double prefetch_gain = -1;
  for (const Advice& a : advice) {
    if (a.kind == "prefetch") prefetch_gain = std::max(prefetch_gain, a.predicted_gain);
  }
  if (prefetch_gain < 0) return;
  std::erase_if(advice, [&](const Advice& a) {
    return a.kind == "vectorise" && a.predicted_gain <= prefetch_gain * (1 + noise) + noise;
  });
}

// A source that reads one file: a synthetic one, or a TFRecord or text file list of one.
bool ReadsOneFile(const spec::Source& source) {
  if (source.has_synthetic()) return true;
  if (source.has_tfrecord()) return source.tfrecord().files_size() == 1;
  if (source.has_text_line()) return source.text_line().files_size() == 1;
  return false;
}

// Shards that keep a small share of what was read before them: every worker of a job
// reads everything and keeps its share.
std::vector<std::string> ShardWaste(const spec::PipelineSpec& spec,
                                    const trace::RangeAnalysis& measured) {
  std::map<std::string, const trace::StageFigures*> figures;
  for (const auto& s : measured.stages) figures[s.name] = &s;
  std::vector<std::string> out;
  std::string before = spec.source().name();
  for (const auto& op : spec.ops()) {
    const std::string input = before;
    before = op.name();
    const int64_t workers = ReadIntKnob(spec, op.name(), "num_shards").value_or(0);
    if (!Splits(op) || workers < 2) continue;
    const auto in = figures.find(input);
    const auto kept = figures.find(op.name());
    if (in == figures.end() || kept == figures.end() || in->second->elements <= 0) continue;
    const double share =
        static_cast<double>(kept->second->elements) / static_cast<double>(in->second->elements);
    if (share > 0.5) continue;
    // A single file has no list to shard until it is split (a source reading one file
    // straight into the shard); elsewhere the files are there to shard.
    const bool one_file = &op == &spec.ops(0) && ReadsOneFile(spec.source());
    char line[512];
    std::snprintf(line, sizeof line,
                  "%s keeps %.0f%% of the %lld elements that %s gave it: each of the %lld workers "
                  "reads all of them to keep its share; shard the file list before the reads%s",
                  op.name().c_str(), 100 * share, static_cast<long long>(in->second->elements),
                  input.c_str(), static_cast<long long>(workers),
                  one_file ? " (split the single file into many to have a list to shard)" : "");
    out.emplace_back(line);
  }
  return out;
}

}  // namespace

Result<AdvisorResult> Advise(const spec::PipelineSpec& spec, const trace::RangeAnalysis& measured,
                             const SimulatedRate& simulate, const AdvisorOptions& options) {
  AdvisorResult result;
  result.findings = ShardWaste(spec, measured);
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
  // Each candidate's gain on every seed (empty: the simulator could not run it, so it is
  // never advised), simulated on several threads: each simulation is independent.
  std::vector<std::vector<double>> gains(candidates.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> cancelled{false};
  auto work = [&] {
    for (size_t i = next++; i < candidates.size(); i = next++) {
      if (cancelled || (options.cancelled && options.cancelled())) {
        cancelled = true;
        return;
      }
      std::vector<double> g;
      for (int seed = 1; seed <= seeds; ++seed) {
        auto rate = simulate(candidates[i].spec, static_cast<uint64_t>(seed));
        if (!rate.ok()) {
          g.clear();
          break;
        }
        g.push_back(*rate / base[static_cast<size_t>(seed - 1)] - 1);
      }
      gains[i] = std::move(g);
    }
  };
  const int threads = std::clamp<int>(
      options.threads > 0 ? options.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())),
      1, static_cast<int>(std::max<size_t>(1, candidates.size())));
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (auto& w : workers) w.join();
  if (cancelled) return Cancelled("advice cancelled");
  std::vector<Tried> confirmed;
  for (size_t i = 0; i < candidates.size(); ++i) {
    ++result.tried;
    if (gains[i].empty()) continue;
    const double least = *std::min_element(gains[i].begin(), gains[i].end());
    if (least <= result.noise) continue;
    confirmed.push_back({&candidates[i], Median(gains[i]), least});
  }

  // Per op and kind, the first (fewest threads, smallest buffer: the candidates' order)
  // within the noise of the best.
  std::map<std::pair<std::string, std::string>, double> best_gain;
  for (const Tried& t : confirmed) {
    double& g = best_gain[{t.candidate->kind, t.candidate->op}];
    g = std::max(g, t.gain);
  }
  const double base_rate = result.simulated_steps_per_s;
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
    a.predicted_steps_per_s = base_rate * (1 + t.gain);
    a.confidence = t.least_gain > 2 * result.noise ? "high" : "medium";
    a.what_changes = c.changes_output;
    a.changes_output = !a.what_changes.empty();
    a.text = TextOf(c, base_rate, a.predicted_steps_per_s, t.gain, a.what_changes);
    a.spec = c.spec;
    result.advice.push_back(std::move(a));
  }
  DropBufferingCalledVectorising(result.advice, result.noise);
  // Best first; a change of the output counts as gaining the noise less, so that of two
  // changes that gain alike the one that keeps the output comes first.
  const double noise = result.noise;
  auto rank = [noise](const Advice& a) {
    return a.changes_output ? a.predicted_gain - noise - 0.1 * std::abs(a.predicted_gain)
                            : a.predicted_gain;
  };
  std::stable_sort(result.advice.begin(), result.advice.end(),
                   [&](const Advice& x, const Advice& y) { return rank(x) > rank(y); });
  if (result.advice.empty() && measured.input_wait_fraction < 0.05) {
    Advice a;
    a.kind = "device_bound";
    a.predicted_steps_per_s = base_rate;
    a.confidence = "high";
    a.text = "the training step is the limit: none of the " + std::to_string(result.tried) +
             " changes tried in the simulator gains, and the consumer waits for input " +
             std::to_string(std::lround(100 * measured.input_wait_fraction)) +
             "% of the time; a faster step (or a larger batch per step) is what would help";
    // An op as busy as it can be keeps pace with the step and no more: a faster step meets
    // it next, so a faster step alone would gain little.
    const trace::StageFigures* busiest = nullptr;
    for (const auto& s : measured.stages) {
      if (busiest == nullptr || s.busy_fraction > busiest->busy_fraction) busiest = &s;
    }
    if (busiest != nullptr && busiest->busy_fraction >= kFullyBusy) {
      a.text += ", with " + busiest->name + " faster too: it is busy " +
                std::to_string(std::lround(100 * busiest->busy_fraction)) +
                "% of the time, just keeping pace with this step";
    }
    result.advice.push_back(std::move(a));
  }
  return result;
}

}  // namespace pipescope::engine
