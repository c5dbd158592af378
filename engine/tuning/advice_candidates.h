#pragma once
// The changes the advisor tries (advisor.h): every knob and move of the advice kinds
// (advice.h) that the spec can express and the validator accepts, found through each op's
// description (op_kinds.h) and the move rules (move_rules.h), whatever the measurement
// says. The simulator decides which of them help; this list only has to contain them.

#include <optional>
#include <string>
#include <vector>

#include "engine/spec/pipeline_plan.h"
#include "engine/spec/pipeline_spec.pb.h"
#include "engine/tuning/spec_edit.h"
#include "instrumentation/trace/analysis.h"

namespace pipescope::engine {

struct AdviceCandidate {
  std::string kind;                   // advice.h's list
  std::string op;                     // the op it changes
  std::string change;                 // "decode.num_parallel_calls=2" or a move in words
  std::vector<std::string> settings;  // the --set assignments of a knob change
  std::string action;                 // "raise decode's num_parallel_calls 1 -> 2", for people
  // What the change alters in what reaches the step, in the move rules' words (empty: it
  // keeps the output): said by each candidate, moves and added ops assessed by the rules.
  std::string changes_output;
  spec::PipelineSpec spec;
  // More than its settings must change: the user's code too (a generator written as a
  // keras.utils.Sequence). Advice only; a tuner does not take it as a step.
  bool needs_code_change = false;
  SpecEdit edit;  // the change, as it can be made on another spec (advice applied together)
  // The machine must change, not code or knobs (the data on a faster disk). Advice only, as
  // a code change is.
  bool changes_machine = false;
  // How the code makes the change where no argument of a call does, said after the
  // predicted figures (a tf.data option, and its other form where a version lacks it).
  std::string how;
  // Each step of `spec` is this many steps of the spec as given (a batch of 64 before a loop
  // that took one element a step): it is simulated with the step's cost times this (the
  // step's work stays per element) and its rate multiplied by it, so that both count the
  // same steps.
  double steps_per_step = 1;
};

// Whether an op after the top-level op at `index` fetches ahead on threads of its own (a
// prefetch, a parallel map, a DataLoader's or an enqueuer's workers). Where none does, the
// consumer's own thread pulls every element, and a shuffle's fill at each epoch's start is
// work it pays either way, at the start or spread over the epoch: the same time over whole
// epochs (a window of the steady part that cuts an epoch shows a gain that is not there).
bool FetchesAheadAfter(const PipelinePlan& plan, int index);

// Where a cache goes (the top-level op it goes before; 0: right after the source): before
// the first op from which on elements differ between epochs (a shuffle, a random map) or the
// repeat, ahead of the prefetches before it; nullopt where none is offered (no repeat, a
// cache already, the data's size a stand-in, elements that come from worker processes).
std::optional<int> CachePlace(const spec::PipelineSpec& spec);

// `measured`: the run's analysis (self times decide which moves are worth trying);
// `cores`: the CPU budget; `machine_ram_bytes`: the RAM budget where the spec sets none
// (cache_memory.h's RamBudget). Candidates the validator refuses are left out.
std::vector<AdviceCandidate> AdviceCandidates(const spec::PipelineSpec& spec,
                                              const trace::RangeAnalysis& measured, int cores,
                                              int64_t machine_ram_bytes = 0);

// Where a candidate's gain rests on its op's waits overlapping (more threads or workers for
// work that mostly waits: a read, time.sleep, the lock released), what that assumes, for
// people: the simulator overlaps every wait, and storage may not (pytorch#680: one hard
// disk read at 46 images/s with 4 workers and with 10). "" for any other candidate.
std::string WaitsOverlapAssumption(const spec::PipelineSpec& spec, const AdviceCandidate& c);

// Changes that bring the first step sooner, for a run whose start-up is much of it: a shuffle
// buffer filling for minutes (tensorflow#14857: 2,325,000 decoded images) made smaller
// (kind shuffle_buffer, which shuffles less: kSmallShuffleBuffer, or less where that much of
// its elements would not fit a quarter of the RAM budget, `machine_ram_bytes` where the spec
// sets none) or fed what costs little to make, moved before the maps that make its elements
// (kind reorder).
inline constexpr int64_t kSmallShuffleBuffer = 10'000;
std::vector<AdviceCandidate> StartUpCandidates(const spec::PipelineSpec& spec, int cores,
                                               int64_t machine_ram_bytes = 0);

// The knob of the source or interleave whose count of elements is a stand-in (Source's
// size_is_stand_in: "read.records", "files.count"), where a cache's gain would rest on a
// size nobody gave; "" when none is.
std::string StandInSize(const spec::PipelineSpec& spec);
// `spec` with that stand-in count `factor` times larger (an epoch `factor` times longer);
// the spec as it is where no count is a stand-in.
spec::PipelineSpec WithStandInScaled(spec::PipelineSpec spec, int64_t factor);

// A knob's value in tf.data's words: "AUTOTUNE" for -1, "sequential" for a parallelism of
// 0, else the number.
std::string KnobValueForPeople(const std::string& knob, int64_t value);

}  // namespace pipescope::engine
