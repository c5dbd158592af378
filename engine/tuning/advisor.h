#pragma once
// The advisor: every change of advice_candidates.h is tried in the simulator on the run's
// cost model (calibrated from the run, or the spec's own for a simulated one), on several
// seeds, against the spec as given on the same seeds. Only a change that gains beyond the
// noise on every seed becomes advice: the simulator's spread between seeds, and at least
// `min_gain` for what a real run varies by. For each op and kind the best value is kept
// (of near-equal ones, the fewest threads or the smallest buffer); the advice comes
// sorted by predicted gain, those that keep the output before those that change it (marked
// and said), and the knob changes that add up are simulated together as well. When nothing
// gains and the consumer hardly waits, the advice is that the device is the limit.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/tuning/advice.h"
#include "engine/tuning/tuner.h"
#include "instrumentation/trace/analysis.h"

namespace pipescope::engine {

// The simulated steady rate of a spec on the run's cost model, with seed `seed`, the
// training step's cost times `step_scale` (1: as measured; 0: a step that takes no time, so
// that the rate is the input's own ceiling; N: a step that does N of the given spec's,
// AdviceCandidate::steps_per_step). Called from several threads at once.
using SimulatedRate =
    std::function<Result<double>(const spec::PipelineSpec&, uint64_t seed, double step_scale)>;

// The simulated time from a spec's start to its first step, in seconds, on the run's cost
// model with seed `seed`; an error where no step comes within the simulator's limit.
using SimulatedStartUp = std::function<Result<double>(const spec::PipelineSpec&, uint64_t seed)>;

struct AdvisorOptions {
  int cores = 1;  // the CPU budget
  // The RAM budget a cache must fit where the spec sets none (cache_memory.h); 0: none.
  int64_t machine_ram_bytes = 0;
  int seeds = 2;                     // each change is simulated on seeds 1..seeds
  double min_gain = kLeastRealGain;  // the least gain called real: a run's own variation
  int threads = 0;                   // simulating changes at once; 0: one per core
  // Asked between changes; true ends the advising with kCancelled (a closed window).
  std::function<bool()> cancelled;
  // Told after each change simulated: how many of how many in this round (the changes, then
  // those on a step that takes no time). Called from the simulating threads, one at a time.
  std::function<void(size_t done, size_t total)> progress;
  // Where the run's start-up is much of it (trace::kStartUpShareToSay) or it had no step, the
  // changes that shorten it (advice_candidates.h, StartUpCandidates) are tried on this; none
  // where it is not given.
  SimulatedStartUp startup;
  // The program ends within the simulation (a few epochs): the rates the SimulatedRate gives
  // are its steps over its whole time, start-up included, and are said so.
  bool whole_run = false;
  int64_t whole_run_steps = 0;  // and its steps and seconds, where it does
  double whole_run_s = 0;
};

// Advice that keeps the output, applied together: the first piece of advice (a knob change
// or a move), then each later knob change that adds beyond the noise on every seed to what is
// kept so far (a DataLoader's num_workers and persistent_workers, say). Empty `changes`:
// fewer than two pieces of advice add up.
struct AdviceTogether {
  std::vector<std::string> changes;   // each piece's change, in the order kept
  std::vector<std::string> settings;  // their --set assignments; all of them only where
                                      // `moves` is false
  bool moves = false;                 // one of them is a move: the spec says it, --set cannot
  std::vector<std::string> kinds;     // the advice each came from
  double predicted_steps_per_s = 0;
  double predicted_gain = 0;  // over the spec as given
  spec::PipelineSpec spec;
  // What its changes of order alone alter (deterministic=False's "elements come in the order
  // they are ready"); empty where it keeps the output.
  std::string changes_output;
  // Where it leads with a change of the start-up or of a shuffle's memory
  // (StartUpAndTogether): its first step, "the first step after 39.6 ms instead of 80.6 s
  // predicted", and what the buffer then holds (Advice::fits_memory).
  std::string first_step;
  std::string fits_memory;
};

struct AdvisorResult {
  std::vector<Advice> advice;  // confirmed, best first
  AdviceTogether together;
  // The first piece of advice, where it brings a late first step sooner or a shuffle's buffer
  // within the RAM budget and is not among the steady changes (a shuffle moved before the
  // decode, a smaller buffer), made on Together's
  // pipeline (else on the best steady change that keeps the output) and simulated so: both
  // the first step and the steady gain, which --advice-code writes before the steady changes
  // alone. Empty `changes` where the two do not add up.
  AdviceTogether start_up_and_together;
  int tried = 0;                     // changes simulated
  int startup_tried = 0;             // of them, changes tried on the start-up (StartUpAdvice)
  int cores = 0;                     // the CPU budget they were simulated with
  bool cores_unbudgeted = false;     // the spec sets no budget: the machine's (or trace's)
  double noise = 0;                  // the gain below which a change was not advised
  double simulated_steps_per_s = 0;  // the spec as given, median over the seeds
  bool whole_run = false;            // rates over the program's whole run (AdvisorOptions)
  int64_t whole_run_steps = 0;       // the program's steps and time, where whole_run
  double whole_run_s = 0;
  double measured_steps_per_s = 0;  // the run's own rate, which the simulation stands for
  // Each batch is handed out this many times an epoch (engine::BatchCopies: a DataLoader's
  // replicated IterableDataset): repeats are not progress, so every rate here, measured and
  // predicted, counts each batch once.
  int64_t batch_copies = 1;
  // What the measurement shows that no change of the spec can fix, in a sentence each (a
  // shard that reads every record of one file).
  std::vector<std::string> findings;
  // Changes not tried, and what would have them tried, in a sentence each (a cache over a
  // stand-in's count of records).
  std::vector<std::string> not_tried;
};

// The advice list's heading, the same in every front end: how many changes were tried on
// how many cores (advice differs between a laptop and the machine that trains, so it says
// how to give that one's), the gain they had to pass and, where the simulator runs the spec as
// given more than that apart from the run's own rate, both rates, since every prediction starts
// from the simulator's.
std::string AdviceHeading(const AdvisorResult& result);

// How the advice says that nothing it tried gained: "none of the 7 changes tried in the
// simulator gains more than 3%", "the one change tried in the simulator gains no more than
// 3%" (`beyond`: "3%"; empty: "... gains", "... gains nothing"); `of_what`: "of knobs and
// order" after "changes".
std::string NothingTriedGains(int tried, const std::string& of_what = "",
                              const std::string& beyond = "");

// "a=1 and b=2 add up (...): A → B steps/s predicted, steady (+X%)", for people; "" when no
// two add up.
std::string TogetherText(const AdvisorResult& result);
// "the first step after ... then ... steps/s (+193%)" for start_up_and_together; "" without.
std::string StartUpAndTogetherText(const AdvisorResult& result);

// `measured`: the run's analysis (its stages decide which moves are worth trying, its wait
// whether the device is the limit). Predictions are steady rates of the simulation (after
// the first step and buffers filling), from the spec as given to the change. Errors: the
// spec as given cannot be simulated.
Result<AdvisorResult> Advise(const spec::PipelineSpec& spec, const trace::RangeAnalysis& measured,
                             const SimulatedRate& simulate, const AdvisorOptions& options);

}  // namespace pipescope::engine
