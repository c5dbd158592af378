#include "engine/tuning/advice_candidates.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <vector>

#include "engine/runtime/dataloader_rules.h"
#include "engine/runtime/storage_device.h"
#include "engine/spec/file_readers.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/pipeline_plan.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_overrides.h"
#include "engine/spec/spec_validator.h"
#include "engine/tuning/cache_memory.h"
#include "engine/tuning/generator_batches_advice.h"
#include "engine/tuning/generator_shards_advice.h"
#include "engine/tuning/loop_batch_advice.h"
#include "engine/tuning/move_rules.h"
#include "engine/tuning/order_advice.h"
#include "engine/tuning/shard_files_advice.h"
#include "engine/work/call_overhead.h"
#include "engine/work/work_registry.h"

namespace pipescope::engine {

bool FetchesAheadAfter(const PipelinePlan& plan, int shuffle) {
  for (size_t i = static_cast<size_t>(shuffle) + 1; i < plan.ops.size(); ++i) {
    const PlannedOp& op = plan.ops[i];
    if (op.kind->parallel_work == ParallelWork::kOneProducer) return true;
    if (op.kind->parallel_work == ParallelWork::kNone) continue;
    for (const PlannedKnob& k : op.knobs) {
      if (k.description->runs_ahead_unless_zero && k.start != 0) return true;
    }
  }
  return false;
}

namespace {

struct Setting {
  std::string knob;
  std::string value;  // as --set takes it
};

class CandidateList {
 public:
  CandidateList(const spec::PipelineSpec& spec, int cores) : spec_(spec), cores_(cores) {}

  // The spec with `settings` of `op` applied, when the validator accepts it: whether it was
  // added (not refused, and no candidate before it the same).
  bool AddKnobs(std::string kind, const std::string& op, const std::vector<Setting>& settings,
                std::string action, std::string changes_output = {},
                bool needs_code_change = false) {
    spec::PipelineSpec changed = spec_;
    std::string change;
    std::vector<std::string> assignments;
    for (const Setting& s : settings) {
      assignments.push_back(op + "." + s.knob + "=" + s.value);
      if (!ApplyOverride(changed, assignments.back()).ok()) return false;
      change += (change.empty() ? "" : ", ") + assignments.back();
    }
    SpecEdit edit = SettingsEdit(assignments);
    return Add({std::move(kind), op, change, std::move(assignments), std::move(action),
                std::move(changes_output), std::move(changed), needs_code_change, std::move(edit)});
  }

  // `spec` with its top-level op at `from` moved earlier, right before the op at `to`,
  // marked with what that changes.
  void AddMove(std::string kind, int from, int to, std::string action) {
    const MoveAssessment assessed = AssessMove(spec_, from, to);
    const std::string& op = spec_.ops(from).name();
    SpecEdit edit;
    edit.move = op;
    edit.before = spec_.ops(to).name();
    Add({std::move(kind),
         op,
         "move '" + op + "' before '" + spec_.ops(to).name() + "'",
         {},
         std::move(action),
         assessed.keeps_output ? "" : assessed.explanation,
         MoveOp(spec_, from, to),
         false,
         std::move(edit)});
  }

  // What "the cores" are in a change cut to them: the spec's budget, or where it sets none
  // this machine's, which the machine that trains need not have (vision#81's four workers,
  // advised down to two on a laptop, where the answer was more of them).
  std::string TheCores() const {
    if (spec_.budget().cpu_cores() > 0) return "the cores there are";
    return "this machine's " + std::to_string(cores_) + (cores_ == 1 ? " core" : " cores") +
           ", as the spec sets no budget";
  }

  bool Add(AdviceCandidate c) {
    if (!PlanPipeline(c.spec, cores_).ok()) return false;  // the validator refuses it
    if (!seen_.insert(SpecToText(c.spec)).second) return false;
    list_.push_back(std::move(c));
    return true;
  }

  // How the code makes the candidate added last (AdviceCandidate::how).
  void SetHow(std::string how) { list_.back().how = std::move(how); }

  std::vector<AdviceCandidate> Take() { return std::move(list_); }

 private:
  const spec::PipelineSpec& spec_;
  int cores_;
  std::set<std::string> seen_{SpecToText(spec_)};
  std::vector<AdviceCandidate> list_;
};

// How a call spends its time, for the threads worth giving it: computing, or mostly
// waiting (a sleep, a remote store's answer, the lock released), and where its waits are
// reads of the spec's disk, how many reads that disk serves at once.
struct CallWaits {
  bool waits = false;
  int64_t disk_slots = 0;  // the disk's queue_depth where the waits are its reads; else 0
  // The share of a call's time spent computing where its own figures say (a `wait` beside
  // its work: WorkFunctionCpuFraction); 1 where they do not.
  double cpu_fraction = 1;
};

// A call's waits: its own figures (WorkFunctionMostlyWaits), or its reads of the spec's disk
// (`disk`, null where the spec names none) taking longer than its CPU work, each file an
// access and its bytes at the disk's bandwidth, alone on the disk (tensorflow#20068: a
// gcsfuse mount's 60 ms an access beside 2 ms of decode).
CallWaits WaitsOf(const spec::WorkFunction& fn, const StorageFigures* disk) {
  int64_t bytes = 0, files = 1;
  std::string duration;
  if (disk && fn.has_cpu_work()) {
    bytes = fn.cpu_work().read_bytes();
    files = FilesReadByACall(fn.cpu_work());
    duration = fn.cpu_work().duration();
  } else if (disk && fn.has_python() && FileLoadsReadTheDisk(fn.python(), true)) {
    bytes = fn.python().read_bytes();
    files = FilesReadByACall(fn.python());
    duration = fn.python().duration();
  }
  if (bytes > 0) {
    auto cpu_ns = OptionalDurationNs(duration);
    if (cpu_ns.ok() && ReadAloneNs(*disk, bytes, files) > *cpu_ns) {
      return {true, std::max(1, disk->queue_depth)};
    }
  }
  return {WorkFunctionMostlyWaits(fn), 0, WorkFunctionCpuFraction(fn)};
}

// The most threads worth having: the cores for work that computes; for work that waits,
// four times them, as many as the disk serves at once, or as many as keep every core
// computing while the rest wait (cores / cpu_fraction: tensorflow#20068's 2 ms of decode
// beside a 60 ms read from a bucket, 31 threads a core), whichever is most, within the
// knob's range; a call that only waits (cpu_fraction 0) is bounded by the knob's range alone.
int64_t MostUsefulParallelism(int cores, CallWaits waits) {
  const int64_t c = cores;
  if (!waits.waits) return std::min<int64_t>(kMaxParallelism, c);
  const int64_t keep_cores_busy =
      waits.cpu_fraction > 0
          ? static_cast<int64_t>(std::ceil(static_cast<double>(c) / waits.cpu_fraction))
          : kMaxParallelism;
  return std::min<int64_t>(kMaxParallelism, std::max({4 * c, waits.disk_slots, keep_cores_busy}));
}

// Values worth trying for a parallelism now at `now` (0: sequential): one more, the powers
// of two above it (every value up to 8) and the cores, up to MostUsefulParallelism. Beyond
// the cores computing threads only take turns, and take cores from the rest of the pipeline.
// The advisor keeps the smallest value that gains about as much as the best, so the ladder
// needs every size up to there.
std::vector<int64_t> HigherParallelisms(int64_t now, int cores, CallWaits waits) {
  const int64_t c = cores;
  const int64_t most = MostUsefulParallelism(cores, waits);
  std::set<int64_t> values{now + 1, c};
  for (int64_t v = 1; v <= most; v *= 2) values.insert(v);
  for (int64_t v = 1; v <= std::min<int64_t>(most, 8); ++v) values.insert(v);
  if (waits.waits) values.insert({2 * c, 4 * c});
  if (waits.disk_slots > 0) values.insert(waits.disk_slots);
  std::vector<int64_t> out;
  for (int64_t v : values) {
    if (v > now && v <= most) out.push_back(v);
  }
  return out;
}

std::string ChangeOfKnob(const std::string& op, const std::string& knob, int64_t from, int64_t to) {
  return std::string(to >= from ? "raise " : "lower ") + op + "'s " + knob + " " +
         KnobValueForPeople(knob, from) + " → " + KnobValueForPeople(knob, to);
}

constexpr std::string_view kOrderChanges =
    "Elements come in the order they are ready instead of their input's order; which "
    "elements come is the same.";

// What another number of workers changes of what an IterableDataset's loader hands out:
// the copies of a dataset replicated in each worker, or the order and batches of one split
// among them (empty where nothing changes).
std::string WhatWorkersChange(const PlannedOp& p, int64_t from, int64_t to) {
  const spec::DataLoaderOp& loader = p.op->dataloader();
  if (loader.worker_split() != spec::not_split && p.input_elements && std::max(from, to) > 1) {
    const auto batches = [&](int64_t workers) {
      return SplitBatches::Count(*p.input_elements, std::max<int64_t>(1, workers),
                                 loader.batch_size(), loader.drop_last(), loader.worker_split());
    };
    const int64_t before = batches(from), after = batches(to);
    return "Each worker batches its own share of the IterableDataset's items (its __iter__ "
           "splits them by get_worker_info()), so the items come in another order" +
           (before == after ? " (an epoch still has " + std::to_string(after) + " batches)."
                            : " and an epoch has " + std::to_string(after) +
                                  " batches, where it has " + std::to_string(before) + ".");
  }
  const int64_t before = CopiesOfEachBatch(loader.replicated(), from);
  const int64_t after = CopiesOfEachBatch(loader.replicated(), to);
  if (before == after) return {};
  return "Each worker yields the whole IterableDataset (its __iter__ does not split the items "
         "by get_worker_info()), so an epoch becomes " +
         (after == 1 ? std::string("one copy") : std::to_string(after) + " copies") +
         " of every sample, where it is " + std::to_string(before) + ".";
}

// Keras's warning, as fit gives it for a generator with use_multiprocessing=True.
constexpr std::string_view kGeneratorInProcesses =
    "Each worker process runs its own copy of the generator, so batches repeat: Keras warns "
    "that this may duplicate your data and asks for a keras.utils.Sequence, whose batches "
    "each process makes by index.";

// Knobs of ops whose threads run functions or read sub-pipelines, and a DataLoader's.
// `disk`: the spec's, null where it names none.
void AddThreadKnobs(const PlannedOp& p, int cores, const StorageFigures* disk, CandidateList& out) {
  const std::string& name = p.op->name();
  const auto& parallel_knob = [&]() -> const PlannedKnob* {
    for (const PlannedKnob& k : p.knobs) {
      if (k.description->name == kNumParallelCallsKnob.name) return &k;
    }
    return nullptr;
  }();
  switch (p.kind->parallel_work) {
    case ParallelWork::kFunction:
    case ParallelWork::kSubPipelines: {
      if (!parallel_knob) return;
      const bool reads = p.kind->parallel_work == ParallelWork::kSubPipelines;
      const std::string kind = reads ? "interleave_files" : "parallelise";
      const std::string knob(kNumParallelCallsKnob.name);
      const int64_t now = parallel_knob->start;
      const spec::WorkFunction* fn = FunctionOf(*p.op);
      const CallWaits waits = reads ? CallWaits{true, 0} : fn ? WaitsOf(*fn, disk) : CallWaits{};
      for (int64_t v : HigherParallelisms(now, cores, waits)) {
        const std::string action =
            now > 0  ? ChangeOfKnob(name, knob, now, v)
            : v == 1 ? "run " + name + " asynchronously: num_parallel_calls 1 (one thread beside " +
                           "its consumer)"
                     : "make " + name + " parallel: num_parallel_calls " + std::to_string(v);
        std::vector<Setting> settings{{knob, std::to_string(v)}};
        std::string both = action;
        // An interleave's workers read the inputs it keeps open: more of them need more open.
        if (reads) {
          const int64_t cycle = p.Knob("cycle_length").start;
          if (cycle < v) {
            settings.push_back({"cycle_length", std::to_string(v)});
            both += " and its cycle_length " + std::to_string(cycle) + " → " + std::to_string(v);
          }
        }
        out.AddKnobs(kind, name, settings, both);
      }
      if (now > MostUsefulParallelism(cores, waits)) {
        out.AddKnobs("fewer_threads", name, {{knob, std::to_string(cores)}},
                     ChangeOfKnob(name, knob, now, cores) + " (" + out.TheCores() + ")");
      }
      const bool nondeterministic = p.kind->order == ElementOrder::kKeptIfDeterministic;
      if (nondeterministic && now >= 1) {
        out.AddKnobs("nondeterministic", name, {{"deterministic", "false"}},
                     "set " + name + "'s deterministic=False", std::string(kOrderChanges));
      }
      return;
    }
    case ParallelWork::kWorkerProcesses: {
      const int64_t workers = p.Knob("num_workers").start;
      const auto& loader = p.op->dataloader();
      // Workers that wait for storage in __getitem__ are useful beyond the cores, as reads are.
      const CallWaits waits = WaitsOf(loader.getitem(), disk);
      for (int64_t v : HigherParallelisms(workers, cores, waits)) {
        out.AddKnobs("more_workers", name, {{"num_workers", std::to_string(v)}},
                     ChangeOfKnob(name, "num_workers", workers, v),
                     WhatWorkersChange(p, workers, v));
      }
      if (loader.indexes_batches() && !loader.fetch_batches() && loader.getitem().has_python()) {
        // One call per batch instead of one per item (pytorch#4959): the loader's arguments
        // only, where the dataset indexes by a list (TensorDataset). The sampler keeps the
        // loader's order; BatchSampler has no default drop_last, and a sampler excludes
        // shuffle=True.
        const std::string size = std::to_string(loader.batch_size());
        const std::string sampler = loader.shuffle() ? "RandomSampler" : "SequentialSampler";
        out.AddKnobs(
            "batch_at_source", name, {{"fetch_batches", "true"}},
            "fetch whole batches from " + name +
                "'s dataset, which indexes by a list of indices: sampler=BatchSampler(" + sampler +
                "(dataset), batch_size=" + size +
                ", drop_last=" + (loader.drop_last() ? "True" : "False") +
                "), batch_size=None in place of batch_size=" + size +
                (loader.shuffle() ? "; shuffle=True goes, as the sampler shuffles" : "") +
                // DataLoader refuses batch_size=None beside drop_last=True.
                (loader.drop_last() ? "; drop_last=True moves into the BatchSampler" : ""));
      }
      if (workers == 0) return;
      // More worker processes than the cores take turns on them, each batch's work spread
      // thinner, and the main process's share with them (deit#81: num_workers 32 for each of
      // 8 GPUs' processes on 32 cores; 4 each was the answer).
      if (workers > MostUsefulParallelism(cores, waits)) {
        out.AddKnobs(
            "fewer_workers", name, {{"num_workers", std::to_string(cores)}},
            ChangeOfKnob(name, "num_workers", workers, cores) + " (" + out.TheCores() + ")",
            WhatWorkersChange(p, workers, cores));
      }
      // Workers cost their start-up each epoch and the unpickling of every batch they send:
      // for an item that costs little to fetch, the main process alone is faster. DataLoader
      // refuses persistent_workers and prefetch_factor without workers; a set prefetch_factor
      // cannot be unset by --set, so that loader is not offered it.
      if (!loader.has_prefetch_factor()) {
        std::vector<Setting> main_process{{"num_workers", "0"}};
        if (loader.persistent_workers()) main_process.push_back({"persistent_workers", "false"});
        out.AddKnobs("fewer_workers", name, main_process,
                     ChangeOfKnob(name, "num_workers", workers, 0) +
                         " (load in the main process: no workers to start, no batches to "
                         "unpickle)",
                     WhatWorkersChange(p, workers, 0));
      }
      // A replicated IterableDataset's one worker yields it once, beside the step, where the
      // main process alone loads between steps (pytorch#29804: 1 worker twice as fast as 0
      // and as 4, which yield 4 copies).
      if (loader.replicated() && workers > 1) {
        out.AddKnobs("fewer_workers", name, {{"num_workers", "1"}},
                     ChangeOfKnob(name, "num_workers", workers, 1) +
                         " (one worker yields the IterableDataset once, beside the training "
                         "step)",
                     WhatWorkersChange(p, workers, 1));
      }
      const int64_t factor = p.Knob("prefetch_factor").start;
      out.AddKnobs("prefetch_factor", name, {{"prefetch_factor", std::to_string(2 * factor)}},
                   ChangeOfKnob(name, "prefetch_factor", factor, 2 * factor));
      if (loader.made_each_epoch()) {
        // persistent_workers alone keeps nothing: the loader itself must outlive the epoch.
        out.AddKnobs("persistent_workers", name,
                     {{"made_each_epoch", "false"}, {"persistent_workers", "true"}},
                     "make " + name +
                         " once, before the epochs' loop, with persistent_workers=True (made "
                         "anew each epoch, its workers start again every epoch)",
                     {}, /*needs_code_change=*/true);
      } else if (!loader.persistent_workers()) {
        out.AddKnobs("persistent_workers", name, {{"persistent_workers", "true"}},
                     "set " + name + "'s persistent_workers=True");
      }
      // Workers that spawn are each sent the dataset object pickled, one after another where
      // it is larger than a pipe's buffer: data the object holds is paid for at every
      // worker's start (olmoearth_pretrain#150: 30 s a worker, 6 s with its list of samples
      // moved out of the dataset).
      if (loader.start_method() != spec::fork && loader.dataset_bytes() > kPipeBufferBytes) {
        out.AddKnobs("lighter_dataset", name, {{"dataset_bytes", "0"}},
                     "keep the data out of the dataset object " + name + "'s workers are sent (" +
                         FormatBytes(loader.dataset_bytes()) +
                         " pickled for each worker that starts): keep a file's path in "
                         "__init__ and open it on first use in __getitem__ (each worker "
                         "then opens its own; np.load(path, mmap_mode='r') reads only the "
                         "rows asked for)",
                     {}, /*needs_code_change=*/true);
      }
      // A list of samples (ImageFolder's) pickles at a cost an object beyond its bytes; the
      // same paths and classes in NumPy arrays pickle as one buffer each.
      if (loader.start_method() != spec::fork && loader.dataset_bytes_per_item() > 0 &&
          p.input_elements) {
        const int64_t listed = *p.input_elements * loader.dataset_bytes_per_item();
        out.AddKnobs("samples_as_arrays", name,
                     {{"dataset_bytes_per_item", "0"},
                      {"dataset_bytes", std::to_string(loader.dataset_bytes() + listed)}},
                     "keep the samples " + name +
                         "'s dataset lists (a path and a class for each of its " +
                         std::to_string(*p.input_elements) +
                         " items, Python objects pickled for each worker that starts) in NumPy "
                         "arrays, np.array(paths) and np.array(classes), which pickle as one "
                         "buffer each; __getitem__ reads str(paths[i])",
                     {}, /*needs_code_change=*/true);
      }
      // Pinned memory speeds a copy to an accelerator; a step on the CPU has none, and torch
      // drops the flag there.
      if (!loader.pin_memory() && p.accelerator) {
        out.AddKnobs("pin_memory", name, {{"pin_memory", "true"}},
                     "set " + name + "'s pin_memory=True");
      }
      if (loader.has_in_order() ? loader.in_order() : true) {
        out.AddKnobs("nondeterministic", name, {{"in_order", "false"}},
                     // DataLoader takes in_order since PyTorch 2.6; older ones refuse it.
                     "set " + name + "'s in_order=False (PyTorch 2.6 or later)",
                     std::string(kOrderChanges));
      }
      return;
    }
    case ParallelWork::kEnqueuerWorkers: {  // Keras's fit(workers, use_multiprocessing)
      const int64_t workers = p.Knob("workers").start;
      const bool processes = p.op->keras_fit().use_multiprocessing();
      // Threads take turns under the main process's lock where sequence[i] runs Python;
      // processes each have their own: tried at the workers there are (no more than the
      // cores) and at each higher count.
      // A generator's copies repeat its batches in every process: the change is the code's
      // too (a keras.utils.Sequence), so it is advice that says so, never a tuner's step.
      const bool generator = p.op->keras_fit().generator();
      // Keras's enqueuer keeps no more batches under way than its queue holds
      // (max_queue_size): workers beyond it wait, so more of them need a longer queue.
      const int64_t queue = p.Knob("max_queue_size").start;
      const auto with_queue = [&](std::vector<Setting> settings, std::string& action, int64_t v) {
        if (v <= queue) return settings;
        settings.push_back({"max_queue_size", std::to_string(v)});
        action += " and max_queue_size " + std::to_string(queue) + " → " + std::to_string(v) +
                  " (the batches it keeps under way)";
        return settings;
      };
      const auto use_processes = [&](int64_t v) {
        // A generator's threads take turns at its next() (DataLoaderRules::
        // one_fetch_at_a_time): the reason more of them are not advised, said here.
        std::string action =
            "run " + name + "'s workers as processes" +
            (generator ? " (its threads take turns at the generator's next(), which Keras runs "
                         "one call at a time, so more threads make no more batches)"
                       : "") +
            ": " + (generator ? "write the generator as a keras.utils.Sequence, then " : "") +
            "use_multiprocessing=True, workers " + std::to_string(v);
        const std::vector<Setting> settings = with_queue(
            {{"use_multiprocessing", "true"}, {"workers", std::to_string(v)}}, action, v);
        out.AddKnobs("use_processes", name, settings,
                     action +
                         // Keras's fit documentation: each process gets a copy of the input,
                         // so nothing unpicklable may be passed to it.
                         " (each process gets a pickled copy of the Sequence: nothing it holds "
                         "may be unpicklable, such as an open file or a TensorFlow object; "
                         "where processes spawn rather than fork, on Windows and macOS, each "
                         "imports the script again, so its training must run under "
                         "if __name__ == '__main__':; tf.keras warns that multiprocessing "
                         "\"can interact badly with TensorFlow, causing nondeterministic "
                         "deadlocks\" and recommends tf.data, whose threads share this "
                         "interpreter lock too)",
                     generator ? std::string(kGeneratorInProcesses) : std::string(), generator);
      };
      if (!processes && workers > 0) use_processes(std::min<int64_t>(workers, std::max(cores, 1)));
      // Processes send each batch pickled, and the main process unpickles it on the pool's
      // result-handler thread, one batch at a time (keras#11727's 19 MB batches); threads
      // hand it over as it is, their Python taking turns under the lock for its gil_share.
      if (processes && workers > 0) {
        out.AddKnobs("use_threads", name, {{"use_multiprocessing", "false"}},
                     "run " + name +
                         "'s workers as threads: use_multiprocessing=False (its batches then "
                         "reach the step as they are, not pickled and unpickled by the main "
                         "process; __getitem__'s Python takes turns under the interpreter "
                         "lock, so threads gain where its work releases it: NumPy, OpenCV, "
                         "file reads)");
      }
      // Workers whose sequence[i] mostly waits (a sleep, storage: the lock released) are
      // useful beyond the cores, as reads are.
      const CallWaits waits = WaitsOf(p.op->keras_fit().getitem(), disk);
      for (int64_t v : HigherParallelisms(workers, cores, waits)) {
        std::string action = ChangeOfKnob(name, "workers", workers, v);
        const std::vector<Setting> settings =
            with_queue({{"workers", std::to_string(v)}}, action, v);
        out.AddKnobs("more_workers", name, settings, action);
        if (!processes) use_processes(v);
      }
      return;
    }
    case ParallelWork::kOneProducer:
    case ParallelWork::kNone:
      return;
  }
}

// The work function of a top-level op's calls: a map's, a DataLoader's or Keras's getitem.
const spec::WorkFunction* CallsWorkOf(const spec::Op& op) {
  if (op.has_dataloader()) return &op.dataloader().getitem();
  if (op.has_keras_fit()) return &op.keras_fit().getitem();
  return FunctionOf(op);
}

}  // namespace

std::string WaitsOverlapAssumption(const spec::PipelineSpec& spec, const AdviceCandidate& c) {
  if (c.kind != "parallelise" && c.kind != "more_workers") return "";
  // A disk the spec names serves its reads as it can (storage_rules.h): the simulation says
  // what overlaps there, and no assumption is left.
  if (spec.has_storage()) return "";
  for (const spec::Op& op : spec.ops()) {
    if (op.name() != c.op) continue;
    const spec::WorkFunction* fn = CallsWorkOf(op);
    if (!fn || !WorkFunctionMostlyWaits(*fn)) return "";
    // A Python call's wait that is not its files' (a time.sleep, the tf.data guide's
    // mapped_function) reads no disk.
    if (fn->has_python() && !fn->python().wait_loads_files()) return "";
    return "it rests on " + c.op +
           "'s waits overlapping, as reads from remote storage or an SSD do; one local hard "
           "disk reads one place at a time, and there more workers gain nothing (pytorch#680; "
           "--set storage.kind=hdd simulates one)";
  }
  return "";
}

namespace {

void AddPlannedOps(const std::vector<PlannedOp>& ops, int cores, const StorageFigures* disk,
                   CandidateList& out) {
  for (const PlannedOp& p : ops) {
    AddThreadKnobs(p, cores, disk, out);
    AddPlannedOps(p.sub, cores, disk, out);
  }
}

// A deeper last prefetch: the step and the pipeline take turns less.
void AddPrefetch(const PipelinePlan& plan, CandidateList& out) {
  if (plan.ops.empty() || plan.ops.back().kind->parallel_work != ParallelWork::kOneProducer) return;
  const PlannedOp& last = plan.ops.back();
  const int64_t now = last.Knob("buffer_size").start;
  const int64_t deeper = std::max<int64_t>(2, 2 * now);
  out.AddKnobs("prefetch", last.op->name(), {{"buffer_size", std::to_string(deeper)}},
               ChangeOfKnob(last.op->name(), "buffer_size", now, deeper));
}

}  // namespace

std::optional<int> CachePlace(const spec::PipelineSpec& spec) {
  if (!StandInSize(spec).empty()) return std::nullopt;
  bool repeats = false;
  for (const auto& op : spec.ops()) {
    const OpKindDescription* d = DescribeOp(op);
    if (d && d->replays) return std::nullopt;  // it caches already
    if (d && d->ratio == OutputRatio::kTimesCount) repeats = true;
  }
  if (!repeats) return std::nullopt;
  // Before the first op from which on the elements differ between epochs (a shuffle that
  // reshuffles, a random map), or before the repeat; right after the source where the first
  // op is one. Past a shuffle whose order comes back each epoch (reshuffle_each_iteration=
  // False: tensorflow#30646's split, then its Python encode cached by hand, 1240 -> 810 s).
  // Not after a DataLoader's worker processes: PyTorch has no cache op, and its batches hold
  // the whole dataset's tensors.
  for (int at = 0; at < spec.ops_size(); ++at) {
    const OpKindDescription* before = at == 0 ? nullptr : DescribeOp(spec.ops(at - 1));
    if (before && (before->parallel_work == ParallelWork::kWorkerProcesses ||
                   before->parallel_work == ParallelWork::kEnqueuerWorkers)) {
      return std::nullopt;
    }
    const spec::Op& next = spec.ops(at);
    const OpKindDescription* d = DescribeOp(next);
    const bool repeat = d && d->ratio == OutputRatio::kTimesCount;
    if (!repeat && !DiffersEachEpoch(next)) continue;
    // Ahead of the prefetches before it (the guide's `.cache().prefetch(...)`): they keep
    // overlapping the cached epochs with the step.
    int place = at;
    while (place > 0 && OnlyBuffers(spec.ops(place - 1))) --place;
    // A cache past a random op would replay its first epoch's draws (a frozen shuffle, the
    // same augmentation every epoch): what the advisor's own finding warns of, so never
    // offered (the lessons teach caching before them).
    return place;
  }
  return std::nullopt;
}

namespace {

// A cache where the elements stop changing between epochs, when something repeats them and
// the data's size is known: over a stand-in's 10000 records it gains what a 0.5 TB dataset
// never would (seed 001), since the cache holds a whole epoch in memory (cache_memory.h:
// what it holds, said, and never more than the RAM budget).
void AddCache(const PipelinePlan& plan, int64_t machine_ram_bytes, CandidateList& out) {
  const spec::PipelineSpec& spec = *plan.spec;
  const std::optional<int> place = CachePlace(spec);
  if (!place) return;
  const CacheHolding held = HeldByACacheBefore(plan, *place);
  const int64_t ram = RamBudget(spec, machine_ram_bytes);
  if (OverTheRamBudget(held, ram)) return;  // AdvisorNotTried says so
  const std::string& after = *place == 0 ? spec.source().name() : spec.ops(*place - 1).name();
  SpecEdit edit;
  edit.add.emplace();
  edit.add->set_name(UnusedName(spec, "cache"));
  edit.add->mutable_cache();
  edit.after = after;
  auto with = ApplyEdit(spec, edit);
  if (!with.ok()) return;
  const MoveAssessment assessed = AssessChange(spec, *with);
  out.Add({"cache",
           after,
           "add cache after '" + after + "'",
           {},
           "cache the elements after " + after + CacheHoldingText(held, ram),
           assessed.keeps_output ? "" : assessed.explanation,
           std::move(*with),
           false,
           std::move(edit)});
}

// The epochs brought right after a shuffle that fills its buffer again at each
// (tensorflow#30646, whose answer is shuffle_and_repeat): tf.data fuses shuffle and the
// repeat right after it, one buffer filling across the epochs' ends, each epoch still whole
// (ShuffleFusesWithRepeat). A repeat of the dataset further on moves there (what lies
// between then works across the epochs' ends: a batch may hold two epochs); the training
// loop's epochs become that repeat, the dataset iterated once (a change to the loop's code).
// A dataset's repeat is moved only where an op after the shuffle fetches ahead
// (FetchesAheadAfter); the training loop's epochs come with a prefetch where none does.
void AddEpochsRightAfterTheShuffle(const spec::PipelineSpec& spec, int cores, CandidateList& out) {
  auto plan = PlanPipeline(spec, cores);
  if (!plan.ok()) return;
  int shuffle = -1;
  for (int i = 0; i < spec.ops_size(); ++i) {
    const spec::Op& op = spec.ops(i);
    if (op.has_shuffle()) shuffle = i;
    if (shuffle < 0 || !op.has_repeat()) continue;
    const spec::Op& mixer = spec.ops(shuffle);
    spec::Op repeat = op;  // as the dataset's repeat
    repeat.mutable_repeat()->set_training_loop(false);
    if (!ShuffleFusesWithRepeat(mixer, repeat)) return;            // tf.data fuses no such shuffle
    if (i == shuffle + 1 && !op.repeat().training_loop()) return;  // fused already
    const bool fetches_ahead = FetchesAheadAfter(*plan, shuffle);
    if (!op.repeat().training_loop()) {
      if (!fetches_ahead) return;
      out.AddMove("reorder", i, shuffle + 1,
                  "repeat right after the shuffle (move " + op.name() + " before " +
                      spec.ops(shuffle + 1).name() + "): tf.data fuses " + mixer.name() +
                      " and the repeat after it, one buffer that keeps filling across the "
                      "epochs' ends, so no epoch waits for " +
                      mixer.name() + "'s buffer to fill again");
      return;
    }
    spec::PipelineSpec changed = i == shuffle + 1 ? spec : MoveOp(spec, i, shuffle + 1);
    *changed.mutable_ops(shuffle + 1) = repeat;
    SpecEdit edit;
    if (i != shuffle + 1) {
      edit.move = op.name();
      edit.before = spec.ops(shuffle + 1).name();
    }
    edit.replace = {repeat};
    // Nothing after the shuffle fetches ahead: its work would be the steps' either way, so a
    // prefetch at the dataset's end comes with it (the verdict's "add a prefetch first").
    std::string prefetch_too;
    if (!fetches_ahead) {
      spec::Op prefetch;
      prefetch.set_name(UnusedName(spec, "prefetch_last"));
      prefetch.mutable_prefetch()->set_buffer_size(2);
      *changed.add_ops() = prefetch;
      edit.add = prefetch;
      prefetch_too =
          ", and add prefetch(2) at the dataset's end, so that the shuffle's work runs "
          "beside the steps";
    }
    std::string steps = "its steps per epoch";
    if (plan->ops[i].input_elements) steps = std::to_string(*plan->ops[i].input_elements);
    const int64_t count = op.repeat().has_count() ? op.repeat().count() : -1;
    // A finite count stays the repeat's: a repeat forever would fill the buffer past the last
    // epoch with elements no step takes.
    const std::string epochs = count < 0 ? "" : ", epochs=" + std::to_string(count);
    const std::string repeat_call =
        count < 0 ? ".repeat()" : ".repeat(" + std::to_string(count) + ")";
    out.Add({"epochs_in_dataset",
             op.name(),
             "the training loop's epochs as a repeat right after '" + mixer.name() + "'",
             {},
             "put the epochs in the dataset, right after the shuffle: ds.shuffle(...)" +
                 repeat_call + ", iterated once (Keras: model.fit(ds" + epochs +
                 ", steps_per_epoch=" + steps +
                 ")): tf.data fuses the shuffle and the repeat after it, one buffer that "
                 "keeps filling across the epochs' ends, so no epoch waits for " +
                 mixer.name() + "'s buffer to fill again" + prefetch_too,
             i == shuffle + 1 ? "" : AssessMove(spec, i, shuffle + 1).explanation,
             std::move(changed),
             /*needs_code_change=*/true,
             std::move(edit)});
    return;
  }
}

// The epochs' repeat after a DataLoader with workers, moved before it: one iterator over
// every epoch's indices. Each epoch's new iterator starts with no batch fetched, persistent
// workers or not (PyTorch puts an epoch's indices only as its iterator starts), so the step
// waits for the first batches of every epoch (discuss.pytorch.org 184155: items of seconds);
// a sampler of every epoch's indices keeps the workers fetching across the epochs' ends, as
// YOLOv5's InfiniteDataLoader does.
void AddOneIteratorForEveryEpoch(const spec::PipelineSpec& spec, CandidateList& out) {
  for (int i = 0; i + 1 < spec.ops_size(); ++i) {
    const spec::Op& loader = spec.ops(i);
    const spec::Op& epochs = spec.ops(i + 1);
    if (!loader.has_dataloader() || loader.dataloader().num_workers() == 0 ||
        loader.dataloader().replicated() || !epochs.has_repeat()) {
      continue;
    }
    // The sampler keeps the loader's order: shuffled, a new permutation each epoch (a
    // RandomSampler longer than the dataset draws one per len(dataset) indices); else the
    // indices in order, once an epoch (any iterable with a len() is a sampler).
    const std::string sampler = loader.dataloader().shuffle()
                                    ? "RandomSampler(dataset, num_samples=len(dataset) * epochs)"
                                    : "list(range(len(dataset))) * epochs";
    out.AddMove("reorder", i + 1, i,
                "use one iterator for every epoch: move " + epochs.name() + " before " +
                    loader.name() + " (a sampler of every epoch's indices, sampler=" + sampler +
                    ", iterated once), so that its workers fetch the next epoch's first "
                    "batches while this one ends");
    return;
  }
}

// A shard after the ops that open and read files, moved onto the file list: each worker
// then reads only its own files instead of every record (tf.data's advice: shard early).
void AddShardFileList(const spec::PipelineSpec& spec, CandidateList& out) {
  for (int i = 1; i < spec.ops_size(); ++i) {
    if (!Splits(spec.ops(i))) continue;
    int reads = -1;
    for (int j = 0; j < i; ++j) {
      if (const OpKindDescription* r = DescribeOp(spec.ops(j)); r && r->per_element) reads = j;
    }
    if (reads < 0) continue;
    out.AddMove("shard_earlier", i, reads,
                "shard the file list: move " + spec.ops(i).name() + " before " +
                    spec.ops(reads).name() + " (each worker reads only its own files)");
  }
}

// A shard right after the source, made a shard of the file list (shard_files_advice.h).
void AddShardTheFiles(const spec::PipelineSpec& spec, int cores, CandidateList& out) {
  std::optional<ShardFilesChange> c = ShardTheFiles(spec, cores);
  if (!c) return;
  SpecEdit edit;
  edit.reapplicable = false;  // the source becomes files and an interleave
  out.Add({std::move(c->kind),
           spec.ops(0).name(),
           std::move(c->change),
           {},
           std::move(c->action),
           std::move(c->changes_output),
           std::move(c->spec),
           false,
           std::move(edit)});
}

// A reader of several files that reads them one after another (TFRecordDataset and its
// kin without num_parallel_reads), made to read several at once: tf.data's own interleave
// over the names inside the reader, `num_parallel_reads=K`, K the cores (at most the files,
// and 8). Where a shard follows the source, AddShardTheFiles says the change that also shards.
void AddParallelReads(const spec::PipelineSpec& spec, int cores, CandidateList& out) {
  std::vector<std::string> names;
  spec::ElementSource per_file;
  if (!FilesAndReaderOf(spec.source(), names, per_file) || names.size() < 2) return;
  if (spec.ops_size() > 0 && Splits(spec.ops(0))) return;
  const int64_t k = std::clamp<int64_t>(cores, 2, std::min<int64_t>(8, names.size()));
  const std::string& source = spec.source().name();
  spec::Source list;
  list.set_name(UnusedName(spec, "files"));
  for (const std::string& f : names) list.mutable_from_tensor_slices()->add_strings(f);
  // The reader keeps the source's name: its knobs are set as before.
  spec::PipelineSpec changed = FilesReadAtOnce(spec, list, per_file, k, source, 0);
  SpecEdit edit;
  edit.reapplicable = false;  // the source becomes files and an interleave
  const std::string n = std::to_string(k);
  out.Add({"interleave_files",
           source,
           "read " + source + "'s files " + n + " at a time",
           {},
           "read " + source + "'s " + std::to_string(names.size()) + " files " + n +
               " at a time instead of one after another (num_parallel_reads=" + n + ")",
           "Records come interleaved from " + n +
               " files at a time instead of each file's in turn: a batch holds records of "
               "several files.",
           std::move(changed),
           false,
           std::move(edit)});
}

// A flat_map reads each element's dataset to its end before it opens the next, on the
// caller's thread: where those datasets are files (a reader of records per file name), an
// interleave reads several at once, each on a thread of its own, as tf.data's guide and its
// maintainers answer (tensorflow#37969's flat_map of TFRecordDatasets). Tried at the thread
// ladder's values for reads; the call changes (flat_map becomes interleave with its
// cycle_length and num_parallel_calls), so it is advice, written by hand.
void AddFlatMapInParallel(const spec::PipelineSpec& spec, int cores, CandidateList& out) {
  for (int i = 0; i < spec.ops_size(); ++i) {
    const spec::Op& op = spec.ops(i);
    if (!op.has_flat_map()) continue;
    const spec::ElementSource& per = op.flat_map().per_element();
    if (!per.has_synthetic_file() && !ReadsANamedFile(per)) continue;
    for (const int64_t k : HigherParallelisms(1, cores, CallWaits{true, 0})) {
      spec::PipelineSpec changed = spec;
      spec::Op& made = *changed.mutable_ops(i);
      spec::InterleaveOp interleave;
      *interleave.mutable_per_element() = op.flat_map().per_element();
      *interleave.mutable_ops() = op.flat_map().ops();
      interleave.set_cycle_length(k);
      interleave.set_num_parallel_calls(k);
      *made.mutable_interleave() = std::move(interleave);
      const std::string n = std::to_string(k);
      SpecEdit edit;
      edit.reapplicable = false;  // the op changes kind
      out.Add({"interleave_files",
               op.name(),
               "read " + op.name() + "'s files " + n + " at a time",
               {},
               "read " + op.name() + "'s files " + n +
                   " at a time instead of one after another: .interleave(f, cycle_length=" + n +
                   ", num_parallel_calls=" + n + ") in place of .flat_map(f)",
               "Each file's elements alternate with those of " + std::to_string(k - 1) +
                   (k == 2 ? " other file" : " other files") +
                   " instead of coming file after file.",
               std::move(changed),
               /*needs_code_change=*/true,
               std::move(edit)});
    }
  }
}

// The order advice's moves (filters and shards earlier, vectorising, a last prefetch).
void AddOrderAdvice(const spec::PipelineSpec& spec, const trace::RangeAnalysis& measured,
                    CandidateList& out) {
  for (OrderAdvice& a : AdviseOrder(spec, measured)) {
    out.Add(
        {a.kind, a.op, a.change, {}, a.change, "", std::move(a.spec), false, std::move(a.edit)});
  }
}

}  // namespace

std::vector<AdviceCandidate> StartUpCandidates(const spec::PipelineSpec& spec, int cores,
                                               int64_t machine_ram_bytes) {
  CandidateList out(spec, std::max(1, cores));
  const int64_t ram = RamBudget(spec, machine_ram_bytes);
  for (int i = 0; i < spec.ops_size(); ++i) {
    const spec::Op& op = spec.ops(i);
    if (!Shuffles(op) || !op.has_shuffle()) continue;
    const int64_t buffer = op.shuffle().buffer_size();
    // Before the maps that make its elements: it then holds what they start from. Whatever
    // its size (keras#19502: 1024 decoded 12-megapixel images before the first step), as
    // it is advised only where the first step comes in half the time. A shuffle of batches
    // goes before the batch as well (tensorflow#47687: a buffer of decoded batches larger
    // than the epoch, shuffled last; the maintainers' answer shuffles first), which changes
    // what it shuffles, and says so; so does one before random maps (other elements draw
    // each number), and one before the repeat (yolo3#12's 70000 decoded images, shuffled
    // after the repeat: before it, each epoch is whole).
    const int to = ShufflePlaceBeforeItsMaps(spec, i);
    if (to < i && buffer > 1) {
      // Named where the pipeline has shuffles beside it (tensorflow#16396: two).
      const bool several = std::count_if(spec.ops().begin(), spec.ops().end(), Shuffles) > 1;
      out.AddMove("reorder", i, to,
                  "shuffle " + (several ? "'" + op.name() + "' " : std::string()) + "before '" +
                      spec.ops(to).name() + "' (its buffer then fills with what " +
                      "costs little to make, and " + spec.ops(to).name() +
                      " runs on the shuffled elements)");
    }
    // No larger than what fits a quarter of the RAM budget, where its elements' size is known.
    int64_t small = kSmallShuffleBuffer;
    if (const auto each = ElementBytesBefore(spec, i).bytes; each && ram > 0) {
      small = std::min(small, ShuffleBufferThatFits(*each, ram));
    }
    if (buffer <= small) continue;
    const std::string smaller = std::to_string(small);
    out.AddKnobs("shuffle_buffer", op.name(), {{"buffer_size", smaller}},
                 ChangeOfKnob(op.name(), "buffer_size", buffer, small),
                 "A smaller buffer shuffles less: each element comes at most " + smaller +
                     " places from where its input had it (shuffle the files as well).");
  }
  return out.Take();
}

std::string StandInSize(const spec::PipelineSpec& spec) {
  const spec::Source& s = spec.source();
  if (s.size_is_stand_in()) {
    return s.name() + (s.has_range()                ? ".stop"
                       : s.has_from_tensor_slices() ? ".count"
                                                    : ".records");
  }
  for (const auto& op : spec.ops()) {
    const spec::ElementSource* per = op.has_interleave() ? &op.interleave().per_element()
                                     : op.has_flat_map() ? &op.flat_map().per_element()
                                                         : nullptr;
    if (per && per->synthetic_file().size_is_stand_in()) return op.name() + ".records_per_file";
  }
  return "";
}

spec::PipelineSpec WithStandInScaled(spec::PipelineSpec spec, int64_t factor) {
  spec::Source& s = *spec.mutable_source();
  if (s.size_is_stand_in()) {
    if (s.has_range()) {
      auto* r = s.mutable_range();
      r->set_stop(r->start() + (r->stop() - r->start()) * factor);
    } else if (s.has_from_tensor_slices()) {
      s.mutable_from_tensor_slices()->set_count(s.from_tensor_slices().count() * factor);
    } else if (s.has_synthetic()) {
      s.mutable_synthetic()->set_records(s.synthetic().records() * factor);
    }
  }
  for (auto& op : *spec.mutable_ops()) {
    spec::ElementSource* per = op.has_interleave() ? op.mutable_interleave()->mutable_per_element()
                               : op.has_flat_map() ? op.mutable_flat_map()->mutable_per_element()
                                                   : nullptr;
    if (per && per->has_synthetic_file() && per->synthetic_file().size_is_stand_in()) {
      auto* f = per->mutable_synthetic_file();
      f->set_records_per_file(f->records_per_file() * factor);
    }
  }
  return spec;
}

std::string KnobValueForPeople(const std::string& knob, int64_t value) {
  if (value == kAutotune) return "AUTOTUNE";
  if (value == 0 && knob == kNumParallelCallsKnob.name) return "sequential";
  return std::to_string(value);
}

// A change of the user's own code, a generator's: advice only, for the source and the ops
// it changes do not carry over to another spec.
void AddGeneratorCodeChange(const char* kind, const spec::PipelineSpec& spec, std::string change,
                            std::string action, spec::PipelineSpec changed, CandidateList& out) {
  SpecEdit edit;
  edit.reapplicable = false;
  out.Add({kind,
           spec.source().name(),
           std::move(change),
           {},
           std::move(action),
           "",
           std::move(changed),
           /*needs_code_change=*/true,
           std::move(edit)});
}

// A generator batched after it, made to yield the batches (generator_batches_advice.h).
void AddGeneratorBatches(const spec::PipelineSpec& spec, CandidateList& out) {
  if (std::optional<GeneratorBatchesChange> c = GeneratorBatches(spec)) {
    AddGeneratorCodeChange("batch_at_source", spec, std::move(c->change), std::move(c->action),
                           std::move(c->spec), out);
  }
}

// The dataset batched before an eager loop that pays Python per element
// (loop_batch_advice.h): each change's steps are its batch's rows of the given spec's.
void AddBatchesForTheLoop(const PipelinePlan& plan, CandidateList& out) {
  for (LoopBatchChange& c : BatchesForTheLoop(plan)) {
    SpecEdit edit;
    edit.reapplicable = false;
    AdviceCandidate candidate{"batch_for_the_loop",
                              "train_step",
                              std::move(c.change),
                              {},
                              std::move(c.action),
                              "The loop takes batches of " + std::to_string(c.rows) +
                                  " elements, not one at a time: its body changes to take "
                                  "them.",
                              std::move(c.spec),
                              /*needs_code_change=*/true,
                              std::move(edit)};
    candidate.steps_per_step = static_cast<double>(c.rows);
    out.Add(std::move(candidate));
  }
}

// A generator whose next() waits, run as several copies through an interleave
// (generator_shards_advice.h).
void AddGeneratorCopies(const spec::PipelineSpec& spec, CandidateList& out) {
  if (std::optional<GeneratorShardsChange> c = GeneratorShards(spec)) {
    AddGeneratorCodeChange("parallel_generators", spec, std::move(c->change), std::move(c->action),
                           std::move(c->spec), out);
  }
}

// A DataLoader whose __getitem__ loads its files again for every item (Python::
// wait_loads_files), held in memory instead: the files loaded once, in the Dataset's
// __init__, an item then its Python alone (pytorch#6547's answer; torchmd-net#235 read its
// .npy files on every get). Only where the items fit the RAM budget, by what the spec says
// of their size; a change to the Dataset's code.
void AddInMemoryDataset(const PipelinePlan& plan, int64_t machine_ram_bytes, CandidateList& out) {
  const spec::PipelineSpec& spec = *plan.spec;
  const int64_t ram = RamBudget(spec, machine_ram_bytes);
  for (const PlannedOp& p : plan.ops) {
    if (!p.op->has_dataloader()) continue;
    const spec::Python& python = p.op->dataloader().getitem().python();
    // Only files loaded in a wait: files read from the spec's disk (read_bytes) that fit in
    // memory are what the page cache holds after their first epoch anyway, and holding them
    // costs the same reads once, in __init__, which the steady rate leaves out.
    if (!p.op->dataloader().getitem().has_python() || !python.wait_loads_files()) continue;
    const std::optional<int64_t> items = p.input_elements;
    const int64_t sample = p.op->dataloader().getitem().output_bytes();
    const int64_t bytes = items && sample > 0 ? *items * sample : 0;  // 0: not known
    if (bytes > 0 && ram > 0 && bytes > ram) continue;
    spec::Op held = *p.op;
    auto* each = held.mutable_dataloader()->mutable_getitem()->mutable_python();
    each->clear_wait();
    each->clear_wait_loads_files();
    // Loaded once: no item reads its files from the disk either.
    each->clear_read_bytes();
    each->clear_read_files();
    // Held by the dataset object, it is sent to each worker that spawns.
    auto* loader = held.mutable_dataloader();
    const bool sent = loader->start_method() != spec::fork && loader->num_workers() > 0;
    if (sent) loader->set_dataset_bytes(loader->dataset_bytes() + bytes);
    SpecEdit edit;
    edit.replace = {held};
    auto changed = ApplyEdit(spec, edit);
    if (!changed.ok()) return;
    const std::string& name = p.op->name();
    std::string size;
    if (bytes > 0) {
      size = " (" + std::to_string(*items) + " items, " + FormatBytes(bytes) + " in memory" +
             (sent ? ", which each worker that starts is sent, pickled with the dataset" : "") +
             ")";
    } else if (items) {
      size = " (" + std::to_string(*items) + " items, whose size the spec does not say" +
             (ram > 0 ? ": check they fit the RAM budget of " + FormatBytes(ram) : "") + ")";
    }
    out.Add({"in_memory",
             name,
             "hold " + name + "'s dataset in memory",
             {},
             "hold in memory what " + name +
                 "'s __getitem__ reads from files: load the files once, in the Dataset's "
                 "__init__ (into a list or one array), and index that in __getitem__, so that "
                 "no item reads a file" +
                 size,
             "",
             std::move(*changed),
             /*needs_code_change=*/true,
             std::move(edit)});
  }
}

namespace {

// The data on a faster kind of disk than the spec's (an SSD for a hard disk, NVMe for
// either): a change of machine, not of code or knobs, so advice only. Where the disk is the
// limit (a hard disk seeking for every JPEG of ImageNet, IntelLabs/distiller#202), it is the
// one change that gains, and the simulation says by how much.
void AddFasterStorage(const spec::PipelineSpec& spec, CandidateList& out) {
  if (!spec.has_storage()) return;
  const Result<StorageFigures> now = StorageFiguresOf(spec.storage());
  if (!now.ok()) return;
  for (const spec::StorageKind kind : {spec::ssd, spec::nvme}) {
    spec::Storage faster;
    faster.set_kind(kind);
    const Result<StorageFigures> f = StorageFiguresOf(faster);
    if (!f.ok() || f->access_ns >= now->access_ns ||
        (now->bytes_per_s > 0 && f->bytes_per_s < now->bytes_per_s)) {
      continue;
    }
    const std::string setting = "storage.kind=" + spec::StorageKind_Name(kind);
    // A figure the spec sets itself would stay over the kind's (a remote store's 60 ms an
    // access given as the disk's): the kind's own figure replaces it, in the try-it too.
    std::vector<std::string> settings{setting};
    const spec::Storage& given = spec.storage();
    if (!given.access_time().empty()) {
      faster.set_access_time(SpecDuration(f->access_ns));
      settings.push_back("storage.access_time=" + faster.access_time());
    }
    if (!given.bandwidth().empty()) {
      faster.set_bandwidth(std::to_string(std::llround(f->bytes_per_s / 1e6)) + "MB/s");
      settings.push_back("storage.bandwidth=" + faster.bandwidth());
    }
    if (given.queue_depth() > 0) {
      faster.set_queue_depth(f->queue_depth);
      settings.push_back("storage.queue_depth=" + std::to_string(f->queue_depth));
    }
    spec::PipelineSpec changed = spec;
    *changed.mutable_storage() = faster;
    AdviceCandidate c{"faster_storage",
                      "storage",
                      setting,
                      settings,
                      "read the data from an " + StorageDescription(faster) + " instead of the " +
                          StorageDescription(spec.storage()) +
                          ": copy it there, or train where it is",
                      "",
                      std::move(changed),
                      /*needs_code_change=*/false,
                      {}};
    c.changes_machine = true;
    out.Add(std::move(c));
  }
}

// An interleave reading its files from the spec's disk, fewer of them at once: a hard disk
// seeks between files read at once for every buffer it reads, and one file after another
// streams (the interleave's many readers, right for a remote store, are wrong here).
void AddFewerFilesAtOnce(const PipelinePlan& plan, CandidateList& out) {
  for (const PlannedOp& p : plan.ops) {
    if (!p.op->has_interleave()) continue;
    // Synthetic files on the disk, or real ones a reader of records reads through it
    // (TFRecordDataset's and FixedLengthRecordDataset's do; text files are not read there).
    const spec::ElementSource& per = p.op->interleave().per_element();
    const spec::SyntheticFile& f = per.synthetic_file();
    const bool on_the_disk =
        per.has_synthetic_file()
            ? RecordsReadFromTheDisk(plan.spec->has_storage(), f.read_latency(), f.bandwidth())
            : plan.spec->has_storage() && ReadsANamedFile(per) && !per.has_text_line_file();
    if (!on_the_disk) continue;
    const std::string& name = p.op->name();
    const int64_t cycle = p.Knob("cycle_length").start;
    const int64_t parallel = p.Knob("num_parallel_calls").start;
    for (const int64_t k : {int64_t{1}, int64_t{2}}) {
      if (k >= cycle) continue;
      std::vector<Setting> settings{{"cycle_length", std::to_string(k)}};
      if (parallel > k) settings.push_back({"num_parallel_calls", std::to_string(k)});
      out.AddKnobs("interleave_files", name, settings,
                   "read " + name + "'s files " + std::to_string(k) + " at a time instead of " +
                       std::to_string(cycle) + " (cycle_length=" + std::to_string(k) +
                       (parallel > k ? ", num_parallel_calls=" + std::to_string(k) : "") +
                       "): the " + StorageDescription(plan.spec->storage()) +
                       " seeks between files read at once",
                   "Elements come " + std::to_string(k) + " file" + (k == 1 ? "" : "s") +
                       " at a time, where " + std::to_string(cycle) +
                       " files' records alternated: a batch holds fewer files, and a shuffle "
                       "after it mixes fewer.");
    }
  }
}

// The elements one call of a filter's predicate decides where it is written over a batch.
constexpr int64_t kElementsOneCallDecides = 1024;

// The predicate of `filter` as a mask over a batch `x`, for code people write: its test
// where the spec knows it (x % 2 == 0), else its function called on the batch, and where the
// function's ops are not known, the check that they take the batch's rows at once.
struct BatchMask {
  std::string mask;
  std::string check;  // "" where the test is known to take rows at once
};
BatchMask MaskOverABatch(const spec::Op& filter) {
  const spec::Predicate& predicate = filter.filter().predicate();
  if (predicate.has_mod_equals()) {
    return {"x % " + std::to_string(predicate.mod_equals().modulus()) +
                " == " + std::to_string(predicate.mod_equals().remainder()),
            ""};
  }
  // import-code names a filter after its def; a lambda's is "filter".
  const bool named = filter.name().rfind("filter", 0) != 0;
  const std::string function = named ? filter.name() : "predicate";
  return {function + "(x)", ", where " + function +
                                "'s ops take a batch's rows at once (x % 2 == 0 does; a test of "
                                "the element's own shape, tf.shape(x)[0] >= 64, does not)"};
}

// A filter's predicate is a traced function run for every element it looks at, its dispatch
// (call_overhead) costing more than most tests themselves (tensorflow#67330: x % 2 == 0 over
// a range, 20x slower than on batches). Called on a batch instead, its call is paid once for
// kElementsOneCallDecides elements, as tf.data's guide vectorises a map: `.batch(n).map(
// lambda x: tf.boolean_mask(x, predicate(x))).unbatch()`, simulated as the filter with its
// call's cost shared by them, and written by hand. A predicate that is a uniform draw
// (tensorflow#23179) draws for the batch in one call (kind sample); the sampling op tf.data's
// maintainers answered that with (filter_with_random_uniform_fusion) is no remedy:
// TensorFlow's source leaves its rewrite unregistered (b/131229793), so it changes nothing.
void AddFilterCalledOnBatches(const spec::PipelineSpec& spec, CandidateList& out) {
  const std::string size = std::to_string(kElementsOneCallDecides);
  for (const spec::Op& op : spec.ops()) {
    if (!op.has_filter()) continue;
    auto overhead = FilterCallOverheadNs(op.filter());
    if (!overhead.ok() || *overhead < kElementsOneCallDecides) continue;
    const std::string shared = CallOverheadSharedBy(*overhead, kElementsOneCallDecides);
    const spec::KeepFraction& keep = op.filter().predicate().keep_fraction();
    if (op.filter().predicate().has_keep_fraction() && keep.uniform_draw()) {
      const double rate = keep.fraction();
      char share[32], calls[32];
      std::snprintf(share, sizeof share, "%g", rate);
      std::snprintf(calls, sizeof calls, "%.3g", rate > 0 ? 1 / rate : 0.0);
      const bool added = out.AddKnobs(
          "sample", op.name(), {{"call_overhead", shared}},
          "draw for " + size + " elements in one call, not a call of " + op.name() +
              "'s predicate (a uniform draw below " + share + ") for every element it looks at (" +
              calls + " for each it keeps): in place of the filter, .batch(" + size +
              ").map(lambda x: tf.boolean_mask(x, tf.random.uniform([tf.shape(x)[0]]) < " + share +
              ")).unbatch()",
          {}, /*needs_code_change=*/true);
      if (!added) continue;
      out.SetHow("Simulated as the filter with its call's cost shared by " + size +
                 " elements. tf.data's options.experimental_optimization."
                 "filter_with_random_uniform_fusion does not do it: TensorFlow leaves that "
                 "rewrite unregistered (b/131229793), so the option changes nothing");
      continue;
    }
    const BatchMask mask = MaskOverABatch(op);
    const bool added = out.AddKnobs(
        "vectorise", op.name(), {{"call_overhead", shared}},
        "call " + op.name() + "'s predicate once for " + size +
            " elements, not once for every element it looks at: in place of the filter, "
            ".batch(" +
            size + ").map(lambda x: tf.boolean_mask(x, " + mask.mask + ")).unbatch()" + mask.check +
            " (an element of several components: mask each with the same mask)",
        {}, /*needs_code_change=*/true);
    if (added)
      out.SetHow("Simulated as the filter with its call's cost shared by " + size + " elements");
  }
}

}  // namespace

std::vector<AdviceCandidate> AdviceCandidates(const spec::PipelineSpec& spec,
                                              const trace::RangeAnalysis& measured, int cores,
                                              int64_t machine_ram_bytes) {
  CandidateList out(spec, std::max(1, cores));
  auto plan = PlanPipeline(spec, std::max(1, cores));
  if (!plan.ok()) return {};
  std::optional<StorageFigures> disk;
  if (spec.has_storage()) {
    if (auto figures = StorageFiguresOf(spec.storage()); figures.ok()) disk = *figures;
  }
  AddPlannedOps(plan->ops, std::max(1, cores), disk ? &*disk : nullptr, out);
  AddPrefetch(*plan, out);
  AddOrderAdvice(spec, measured, out);
  AddCache(*plan, machine_ram_bytes, out);
  AddInMemoryDataset(*plan, machine_ram_bytes, out);
  AddEpochsRightAfterTheShuffle(spec, std::max(1, cores), out);
  AddOneIteratorForEveryEpoch(spec, out);
  AddShardFileList(spec, out);
  AddShardTheFiles(spec, std::max(1, cores), out);
  AddParallelReads(spec, std::max(1, cores), out);
  AddFlatMapInParallel(spec, std::max(1, cores), out);
  AddGeneratorBatches(spec, out);
  AddBatchesForTheLoop(*plan, out);
  AddGeneratorCopies(spec, out);
  AddFasterStorage(spec, out);
  AddFewerFilesAtOnce(*plan, out);
  AddFilterCalledOnBatches(spec, out);
  return out.Take();
}

}  // namespace pipescope::engine
