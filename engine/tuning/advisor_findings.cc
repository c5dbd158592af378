#include "engine/tuning/advisor_findings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/core/duration.h"
#include "engine/runtime/dataloader_rules.h"
#include "engine/spec/file_readers.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/pipeline_plan.h"
#include "engine/spec/spec_overrides.h"
#include "engine/tuning/advice_candidates.h"
#include "engine/tuning/cache_memory.h"
#include "engine/tuning/move_rules.h"
#include "instrumentation/trace/verdict.h"

namespace pipescope::engine {
namespace {

// A source that reads one file: a synthetic one, or a list of one file.
bool ReadsOneFile(const spec::Source& source) {
  if (source.has_synthetic()) return true;
  const auto* files = RecordFilesOf(source);
  return files && files->size() == 1;
}

// Shards that keep a small share of what was read before them: every worker of a job
// reads everything and keeps its share.
std::vector<std::string> ShardWaste(const spec::PipelineSpec& spec,
                                    const trace::RangeAnalysis& measured) {
  std::map<std::string, const trace::StageFigures*> figures;
  for (const auto& s : measured.stages) figures[s.name] = &s;
  std::vector<std::string> out;
  std::string before = spec.source().name();
  // Only records read before the shard are read in vain: a shard of file names (lesson 6's
  // solution, seed 000's list_files) keeps its share of names and reads only those files.
  const spec::Source& s = spec.source();
  bool read = ReadsRecords(s);
  for (const auto& op : spec.ops()) {
    const std::string input = before;
    before = op.name();
    const bool reads_here = op.has_interleave() || op.has_flat_map();
    const int64_t workers = ReadIntKnob(spec, op.name(), "num_shards").value_or(0);
    if (!Splits(op) || workers < 2 || !read) {
      read = read || reads_here;
      continue;
    }
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

// A filter that keeps a small random share of what is read (tensorflow/minigo#520: 5% of
// its records, under a shuffle of 100,000 that read 2 million records to fill): the others
// are read, decompressed and given to the predicate only to be dropped, every epoch. Said
// from the spec's share, as the waste is there whatever the run's length.
std::vector<std::string> SampleWaste(const spec::PipelineSpec& spec) {
  constexpr double kMostKeptWasted = 0.25;
  std::vector<std::string> out;
  const spec::Source& s = spec.source();
  bool read = ReadsRecords(s);
  std::string reader = s.name();
  const auto& ops = spec.ops();
  for (int k = 0; k < ops.size(); ++k) {
    const spec::Op& op = ops[k];
    if (op.has_interleave() || op.has_flat_map()) {
      read = true;
      reader = op.name();
    }
    if (!read || !op.has_filter() || !op.filter().predicate().has_keep_fraction()) continue;
    const double kept = op.filter().predicate().keep_fraction().fraction();
    if (kept <= 0 || kept > kMostKeptWasted) continue;
    // A shuffle after the filter fills its buffer from what the filter keeps.
    const auto shuffle =
        std::find_if(ops.begin() + k, ops.end(), [](const spec::Op& o) { return o.has_shuffle(); });
    char fills[160] = "";
    if (shuffle != ops.end()) {
      std::snprintf(fills, sizeof fills, ", and %s's buffer of %lld fills %.0f times sooner",
                    shuffle->name().c_str(),
                    static_cast<long long>(shuffle->shuffle().buffer_size()), 1 / kept);
    }
    char line[800];
    std::snprintf(line, sizeof line,
                  "%s keeps %.0f%% of what %s reads, at random: %.0f records are read (and "
                  "decompressed, where the files are) for each one kept, every epoch; where "
                  "the sample need not be drawn again each epoch, drawing it once ahead of "
                  "training into files of its own reads only what is kept (tensorflow/minigo "
                  "wrote a sample_records tool for this)%s",
                  op.name().c_str(), 100 * kept, reader.c_str(), 1 / kept, fills);
    out.emplace_back(line);
  }
  return out;
}

// A shard after a shuffle with no seed: each worker of the job shuffles in an order of its
// own, so their shards overlap and miss elements (tf.data's shard docstring: shard before
// any randomizing op). Said whatever the speed, as a shard's waste is.
std::vector<std::string> ShardAfterUnseededShuffle(const spec::PipelineSpec& spec) {
  std::vector<std::string> out;
  const spec::Op* shuffle = nullptr;
  for (const auto& op : spec.ops()) {
    if (op.has_shuffle() && !op.shuffle().has_seed()) shuffle = &op;
    const int64_t workers = ReadIntKnob(spec, op.name(), "num_shards").value_or(0);
    if (!Splits(op) || workers < 2 || !shuffle) continue;
    out.push_back(op.name() + " comes after " + shuffle->name() +
                  ", which has no seed: each of the " + std::to_string(workers) +
                  " workers shuffles in an order of its own, so their shards overlap and miss "
                  "elements; shard before " +
                  shuffle->name() + " (or give it the same seed on every worker)");
  }
  return out;
}

// A generator handed to Keras's fit with use_multiprocessing: every worker process runs a
// copy of it, so the same batches come once per process (Keras's own warning). Said
// whatever the speed: the faster rate counts repeats.
std::vector<std::string> GeneratorCopies(const spec::PipelineSpec& spec) {
  std::vector<std::string> out;
  for (const auto& op : spec.ops()) {
    if (!op.has_keras_fit()) continue;
    const auto& k = op.keras_fit();
    const int64_t workers = k.has_workers() ? k.workers() : 1;
    if (!k.generator() || !k.use_multiprocessing() || workers < 2) continue;
    out.push_back(op.name() + " runs its generator in " + std::to_string(workers) +
                  " worker processes, each a copy of it: every batch comes " +
                  std::to_string(workers) +
                  " times, as Keras warns; write it as a keras.utils.Sequence, whose "
                  "processes make each batch by index");
  }
  return out;
}

// A DataLoader over an IterableDataset that PyTorch replicates in each worker process, its
// __iter__ not splitting the items: every batch comes once from each worker (pytorch#30599).
// Said whatever the speed, as the generator's copies are.
std::vector<std::string> IterableCopies(const spec::PipelineSpec& spec) {
  std::vector<std::string> out;
  for (const auto& op : spec.ops()) {
    if (!op.has_dataloader()) continue;
    const auto& loader = op.dataloader();
    const int64_t copies = CopiesOfEachBatch(loader.replicated(), loader.num_workers());
    if (copies < 2) continue;
    out.push_back(op.name() + "'s IterableDataset is replicated in each of its " +
                  std::to_string(copies) + " worker processes and its __iter__ does not split " +
                  "the items: every batch comes " + std::to_string(copies) +
                  " times an epoch; split them in __iter__ by "
                  "torch.utils.data.get_worker_info().id and .num_workers");
  }
  return out;
}

// Something hands out its input again each epoch (a repeat, fit's epochs).
bool Repeats(const spec::PipelineSpec& spec) {
  return std::any_of(spec.ops().begin(), spec.ops().end(),
                     [](const spec::Op& op) { return engine::Repeats(op); });
}

// A cache after a random op replays the op's first draws every epoch: a random map's
// augmentation or a shuffle's order is frozen (tf.data's guide caches before them). Not a
// shuffle's order the code fixes itself (reshuffle_each_iteration=False), nor one a shuffle
// after the cache draws anew each epoch (tensorflow#30646's tutorial: a fixed order for the
// split, then the training's own shuffle). Said whatever the speed, as a shard's waste is.
std::vector<std::string> FrozenRandomness(const spec::PipelineSpec& spec) {
  std::vector<std::string> out;
  const spec::Op* random = nullptr;
  for (int i = 0; i < spec.ops_size(); ++i) {
    const spec::Op& op = spec.ops(i);
    if (IsRandomOp(op)) random = &op;
    if (!Replays(op) || random == nullptr) continue;
    const bool shuffle = Shuffles(*random);
    if (shuffle) {
      const auto later = spec.ops().begin() + i + 1;
      if (!Reshuffles(*random) || std::any_of(later, spec.ops().end(), Reshuffles)) continue;
    }
    // A function that is only a random transform has nothing to split off.
    const spec::WorkFunction* fn = FunctionOf(*random);
    const bool splits = !shuffle && fn && !fn->has_random_flip() && !fn->has_random_crop();
    out.push_back(op.name() + " caches what " + (shuffle ? "the shuffle " : "the random map ") +
                  random->name() + " made: every epoch after the first " +
                  (shuffle ? "comes in the first epoch's order"
                           : "sees the first epoch's "
                             "random results") +
                  "; cache before " + random->name() + " to keep " +
                  (shuffle ? "a new order each epoch" : "the augmentation") +
                  " and still skip the work before it" +
                  (!splits ? ""
                           : ", or split " + random->name() +
                                 " in two maps: what draws nothing (reading, decoding, "
                                 "resizing) before the cache, the random part after it, so "
                                 "that the cache skips that work too (tensorflow/docs#1097)"));
  }
  return out;
}

// The ops whose work's cost is a stand-in (WorkFunction.cost_is_stand_in): a map's function,
// a DataLoader's or a Keras Sequence's __getitem__, at the top or inside an interleave.
void AddStandInCostOps(const google::protobuf::RepeatedPtrField<spec::Op>& ops,
                       std::vector<std::string>& out) {
  for (const spec::Op& op : ops) {
    const spec::WorkFunction* fn = op.has_map()          ? &op.map().fn()
                                   : op.has_dataloader() ? &op.dataloader().getitem()
                                   : op.has_keras_fit()  ? &op.keras_fit().getitem()
                                                         : nullptr;
    if (fn && fn->cost_is_stand_in()) out.push_back(op.name());
    if (const auto* inner = SubPipelineOf(op)) AddStandInCostOps(*inner, out);
  }
}

// Figures that rest on costs the code does not show (tensorflow#37178's py_function over
// nibabel at a stand-in 100 us, where each call loads a volume): said, with the setting.
std::vector<std::string> StandInCosts(const spec::PipelineSpec& spec) {
  const std::vector<std::string> ops = StandInCostOps(spec);
  if (ops.empty()) return {};
  std::string list, settings;
  for (const std::string& op : ops) {
    list += (list.empty() ? "" : ", ") + op;
    settings += (settings.empty() ? "--set " : " ") + op + ".cost=DURATION";
  }
  return {"these figures rest on stand-in costs for " + list +
          ", whose work the code does not show: " + settings +
          " (or a trace to calibrate from) for the real ones"};
}

// Files on a remote store read with import-code's stand-in latency and request size
// (SyntheticFile.storage_is_stand_in): how many files must be read at once, and whether in
// order, rests on them, so they are said with their settings.
std::vector<std::string> StandInStorage(const spec::PipelineSpec& spec) {
  std::vector<std::string> out;
  for (const spec::Op& op : spec.ops()) {
    const spec::ElementSource* per = op.has_interleave() ? &op.interleave().per_element()
                                     : op.has_flat_map() ? &op.flat_map().per_element()
                                                         : nullptr;
    if (!per || !per->synthetic_file().storage_is_stand_in()) continue;
    const std::string& n = op.name();
    out.push_back("these figures rest on a stand-in for the remote store " + n + " reads (" +
                  per->synthetic_file().read_latency() + " a request, not measured): --set " + n +
                  ".read_latency=DURATION " + n + ".read_request_bytes=N " + n +
                  ".read_latency_cv=CV with the store's own (the time of one ranged read of "
                  "that size, and its spread)");
  }
  return out;
}

// Code import-code left out of the ops (tensorflow#31616's .window(...), whose cost grows
// with the window): whatever work it does is in no figure here, and may be the bottleneck.
std::vector<std::string> CodeLeftOut(const spec::PipelineSpec& spec) {
  if (spec.left_out().empty()) return {};
  std::string list;
  for (const spec::LeftOutCode& c : spec.left_out()) {
    if (!list.empty()) list += ", ";
    list += "`" + c.code() + "` (" + (c.file().empty() ? "" : c.file() + " ") + "line " +
            std::to_string(c.line()) + ")";
  }
  return {"import-code left " + list +
          " out of the spec: what it does is in none of these figures, and may be where the "
          "input is slow"};
}

// A shuffle after a repeat draws from a buffer that holds the end of one epoch and the start
// of the next: an element can come twice before another comes once, and no epoch ends where
// the data does (tf.data's guide shuffles before repeating for clear epochs). Said whatever
// the speed: the move that fixes it keeps the speed (shuffle then repeat is one op to
// tf.data, its buffer filling across the epochs' ends: no wait for a fill each epoch, which
// is why people repeat first; tensorflow/docs#128) and changes the order.
std::vector<std::string> EpochsMixed(const spec::PipelineSpec& spec) {
  std::vector<std::string> out;
  const spec::Op* repeat = nullptr;
  for (const auto& op : spec.ops()) {
    if (op.has_repeat() &&
        (!op.repeat().has_count() || op.repeat().count() < 0 || op.repeat().count() > 1)) {
      repeat = &op;
    }
    if (!Shuffles(op) || repeat == nullptr) continue;
    out.push_back(op.name() + " shuffles after " + repeat->name() +
                  " repeats: its buffer mixes the end of one epoch with the start of the next, "
                  "so an element can come twice before another comes once; shuffle before " +
                  repeat->name() +
                  " to keep every epoch whole, in a new order each epoch: ds.shuffle(...)"
                  ".repeat() is one op to tf.data, whose buffer keeps filling across the "
                  "epochs' ends, so no epoch waits for it to fill again");
    repeat = nullptr;
  }
  return out;
}

// A large shuffle buffer before the epochs' repeat fills again at every epoch's start: the
// wait before the first step comes back each epoch (tensorflow#30646, "Filling up shuffle
// buffer" every epoch), though a run shorter than an epoch never shows it again. Not where
// tf.data fuses the shuffle with the repeat right after it (ShuffleFusesWithRepeat): that
// one buffer keeps filling across the epochs' ends; nor where a cache before the shuffle
// serves the later epochs' fills from memory. Said where the run's start-up was long enough
// to matter, whatever the steady speed.
std::vector<std::string> ShuffleFilledEachEpoch(const spec::PipelineSpec& spec,
                                                const trace::RangeAnalysis& measured) {
  std::vector<std::string> out;
  const double startup_s = static_cast<double>(measured.startup_ns) / 1e9;
  if (startup_s < trace::kStartUpToSay) return out;
  const spec::Op* shuffle = nullptr;
  int at = -1;  // the shuffle's index (a repeated field's messages are not one array)
  const spec::Op* previous = nullptr;
  bool cached = false;
  for (int i = 0; i < spec.ops_size(); ++i) {
    const spec::Op& op = spec.ops(i);
    const bool fused = previous && previous == shuffle && ShuffleFusesWithRepeat(*shuffle, op);
    previous = &op;
    cached = cached || Replays(op);
    // A cache after the shuffle replays its first epoch: the later ones never fill it.
    if (shuffle && Replays(op)) shuffle = nullptr;
    if (op.has_shuffle() && op.shuffle().buffer_size() > kSmallShuffleBuffer && !cached) {
      shuffle = &op;
      at = i;
    }
    if (!shuffle || !engine::Repeats(op)) continue;
    if (fused) break;
    // A take or skip between them counts within each epoch: after a repeat at the shuffle
    // it would count once over all of them (a split's test elements in later epochs).
    const auto between = spec.ops().begin() + at + 1;
    const bool counted = std::any_of(between, spec.ops().begin() + i, IsCounting);
    char wait[32];
    std::snprintf(wait, sizeof wait, "%.1f s", startup_s);
    const bool loop = !op.has_repeat() || op.repeat().training_loop();
    auto plan = PlanPipeline(spec, 1);
    const bool overlaps = plan.ok() && FetchesAheadAfter(*plan, at);
    const std::string epochs = loop
                                   ? op.name() + ", the training loop's epochs, iterating it afresh"
                                   : op.name() + " repeating after it";
    out.push_back(
        shuffle->name() + "'s buffer of " + std::to_string(shuffle->shuffle().buffer_size()) +
        " elements fills again at the start of every epoch, " + epochs +
        ": that fill, part of the " + wait + " before the first step, comes back each epoch; " +
        (counted ? std::string()
                 : "a repeat right after " + shuffle->name() +
                       " (ds.shuffle(...).repeat(), the dataset iterated once) is one that "
                       "tf.data fuses with it, one buffer that keeps filling across the "
                       "epochs' ends, each epoch still whole; or ") +
        "a smaller buffer fills sooner" +
        (overlaps ? std::string()
                  : std::string(". With nothing after it fetching ahead (a prefetch), the "
                                "steps wait for that work at some point either way: add a "
                                "prefetch first")));
    break;
  }
  return out;
}

// No step came, from a source whose size is a stand-in (the code computes its files):
// tensorflow#40502's skip(10000) took all of 10,000 stand-in records. The code is not wrong
// for that; the stand-in is, and the setting says how many the real data has.
std::vector<std::string> StandInSizeEmptied(const spec::PipelineSpec& spec,
                                            const trace::RangeAnalysis& measured) {
  const std::string setting = StandInSize(spec);
  if (measured.steps > 0 || measured.duration_s <= 0 || setting.empty()) return {};
  return {
      "the source's size is a stand-in, as the code computes its files: an op sized for "
      "the real data (a skip, a take, a shard) may leave nothing of the stand-in; --set " +
      setting + "=N for the real count"};
}

// A shuffle whose full buffer is more than the RAM budget (aloyschen/tensorflow-yolo3#12:
// "Filling up shuffle buffer ... 46287 of 70000" and no step): tf.data holds buffer_size
// elements in memory and fills the buffer before its first element, so the machine swaps
// or the job is killed before training starts. Said where the elements' size is known;
// the simulator has no swap, so no figure of its own proves it.
std::vector<std::string> ShuffleBufferOverTheRam(const spec::PipelineSpec& spec,
                                                 int64_t machine_ram_bytes) {
  std::vector<std::string> out;
  const int64_t ram = RamBudget(spec, machine_ram_bytes);
  for (const LargeShuffleBuffer& large : LargeShuffleBuffers(spec, ram)) {
    const int i = large.place;
    const int64_t fits = ShuffleBufferThatFits(large.element_bytes, ram);
    const bool machines = spec.budget().ram_bytes() <= 0;
    // Before the maps that make its elements large, the same buffer may hold what they start
    // from (yolo3#12: encoded records, not decoded images), keeping the whole shuffle.
    std::string before_maps;
    if (const int to = ShufflePlaceBeforeItsMaps(spec, i); to < i) {
      const std::optional<int64_t> there = ElementBytesBefore(spec, to).bytes;
      if (there && *there < large.element_bytes && BytesHeld(large.buffer, *there) <= ram / 4) {
        before_maps = "; or shuffle before '" + spec.ops(to).name() +
                      "', where the same buffer holds what it starts from, " +
                      ElementsText(large.buffer, *there) + ": " +
                      FormatBytes(BytesHeld(large.buffer, *there)) +
                      (spec.source().size_is_stand_in() ? " (a stand-in size)" : "");
      }
    }
    const std::string budget =
        "the RAM budget of " + FormatBytes(ram) +
        (machines ? " (half this machine's available memory; --set budget.ram_bytes=SIZE for the "
                    "machine that trains)"
                  : " (budget.ram_bytes)");
    const std::string share =
        large.held > ram  ? "more than " + budget
        : large.too_large ? "more than half " + budget
                          : std::to_string(std::lround(100.0 * static_cast<double>(large.held) /
                                                       static_cast<double>(ram))) +
                                "% of " + budget;
    const std::string then =
        large.too_large ? "; tf.data fills it before the first element comes, so the machine "
                          "swaps, or the job is killed, before training starts"
                        : "; tf.data fills it before the first element comes, and the model, the "
                          "batches and the prefetches share the rest";
    out.push_back(spec.ops(i).name() + "'s buffer holds " +
                  ElementsText(large.buffer, large.element_bytes) + ": " + FormatBytes(large.held) +
                  ", " + share + then + "; buffer_size=" + std::to_string(fits) +
                  " fits in a quarter of it, and shuffling the files as well keeps the order "
                  "random" +
                  before_maps);
  }
  return out;
}

}  // namespace

std::vector<std::string> AdvisorFindings(const spec::PipelineSpec& spec,
                                         const trace::RangeAnalysis& measured,
                                         int64_t machine_ram_bytes) {
  std::vector<std::string> out = ShardWaste(spec, measured);
  for (std::string& f : ShuffleBufferOverTheRam(spec, machine_ram_bytes))
    out.push_back(std::move(f));
  for (std::string& f : StandInSizeEmptied(spec, measured)) out.push_back(std::move(f));
  for (std::string& f : ShuffleFilledEachEpoch(spec, measured)) out.push_back(std::move(f));
  for (auto* more :
       {&FrozenRandomness, &ShardAfterUnseededShuffle, &GeneratorCopies, &IterableCopies,
        &EpochsMixed, &CodeLeftOut, &StandInCosts, &StandInStorage, &SampleWaste}) {
    for (std::string& f : (*more)(spec)) out.push_back(std::move(f));
  }
  return out;
}

std::vector<std::string> StandInCostOps(const spec::PipelineSpec& spec) {
  std::vector<std::string> out;
  // A Python generator's next() (tf.data's from_generator), whose body the code reads but
  // whose cost it does not show.
  if (spec.source().has_from_generator() && spec.source().from_generator().cost_is_stand_in())
    out.push_back(spec.source().name());
  AddStandInCostOps(spec.ops(), out);
  return out;
}

std::vector<std::string> AdvisorNotTried(const spec::PipelineSpec& spec,
                                         int64_t machine_ram_bytes) {
  std::vector<std::string> out;
  if (const std::string unknown = StandInSize(spec); !unknown.empty() && Repeats(spec)) {
    out.push_back(
        "a cache: it holds a whole epoch in memory, and the data's size is not in "
        "the code (" +
        unknown.substr(0, unknown.find('.')) + " is a stand-in); --set " + unknown +
        "=N (or real files) has it tried");
  }
  // A cache of more than the RAM budget (cache_memory.h).
  if (const std::optional<int> place = CachePlace(spec)) {
    if (auto plan = PlanPipeline(spec, 1); plan.ok()) {
      const CacheHolding held = HeldByACacheBefore(*plan, *place);
      const int64_t ram = RamBudget(spec, machine_ram_bytes);
      if (OverTheRamBudget(held, ram)) {
        const bool machines = spec.budget().ram_bytes() <= 0;
        out.push_back("a cache: an epoch is " + FormatBytes(*held.bytes) + " (" +
                      std::to_string(*held.elements) + " elements), more than the RAM budget of " +
                      FormatBytes(ram) +
                      (machines
                           ? " (half this machine's available memory; --set budget.ram_bytes=SIZE "
                             "for the machine that trains)"
                           : " (budget.ram_bytes)") +
                      "; tf.data's cache(filename) keeps it on disk, which the simulator does "
                      "not model");
      }
    }
  }
  return out;
}

namespace {

void ListAutotuned(const std::vector<PlannedOp>& ops, std::string& list) {
  for (const PlannedOp& op : ops) {
    for (const PlannedKnob& k : op.knobs) {
      if (!k.autotune()) continue;
      list += (list.empty() ? "" : ", ") + op.op->name() + "'s " +
              std::string(k.description->name) + " " + std::to_string(k.start);
    }
    ListAutotuned(op.sub, list);
  }
}

}  // namespace

std::vector<std::string> AutotunedKnobs(const spec::PipelineSpec& spec, int cpu_cores) {
  const auto plan = PlanPipeline(spec, cpu_cores);
  if (!plan.ok()) return {};
  std::string list;
  ListAutotuned(plan->ops, list);
  if (list.empty()) return {};
  return {"AUTOTUNE is simulated at the values tf.data's autotuner starts from on " +
          std::to_string(cpu_cores) + (cpu_cores == 1 ? " core" : " cores") + " (" + list +
          "); tf.data moves them as the pipeline runs (parallelism up to the cores, buffers "
          "within its memory budget)"};
}

}  // namespace pipescope::engine
