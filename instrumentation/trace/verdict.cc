#include "instrumentation/trace/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/core/duration.h"
#include "engine/core/worker_process_costs.h"

namespace pipescope::trace {

std::string FormatPercent(double fraction) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100 * fraction);
  return buf;
}

std::string FormatPercentChange(double fraction) {
  char buf[32];
  if (fraction >= 9) {
    std::snprintf(buf, sizeof buf, "%.1f×", 1 + fraction);
  } else {
    std::snprintf(buf, sizeof buf, "%+.0f%%", 100 * fraction);
  }
  return buf;
}

namespace {

std::string Pct(double f) { return FormatPercent(f); }

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

bool Has(const StageFigures& s, record::StageTrait t) { return (s.traits & t) != 0; }

// The parallelism that would let `s` keep up: its output must grow by the share of time
// the consumer now waits (1 / (1 - wait)), and each worker adds what one worker does now.
int NeededParallelism(const StageFigures& s, double wait) {
  const double p = std::max(1.0, s.parallelism);
  const double per_worker_busy = std::max(0.05, s.busy_fraction);
  const double needed = p * per_worker_busy / std::max(0.05, 1.0 - wait);
  // More than it has now: the average can sit below the knob when it changed in the range.
  return std::max(static_cast<int>(std::ceil(p - 0.05)) + 1,
                  static_cast<int>(std::ceil(needed - 0.05)));
}

// Workers that got less than this share of a core while they worked were held back by the
// machine, not by the pipeline: more parallelism cannot help them.
constexpr double kStarvedCpuShare = 0.7;
// A share of their work that threads waited for the interpreter lock below which the waits
// are its hand-over between Python and the rest, not threads taking turns.
constexpr double kLockWaitToSay = 0.01;

// Ops that read storage block in their work: little CPU while working is their waiting for
// the storage to answer, not for a core. A map inside an interleave's files (a parse, 12
// threads of it a file: tensorflow#37969) computes as any map does.
bool ReadsStorage(const StageFigures& s) {
  return Has(s, record::kTraitSource) || Has(s, record::kTraitParallelReads);
}

// Busy threads of a function that blocks beside its work (record::kTraitWaits: a read from
// storage, a database, a sleep) that used little of a core, with cores to spare, were
// waiting, not starved: more of them than cores still help. Where they used most of the
// cores (more workers than cores), they waited for a core too.
constexpr double kWaitingCores = 0.6;
bool WaitsWithCoresToSpare(const StageFigures& s, int cpu_budget) {
  return Has(s, record::kTraitWaits) && s.cpu_share >= 0 && s.cpu_share < kStarvedCpuShare &&
         (cpu_budget <= 0 || s.cpu_cores < kWaitingCores * cpu_budget);
}

bool Starved(const StageFigures& s, int cpu_budget) {
  return s.cpu_share >= 0 && s.cpu_share < kStarvedCpuShare && s.busy_fraction >= 0.5 &&
         !ReadsStorage(s) && !WaitsWithCoresToSpare(s, cpu_budget);
}

// An op busy less than this share of its time is not what the consumer waits for, whatever
// the gaps' attribution says (it waited for its own input).
constexpr double kBusyToBlame = 0.05;

std::string OneDecimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Every op's workers together: the threads that compute beside the training loop.
double WorkerThreads(const RangeAnalysis& r) {
  double threads = 0;
  for (const auto& st : r.stages) {
    if (st.asynchronous && !Has(st, record::kTraitOneProducer)) threads += st.parallelism;
  }
  return threads;
}

// "decode's 4 workers ran on 1.9 cores: ..." with what to do about it. `threads`: every
// op's workers together.
std::string StarvedSuggestion(const StageFigures& s, double threads, int cpu_budget) {
  const int workers = std::max(1, static_cast<int>(std::round(s.parallelism)));
  std::string who = s.asynchronous ? s.name + "'s " + std::to_string(workers) +
                                         (workers == 1 ? " worker" : " workers")
                                   : s.name;
  std::string text = who + " ran on " + OneDecimal(s.cpu_cores) + " cores while working";
  if (cpu_budget > 0 && threads > cpu_budget) {
    return text + ": the pipeline runs " + Num(threads) + " worker threads on " +
           std::to_string(cpu_budget) + (cpu_budget == 1 ? " core" : " cores") +
           ", so they take turns; lower the parallelism to the cores there are, or cut "
           "the work per element";
  }
  // One worker has no parallelism to lower: only the machine's other work is left.
  if (workers <= 1) {
    return text + ": the machine is busy with other work; measure on a quiet machine";
  }
  return text +
         ": the machine is busy with other work; measure on a quiet machine or lower "
         "the parallelism";
}

// Python under the interpreter lock: threads take turns, so what helps is fewer calls, or
// calls that hold the lock less or in other processes.
std::string InterpreterLockSuggestion(const StageFigures& s) {
  if (Has(s, record::kTraitSource)) {
    return s.name +
           " is a Python generator: one next() at a time, under the interpreter lock (GIL) "
           "that every other Python stage waits for too; yield only what must be Python and "
           "do the rest with TensorFlow ops after it (from_tensor_slices or a TFRecord file "
           "where the data allows), or generate in worker processes";
  }
  // A tf.data op (Keras's enqueuer and the DataLoader have their own words): its remedies
  // in tf.data's terms, where the Python is in a tf.py_function.
  const bool one_thread = s.parallelism < 1.5;
  return s.name + " runs Python that holds the interpreter lock (GIL): " +
         (one_thread ? "threads would take turns under it, so num_parallel_calls gains only "
                     : "its workers take turns under it, so more num_parallel_calls gains "
                       "only ") +
         "what runs without the lock; write it with "
         "TensorFlow ops instead of tf.py_function, call it once per batch (map after batch), "
         "or do that Python work once, before training, and save what it makes (TFRecord "
         "files the pipeline reads)";
}

// The consumer's wait the epochs' start-ups make: the time some worker was starting (about
// one start-up an epoch where they start side by side, every worker's where they start one
// after another).
double StartUpsWaitNs(const StageFigures& s) {
  return s.startups <= 0 ? 0 : static_cast<double>(s.startup_covered_ns);
}

// What an epoch waits for its `workers` to start, where the epochs' start-ups make a fifth
// of the consumer's wait (`wait_ns`) or more; 0 where they do not.
int64_t StartUpThatMatters(const StageFigures& s, int workers, int64_t wait_ns) {
  if (s.startups <= 0 || StartUpsWaitNs(s) < 0.2 * static_cast<double>(wait_ns)) return 0;
  const double epochs = std::max(1.0, static_cast<double>(s.startups) / std::max(workers, 1));
  return static_cast<int64_t>(StartUpsWaitNs(s) / epochs);
}

// Worker processes busy less than this while the consumer waits, and their batches' receipt
// making most of its wait: the main process receiving is the limit.
constexpr double kReceiptBoundWorkersBusy = 0.85;

// The main process receiving `s`'s batches (kReceive) makes half or more of the consumer's
// wait `wait`: the op is to blame for that wait however little its workers work.
bool ReceiptMakesTheWait(const StageFigures& s, double wait) {
  return s.receive_fraction >= 0.5 * wait && s.receive_fraction >= 0.05;
}

// Where the main process receiving each batch from the worker processes (kReceive: unpickling
// it under the interpreter lock, between steps or on a thread of its own beside them: a
// pin-memory thread, Keras's result handler) is what the training loop waits for, the
// workers not busy all the time: more workers or cores would not shorten it, fewer bytes a
// batch would (keras#11727's shape: 8 processes of 20 ms busy 2%, 64 MB batches read from
// their pipe and unpickled in 171 ms each, 97% of the run). `remedies`: the framework's ways
// to receive less or elsewhere. "" where not.
std::string ReceiptSuggestion(const StageFigures& s, double wait, const std::string& remedies) {
  // Workers that got little of a core while busy share too few cores (the main process's
  // receipt among them): more cores would help (keras#4763's 6 workers on 2 cores).
  const bool starved = s.cpu_share >= 0 && s.cpu_share < kStarvedCpuShare;
  if (!ReceiptMakesTheWait(s, wait) || s.busy_fraction >= kReceiptBoundWorkersBusy || starved) {
    return "";
  }
  return "the main process receives each of " + s.name +
         "'s batches from its worker processes, unpickling it under its interpreter lock (" +
         engine::FormatDuration(static_cast<int64_t>(s.receive_ns_per_element)) + " a batch, " +
         Pct(s.receive_fraction) + " of the time): that, not the workers (busy " +
         Pct(s.busy_fraction) +
         "), is what the training loop waits for, so more workers or cores gain nothing; " +
         remedies;
}

// Keras's enqueuer (fit's workers, use_multiprocessing, in Keras's words): threads of the
// main process take turns under its interpreter lock where sequence[i] runs Python; worker
// processes each have their own and start again every epoch.
std::string EnqueuerSuggestion(const StageFigures& s, int64_t wait_ns, double wait, int cpu_budget,
                               bool& is_change) {
  const int workers = std::max(0, static_cast<int>(std::round(s.parallelism)));
  const int cores = cpu_budget > 0 ? cpu_budget : 2;
  if (!s.asynchronous || workers == 0) {
    return s.name +
           " runs sequence[i] on the training loop's thread (workers=0), between "
           "steps: set workers to " +
           std::to_string(std::max(2, std::min(cores, 4))) +
           (Has(s, record::kTraitHoldsInterpreterLock)
                ? " with use_multiprocessing=True (Python in threads takes turns under the "
                  "interpreter lock)"
                : "") +
           " so that batches are made while the step runs";
  }
  if (Has(s, record::kTraitOneCallAtATime)) {
    is_change = false;
    return s.name +
           (workers == 1 ? "'s generator runs on 1 worker thread, and more would take turns at"
                         : "'s " + std::to_string(workers) + " worker threads take turns at") +
           " its next(), which Keras runs one call at a time (a generator is not thread-safe: "
           "Keras 2.0 to 2.2 lock it, tf.keras stops with \"Your generator is NOT thread-safe\" "
           "unless a lock is added), so more threads make no more batches: write it as a "
           "keras.utils.Sequence, whose __getitem__ runs on every worker at once, or set "
           "use_multiprocessing=True (each process then runs a copy of the generator, whose "
           "batches repeat, as Keras warns)";
  }
  if (Has(s, record::kTraitHoldsInterpreterLock)) {
    return s.name + "'s " + std::to_string(workers) +
           (workers == 1 ? " worker is a thread" : " workers are threads") +
           " of the main process running Python under the interpreter lock (GIL): more "
           "threads take turns under it; use_multiprocessing=True runs each worker in a "
           "process of its own, with workers up to " +
           std::to_string(cores) + " (the cores there are)";
  }
  if (const int64_t per_start = StartUpThatMatters(s, workers, wait_ns); per_start > 0) {
    return "each epoch waits " + engine::FormatDuration(per_start) + " for " + s.name + "'s " +
           std::to_string(workers) +
           " worker processes to start (Keras starts its pool again every epoch): fewer, "
           "longer epochs, or a tf.data pipeline instead of the Sequence";
  }
  std::string receipt = ReceiptSuggestion(
      s, wait,
      "send fewer bytes a batch (images as uint8 rather than float32, scaled on the GPU), or "
      "run the workers as threads (use_multiprocessing=False), whose batches need no "
      "receiving, where __getitem__'s work releases the lock (NumPy, OpenCV)");
  if (!receipt.empty()) {
    is_change = false;
    return receipt;
  }
  int needed = std::max(NeededParallelism(s, wait), workers + 1);
  // Processes that fill the cores already share them with one more: the work per batch is
  // what is left (keras#7168's flow on fewer cores than workers).
  if (cpu_budget > 0 && workers >= cpu_budget && !WaitsWithCoresToSpare(s, cpu_budget)) {
    is_change = false;
    return s.name + " already has workers " + std::to_string(workers) +
           (workers > cpu_budget ? ", more than the " : ", as many as the ") +
           std::to_string(cpu_budget) +
           " cores: cut the work of each batch (smaller inputs, augmentation on the "
           "GPU) or add cores";
  }
  if (cpu_budget > 0) needed = std::max(std::min(needed, cpu_budget), workers + 1);
  return "raise " + s.name + "'s workers to " + std::to_string(needed);
}

// A DataLoader's workers busy less than this share while the consumer waits are waited on
// for another reason than their work; as many workers as cores, each with its core while
// busy, busy less than the second, are not what more cores would help
// (discuss.pytorch.org 184155: 8 workers on 8 cores busy 75%, the step waiting at each
// epoch's start).
constexpr double kIdleWorkersBusy = 0.6;
constexpr double kUnsaturatedWorkersBusy = 0.85;

// The run hands out its input again (epochs: a repeat).
bool Repeats(const RangeAnalysis& r) {
  return std::any_of(r.stages.begin(), r.stages.end(),
                     [](const StageFigures& s) { return Has(s, record::kTraitRepeats); });
}

// A DataLoader's worker processes (PyTorch's words): each has its own interpreter lock, so
// they scale with cores; they start again every epoch unless persistent. `wait_ns`: the
// consumer's input wait in the range.
// `is_change`: set false where the suggestion is work outside the knobs.
std::string WorkerProcessesSuggestion(const StageFigures& s, int64_t wait_ns, double wait,
                                      int cpu_budget, bool epochs, bool& is_change) {
  const int workers = std::max(0, static_cast<int>(std::round(s.parallelism)));
  // A batch fetched in the main process faster than one is received from a worker (a
  // TensorDataset indexed by whole batches): workers would add to the main process's time,
  // not take from it (the DataLoader thread's "slower than indexing the tensor").
  if ((!s.asynchronous || workers == 0) && s.self_ns_per_element > 0 &&
      s.self_ns_per_element < static_cast<double>(engine::kDefaultReceiveNsPerBatch)) {
    is_change = false;
    return s.name + " fetches each batch in the main process in " +
           engine::FormatDuration(static_cast<int64_t>(s.self_ns_per_element)) +
           ", less than receiving one from a worker process takes (" +
           engine::FormatDuration(engine::kDefaultReceiveNsPerBatch) +
           ": a queue message and the tensors' shared memory), so worker processes would not "
           "shorten the wait: the main process would spend longer receiving each batch than it "
           "now spends fetching it; num_workers=0 is right here";
  }
  if (!s.asynchronous || workers == 0) {
    return s.name +
           " fetches and collates every batch in the main process (num_workers=0), between "
           "training steps: set num_workers to " +
           std::to_string(std::max(2, cpu_budget > 0 ? std::min(cpu_budget, 4) : 2)) +
           " so that worker processes fetch batches while the step runs";
  }
  if (const int64_t per_start = StartUpThatMatters(s, workers, wait_ns); per_start > 0) {
    return "each epoch waits " + engine::FormatDuration(per_start) + " for " + s.name + "'s " +
           std::to_string(workers) +
           " worker processes to start (they start again every epoch): "
           "persistent_workers=True starts them once";
  }
  std::string receipt = ReceiptSuggestion(
      s, wait,
      "pin_memory=True receives them on its own thread while the step runs; or send fewer "
      "bytes a batch (tensors rather than Python objects, images as uint8 scaled on the GPU)");
  if (!receipt.empty()) {
    is_change = false;
    return receipt;
  }
  // Workers idle for much of the run, yet the consumer waits: not for want of workers or
  // cores. Each epoch's iterator starts with no batch fetched (PyTorch asks for an epoch's
  // batches only as it begins, persistent workers or not), so the first steps wait.
  // As many workers as cores, each with a core of its own while busy (not sharing them with
  // more workers than cores), and idle for part of the run: not what more cores would help.
  const bool cores_to_themselves =
      cpu_budget > 0 && workers == cpu_budget && s.cpu_share >= kStarvedCpuShare;
  if (epochs &&
      s.busy_fraction < (cores_to_themselves ? kUnsaturatedWorkersBusy : kIdleWorkersBusy)) {
    is_change = false;
    return s.name + "'s workers are busy only " + Pct(s.busy_fraction) +
           ": the consumer waits as each epoch begins, its first batches fetched only then "
           "(PyTorch fetches an epoch's batches as its iterator starts, persistent workers or "
           "not); more workers or cores shorten that little; one iterator over every epoch's "
           "indices (a sampler of them all, iterated once) keeps the workers fetching across "
           "the epochs' ends";
  }
  const int needed = NeededParallelism(s, wait);
  // Workers that use little of a core while busy, with cores to spare, wait (a database,
  // remote storage, a sleep): more of them than cores still help, as more readers do.
  if (WaitsWithCoresToSpare(s, cpu_budget) && needed > workers) {
    return "raise " + s.name + "'s num_workers to " + std::to_string(needed) +
           " (its workers used " + Pct(s.cpu_share) +
           " of a core while busy: they wait, so more of them than cores still help)";
  }
  if (cpu_budget > 0 && needed > cpu_budget) {
    if (workers >= cpu_budget) {
      is_change = false;
      return s.name + " already has num_workers " + std::to_string(workers) +
             (workers > cpu_budget ? ", more than the " : ", as many as the ") +
             std::to_string(cpu_budget) + " cores: cut " +
             (Has(s, record::kTraitIterableDataset) ? "__iter__" : "__getitem__") +
             "'s work per item (smaller inputs, augmentation on the GPU) or add cores";
    }
    return "raise " + s.name + "'s num_workers to " + std::to_string(cpu_budget) +
           " (the cores there are; each worker is a process with its own interpreter lock)";
  }
  return "raise " + s.name + "'s num_workers to " + std::to_string(needed) +
         " (each worker is a process with its own interpreter lock)";
}

// The op whose sub-pipeline `s` (one of r's stages) is in, an interleave for its per-file
// source: the last stage before it, in pipeline order, one level up; null at the top level.
const StageFigures* EnclosingOp(const RangeAnalysis& r, const StageFigures& s) {
  const StageFigures* enclosing = nullptr;
  for (const StageFigures& st : r.stages) {
    if (&st == &s) return enclosing;
    if (st.depth < s.depth) enclosing = &st;
  }
  return nullptr;
}

// Whether `s` (one of r's stages) or a stage before it draws at random (a reshuffling
// shuffle, an augmentation): a cache after `s` would replay the first epoch's draws.
bool RandomAtOrBefore(const RangeAnalysis& r, const StageFigures& s) {
  for (const StageFigures& st : r.stages) {
    if (Has(st, record::kTraitRandom)) return true;
    if (&st == &s) break;
  }
  return false;
}

// `is_change`: set false where the suggestion is work outside the knobs.
std::string Suggest(const RangeAnalysis& r, const StageFigures& s, double wait, int cpu_budget,
                    bool& is_change) {
  if (Has(s, record::kTraitSource)) {
    // The per-file source of an interleave ("read.read") is read in parallel already: more
    // of its files at once, or whichever file answers first where it waits for each in turn.
    const StageFigures* interleave = EnclosingOp(r, s);
    if (interleave && Has(*interleave, record::kTraitParallelReads)) {
      return "read more files at once: raise " + interleave->name +
             "'s cycle_length with its num_parallel_calls, " +
             (Has(*interleave, record::kTraitFirstReady)
                  ? std::string()
                  : "or let it take whichever file answers first (deterministic=False), ") +
             "or cache the data after the first epoch";
    }
    return "read in parallel: interleave over the input files with num_parallel_calls, or cache "
           "the data after the first epoch";
  }
  if (Has(s, record::kTraitOneProducer)) return "raise " + s.name + "'s buffer_size";
  if (Has(s, record::kTraitParallelFunction) || Has(s, record::kTraitParallelReads)) {
    int needed = NeededParallelism(s, wait);
    std::string knob = s.name + "'s num_parallel_calls";
    std::string verb = s.asynchronous
                           ? "raise " + knob + " to "
                           : "make " + s.name + " parallel: set its num_parallel_calls to ";
    if (cpu_budget > 0 && needed > cpu_budget) {
      // Vectorising needs a function that takes a batch; a cache after a random op would
      // replay its first draws.
      std::vector<std::string> remedies;
      if (!Has(s, record::kTraitOneElementFunction)) remedies.push_back("vectorise it after batch");
      if (!RandomAtOrBefore(r, s)) remedies.push_back("cache after it");
      std::string how;
      for (const std::string& r : remedies) how += (how.empty() ? " (" : ", ") + r;
      if (!how.empty()) how += ")";
      const std::string beyond = "cut its work per element" + how + " or add cores";
      if (s.asynchronous && s.parallelism >= cpu_budget - 0.05) {
        is_change = false;
        return s.name + " already has num_parallel_calls " + Num(s.parallelism) +
               ", the CPU budget: " + beyond;
      }
      return verb + std::to_string(cpu_budget) + " (the CPU budget); beyond that, " + beyond;
    }
    return verb + std::to_string(needed);
  }
  return "put a prefetch after " + s.name +
         " so that its work overlaps the training step, "
         "and make the work before it parallel";
}

// Python that waits with the lock released (a generator's or py_function's time.sleep, a
// request): its waits overlap on more threads, or with the step, as the tf.data guide's
// parallel interleave and map show; a generator's next() runs one at a time, so its waits
// overlap only beside other generators.
std::string WaitingPythonSuggestion(const RangeAnalysis& r, const StageFigures& s, double wait,
                                    int cpu_budget, bool& is_change) {
  if (Has(s, record::kTraitSource)) {
    return "overlap its waits: prefetch after " + s.name +
           " so that they run beside the training step, interleave over several such "
           "generators with num_parallel_calls so that their waits overlap, or cache its "
           "elements after the first epoch";
  }
  return Suggest(r, s, wait, cpu_budget, is_change);
}

// A shuffle that has taken elements and given none: it holds them until its buffer is full
// (or its input ends), so nothing reaches the step meanwhile. What it holds, and when at
// its input's rate the buffer is full; "" when no op is filling one.
std::string FillingBuffer(const RangeAnalysis& r) {
  for (size_t i = 1; i < r.stages.size(); ++i) {
    const StageFigures& s = r.stages[i];
    const StageFigures& input = r.stages[i - 1];
    if (!Has(s, record::kTraitDrawsOrderFromBuffer) || s.asynchronous || s.elements > 0 ||
        s.buffer_size <= 0 || input.depth != s.depth || input.elements <= 0) {
      continue;
    }
    std::string text = s.name + " has taken " + std::to_string(input.elements) +
                       " elements into a buffer of " + Num(s.buffer_size) +
                       " and gives none until the buffer is full or its input ends";
    if (input.elements_per_s > 0) {
      text +=
          "; at the " + Num(input.elements_per_s) + " elements/s " + input.name +
          " makes, it is full after " +
          engine::FormatDuration(static_cast<int64_t>(1e9 * s.buffer_size / input.elements_per_s));
    }
    return text;
  }
  return "";
}

// "every 4th": which of the batches a count of `n` apart is.
std::string EveryNth(int64_t n) {
  if (n == 2) return "every second";
  if (n == 3) return "every third";
  return "every " + std::to_string(n) + "th";
}

// A DataLoader's workers, each making a whole batch, that finish together: the step waits
// before every N-th batch and not before the others (WaitPattern), which is what people see
// and ask about (vision#81); "" where the waits fall otherwise.
std::string BatchesTogether(const StageFigures& loader, const WaitPattern& waits) {
  const int64_t workers = std::lround(loader.parallelism);
  if (workers < 2 || LongWaitEvery(waits) != workers) return "";
  return "; each of its " + std::to_string(workers) + " workers makes a whole batch (" +
         engine::FormatDuration(static_cast<int64_t>(loader.self_ns_per_element)) +
         " of work), so the batches come " + std::to_string(workers) +
         " at a time and the step waits " + engine::FormatDuration(waits.long_wait_ns) +
         " before " + EveryNth(workers) + " batch (" + Pct(waits.long_share) + " of the waiting)";
}

// The op busy the largest share of its time; null where there is none.
const StageFigures* Busiest(const RangeAnalysis& r) {
  const StageFigures* busiest = nullptr;
  for (const auto& s : r.stages) {
    if (!busiest || s.busy_fraction > busiest->busy_fraction) busiest = &s;
  }
  return busiest;
}

Verdict VerdictOn(const RangeAnalysis& r, int cpu_budget) {
  Verdict v;
  const double wait = r.input_wait_fraction;
  v.grade = wait >= kHighlyInputBound       ? "highly input-bound"
            : wait >= kModeratelyInputBound ? "moderately input-bound"
                                            : "not input-bound";
  if (r.steps == 0 && r.duration_s > 0 && !r.stages.empty()) {
    // A rate over a run that ended before its first step would be noise.
    v.grade = "no input";
    v.evidence = "no element reached the training step in " +
                 engine::FormatDuration(static_cast<int64_t>(r.duration_s * 1e9));
    if (const std::string filling = FillingBuffer(r); !filling.empty()) {
      v.evidence += ": " + filling;
      SetSuggestion(v,
                    "a smaller shuffle buffer fills sooner (10,000 elements shuffle well when "
                    "the files are shuffled too), or shuffle what costs little to make (file "
                    "names, records) before the work that makes the elements");
      return v;
    }
    // Where the elements stop: the first op that took some and gave none (seed 000's
    // shard(10, 1) of one file's name).
    const StageFigures* before = nullptr;
    for (const StageFigures& s : r.stages) {
      if (s.depth != 0) continue;
      if (before && before->elements > 0 && s.elements == 0) {
        v.evidence += "; " + s.name + (s.op == s.name ? "" : " (" + s.op + ")") +
                      " gave none of the " + std::to_string(before->elements) + " element" +
                      (before->elements == 1 ? "" : "s") + " " + before->name + " gave it";
        SetSuggestion(v, s.op == "shard"
                             ? "shard(num_shards, index) passes on every num_shards-th element "
                               "from index: fewer elements than shards leave some workers none "
                               "(one file's name sharded across workers); shard the records "
                               "after the reads, or split the data into at least as many files "
                               "as workers"
                             : "check what " + s.name +
                                   " does with its input: a filter that keeps nothing, take(0), "
                                   "a skip past the end");
        return v;
      }
      before = &s;
    }
    SetSuggestion(v,
                  "check what the input gives: an empty file list, a shard index beyond the "
                  "data, a filter that keeps nothing, take(0)");
    return v;
  }
  // A start-up that is much of the run is what the user waits for, though the figures
  // below leave it out.
  const double startup_s = static_cast<double>(r.startup_ns) / 1e9;
  const bool long_startup =
      startup_s >= kStartUpToSay && startup_s >= kStartUpShareToSay * (startup_s + r.duration_s);
  const std::string startup =
      long_startup ? "; the first step came after " +
                         engine::FormatDuration(static_cast<int64_t>(r.startup_ns)) +
                         " of start-up (" + Pct(startup_s / (startup_s + r.duration_s)) +
                         " of the run), which these figures leave out"
                   : "";
  if (long_startup && r.steps < kFewestStepsToGrade) {
    v.grade = "too short to grade";
    v.evidence = std::to_string(r.steps) + (r.steps == 1 ? " step" : " steps") + " in " +
                 engine::FormatDuration(static_cast<int64_t>(r.duration_s * 1e9)) + " came after " +
                 engine::FormatDuration(static_cast<int64_t>(r.startup_ns)) + " of start-up (" +
                 Pct(startup_s / (startup_s + r.duration_s)) +
                 " of the run): the wait over so few steps says nothing of the steady state";
    SetSuggestion(v,
                  "run for longer (a longer --duration) to measure the steps after the "
                  "start-up");
    return v;
  }
  // The loop's own work between steps the limit, the device idle through it: no op is to
  // blame, however long the consumer waits between its next() calls (tensorflow#40502: the
  // reads busy 7%, the loop's next() on each 10-byte record most of the time).
  const auto host = r.device_gaps.by_cause_ns.find(kHostBetweenSteps);
  const double host_share = host == r.device_gaps.by_cause_ns.end() || r.duration_s <= 0
                                ? 0.0
                                : static_cast<double>(host->second) / (r.duration_s * 1e9);
  // ... and the loop works through it: a loop asleep until a short step ends, waking late,
  // leaves the device idle as long and uses no core (a 50 µs step on the simulated device).
  const bool loop_work = host != r.device_gaps.by_cause_ns.end() && r.steps > 0 &&
                         host->second / r.steps >= kLoopWorkPerStepToSay &&
                         r.consumer_cpu_share >= kLoopWorkingShare * host_share;
  if (host_share >= kLoopBoundShare && host_share > wait && loop_work) {
    const StageFigures* busiest = Busiest(r);
    v.grade = "loop-bound";
    v.evidence = "the training loop's own work between steps takes " + Pct(host_share) +
                 " of the time, the device idle through it (the loop's own Python: an eager "
                 "next() on each element, the step's launches), while the consumer waits for "
                 "input " +
                 Pct(wait) + " of the time" +
                 (busiest ? " and the busiest op, " + busiest->name + ", is busy " +
                                Pct(busiest->busy_fraction)
                          : std::string()) +
                 startup;
    // A dataset batched already (its last batch or unbatch, in order, a batch) brings many
    // elements a next(): a larger batch brings more (tensorflow#42917's batch(3)).
    bool batched = false;
    for (const StageFigures& s : r.stages) {
      if (s.depth != 0) continue;
      if (Has(s, record::kTraitBatches)) batched = true;
      if (Has(s, record::kTraitUnbatches)) batched = false;
    }
    SetSuggestion(v, std::string("do less in the loop for each element: ") +
                         (batched ? "a larger batch_size, so that each next() brings more "
                                    "elements"
                                  : "batch the dataset before the loop, so that each next() "
                                    "brings many elements") +
                         ", or run the loop inside a tf.function, where no Python runs per "
                         "element");
    return v;
  }
  // An op whose workers' start-ups make the wait is to blame however little it works.
  const auto wait_ns = static_cast<int64_t>(wait * 1e9 * r.duration_s);
  const auto starting = [&](const StageFigures& s) {
    return StartUpThatMatters(s, std::max(0, static_cast<int>(std::round(s.parallelism))),
                              wait_ns) > 0;
  };
  const StageFigures* culprit = nullptr;
  for (const auto& s : r.stages) {
    if (s.caused_wait_share > 0 &&
        (s.busy_fraction >= kBusyToBlame || starting(s) || ReceiptMakesTheWait(s, wait)) &&
        (!culprit || s.caused_wait_share > culprit->caused_wait_share)) {
      culprit = &s;
    }
  }
  if (wait >= kModeratelyInputBound && r.storage_busy_fraction >= kStorageBoundBusy) {
    // The disk, not an op, is the limit: its readers wait for it however little they work
    // (IntelLabs/distiller#202: 22 workers busy 5%, the disk 100%).
    const StageFigures* reader = nullptr;  // the op that caused most of the wait, if any did
    for (const auto& s : r.stages) {
      if (s.caused_wait_share > (reader ? reader->caused_wait_share : 0)) reader = &s;
    }
    v.evidence = "the disk is busy " + Pct(r.storage_busy_fraction) +
                 " of the time while the consumer waits " + Pct(wait);
    if (reader) {
      v.bottleneck = reader->name;
      v.evidence += ": " + reader->name + " (parallelism " + Num(reader->parallelism) + ", busy " +
                    Pct(reader->busy_fraction) + ") caused " + Pct(reader->caused_wait_share) +
                    " of the waiting, its reads queued for the disk";
    } else {
      v.evidence += ": every read queues for it";
    }
    v.evidence += startup;
    SetSuggestion(v,
                  "read from faster storage (an SSD or NVMe drive), or ask less of the disk: "
                  "fewer files read at once, larger files read whole, the data in memory where "
                  "it fits; more workers or threads only queue for it");
    return v;
  }
  if (wait < kModeratelyInputBound || !culprit) {
    const StageFigures* busiest = Busiest(r);
    v.evidence = "the consumer waits " + Pct(wait) + " of the time and the device is busy " +
                 Pct(r.device_busy_fraction);
    if (busiest) {
      v.bottleneck = busiest->name;
      v.evidence +=
          "; the busiest op is " + busiest->name + " (" + Pct(busiest->busy_fraction) + ")";
    }
    v.suggestion = wait < kModeratelyInputBound
                       ? "the input pipeline keeps up: a faster training step is what would help"
                       : "no op stands out: look at the timeline around the longest waits";
  } else {
    v.bottleneck = culprit->name;
    // Its workers' start-ups lead where they keep the consumer waiting longer than the op
    // works (pytorch#12831: one worker started again at each of 200 short epochs, busy 5%).
    const int workers = std::max(0, static_cast<int>(std::round(culprit->parallelism)));
    // Not where the op is to blame for the receipt of its batches (ReceiptMakesTheWait).
    const bool restarts_lead =
        (culprit->busy_fraction < kBusyToBlame && !ReceiptMakesTheWait(*culprit, wait)) ||
        (StartUpThatMatters(*culprit, workers, wait_ns) > 0 &&
         StartUpsWaitNs(*culprit) > culprit->busy_fraction * r.duration_s * 1e9);
    const std::string doing = restarts_lead
                                  ? culprit->name + "'s " + Num(culprit->parallelism) +
                                        " worker processes start again every epoch"
                                  : culprit->name + " is busy " + Pct(culprit->busy_fraction) +
                                        " with parallelism " + Num(culprit->parallelism);
    v.evidence = doing + " while the consumer waits " + Pct(wait) + " of the time (it caused " +
                 Pct(culprit->caused_wait_share) + " of the waiting)";
    // Measured where its threads' waits for the lock were recorded (a map's, a Keras
    // enqueuer's threads); else, for Python under the lock, read from the CPU they got.
    // Waits for the lock of under a hundredth of the work are the lock's hand-over, not turns.
    const bool waits_for_lock = culprit->lock_wait_fraction >= kLockWaitToSay;
    if (waits_for_lock) {
      v.evidence += "; its threads spent " + Pct(culprit->lock_wait_fraction) +
                    " of their work waiting for the interpreter lock";
    }
    v.suggests_change = true;
    if (Has(*culprit, record::kTraitEnqueuerWorkers)) {
      v.suggestion = EnqueuerSuggestion(*culprit, wait_ns, wait, cpu_budget, v.suggests_change);
    } else if (Has(*culprit, record::kTraitWorkerProcesses)) {
      v.evidence += BatchesTogether(*culprit, r.waits);
      v.suggestion = WorkerProcessesSuggestion(*culprit, wait_ns, wait, cpu_budget, Repeats(r),
                                               v.suggests_change);
    } else if (Has(*culprit, record::kTraitHoldsInterpreterLock)) {
      v.suggests_change = false;
      // One thread (a generator's next()) has no other to take turns with.
      // A share below 0 is one the run did not measure (a simulation without CPU samples).
      const bool cpu_known = culprit->cpu_share >= 0;
      if (!waits_for_lock && culprit->parallelism > 1.05) {
        v.evidence += cpu_known ? "; its threads got " + Pct(culprit->cpu_share) +
                                      " of a core while working, taking turns under the "
                                      "interpreter lock"
                                : "; its threads take turns under the interpreter lock";
      } else if (!waits_for_lock && culprit->cpu_share >= 0 &&
                 culprit->cpu_share < kStarvedCpuShare) {
        // Python that mostly waits (the tf.data guide's time.sleep, a request) releases the
        // lock while it waits: not the lock but the waits one after another are the limit.
        // Next to no core, or a function known to wait: its waits. Half a core may as well be
        // cores shared with other threads (a generator of 2 us an element beside its batch).
        const bool waits = Has(*culprit, record::kTraitWaits) || culprit->cpu_share < 0.2;
        v.evidence += "; it runs Python on one thread and used " + Pct(culprit->cpu_share) +
                      " of a core while working: " +
                      (waits ? "it waits (a sleep, a read, a request) with the interpreter lock "
                               "released"
                             : "it waits with the interpreter lock released (a sleep, a read, "
                               "a request), or shares the cores with other threads");
        v.suggests_change = true;
        v.suggestion = WaitingPythonSuggestion(r, *culprit, wait, cpu_budget, v.suggests_change);
        v.evidence += startup;
        SetSuggestion(v, v.suggestion);
        return v;
      } else if (!waits_for_lock) {
        v.evidence += "; it runs Python on one thread, under the interpreter lock";
        if (cpu_known)
          v.evidence += ", and got " + Pct(culprit->cpu_share) + " of a core while working";
      }
      v.suggestion = InterpreterLockSuggestion(*culprit);
    } else if (Has(*culprit, record::kTraitParallelFunction) && !ReadsStorage(*culprit) &&
               WaitsWithCoresToSpare(*culprit, cpu_budget)) {
      v.evidence += "; its threads used " + Pct(culprit->cpu_share) +
                    " of a core while working, with cores to spare: they wait (a read, a "
                    "request, a sleep), not for a core";
      v.suggestion = Suggest(r, *culprit, wait, /*cpu_budget=*/0, v.suggests_change);
    } else if (Starved(*culprit, cpu_budget) &&
               // The simulator's machine runs nothing but the pipeline: with no more threads
               // than cores, a share below a core is the CPU samples' grain, not other work
               // (tensorflow#67330's filter "got 58% of a core" on an idle machine).
               !(r.simulated && cpu_budget > 0 && WorkerThreads(r) <= cpu_budget)) {
      const double threads = WorkerThreads(r);
      v.evidence += "; its threads got " + Pct(culprit->cpu_share) + " of a core while working";
      v.suggestion = StarvedSuggestion(*culprit, threads, cpu_budget);
    } else if (ReadsStorage(*culprit) && culprit->cpu_share >= 0 &&
               culprit->cpu_share < kStarvedCpuShare) {
      v.evidence += "; its threads used " + Pct(culprit->cpu_share) +
                    " of a core while working: they wait for the storage to answer";
      v.suggestion = Suggest(r, *culprit, wait, cpu_budget, v.suggests_change);
    } else {
      v.suggestion = Suggest(r, *culprit, wait, cpu_budget, v.suggests_change);
    }
  }
  v.evidence += startup;
  SetSuggestion(v, v.suggestion);
  return v;
}

}  // namespace

Verdict MakeVerdict(const RangeAnalysis& r, int cpu_budget, bool cores_are_this_machines) {
  Verdict v = VerdictOn(r, cpu_budget);
  // A remedy that rests on how many cores there are (more workers than them, add cores),
  // where the spec set no budget: the count is this machine's, and the one that trains may
  // have more (vision#81's four workers "more than the 2 cores" of a laptop, where the answer
  // was more workers).
  const std::string cores =
      " " + std::to_string(cpu_budget) + (cpu_budget == 1 ? " core" : " cores");
  if (cores_are_this_machines && cpu_budget > 0 && v.suggestion.find(cores) != std::string::npos &&
      !v.suggestion.ends_with('.')) {
    SetSuggestion(v, v.suggestion + " (the" + cores + (cpu_budget == 1 ? " is" : " are") +
                         " this machine's, as the spec sets no budget: --set "
                         "budget.cpu_cores=N for the machine that trains)");
  }
  return v;
}

void SetSuggestion(Verdict& v, std::string suggestion) {
  v.suggestion = std::move(suggestion);
  std::string grade = v.grade;
  if (!grade.empty()) {
    grade[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(grade[0])));
  }
  // A suggestion that says what it changes ends with that sentence's own full stop.
  const bool stopped = v.suggestion.ends_with('.');
  v.text = grade + ": " + v.evidence + ". Suggestion: " + v.suggestion + (stopped ? "" : ".");
}

}  // namespace pipescope::trace
