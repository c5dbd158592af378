#include "engine/tuning/advisor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/core/duration.h"
#include "engine/runtime/dataloader_rules.h"
#include "engine/spec/spec_overrides.h"
#include "engine/tuning/advice_candidates.h"
#include "engine/tuning/advisor_findings.h"
#include "engine/tuning/cache_memory.h"
#include "engine/tuning/cache_replay.h"
#include "engine/tuning/move_rules.h"
#include "engine/tuning/spec_edit.h"
#include "instrumentation/trace/verdict.h"

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

// A candidate's change as advice, its figures still to fill in.
Advice AdviceFrom(const AdviceCandidate& c) {
  Advice a;
  a.kind = c.kind;
  a.op = c.op;
  a.change = c.change;
  a.settings = c.settings;
  a.spec = c.spec;
  a.edit = c.edit;
  a.what_changes = c.changes_output;
  a.changes_output = !a.what_changes.empty();
  a.needs_code_change = c.needs_code_change;
  a.changes_machine = c.changes_machine;
  a.how = c.how;
  a.steps_per_step = c.steps_per_step;
  return a;
}

// Each piece of advice's text ends with how the code makes it, where its candidate says.
void SayHow(std::vector<Advice>& advice) {
  for (Advice& a : advice) {
    if (!a.how.empty()) a.text += ". " + a.how;
  }
}

struct Tried {
  const AdviceCandidate* candidate = nullptr;
  double gain = 0;        // median over the seeds
  double least_gain = 0;  // the worst seed's
};

// What a predicted rate is of: the steady part, or a program that ends, its whole run; for a
// change that adds a cache (`caches`) to a program that does not end within the window, its
// epochs weighed, the first filling the cache, or the epochs after the first
// (cache_replay.h).
std::string RateBasis(bool whole_run, const spec::PipelineSpec* spec = nullptr,
                      bool caches = false) {
  if (whole_run) return "over the whole run";
  const std::optional<CachedEpochs> cached =
      caches && spec ? LaterEpochsOfACache(*spec) : std::nullopt;
  if (!cached) return "steady";
  return cached->epochs ? "over its " + std::to_string(*cached->epochs) +
                              " epochs, the first filling the cache"
                        : "steady, once the cache holds an epoch";
}

// `from`: the spec as given, simulated.
std::string TextOf(const AdviceCandidate& c, double from, double predicted, double gain,
                   const std::string& what_changes, bool whole_run) {
  std::string text = c.action + ": " + Rate(from) + " → " + Rate(predicted) +
                     " steps/s predicted, " + RateBasis(whole_run, &c.spec, c.kind == "cache") +
                     " (" + trace::FormatPercentChange(gain) + ")";
  if (!what_changes.empty()) text += ". It changes the output. " + what_changes;
  return text;
}

// The least gain over the seeds of `with` over `than` (seeds 1..n), or nullopt when either
// cannot be simulated.
std::optional<double> LeastGain(const spec::PipelineSpec& with, const spec::PipelineSpec& than,
                                size_t seeds, const SimulatedRate& simulate) {
  double least = 1e9;
  for (size_t seed = 1; seed <= seeds; ++seed) {
    auto a = simulate(with, seed, 1), b = simulate(than, seed, 1);
    if (!a.ok() || !b.ok() || *b <= 0) return std::nullopt;
    least = std::min(least, *a / *b - 1);
  }
  return least;
}

// Moving a map after batch gains by its batched form's lower cost per row, and also by the
// batch's work running apart from the map's. A vectorising that adds nothing to what the best
// prefetch gives gained only the second: it is the prefetch's advice, not its own. One that
// adds to it stays (seed 001: the prefetch and batching before the parse add up). So too a
// change that brings a prefetch with it (the epochs put in the dataset where nothing fetches
// ahead, tensorflow#30646): where it adds nothing to the prefetch alone, its gain was the
// prefetch's. And a map made parallel whose own work is little (tensorflow#14448's lambda
// unpacking a dict: +47%, the prefetch +46%): its threads gained by running apart from the
// step, as a prefetch does, not by sharing its work.
void DropGainsOnlyAPrefetchMakes(std::vector<Advice>& advice, double noise, size_t seeds,
                                 const SimulatedRate& simulate) {
  const Advice* prefetch = nullptr;
  for (const Advice& a : advice) {
    if (a.kind == "prefetch" && (!prefetch || a.predicted_gain > prefetch->predicted_gain))
      prefetch = &a;
  }
  if (!prefetch) return;
  std::vector<bool> drop(advice.size(), false);
  for (size_t i = 0; i < advice.size(); ++i) {
    const Advice& a = advice[i];
    const bool brings_a_prefetch = a.kind != "prefetch" && a.edit.add && a.edit.add->has_prefetch();
    if (a.kind != "vectorise" && a.kind != "parallelise" && !brings_a_prefetch) continue;
    auto both =
        brings_a_prefetch ? Result<spec::PipelineSpec>(a.spec) : ApplyEdit(prefetch->spec, a.edit);
    const std::optional<double> added =
        both.ok() ? LeastGain(*both, prefetch->spec, seeds, simulate) : std::nullopt;
    drop[i] = added ? *added <= noise
                    : a.predicted_gain <= prefetch->predicted_gain * (1 + noise) + noise;
  }
  size_t i = 0;
  std::erase_if(advice, [&](const Advice&) { return drop[i++]; });
}

// The spec's steady rate on each of the seeds 1..seeds, the step's cost times `step_scale`.
Result<std::vector<double>> RatesBySeed(const spec::PipelineSpec& spec,
                                        const SimulatedRate& simulate, int seeds,
                                        double step_scale) {
  std::vector<double> rates;
  for (int seed = 1; seed <= seeds; ++seed) {
    ASSIGN_OR_RETURN(double rate, simulate(spec, static_cast<uint64_t>(seed), step_scale));
    rates.push_back(rate);
  }
  return rates;
}

// The given spec's steps one of a candidate's stands for, where each of the candidate's does
// `steps_per_step` of them (AdviceCandidate::steps_per_step). A program that ends takes its
// S steps' data in ceil(S / N) of the candidate's, the last partly filled: its whole run's
// rate stands for S over that many (tensorflow#44274's 80 elements are one batch of 1024,
// not 1,024 of its steps).
double GivenStepsPerStep(double steps_per_step, const AdvisorOptions& options) {
  if (steps_per_step <= 1 || !options.whole_run || options.whole_run_steps <= 0) {
    return steps_per_step;
  }
  const auto given = static_cast<double>(options.whole_run_steps);
  return given / std::ceil(given / steps_per_step);
}

// Each candidate's gain over `base` (the spec as given, by seed) on every seed, the step's
// cost times `step_scale` (empty: the simulator could not run it, so it is never advised),
// simulated on several threads: each simulation is independent.
Result<std::vector<std::vector<double>>> GainsOf(const std::vector<AdviceCandidate>& candidates,
                                                 const std::vector<double>& base, double step_scale,
                                                 const SimulatedRate& simulate,
                                                 const AdvisorOptions& options) {
  std::vector<std::vector<double>> gains(candidates.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> cancelled{false};
  std::mutex progress_mutex;
  size_t done = 0;
  auto work = [&] {
    for (size_t i = next++; i < candidates.size(); i = next++) {
      if (cancelled || (options.cancelled && options.cancelled())) {
        cancelled = true;
        return;
      }
      std::vector<double> g;
      // A step of the candidate's that is several of the given spec's does their work.
      const double steps = candidates[i].steps_per_step;
      const double given_steps = GivenStepsPerStep(steps, options);
      for (size_t seed = 1; seed <= base.size(); ++seed) {
        auto rate = simulate(candidates[i].spec, seed, step_scale * steps);
        if (!rate.ok() || base[seed - 1] <= 0) {
          g.clear();
          break;
        }
        g.push_back(*rate * given_steps / base[seed - 1] - 1);
      }
      gains[i] = std::move(g);
      if (options.progress) {
        const std::lock_guard lock(progress_mutex);
        options.progress(++done, candidates.size());
      }
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
  return gains;
}

// The candidates that gain beyond `noise` on every seed.
std::vector<Tried> Confirmed(const std::vector<AdviceCandidate>& candidates,
                             const std::vector<std::vector<double>>& gains, double noise) {
  std::vector<Tried> confirmed;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (gains[i].empty()) continue;
    const double least = *std::min_element(gains[i].begin(), gains[i].end());
    if (least <= noise) continue;
    confirmed.push_back({&candidates[i], Median(gains[i]), least});
  }
  return confirmed;
}

// What a faster step meets next, for a run whose step is the limit: the input's own ceiling
// (the spec simulated with a step that takes no time) and the change of the candidates that
// raises that ceiling most, or "" when the ceiling cannot be simulated.
Result<std::string> AfterAFasterStep(const spec::PipelineSpec& spec,
                                     const std::vector<AdviceCandidate>& candidates,
                                     double base_rate, double noise, const SimulatedRate& simulate,
                                     const AdvisorOptions& options) {
  const int seeds = std::max(1, options.seeds);
  auto ceilings = RatesBySeed(spec, simulate, seeds, 0);
  if (!ceilings.ok()) return std::string();
  const double ceiling = Median(*ceilings);
  if (ceiling <= 0) return std::string();
  std::string text;
  const bool room = ceiling > base_rate * (1 + noise);
  if (room) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "; the input alone feeds up to %s steps/s (simulated with a step that takes "
                  "no time), room for a step %.1f× as fast",
                  Rate(ceiling).c_str(), ceiling / base_rate);
    text = line;
  } else {
    text = "; but the input alone feeds no more than " + Rate(ceiling) +
           " steps/s (simulated with a step that takes no time), so a faster step gains "
           "nothing until the input is faster too";
  }
  ASSIGN_OR_RETURN(auto gains, GainsOf(candidates, *ceilings, 0, simulate, options));
  const std::vector<Tried> confirmed = Confirmed(candidates, gains, noise);
  const auto best =
      std::max_element(confirmed.begin(), confirmed.end(),
                       [](const Tried& x, const Tried& y) { return x.gain < y.gain; });
  if (best == confirmed.end()) return text + "; no change tried raises what it feeds";
  const AdviceCandidate& next = *best->candidate;
  return text +
         (room ? "; past that, the next change would be to " : ": the change for that is to ") +
         next.action + " (the input then feeds " + Rate(ceiling * (1 + best->gain)) + " steps/s" +
         (next.changes_output.empty() ? "" : "; it changes the output") + ")";
}

// The first piece of advice, then each later change that keeps the output and adds to what
// is kept so far beyond the noise on every seed (raising a map's threads, batching before it
// and a prefetch at the end, seed 001's answers, add up), each made again on the kept pipeline
// (SpecEdit); last, a change of order alone (deterministic=False) that adds to them, said as
// changing the output (tensorflow/models#7127: 64 readers and sloppy reads, 1.2 -> 7 steps/s,
// where either alone gains little). One change at a time is what each piece of advice
// predicts; people apply several, and two changes need not add up (more workers and
// persistent workers both shorten the same wait).
// `same_op`: changes of the first piece's op that gained nothing alone, each tried again on
// top of the kept changes, the best of each knob kept where it adds (keras#11727: threads
// instead of processes, then more of them, 11.0 -> 49.8 steps/s, where more processes alone
// gained nothing, the main process unpickling every batch).
AdviceTogether Together(std::vector<Advice> advice, const std::vector<double>& base, double noise,
                        const SimulatedRate& simulate, const std::vector<Advice>& same_op = {}) {
  AdviceTogether together;
  std::vector<Advice> order_only;
  for (const Advice& a : advice) {
    if (a.changes_output && a.kind == "nondeterministic") order_only.push_back(a);
  }
  // From the first that keeps the output (an order-only change may lead the list); none
  // whose gain rests on a stand-in size (CheckOnLongerEpochs).
  std::erase_if(advice, [](const Advice& a) { return a.changes_output || a.confidence == "low"; });
  if (advice.empty() || advice.size() + order_only.size() + same_op.size() < 2 ||
      !advice[0].spec.has_source()) {
    return together;
  }
  spec::PipelineSpec kept = advice[0].spec;
  std::vector<double> kept_rates;
  for (size_t seed = 1; seed <= base.size(); ++seed) {
    auto r = simulate(kept, seed, 1);
    if (!r.ok()) return together;  // advice stands without its combination
    kept_rates.push_back(*r);
  }
  std::vector<std::string> settings = advice[0].settings;
  std::vector<std::string> changes = {advice[0].change};
  std::vector<std::string> kinds = {advice[0].kind};
  bool moves = advice[0].settings.empty();
  int added = 0;
  const auto add_if_it_adds = [&](const Advice& a) {
    if (!a.spec.has_source()) return false;
    // A knob the kept changes set already is theirs.
    const bool knob_taken = std::any_of(a.settings.begin(), a.settings.end(), [&](const auto& s) {
      const std::string knob = s.substr(0, s.find('='));
      return std::any_of(settings.begin(), settings.end(),
                         [&](const auto& k) { return k.substr(0, k.find('=')) == knob; });
    });
    if (knob_taken) return false;
    auto with = ApplyEdit(kept, a.edit);
    if (!with.ok()) return false;
    std::vector<double> rates;
    double least = 1e9;
    for (size_t seed = 1; seed <= base.size() && least > noise; ++seed) {
      auto r = simulate(*with, seed, 1);
      if (!r.ok() || kept_rates[seed - 1] <= 0) {
        least = 0;
        break;
      }
      rates.push_back(*r);
      least = std::min(least, *r / kept_rates[seed - 1] - 1);
    }
    if (least <= noise) return false;
    kept = std::move(*with);
    kept_rates = std::move(rates);
    moves = moves || a.settings.empty();
    settings.insert(settings.end(), a.settings.begin(), a.settings.end());
    changes.push_back(a.change);
    kinds.push_back(a.kind);
    ++added;
    return true;
  };
  for (size_t i = 1; i < advice.size(); ++i) add_if_it_adds(advice[i]);
  // Of each knob's unconfirmed changes, the one that adds most on top of what is kept.
  std::map<std::string, std::pair<const Advice*, double>> best_of_knob;
  for (const Advice& a : same_op) {
    if (a.settings.size() != 1 || !a.spec.has_source()) continue;
    auto with = ApplyEdit(kept, a.edit);
    if (!with.ok()) continue;
    auto r = simulate(*with, 1, 1);
    if (!r.ok() || kept_rates[0] <= 0) continue;
    const double gain = *r / kept_rates[0] - 1;
    const std::string knob = a.settings[0].substr(0, a.settings[0].find('='));
    auto [it, fresh] = best_of_knob.try_emplace(knob, &a, gain);
    if (!fresh && gain > it->second.second) it->second = {&a, gain};
  }
  for (const auto& [knob, best] : best_of_knob) {
    if (best.second > noise) add_if_it_adds(*best.first);
  }
  for (const Advice& a : order_only) {
    if (add_if_it_adds(a)) {
      together.changes_output += (together.changes_output.empty() ? "" : " ") + a.what_changes;
    }
  }
  if (added == 0) return together;
  std::vector<double> gains;
  for (size_t seed = 0; seed < base.size(); ++seed) gains.push_back(kept_rates[seed] / base[seed]);
  together.moves = moves;
  together.settings = std::move(settings);
  together.changes = std::move(changes);
  together.kinds = std::move(kinds);
  together.predicted_gain = Median(gains) - 1;
  together.predicted_steps_per_s = Median(base) * Median(gains);
  together.spec = std::move(kept);
  return together;
}

// Where the run's first step came late (or never), the changes that bring it sooner, tried
// on the start-up itself: each kept where its first step comes in half the time or less on
// every seed, best first. `base_rate`: the spec's steady rate (0 where it had no step).
// The first step's time on each seed (nullopt: none in the simulator's run).
using FirstSteps = std::vector<std::optional<double>>;
FirstSteps FirstStepsOf(const spec::PipelineSpec& spec, const AdvisorOptions& options) {
  FirstSteps firsts;
  for (int seed = 1; seed <= std::max(1, options.seeds); ++seed) {
    auto s = options.startup(spec, static_cast<uint64_t>(seed));
    firsts.push_back(s.ok() ? std::optional<double>(*s) : std::nullopt);
  }
  return firsts;
}

// How much sooner `changed` brings the first step: "the first step after 4.61 s instead of
// 45.1 s predicted" where it comes in half the time or less on every seed, with the seconds
// it saves (the medians'); an empty text where it does not.
struct SoonerStep {
  std::string text;
  double saved_s = 0;
};
SoonerStep SoonerFirstStep(const spec::PipelineSpec& changed, const FirstSteps& base,
                           const AdvisorOptions& options) {
  std::vector<double> after, before;
  for (size_t seed = 1; seed <= base.size(); ++seed) {
    auto s = options.startup(changed, static_cast<uint64_t>(seed));
    const std::optional<double>& b = base[seed - 1];
    if (!s.ok() || (b && *s > 0.5 * *b)) return {};
    after.push_back(*s);
    if (b) before.push_back(*b);
  }
  if (after.empty()) return {};
  SoonerStep sooner;
  sooner.text = "the first step after " +
                FormatDuration(static_cast<int64_t>(Median(after) * 1e9)) + " instead of " +
                (base[0] ? FormatDuration(static_cast<int64_t>(*base[0] * 1e9))
                         : std::string("none in the simulator's run")) +
                " predicted";
  // No first step at all: whatever brings one saves the whole wait.
  sooner.saved_s = before.size() == after.size() ? Median(before) - Median(after)
                                                 : std::numeric_limits<double>::infinity();
  return sooner;
}

// The steady changes a change of the start-up is made with: Together's, else the best piece
// of advice that keeps the output alone; empty `changes` where there is none.
AdviceTogether SteadyChanges(const AdvisorResult& result) {
  if (!result.together.changes.empty()) return result.together;
  AdviceTogether one;
  for (const Advice& a : result.advice) {
    if (!a.first_step.empty() || a.changes_output || AdviceOnly(a) || !a.spec.has_source() ||
        a.confidence == "low") {
      continue;
    }
    one.changes = {a.change};
    one.settings = a.settings;
    one.kinds = {a.kind};
    one.moves = a.settings.empty();
    one.predicted_gain = a.predicted_gain;
    one.predicted_steps_per_s = a.predicted_steps_per_s;
    one.spec = a.spec;
    break;
  }
  return one;
}

// The first piece of advice, a change of the start-up that the steady changes do not hold,
// made on their pipeline (yolo3#12: the shuffle moved before the decode, then the decode's
// threads): kept where the first step still comes in half the time and the steady rate keeps
// their gain within the noise.
AdviceTogether StartUpAndTogether(const AdvisorResult& result, const std::vector<double>& base,
                                  const FirstSteps& first_steps, const SimulatedRate& simulate,
                                  const AdvisorOptions& options) {
  const AdviceTogether t = SteadyChanges(result);
  if (result.advice.empty() || t.changes.empty()) return {};
  const Advice& first = result.advice[0];
  if (!LeadsWhateverItsGain(first) || AdviceOnly(first) || !first.spec.has_source() ||
      std::find(t.changes.begin(), t.changes.end(), first.change) != t.changes.end()) {
    return {};
  }
  auto with = ApplyEdit(t.spec, first.edit);
  if (!with.ok()) return {};
  std::vector<double> gains;
  for (size_t seed = 1; seed <= base.size(); ++seed) {
    auto r = simulate(*with, seed, 1);
    if (!r.ok() || base[seed - 1] <= 0) return {};
    gains.push_back(*r / base[seed - 1]);
  }
  if (Median(gains) - 1 < t.predicted_gain - result.noise) return {};
  SoonerStep sooner;
  if (!first.first_step.empty()) {
    sooner = SoonerFirstStep(*with, first_steps, options);
    if (sooner.text.empty()) return {};
  }
  AdviceTogether both = t;
  both.changes.insert(both.changes.begin(), first.change);
  both.settings.insert(both.settings.begin(), first.settings.begin(), first.settings.end());
  both.kinds.insert(both.kinds.begin(), first.kind);
  both.moves = t.moves || first.settings.empty();
  both.predicted_gain = Median(gains) - 1;
  both.predicted_steps_per_s = Median(base) * Median(gains);
  both.spec = std::move(*with);
  both.first_step = sooner.text;
  both.fits_memory = first.fits_memory;
  if (first.changes_output) {
    both.changes_output =
        first.what_changes + (t.changes_output.empty() ? "" : " " + t.changes_output);
  }
  return both;
}

// A change tried on the start-up that brings the first step sooner, with the seconds saved.
struct StartUpChange {
  Advice advice;
  double saved_s = 0;
};

Result<std::vector<StartUpChange>> StartUpAdvice(const spec::PipelineSpec& spec, double base_rate,
                                                 const trace::RangeAnalysis& measured,
                                                 const SimulatedRate& simulate,
                                                 const AdvisorOptions& options,
                                                 const FirstSteps& base, int& tried) {
  std::vector<StartUpChange> out;
  std::vector<AdviceCandidate> candidates =
      StartUpCandidates(spec, options.cores, options.machine_ram_bytes);
  // Where no step comes at all, no steady rate ranks the other changes: those that keep the
  // output are tried on the start-up too (minigo#520's readers, one file at a time from
  // storage, never filled the shuffle buffer in the simulator's run; more of them at once
  // do), the best of each kind and op kept.
  if (base_rate <= 0) {
    for (AdviceCandidate& c :
         AdviceCandidates(spec, measured, options.cores, options.machine_ram_bytes)) {
      if (c.changes_output.empty()) candidates.push_back(std::move(c));
    }
  }
  tried = static_cast<int>(candidates.size());
  for (const AdviceCandidate& c : candidates) {
    const SoonerStep sooner = SoonerFirstStep(c.spec, base, options);
    if (sooner.text.empty()) continue;
    Advice a = AdviceFrom(c);
    a.confidence = "high";
    a.first_step = sooner.text;
    // Where the spec itself gave no step, the simulator's window holds little beyond the
    // change's start-up: no steady rate to simulate or say.
    if (base_rate > 0) {
      auto rate = simulate(c.spec, 1, 1);
      a.predicted_steps_per_s = rate.ok() ? *rate : 0;
      a.predicted_gain = rate.ok() ? *rate / base_rate - 1 : 0;
    }
    a.text =
        c.action + ": " + sooner.text +
        (a.predicted_steps_per_s > 0 ? ", then " + Rate(a.predicted_steps_per_s) + " steps/s" : "");
    if (a.changes_output) a.text += ". It changes the output. " + a.what_changes;
    out.push_back({std::move(a), sooner.saved_s});
  }
  // One of each kind and op: the one that saves the most.
  std::map<std::pair<std::string, std::string>, double> most_saved;
  for (const StartUpChange& c : out) {
    double& m = most_saved[{c.advice.kind, c.advice.op}];
    m = std::max(m, c.saved_s);
  }
  std::erase_if(out, [&](const StartUpChange& c) {
    auto it = most_saved.find({c.advice.kind, c.advice.op});
    if (it == most_saved.end() || c.saved_s < it->second) return true;
    most_saved.erase(it);  // the first that saves the most is kept
    return false;
  });
  // Those that keep the output first; a smaller shuffle buffer, which shuffles less, after
  // the changes that keep its reach (yolo3#12's asker refused shuffle(1024); the same buffer
  // before the decode fills as soon and holds the encoded records); then by the time saved.
  const auto shuffles_less = [](const StartUpChange& c) {
    return c.advice.kind == "shuffle_buffer";
  };
  std::stable_sort(out.begin(), out.end(), [&](const StartUpChange& x, const StartUpChange& y) {
    if (x.advice.changes_output != y.advice.changes_output) return !x.advice.changes_output;
    if (shuffles_less(x) != shuffles_less(y)) return shuffles_less(y);
    return x.saved_s > y.saved_s;
  });
  return out;
}

// Changes that bring a shuffle's buffer that is too large for the RAM budget within it
// (cache_memory.h's LargeShuffleBuffers): the simulator has no memory, so no rate shows what
// they save, a run that swaps or is killed before its first step (models#7725). They lead
// the advice whatever their gain, the move that keeps the shuffle's reach before the smaller
// buffer, each with the steady rate it gives. One that brings a late first step sooner too
// (`sooner`) says both, once: it leaves `sooner`. `tried` counts those tried here alone.
Result<std::vector<Advice>> MemoryAdvice(const spec::PipelineSpec& spec, double base_rate,
                                         const SimulatedRate& simulate,
                                         const AdvisorOptions& options,
                                         std::vector<StartUpChange>& sooner, int& tried) {
  std::vector<Advice> out;
  const int64_t ram = RamBudget(spec, options.machine_ram_bytes);
  // The shuffle named `name` where its buffer is too large among `large` (of `s`), or null.
  const auto too_large = [](const spec::PipelineSpec& s,
                            const std::vector<LargeShuffleBuffer>& large,
                            const std::string& name) -> const LargeShuffleBuffer* {
    for (const LargeShuffleBuffer& b : large) {
      if (b.too_large && s.ops(b.place).name() == name) return &b;
    }
    return nullptr;
  };
  // Most specs hold no such buffer: no candidate is made for them.
  const std::vector<LargeShuffleBuffer> large = LargeShuffleBuffers(spec, ram);
  if (std::none_of(large.begin(), large.end(),
                   [](const LargeShuffleBuffer& b) { return b.too_large; })) {
    return out;
  }
  for (const AdviceCandidate& c :
       StartUpCandidates(spec, options.cores, options.machine_ram_bytes)) {
    if (c.kind != "reorder" && c.kind != "shuffle_buffer") continue;
    const LargeShuffleBuffer* now = too_large(spec, large, c.op);
    if (!now || too_large(c.spec, LargeShuffleBuffers(c.spec, ram), c.op)) continue;
    int place = 0;
    while (place < c.spec.ops_size() && c.spec.ops(place).name() != c.op) ++place;
    if (place == c.spec.ops_size()) continue;
    const std::optional<int64_t> each = ElementBytesBefore(c.spec, place).bytes;
    if (!each) continue;
    const int64_t buffer = c.spec.ops(place).shuffle().buffer_size();
    Advice a = AdviceFrom(c);
    a.confidence = "high";
    a.fits_memory = "its buffer then holds " + ElementsText(buffer, *each) + ": " +
                    FormatBytes(BytesHeld(buffer, *each)) + ", within the RAM budget of " +
                    FormatBytes(ram) + " (" + FormatBytes(now->held) + " now)";
    const auto same = std::find_if(sooner.begin(), sooner.end(), [&](const StartUpChange& s) {
      return s.advice.change == c.change;
    });
    if (same != sooner.end()) {
      a.first_step = same->advice.first_step;
      a.predicted_steps_per_s = same->advice.predicted_steps_per_s;
      a.predicted_gain = same->advice.predicted_gain;
      sooner.erase(same);
    } else {
      ++tried;
      if (base_rate > 0) {
        ASSIGN_OR_RETURN(const std::vector<double> rates,
                         RatesBySeed(c.spec, simulate, std::max(1, options.seeds), 1));
        a.predicted_steps_per_s = Median(rates);
        a.predicted_gain = a.predicted_steps_per_s / base_rate - 1;
      }
    }
    a.text =
        c.action + ": " + a.fits_memory + (a.first_step.empty() ? "" : "; " + a.first_step) +
        (a.predicted_steps_per_s > 0 ? ", then " + Rate(a.predicted_steps_per_s) + " steps/s" : "");
    if (a.changes_output) a.text += ". It changes the output. " + a.what_changes;
    out.push_back(std::move(a));
  }
  std::stable_sort(out.begin(), out.end(), [](const Advice& x, const Advice& y) {
    return x.kind != "shuffle_buffer" && y.kind == "shuffle_buffer";
  });
  return out;
}

// A change that brings a late first step sooner leads where its steady gain is at least
// this share of the best change's.
constexpr double kAboutAsMuch = 0.9;

// Where the data's size is a stand-in (code that names files only the run lists: 10,000
// records), a gain that rests on its epochs' ends (a shuffle buffer refilled each epoch,
// tensorflow#30646; a skip done each epoch) would be the stand-in's, not the data's: each
// piece of advice is simulated again with epochs kLongerEpochs times longer, and one whose
// gain is gone there is said to rest on the size, at low confidence.
constexpr int64_t kLongerEpochs = 100;
Status CheckOnLongerEpochs(const spec::PipelineSpec& spec, std::vector<Advice>& advice,
                           double noise, const SimulatedRate& simulate) {
  const std::string size = StandInSize(spec);
  if (size.empty() || advice.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(const double base, simulate(WithStandInScaled(spec, kLongerEpochs), 1, 1));
  if (base <= 0) return Status::Ok();
  for (Advice& a : advice) {
    if (!a.spec.has_source()) continue;
    auto rate = simulate(WithStandInScaled(a.spec, kLongerEpochs), 1, a.steps_per_step);
    if (!rate.ok()) continue;
    const double gain = *rate * a.steps_per_step / base - 1;
    if (gain > noise) continue;
    const std::string longer = std::abs(gain) < 0.005
                                   ? "it gains nothing"
                                   : "the rate changes " + trace::FormatPercentChange(gain);
    a.confidence = "low";
    // After a closing sentence of what the change alters, a sentence of its own.
    const bool sentence = a.text.ends_with('.');
    a.text += std::string(sentence ? " This" : "; this") +
              " gain rests on the data's size, a stand-in (" + size + "): with epochs " +
              std::to_string(kLongerEpochs) + " times longer " + longer + "; --set " + size +
              "=N (or real files) tries it on the real size" + (sentence ? "." : "");
  }
  return Status::Ok();
}

}  // namespace

std::string TogetherText(const AdvisorResult& result) {
  const AdviceTogether& t = result.together;
  if (t.changes.empty()) return "";
  std::string changes;
  for (size_t i = 0; i < t.changes.size(); ++i) {
    changes += (i == 0 ? "" : i + 1 == t.changes.size() ? " and " : ", ") + t.changes[i];
  }
  return changes + " add up (each kept where it adds beyond the noise): " +
         Rate(result.simulated_steps_per_s) + " → " + Rate(t.predicted_steps_per_s) +
         " steps/s predicted, " +
         RateBasis(result.whole_run, &t.spec,
                   std::find(t.kinds.begin(), t.kinds.end(), "cache") != t.kinds.end()) +
         " (" + trace::FormatPercentChange(t.predicted_gain) + ")" +
         (t.changes_output.empty() ? "" : ". It changes the output. " + t.changes_output);
}

std::string StartUpAndTogetherText(const AdvisorResult& result) {
  const AdviceTogether& t = result.start_up_and_together;
  if (t.changes.empty()) return "";
  std::string steady;
  for (size_t i = 1; i < t.changes.size(); ++i) {
    steady += (i == 1 ? "" : i + 1 == t.changes.size() ? " and " : ", ") + t.changes[i];
  }
  return t.changes[0] + " with " + steady +
         ", simulated together: " + (t.first_step.empty() ? "" : t.first_step + ", then ") +
         Rate(t.predicted_steps_per_s) + " steps/s (" +
         trace::FormatPercentChange(t.predicted_gain) + ")" +
         (t.fits_memory.empty() ? "" : "; " + t.fits_memory);
}

std::string NothingTriedGains(int tried, const std::string& of_what, const std::string& beyond) {
  const std::string what = (of_what.empty() ? "" : " " + of_what) + " tried in the simulator";
  if (tried == 0) {
    return "the spec has no change" + (of_what.empty() ? "" : " " + of_what) +
           " to try in the simulator";
  }
  if (tried == 1) {
    return "the one change" + what +
           (beyond.empty() ? " gains nothing" : " gains no more than " + beyond);
  }
  return "none of the " + std::to_string(tried) + " changes" + what +
         (beyond.empty() ? " gains" : " gains more than " + beyond);
}

std::string AdviceHeading(const AdvisorResult& result) {
  // Built as a string: the parts vary in length, and a fixed buffer appended to with
  // snprintf's would-be lengths overruns once they outgrow it.
  std::string head = std::to_string(result.tried) + (result.tried == 1 ? " change" : " changes") +
                     " tried in the simulator";
  if (result.cores > 0) {
    head += " on " + std::to_string(result.cores) + (result.cores == 1 ? " core" : " cores");
    if (result.cores_unbudgeted) {
      head +=
          " (the spec sets no budget: --set budget.cpu_cores=N, or report's --cores N on a "
          "trace, for the machine that trains)";
    }
  }
  if (result.tried > result.startup_tried) {
    head += "; a gain must exceed " + std::to_string(std::lround(100 * result.noise)) +
            "% on every seed";
  }
  if (result.startup_tried > 0) {
    head += "; a change to the start-up must bring the first step in half the time";
  }
  if (result.batch_copies > 1) {
    head += "; rates count each batch once: every batch comes " +
            std::to_string(result.batch_copies) +
            " times an epoch (each worker yields the whole IterableDataset), so steps/s here are "
            "the run's divided by " +
            std::to_string(result.batch_copies);
  }
  const double sim = result.simulated_steps_per_s;
  const double run = result.measured_steps_per_s;
  if (result.whole_run && sim > 0) {
    // The advisor simulates longer than the run shown may have lasted: its length said, so
    // that "ends" does not read as this run's end (keras#9332: 348 steps shown of 2,500).
    const std::string length =
        result.whole_run_steps > 0
            ? " (" + std::to_string(result.whole_run_steps) + " steps in " +
                  FormatDuration(static_cast<int64_t>(result.whole_run_s * 1e9)) + " simulated)"
            : "";
    head += "; the program ends within the advisor's simulation" + length +
            ", so rates are its steps over its whole time, start-up and each epoch's start "
            "included: " +
            Rate(sim) + " steps/s as it is";
    if (run > 0) head += " (this run's figure, from its first step: " + Rate(run) + ")";
  } else if (sim > 0 && run > 0 && std::abs(sim / run - 1) > std::max(result.noise, 0.01)) {
    head += "; predictions start from " + Rate(sim) +
            " steps/s, the simulator's steady rate of the pipeline as it is (this run's figure: " +
            Rate(run) + ")";
  }
  // Where the list is not in order of gain, why (Advise's ranking).
  for (size_t i = 1; i < result.advice.size(); ++i) {
    if (result.advice[i].predicted_gain <= result.advice[i - 1].predicted_gain) continue;
    head +=
        "; listed by gain, but a change that brings the first step sooner or a shuffle's "
        "buffer within the RAM budget leads, those "
        "that keep the output come before those that change it, and gains that rest on a "
        "stand-in size come last";
    break;
  }
  return head;
}

Result<AdvisorResult> Advise(const spec::PipelineSpec& spec, const trace::RangeAnalysis& measured,
                             const SimulatedRate& simulate_steps, const AdvisorOptions& options) {
  AdvisorResult result;
  result.findings = AdvisorFindings(spec, measured, options.machine_ram_bytes);
  for (std::string& f : AutotunedKnobs(spec, options.cores))
    result.findings.push_back(std::move(f));
  result.not_tried = AdvisorNotTried(spec, options.machine_ram_bytes);
  // A DataLoader whose every worker yields the whole IterableDataset hands each batch out
  // once per worker: more workers make more steps of the same batches, not progress
  // (pytorch#30599). Rates count each batch once, the spec's and every candidate's.
  result.batch_copies = BatchCopies(spec);
  const SimulatedRate simulate = [&simulate_steps](const spec::PipelineSpec& s, uint64_t seed,
                                                   double step_scale) -> Result<double> {
    ASSIGN_OR_RETURN(const double rate, simulate_steps(s, seed, step_scale));
    return rate / static_cast<double>(BatchCopies(s));
  };
  // A rate over fewer steps than a verdict grades (one step after a long start-up) is no
  // figure to set predictions beside.
  if (measured.steps >= trace::kFewestStepsToGrade) {
    result.measured_steps_per_s = measured.steps_per_s / static_cast<double>(result.batch_copies);
  }
  const int seeds = std::max(1, options.seeds);
  ASSIGN_OR_RETURN(const std::vector<double> base, RatesBySeed(spec, simulate, seeds, 1));
  result.simulated_steps_per_s = Median(base);
  result.whole_run = options.whole_run;
  result.whole_run_steps = options.whole_run_steps;
  result.whole_run_s = options.whole_run_s;
  // A first step that comes late (a shuffle buffer of millions filling), or none: what the
  // user waits for, whatever the steady rate after it.
  const double startup_s = static_cast<double>(measured.startup_ns) / 1e9;
  const bool no_step = measured.steps == 0 && measured.duration_s > 0;
  std::vector<StartUpChange> sooner;
  FirstSteps first_steps;
  if (options.startup &&
      (no_step || (startup_s >= trace::kStartUpToSay &&
                   startup_s >= trace::kStartUpShareToSay * (startup_s + measured.duration_s)))) {
    first_steps = FirstStepsOf(spec, options);
    ASSIGN_OR_RETURN(sooner, StartUpAdvice(spec, result.simulated_steps_per_s, measured, simulate,
                                           options, first_steps, result.startup_tried));
  }
  // A shuffle's buffer over the RAM budget: the changes that bring it within lead. One that
  // brings the first step sooner as well says both, once.
  ASSIGN_OR_RETURN(std::vector<Advice> memory,
                   MemoryAdvice(spec, result.simulated_steps_per_s, simulate, options, sooner,
                                result.startup_tried));
  result.cores = options.cores;
  result.cores_unbudgeted = spec.budget().cpu_cores() <= 0;
  if (result.simulated_steps_per_s <= 0) {  // nothing reached the step
    result.tried = result.startup_tried;
    for (Advice& m : memory) result.advice.push_back(std::move(m));
    for (StartUpChange& c : sooner) result.advice.push_back(std::move(c.advice));
    SayHow(result.advice);
    return result;
  }
  const auto [lo, hi] = std::minmax_element(base.begin(), base.end());
  result.noise = std::max(options.min_gain, (*hi - *lo) / result.simulated_steps_per_s);

  const std::vector<AdviceCandidate> candidates =
      AdviceCandidates(spec, measured, options.cores, options.machine_ram_bytes);
  ASSIGN_OR_RETURN(const auto gains, GainsOf(candidates, base, 1, simulate, options));
  result.tried = static_cast<int>(candidates.size()) + result.startup_tried;
  const std::vector<Tried> confirmed = Confirmed(candidates, gains, result.noise);

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
    Advice a = AdviceFrom(c);
    a.predicted_gain = t.gain;
    a.predicted_steps_per_s = base_rate * (1 + t.gain);
    a.confidence = t.least_gain > 2 * result.noise ? "high" : "medium";
    a.text =
        TextOf(c, base_rate, a.predicted_steps_per_s, t.gain, a.what_changes, options.whole_run);
    // The simulator overlaps every wait; whether the storage does, only a run there says.
    if (const std::string assumes = WaitsOverlapAssumption(spec, c); !assumes.empty()) {
      a.text += "; " + assumes;
      a.confidence = "medium";
    }
    result.advice.push_back(std::move(a));
  }
  DropGainsOnlyAPrefetchMakes(result.advice, result.noise, base.size(), simulate);
  RETURN_IF_ERROR(CheckOnLongerEpochs(spec, result.advice, result.noise, simulate));
  // Changes that keep the output first, best first; then those that change it. A frozen
  // shuffle or other elements are a choice the user makes, not a speed-up to lead with,
  // however much faster it runs (seed 001: batching before the parse, not caching the
  // shuffled batches). A change of order alone (deterministic=False, which tf.data's guide
  // recommends where order does not matter) ranks with them where it gains at least twice
  // what the best of them does (lesson 10 led with a prefetch of +5% over it at +38%).
  double best_kept = 0;
  for (const Advice& a : result.advice) {
    if (!a.changes_output) best_kept = std::max(best_kept, a.predicted_gain);
  }
  const auto ranks_with_kept = [&](const Advice& a) {
    return !a.changes_output || (a.kind == "nondeterministic" && a.predicted_gain >= 2 * best_kept);
  };
  // A gain that rests on a stand-in size (CheckOnLongerEpochs) comes after every other.
  const auto low = [](const Advice& a) { return a.confidence == "low"; };
  std::stable_sort(result.advice.begin(), result.advice.end(),
                   [&](const Advice& x, const Advice& y) {
                     if (low(x) != low(y)) return low(y);
                     if (ranks_with_kept(x) != ranks_with_kept(y)) return ranks_with_kept(x);
                     return x.predicted_gain > y.predicted_gain;
                   });
  // The first piece's op's other changes, which gained nothing alone: tried on top of it.
  std::vector<Advice> same_op;
  if (!result.advice.empty()) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      const AdviceCandidate& c = candidates[i];
      const bool advised = std::any_of(result.advice.begin(), result.advice.end(),
                                       [&](const Advice& a) { return a.change == c.change; });
      if (c.op == result.advice[0].op && !advised && !c.needs_code_change) {
        same_op.push_back(AdviceFrom(c));
      }
    }
  }
  result.together = Together(result.advice, base, result.noise, simulate, same_op);
  // A steady change that keeps the output and brings the first step in half the time too
  // leads: it gives both (minigo#520: eight readers fill a shuffle buffer of 100,000 in
  // 6.6 s instead of 45 s, where a buffer of 10,000 shuffles less; seed 002 on twelve
  // cores: twelve decode threads, the slides' answer, before shuffling the records ahead of
  // the decode).
  // Asked wherever the first step came late, whether or not a change of the start-up alone
  // helps (pytorch#131931: a dataset spawned workers are sent one after another, which only
  // keeping its data out of the dataset object brings sooner); there, of the changes that
  // gain about as much as the best steady one: a first step sooner does not make up for a
  // steady rate lower all run (num_workers=0 there: +10% where persistent workers give +149%).
  std::vector<Advice> leading;
  double best_steady = 0;
  for (const Advice& a : result.advice) best_steady = std::max(best_steady, a.predicted_gain);
  const auto gives_both = [&](const Advice& a) {
    return !sooner.empty() || a.predicted_gain >= kAboutAsMuch * best_steady;
  };
  if (!first_steps.empty()) {
    int checked = 0;
    for (auto it = result.advice.begin(); it != result.advice.end() && checked < 3;) {
      if (it->changes_output || !it->spec.has_source() || !gives_both(*it)) {
        ++it;
        continue;
      }
      ++checked;
      const SoonerStep first = SoonerFirstStep(it->spec, first_steps, options);
      if (first.text.empty()) {
        ++it;
        continue;
      }
      it->text += "; " + first.text;
      it->first_step = first.text;
      leading.push_back(std::move(*it));
      it = result.advice.erase(it);
    }
  }
  // A change of the start-up alone goes ahead of the steady changes that save less time
  // than it over the run analysed (a steady gain g saves g/(1+g) of it), and after those
  // that save more: a first step 1.1 s sooner is worth less than decode twice as fast over
  // the 4.7 s after it (seed 002 on two cores), and a first step 77 s sooner more than
  // anything the steady rate gives (keras#19502). The run analysed is the shortest the
  // program runs, so a start-up change is never placed lower than it deserves.
  const auto steady_saved_s = [&measured](const Advice& a) {
    return a.predicted_gain > 0 ? measured.duration_s * a.predicted_gain / (1 + a.predicted_gain)
                                : 0.0;
  };
  size_t at = 0;
  for (StartUpChange& c : sooner) {
    while (at < result.advice.size() && steady_saved_s(result.advice[at]) >= c.saved_s) ++at;
    result.advice.insert(result.advice.begin() + static_cast<std::ptrdiff_t>(at),
                         std::move(c.advice));
    ++at;
  }
  result.advice.insert(result.advice.begin(), leading.begin(), leading.end());
  result.advice.insert(result.advice.begin(), memory.begin(), memory.end());
  result.start_up_and_together = StartUpAndTogether(result, base, first_steps, simulate, options);
  if (result.advice.empty() && measured.input_wait_fraction < 0.05 &&
      measured.verdict.grade == "loop-bound") {
    // The loop's own work between steps is the limit, not the step: a step that takes no
    // time leaves it as it is (tensorflow#42917's Session.run loop, 90 us an iteration).
    Advice a;
    a.kind = "loop_bound";
    a.predicted_steps_per_s = base_rate;
    a.confidence = "high";
    a.text = "the training loop's own work between steps is the limit: " +
             NothingTriedGains(result.tried) + ", and a faster step would leave it as it is; " +
             measured.verdict.suggestion;
    result.advice.push_back(std::move(a));
  } else if (result.advice.empty() && measured.input_wait_fraction < 0.05) {
    Advice a;
    a.kind = "device_bound";
    a.predicted_steps_per_s = base_rate;
    a.confidence = "high";
    a.text = "the training step is the limit: " + NothingTriedGains(result.tried) +
             ", and the consumer waits for input " +
             std::to_string(std::lround(100 * measured.input_wait_fraction)) +
             "% of the time; a faster step (or a larger batch per step) is what would help";
    ASSIGN_OR_RETURN(const std::string next, AfterAFasterStep(spec, candidates, base_rate,
                                                              result.noise, simulate, options));
    a.text += next;
    result.advice.push_back(std::move(a));
  }
  // What the spec leaves out of the code (CodeLeftOut) may be the bottleneck: no piece of
  // advice is sure, and "the step is the limit" least of all. Costs the code does not show
  // (StandInCosts) make no piece of advice sure either.
  const bool left_out = !spec.left_out().empty();
  if (left_out || !StandInCostOps(spec).empty()) {
    for (Advice& a : result.advice) {
      if (left_out && (a.kind == "device_bound" || a.kind == "loop_bound")) a.confidence = "low";
      if (a.confidence == "high") a.confidence = "medium";
    }
  }
  SayHow(result.advice);
  return result;
}

}  // namespace pipescope::engine
