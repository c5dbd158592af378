#pragma once
// One piece of advice: a change to a pipeline, what the simulator predicts it gives, and
// one sentence for people. The advisor (advisor.h) makes them; `run`, `report` and
// `simulate` print them ("advice" in their JSON), and the verdict's suggestion is the first.
//
// Kinds, the words scripts match on (README, "Advice"):
//   parallelise        a map's num_parallel_calls
//   interleave_files   an interleave reads more files at once (num_parallel_calls, cycle_length)
//   nondeterministic   deterministic: false on a parallel map or interleave
//   vectorise          a map with a batched form moved after batch; a filter's predicate
//                      called once per batch (batch, a map of tf.boolean_mask, unbatch: a
//                      change to the code)
//   prefetch           a prefetch added at the end, or its buffer raised
//   cache              a cache added where the data stop changing
//   move_filter        a filter, take or skip moved ahead of work it would waste
//   shard_earlier      a shard moved ahead of work every worker would do, or onto the
//                      source's file list
//   split_files        one file split into many, the file list sharded among the workers
//   reorder            a repeat of the dataset moved right after the shuffle (tf.data fuses
//                      the two: one buffer for all epochs); a shuffle whose buffer holds up
//                      the first step, moved before the maps that make its elements
//   epochs_in_dataset  the training loop's epochs as a repeat right after the shuffle, the
//                      dataset iterated once (fit's steps_per_epoch): a change to the
//                      loop's code
//   shuffle_buffer     a shuffle buffer that holds up the first step made smaller
//   fewer_threads      parallelism lowered to the cores there are
//   more_workers       a DataLoader's num_workers, a Keras enqueuer's workers
//   use_processes      a Keras enqueuer's workers as processes (use_multiprocessing=True)
//   use_threads        a Keras enqueuer's workers as threads (use_multiprocessing=False): no
//                      batch pickled to the main process
//   prefetch_factor    a DataLoader's prefetch_factor
//   persistent_workers a DataLoader's persistent_workers=True
//   pin_memory         a DataLoader's pin_memory=True
//   fewer_workers      a DataLoader's num_workers=0: the main process loads, with no worker
//                      start-up and no batches to unpickle
//   batch_at_source    a DataLoader over a dataset that indexes by a list fetches whole
//                      batches (a BatchSampler as its sampler, batch_size=None)
//   parallel_generators a from_generator whose next() waits run as several copies through
//                      an interleave, each yielding every k-th item: a change to the
//                      generator's code
//   in_memory          a DataLoader's dataset loads its files once, in __init__, where its
//                      __getitem__ read them for every item: a change to the Dataset's code
//   sample             a filter whose predicate is a uniform draw (random_uniform < rate)
//                      drawn for a whole batch in one call (batch, a map of tf.boolean_mask
//                      below the draw, unbatch: a change to the code)
//   batch_for_the_loop the dataset batched before an eager Python loop that took its elements
//                      one at a time: the iterator's next() paid once a batch (a change to
//                      the loop's code)
//   faster_storage     the data on a faster kind of disk than the spec's storage (an SSD for
//                      a hard disk): a change of machine, advice only
//   device_bound       no change: the training step is the limit
//   loop_bound         no change of knobs or order: the training loop's own work between
//                      steps is the limit (the verdict's remedy for it said)

#include <string>
#include <vector>

#include "engine/spec/pipeline_spec.pb.h"
#include "engine/tuning/spec_edit.h"

namespace pipescope::engine {

struct Advice {
  std::string kind;  // one of the list above
  std::string op;    // the op it changes ("" for device_bound)
  // A knob setting as --set takes it ("decode.num_parallel_calls=2"), several joined by
  // ", ", or a move in words ("move 'repeat' before 'shuffle'"); "" for device_bound.
  std::string change;
  std::vector<std::string> settings;  // a knob change as --set assignments; empty for moves
  // Steady steps per second with the change, simulated on the run's cost model, and its
  // gain over the spec as given simulated the same way (0.5: 50% more).
  double predicted_steps_per_s = 0;
  double predicted_gain = 0;
  std::string confidence;  // "high": every seed gains beyond twice the noise; "medium"
  bool changes_output = false;
  std::string what_changes;  // with changes_output: the reorder dialog's sentence
  std::string text;          // for people, with the predicted figures
  // Where it brings a late first step sooner: "the first step after 1.2 s instead of 60 s
  // predicted" (its text says so too); empty otherwise.
  std::string first_step;
  // Where it brings a shuffle's buffer within the RAM budget, which no rate shows (the
  // simulator has no memory): "its buffer then holds 2048 elements of 150 KB: 307 MB, within
  // the RAM budget of 8.0 GB (10.1 GB now)" (its text says so too); empty otherwise.
  std::string fits_memory;
  spec::PipelineSpec spec;  // the advised pipeline (empty for device_bound)
  SpecEdit edit;            // the change, as it can be made on another spec
  // More than knobs and the order of calls change: a function's own code (a generator made
  // to yield whole batches), which only its author can write.
  bool needs_code_change = false;
  // The machine must change instead (the data on a faster disk: faster_storage).
  bool changes_machine = false;
  // How the code makes the change where no argument of a call does (a tf.data option): the
  // last sentence of `text`.
  std::string how;
  // Each step of `spec` is this many steps of the spec as given (AdviceCandidate's).
  double steps_per_step = 1;
};

// It leads the advice whatever its steady gain: the run waits for its first step, or cannot
// hold its shuffle's buffer, without it.
inline bool LeadsWhateverItsGain(const Advice& a) {
  return !a.first_step.empty() || !a.fits_memory.empty();
}

// Advice a person carries out by hand: no tuner takes it as a step, and --advice-code writes
// none of it.
inline bool AdviceOnly(bool needs_code_change, bool changes_machine) {
  return needs_code_change || changes_machine;
}
inline bool AdviceOnly(const Advice& a) {
  return AdviceOnly(a.needs_code_change, a.changes_machine);
}

}  // namespace pipescope::engine
