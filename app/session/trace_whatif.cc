#include "app/session/trace_whatif.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "engine/core/duration.h"
#include "engine/runtime/dataloader_rules.h"
#include "engine/sim/simulator.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/verdict.h"

namespace pipescope::session {
namespace {

constexpr int64_t kSimulatedSteps = 120;
constexpr int kFitRounds = 4;
constexpr double kFitTolerance = 0.01;
// A multi-process trace whose loop waits less than this share of its steps shows that the
// workers kept up, not what a batch costs them.
constexpr double kKeptUp = 0.05;
// The model at the traced settings is said to miss the trace beyond this share of steps/s.
constexpr double kReproducedWithin = 0.05;
// A setting is advised over the traced one only where it is predicted this much faster:
// predictions from one trace missed measured medians by up to 16% at 4 and 8 workers and 30%
// at 2 (scripts/bench-whatif-h200), and one machine's runs of one setting spread 1.6x.
constexpr double kWorthChanging = 1.05;
// Workers are chosen to keep up even where each takes this much longer than the fitted
// __getitem__: on the H200 job two workers took about 126 ms a batch in two of three runs,
// where the loop had taken 97 ms (measured medians: 2 workers 35% below the prediction, 4
// and 8 within 3%).
constexpr double kWorkerHeadroom = 1.3;

// What a batch from a worker costs a PyTorch job's main process, measured with torch 2.11
// on the lent GPU machine (H200, 16 cores, gVisor) on 2026-12-04 by
// scripts/measure-torch-receive (batches of 32 stored samples from 4 and 8 workers):
// next() takes 1.0-1.3 ms for a 32 KiB batch and 3.1-3.5 ms for an 18.4 MiB one without
// pin_memory, and pin_memory() of a received 18.4 MiB batch 4.5-4.7 ms. The bare
// python3 figures of dataloader_rules.h (45 us and 50 us a MiB) are pickle's, not torch's
// shared-memory hand-over.
constexpr int64_t kTorchReceiveNsPerBatch = 1'100'000;
constexpr int64_t kTorchReceiveNsPerMib = 120'000;
constexpr int64_t kTorchPinNsPerMib = 250'000;
// A training loop copying a pageable batch to the device waits for the copy, where a pinned
// one is copied asynchronously: scripts/measure-loop-contention's ResNet-50 loop took 38.2 ms
// a step with 8 workers and pageable 18.4 MiB batches against 29.0 pinned; less the two
// receipts above (3.3 ms on the loop; 7.9 ms taking turns with it), 13.8 ms of copying.
constexpr int64_t kTorchPageableCopyNsPerMib = 750'000;
// A PyTorch loop's Python drives each op: the loop holds its process's interpreter lock for
// all of its own time in the model (sim::CostModel::step_host_gil_share), so the
// pin-memory thread's receipt of each batch takes turns with it. On the same machine the
// loop's step grew by 4.7-6.4 ms from 24.3 ms (a batch already on the device) with 2 or 8
// workers delivering pinned 18.4 MiB batches, and by 8-10 ms in the profiled traces
// (scripts/record-torch-traces); the receipt so modelled, 7.9 ms, lies between.
constexpr double kTorchLoopGilShare = 1.0;

std::string Text(const char* format, double a, double b = 0, double c = 0) {
  // Measured first: a fixed buffer cut the epoch-start note off mid-sentence.
  const int length = std::snprintf(nullptr, 0, format, a, b, c);
  std::string out(static_cast<size_t>(std::max(length, 0)), '\0');
  std::snprintf(out.data(), out.size() + 1, format, a, b, c);
  return out;
}

std::string PyBool(bool b) { return b ? "True" : "False"; }

// The job's costs, fitted or given.
struct JobCosts {
  double getitem_ns = 0;  // a sample's __getitem__ (collate folded in)
  double getitem_cv = 0;
  double loop_ns = 0;  // the training loop's own time per step
  double loop_cv = 0;
  double loop_cpu_share = 1;  // of it, CPU on the loop's thread; the rest the device's step
  int64_t sample_bytes = 0;
  // A PyTorch job's (an imported trace's): its loop runs Python and its batches are
  // torch's, received at torch's costs; the engine's own runs keep their spec's.
  bool torch_job = false;
  int64_t worker_startup_ns = engine::kDefaultWorkerStartupNs;
  // Samples an epoch, where the job is simulated epoch by epoch (its workers started at each
  // unless persistent); 0: one endless epoch, the steady state.
  int64_t epoch_items = 0;
  double cores = 2;
};

spec::PipelineSpec SpecOf(const LoaderSettings& s, const JobCosts& c) {
  spec::PipelineSpec p;
  p.set_name("the traced job");
  auto* source = p.mutable_source();
  source->set_name("sampler");  // indices, as the DataLoader's sampler gives them
  source->mutable_range()->set_start(0);
  source->mutable_range()->set_stop(c.epoch_items > 0 ? c.epoch_items : int64_t{1} << 40);
  source->mutable_range()->set_step(1);
  auto* op = p.add_ops();
  op->set_name("dataloader");
  auto* d = op->mutable_dataloader();
  d->set_batch_size(s.batch_size);
  d->set_num_workers(s.num_workers);
  if (s.num_workers > 0) d->set_prefetch_factor(s.prefetch_factor);  // as DataLoader requires
  d->set_pin_memory(s.pin_memory);
  d->set_persistent_workers(s.persistent_workers);
  d->mutable_getitem()->mutable_python()->set_duration(std::to_string(std::llround(c.getitem_ns)) +
                                                       "ns");
  d->set_worker_startup(std::to_string(c.worker_startup_ns) + "ns");
  if (c.torch_job) {
    d->set_receive_per_batch(std::to_string(kTorchReceiveNsPerBatch) + "ns");
    const int64_t per_mib = kTorchReceiveNsPerMib + (s.pin_memory ? kTorchPinNsPerMib : 0);
    d->set_receive_per_mb(std::to_string(per_mib) + "ns");
  }
  if (c.epoch_items > 0) {
    auto* epochs = p.add_ops();  // the training loop's `for epoch in ...:`
    epochs->set_name("epochs");
    epochs->mutable_repeat()->set_training_loop(true);
  }
  p.mutable_train_step()->set_step_time("0ns");  // the loop's time is step_host
  p.mutable_train_step()->set_max_in_flight(1);
  return p;
}

// The job at settings `s` for `steps` steps; `keep` (optional) receives its trace.
engine::Result<WhatIfFigures> SimulateJob(const LoaderSettings& s, const JobCosts& c,
                                          double device_busy_ns, uint64_t seed,
                                          int64_t steps = kSimulatedSteps,
                                          std::shared_ptr<trace::Model>* keep = nullptr) {
  const spec::PipelineSpec spec = SpecOf(s, c);
  ASSIGN_OR_RETURN(sim::CostModel model, sim::DefaultCostModel(spec, c.cores));
  model.origin = "what-if";
  model.step = sim::Dist{c.loop_ns * (1 - c.loop_cpu_share), c.loop_cv};
  model.step_host = sim::Dist{c.loop_ns * c.loop_cpu_share, c.loop_cv};
  model.step_host_gil_share = c.torch_job ? kTorchLoopGilShare : 0;
  sim::OpCost& loader = model.ops["dataloader"];
  loader.cpu = sim::Dist{};
  loader.cpu_per_row = sim::Dist{c.getitem_ns, c.getitem_cv};
  loader.out_bytes = std::max<int64_t>(c.sample_bytes, 1);
  auto trace = std::make_shared<trace::Model>();
  trace::RunInfo& info = trace->run_info();
  info.pipeline_name = "what-if: DataLoader(" + LoaderArguments(s) + ")";
  info.device = "simulated";
  info.simulated = true;
  info.cost_model = model.origin;
  info.machine.cpu_cores = info.machine.cpu_budget = static_cast<int>(std::lround(c.cores));
  sim::SimulationOptions options;
  options.duration_s = 0;
  options.max_steps = steps;
  options.seed = seed;
  options.sinks = {trace.get()};
  ASSIGN_OR_RETURN(sim::SimulationResult result, sim::Simulate(spec, model, options));
  trace->Finish();
  const trace::RangeAnalysis a = trace::AnalyzeSteady(*trace);
  if (keep) *keep = trace;
  WhatIfFigures f;
  f.steps_per_s = a.steps_per_s;
  f.samples_per_s = a.steps_per_s * static_cast<double>(s.batch_size);
  f.input_wait_fraction = a.input_wait_fraction;
  f.device_busy_fraction = std::min(1.0, device_busy_ns * a.steps_per_s / 1e9);
  return f;
}

// A setting's name without the "dataloader." before it (accepted as --set spells op knobs).
std::string KnobName(const std::string& name) {
  return name.rfind("dataloader.", 0) == 0 ? name.substr(11) : name;
}

// Whether `knob` is among what the user gave (--given).
bool Given(const WhatIfOptions& options, std::string_view knob) {
  return std::any_of(options.given.begin(), options.given.end(),
                     [&](const auto& g) { return KnobName(g.first) == knob; });
}

// The loop's own time is CPU on its thread and the device's step: its CPU part, and both
// parts set at once.
double LoopCpuNs(const JobCosts& c) { return c.loop_ns * c.loop_cpu_share; }
void SetLoop(JobCosts& c, double cpu_ns, double device_ns) {
  c.loop_ns = cpu_ns + device_ns;
  c.loop_cpu_share = c.loop_ns > 0 ? std::min(1.0, cpu_ns / c.loop_ns) : 0;
}

double CvOf(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0, sq = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  for (double x : v) sq += (x - mean) * (x - mean);
  return mean > 0 ? std::sqrt(sq / static_cast<double>(v.size() - 1)) / mean : 0;
}

engine::Status SetGiven(const std::string& name, const std::string& value, LoaderSettings& traced,
                        JobCosts& costs, bool& getitem_given) {
  const std::string key = KnobName(name);
  if (key == "getitem" || key == "worker_startup") {
    ASSIGN_OR_RETURN(int64_t ns, engine::ParseDurationNs(value));
    if (ns <= 0) return engine::InvalidArgument("--given " + name + ": must be positive");
    if (key == "getitem") {
      costs.getitem_ns = static_cast<double>(ns);
      getitem_given = true;
    } else {
      costs.worker_startup_ns = ns;
    }
    return engine::Status::Ok();
  }
  engine::Status set = SetLoaderKnob(traced, key, value);
  if (!set.ok() && set.message().starts_with("unknown setting")) {
    // SetLoaderKnob's list is --set's: --given also takes the two costs above.
    return engine::InvalidArgument(
        "unknown --given '" + name +
        "': what-if is given what a trace cannot show: the DataLoader's settings (num_workers, "
        "batch_size, prefetch_factor, pin_memory, persistent_workers), getitem (a sample's "
        "__getitem__ time) and worker_startup");
  }
  return set;
}

// The spikes of a multi-process loader: the steady figures leave them out, and
// persistent_workers is what removes them.
std::string EpochStartNote(const trace::LoaderJob& job, bool workers) {
  if (!workers) return "";
  int64_t spikes = 0;
  double extra_ns = 0;
  for (const auto& s : job.steps) {
    if (!s.spike) continue;
    ++spikes;
    extra_ns += static_cast<double>(s.input_wait_ns) - job.input_wait_ns;
  }
  if (spikes == 0) return "";
  return Text(
      " %.0f of the steps waited %.0f ms more than the others for their batch, as an "
      "epoch's first steps do while its workers start: persistent_workers=True starts "
      "them once, for the first epoch only.",
      static_cast<double>(spikes), extra_ns / static_cast<double>(spikes) / 1e6);
}

// An epoch's length in steps where the trace shows two epoch starts or more (the median
// distance between its spikes); 0 otherwise.
int64_t EpochStepsOf(const trace::LoaderJob& job) {
  std::vector<int64_t> gaps;
  int64_t last = -1;
  for (size_t i = 0; i < job.steps.size(); ++i) {
    if (!job.steps[i].spike) continue;
    if (last >= 0) gaps.push_back(static_cast<int64_t>(i) - last);
    last = static_cast<int64_t>(i);
  }
  if (gaps.empty()) return 0;
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  return gaps[gaps.size() / 2];
}

// A recording's settings and costs from its spec's DataLoader.
engine::Status SettingsOfRecording(const trace::LoaderJob& job, LoaderSettings& s, JobCosts& c) {
  ASSIGN_OR_RETURN(spec::PipelineSpec spec, engine::ParseSpecText(job.spec_text, "the run's spec"));
  for (const auto& op : spec.ops()) {
    if (!op.has_dataloader()) continue;
    const spec::DataLoaderOp& d = op.dataloader();
    s.num_workers = d.num_workers();
    s.batch_size = std::max<int64_t>(d.batch_size(), 1);
    s.prefetch_factor = d.has_prefetch_factor() ? d.prefetch_factor() : s.prefetch_factor;
    s.pin_memory = d.pin_memory();
    s.persistent_workers = d.persistent_workers();
    if (!d.worker_startup().empty()) {
      ASSIGN_OR_RETURN(c.worker_startup_ns, engine::ParseDurationNs(d.worker_startup()));
    }
    // What a batch's row weighs, as the simulator's defaults make it.
    ASSIGN_OR_RETURN(sim::CostModel model, sim::DefaultCostModel(spec, 1));
    c.sample_bytes = model.Of(op.name()).out_bytes;
    return engine::Status::Ok();
  }
  return engine::InvalidArgument(
      "the recorded run's spec has no DataLoader: what-if changes a DataLoader's settings");
}

}  // namespace

engine::Status SetLoaderKnob(LoaderSettings& s, const std::string& name, const std::string& value) {
  const std::string key = KnobName(name);
  auto integer = [&](int64_t& field, int64_t low) -> engine::Status {
    char* end = nullptr;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || v < low || v > 1'000'000)
      return engine::InvalidArgument(key + "=" + value + ": expected a whole number, at least " +
                                     std::to_string(low));
    field = v;
    return engine::Status::Ok();
  };
  auto boolean = [&](bool& field) -> engine::Status {
    if (value == "True" || value == "true" || value == "1") {
      field = true;
    } else if (value == "False" || value == "false" || value == "0") {
      field = false;
    } else {
      return engine::InvalidArgument(key + "=" + value + ": expected True or False");
    }
    return engine::Status::Ok();
  };
  if (key == "num_workers") return integer(s.num_workers, 0);
  if (key == "prefetch_factor") return integer(s.prefetch_factor, 1);
  if (key == "batch_size") return integer(s.batch_size, 1);
  if (key == "pin_memory") return boolean(s.pin_memory);
  if (key == "persistent_workers") return boolean(s.persistent_workers);
  return engine::InvalidArgument(
      "unknown setting '" + name +
      "': what-if changes the DataLoader's num_workers, prefetch_factor, batch_size, "
      "pin_memory and persistent_workers");
}

std::string LoaderArguments(const LoaderSettings& s) {
  std::string out = "batch_size=" + std::to_string(s.batch_size) +
                    ", num_workers=" + std::to_string(s.num_workers);
  if (s.num_workers > 0) {
    out += ", prefetch_factor=" + std::to_string(s.prefetch_factor) +
           ", persistent_workers=" + PyBool(s.persistent_workers);
  }
  return out + ", pin_memory=" + PyBool(s.pin_memory);
}

std::string LoaderChanges(const LoaderSettings& a, const LoaderSettings& b) {
  std::string out;
  auto add = [&](const std::string& name, const std::string& x, const std::string& y) {
    if (x == y) return;
    out += (out.empty() ? "" : ", ") + name + " " + x + " → " + y;
  };
  add("batch_size", std::to_string(a.batch_size), std::to_string(b.batch_size));
  add("num_workers", std::to_string(a.num_workers), std::to_string(b.num_workers));
  add("prefetch_factor", std::to_string(a.prefetch_factor), std::to_string(b.prefetch_factor));
  add("persistent_workers", PyBool(a.persistent_workers), PyBool(b.persistent_workers));
  add("pin_memory", PyBool(a.pin_memory), PyBool(b.pin_memory));
  return out.empty() ? "no change" : out;
}

namespace {

// The job's model fitted to its trace, once, for any number of predictions: `base` holds
// the traced settings, the measured and reproduced figures and the assumptions.
struct FittedJob {
  WhatIfPrediction base;
  JobCosts costs;
  double device_busy_ns = 0;
  int64_t steps = 0;  // the trace's, for the predicted timeline
  uint64_t seed = 1;
  bool batch_known = false;
  // __getitem__'s cost was fitted to the training loop's own fetching (num_workers 0), which
  // a worker may not match (kWorkerHeadroom).
  bool getitem_from_loop = false;
};

engine::Result<FittedJob> FitJob(const trace::LoaderJob& job, const WhatIfOptions& options) {
  FittedJob fitted;
  WhatIfPrediction& p = fitted.base;
  JobCosts& costs = fitted.costs;
  const trace::TracedLoader& loader = job.loader;
  auto& notes = p.assumptions;

  // The traced settings.
  p.traced.num_workers = loader.multiprocess ? -1 : 0;
  p.traced.batch_size = loader.batch_size > 0 ? loader.batch_size : 1;
  p.traced.pin_memory = loader.pin_memory.value_or(false);
  costs.loop_cpu_share = job.loop_cpu_share;
  costs.torch_job = !job.recorded_here;
  bool batch_from_spec = false;
  if (job.recorded_here) {
    RETURN_IF_ERROR(SettingsOfRecording(job, p.traced, costs));
    batch_from_spec = true;
  }
  bool getitem_given = false;
  const LoaderSettings shown = p.traced;
  for (const auto& [name, value] : options.given)
    RETURN_IF_ERROR(SetGiven(name, value, p.traced, costs, getitem_given));
  // --given is for what the trace does not show: a value it contradicts is refused.
  if (!job.recorded_here) {
    const bool workers_shown = !loader.multiprocess;  // a single-process iterator: 0
    if (workers_shown && p.traced.num_workers != 0) {
      return engine::InvalidArgument(
          "the trace's DataLoader fetches in the training loop "
          "(_SingleProcessDataLoaderIter): its num_workers is 0, not " +
          std::to_string(p.traced.num_workers) +
          " (--given is for what the trace does not show; --set changes a setting)");
    }
    if (loader.multiprocess && p.traced.num_workers == 0) {
      return engine::InvalidArgument(
          "the trace's DataLoader runs worker processes (_MultiProcessingDataLoaderIter): its "
          "num_workers is 1 or more");
    }
    if (loader.batch_size > 0 && p.traced.batch_size != shown.batch_size) {
      return engine::InvalidArgument(
          "the trace shows batch_size " + std::to_string(shown.batch_size) + " (from " +
          loader.batch_size_from + "), not " + std::to_string(p.traced.batch_size) +
          " (--given is for what the trace does not show; --set changes a setting)");
    }
    if (loader.pin_memory && p.traced.pin_memory != *loader.pin_memory) {
      return engine::InvalidArgument("the trace shows pin_memory " + PyBool(*loader.pin_memory) +
                                     " (from " + loader.pin_memory_from +
                                     "); --set changes a setting");
    }
  }
  if (p.traced.num_workers < 0) {
    return engine::InvalidArgument(
        "the trace's DataLoader runs worker processes (_MultiProcessingDataLoaderIter), and a "
        "profiler trace does not show how many: give it with --given num_workers=N");
  }
  fitted.batch_known = batch_from_spec || loader.batch_size > 0 || Given(options, "batch_size");

  const bool batch_known = fitted.batch_known;
  p.changed = p.traced;

  // The measured figures: the trace's steady steps.
  const double step = job.step_ns;
  p.measured.steps_per_s = step > 0 ? 1e9 / step : 0;
  p.measured.samples_per_s = p.measured.steps_per_s * static_cast<double>(p.traced.batch_size);
  p.measured.input_wait_fraction = step > 0 ? job.input_wait_ns / step : 0;
  p.measured.device_busy_fraction = step > 0 ? std::min(1.0, job.device_busy_ns / step) : 0;

  // Costs: the cores, the batch's bytes, and first guesses of the two times, then fitted.
  const unsigned here = std::max(1u, std::thread::hardware_concurrency());
  costs.cores = options.cores > 0 ? options.cores : static_cast<double>(here);
  const double b = static_cast<double>(p.traced.batch_size);
  if (!job.recorded_here)
    costs.sample_bytes = loader.batch_bytes > 0 ? loader.batch_bytes / p.traced.batch_size : 0;
  std::vector<double> waits, loops;
  for (const auto& s : job.steps) {
    if (s.spike) continue;
    waits.push_back(static_cast<double>(s.input_wait_ns));
    loops.push_back(static_cast<double>(s.duration_ns - s.input_wait_ns));
  }
  costs.loop_ns = job.loop_ns();
  costs.loop_cv = CvOf(loops);
  const bool workers_waited = p.measured.input_wait_fraction >= kKeptUp;
  if (!getitem_given) {
    if (p.traced.num_workers > 0 && !workers_waited) {
      return engine::InvalidArgument(
          "the trace's workers kept up (the loop waits " +
          trace::FormatPercent(p.measured.input_wait_fraction) +
          " of its steps), so it does not show what a batch costs them: give a sample's "
          "__getitem__ time with --given getitem=DURATION (e.g. 2ms)");
    }
    // The loop waits for each batch: in the loop itself (num_workers 0), or, with W workers
    // the limit, each batch took a worker W steps.
    const double batch_ns = p.traced.num_workers == 0
                                ? job.input_wait_ns
                                : static_cast<double>(p.traced.num_workers) * step;
    costs.getitem_ns = batch_ns / b;
    costs.getitem_cv = CvOf(waits);
  }

  // Fit: the model at the traced settings reproduces the loop's wait and its own time.
  for (int round = 0; round < kFitRounds; ++round) {
    ASSIGN_OR_RETURN(p.reproduced, SimulateJob(p.traced, costs, job.device_busy_ns, options.seed));
    if (p.reproduced.steps_per_s <= 0) break;
    const double rep_step = 1e9 / p.reproduced.steps_per_s;
    const double rep_wait = p.reproduced.input_wait_fraction * rep_step;
    const double rep_loop = rep_step - rep_wait;
    const bool wait_fits = getitem_given || job.input_wait_ns <= 0 ||
                           std::abs(rep_wait - job.input_wait_ns) <= kFitTolerance * step;
    const bool loop_fits = std::abs(rep_loop - job.loop_ns()) <= kFitTolerance * step;
    if (wait_fits && loop_fits) break;
    if (!getitem_given && rep_wait > 0 && job.input_wait_ns > 0)
      costs.getitem_ns *= job.input_wait_ns / rep_wait;
    if (rep_loop > 0) costs.loop_ns *= job.loop_ns() / rep_loop;
  }
  p.getitem_ns = costs.getitem_ns;
  p.loop_ns = costs.loop_ns;
  fitted.getitem_from_loop = !getitem_given && p.traced.num_workers == 0;
  fitted.device_busy_ns = job.device_busy_ns;
  fitted.steps = static_cast<int64_t>(job.steps.size());
  fitted.seed = options.seed;

  // What the prediction rests on, in the order a reader checks it: first whether the model
  // reproduces the trace at all (in-order workers of uneven speed, say, it does not).
  if (p.measured.steps_per_s > 0 && p.reproduced.steps_per_s > 0) {
    const double off = p.reproduced.steps_per_s / p.measured.steps_per_s - 1;
    if (std::abs(off) > kReproducedWithin) {
      notes.push_back(
          Text("the model at the traced settings gives %.2f steps/s where the trace "
               "measured %.2f (%+.0f%%): the predictions carry at least that error",
               p.reproduced.steps_per_s, p.measured.steps_per_s, 100 * off));
    }
  }
  notes.push_back(Text("steady steps: %.0f of %.0f (spikes, such as an epoch's start, left out)",
                       static_cast<double>(job.steady_steps),
                       static_cast<double>(job.steps.size())));
  if (job.recorded_here) {
    notes.push_back("DataLoader(" + LoaderArguments(p.traced) +
                    "), from the recorded run's spec; the loop's own time is the device's step");
  } else {
    notes.push_back(
        p.traced.num_workers == 0
            ? std::string("num_workers 0: the training loop fetches and collates each batch "
                          "itself (_SingleProcessDataLoaderIter)")
            : "num_workers " + std::to_string(p.traced.num_workers) + ", as given");
    notes.push_back(loader.batch_size > 0
                        ? "batch_size " + std::to_string(loader.batch_size) + ", from " +
                              loader.batch_size_from
                        : "batch_size " + std::to_string(p.traced.batch_size) +
                              (batch_known ? ", as given"
                                           : ": not in the trace (record_shapes=True shows it); "
                                             "a batch is modelled as one sample"));
    notes.push_back(loader.pin_memory ? "pin_memory " + PyBool(*loader.pin_memory) + ", from " +
                                            loader.pin_memory_from
                                      : std::string("pin_memory: not in the trace; False assumed"));
    if (p.traced.num_workers > 0) {
      notes.push_back(
          "prefetch_factor " + std::to_string(p.traced.prefetch_factor) +
          (Given(options, "prefetch_factor") ? ", as given"
                                             : ": not in the trace; DataLoader's default") +
          ", persistent_workers " + PyBool(p.traced.persistent_workers) +
          (Given(options, "persistent_workers") ? ", as given"
                                                : ": not in the trace; DataLoader's default "
                                                  "(--given persistent_workers=True where it is)"));
    }
  }
  notes.push_back(
      Text(getitem_given ? "__getitem__: %.2f ms a sample, as given (collate included)"
                         : "__getitem__ and collate: %.2f ms a sample (%.1f ms a batch), fitted to "
                           "the loop's wait in __next__",
           costs.getitem_ns / 1e6, costs.getitem_ns * b / 1e6) +
      "; Python holding its process's interpreter lock, the same in a worker as in the loop");
  notes.push_back(
      Text("the training loop's own work: %.1f ms a step (the device busy %.1f ms of "
           "it), %.0f%% of it CPU on the loop's thread, the same at every setting",
           costs.loop_ns / 1e6, job.device_busy_ns / 1e6, 100 * costs.loop_cpu_share));
  notes.push_back(
      Text("cores: %.0f", costs.cores) +
      (options.cores > 0 ? std::string(", as given")
                         : std::string(" (this machine's: the trace does not say how many the "
                                       "traced process had; give --cores)")) +
      "; workers and the loop share them, and beyond them contend (no other contention: memory "
      "bandwidth, other processes of the job)");
  notes.push_back(
      Text("a worker's start-up: %.0f ms", static_cast<double>(costs.worker_startup_ns) / 1e6) +
      (Given(options, "worker_startup")
           ? std::string(", as given")
           : std::string(" (a bare python3 with multiprocessing, measured here; torch's "
                         "import adds to it: give --given worker_startup=...)")) +
      ", paid at each epoch's start unless persistent_workers, which the steady figures leave "
      "out");
  if (costs.torch_job && costs.sample_bytes == 0) {
    notes.push_back(
        Text("a batch crosses from a worker: %.1f ms to receive (torch 2.11 measured on an H200 "
             "machine by scripts/measure-torch-receive), and more a MiB, but the trace shows no "
             "copy of it to the device to tell its size",
             kTorchReceiveNsPerBatch / 1e6) +
        "; the loop receives it itself, or the pin-memory thread does, taking turns with the "
        "loop's Python for the interpreter lock, which the loop holds for all of its own time");
  } else if (costs.torch_job) {
    const double mib = static_cast<double>(costs.sample_bytes) * b / (1 << 20);
    notes.push_back(
        Text("a batch of %.1f MiB crosses from a worker: %.1f ms to receive, %.1f ms more to "
             "pin (torch 2.11 measured on an H200 machine by scripts/measure-torch-receive)",
             mib, (kTorchReceiveNsPerBatch + mib * kTorchReceiveNsPerMib) / 1e6,
             mib * kTorchPinNsPerMib / 1e6) +
        "; the loop receives it itself, or the pin-memory thread does, taking turns with the "
        "loop's Python for the interpreter lock, which the loop holds for all of its own time");
    notes.push_back(
        Text("a pageable batch's copy to the device holds the loop %.1f ms, a pinned one's runs "
             "beside it when copied with non_blocking=True (measured there by "
             "scripts/measure-loop-contention)",
             mib * kTorchPageableCopyNsPerMib / 1e6));
  } else if (costs.sample_bytes > 0) {
    notes.push_back(
        Text("a batch of %.1f MB crosses from a worker, unpickled at %.0f us a MB "
             "(measured here) by the loop, or by the pin-memory thread",
             static_cast<double>(costs.sample_bytes) * b / 1e6,
             static_cast<double>(engine::kDefaultReceiveNsPerMib) / 1e3));
  }
  notes.push_back(
      "the device's work stays the same per sample (at another batch_size the step's device "
      "part scales with the batch: a GPU often does better on larger ones)");
  return fitted;
}

// The fitted job at settings `changed`; `timeline`: with the predicted trace for a timeline.
engine::Result<WhatIfPrediction> PredictFitted(const FittedJob& fitted,
                                               const LoaderSettings& changed, bool timeline) {
  WhatIfPrediction p = fitted.base;
  p.changed = changed;
  // Another batch size: the device's work per sample stays, so the step's device part
  // scales with the batch and lengthens (or shortens) the loop by as much; the loop's CPU
  // (launching the same kernels) stays per step.
  JobCosts costs = fitted.costs;
  double device_busy_ns = fitted.device_busy_ns;
  if (changed.batch_size != p.traced.batch_size && p.traced.batch_size > 0) {
    const double scale =
        static_cast<double>(changed.batch_size) / static_cast<double>(p.traced.batch_size);
    const double cpu_ns = LoopCpuNs(costs);
    SetLoop(costs, cpu_ns, std::max(0.0, costs.loop_ns - cpu_ns + device_busy_ns * (scale - 1)));
    device_busy_ns *= scale;
  }
  // pin_memory changed: a pageable batch's copy holds the loop, a pinned one's does not.
  if (costs.torch_job && changed.pin_memory != p.traced.pin_memory) {
    const double copy_ns = static_cast<double>(costs.sample_bytes) *
                           static_cast<double>(changed.batch_size) / (1 << 20) *
                           static_cast<double>(kTorchPageableCopyNsPerMib);
    const double cpu_ns = LoopCpuNs(costs);
    SetLoop(costs, changed.pin_memory ? std::max(0.0, cpu_ns - copy_ns) : cpu_ns + copy_ns,
            costs.loop_ns - cpu_ns);
  }
  ASSIGN_OR_RETURN(p.predicted, SimulateJob(changed, costs, device_busy_ns, fitted.seed));
  if (timeline) {
    RETURN_IF_ERROR(SimulateJob(changed, costs, device_busy_ns, fitted.seed, fitted.steps + 1,
                                &p.predicted_trace)
                        .status());
  }
  return p;
}

// The steps/s of whole epochs, start-ups included: the trace's, and the model's at other
// settings.
struct EpochRates {
  int64_t epoch_steps = 0;
  double measured = 0;   // all the traced steps, spikes included
  double predicted = 0;  // at the settings asked for
  int64_t worker_startup_ns = 0;
};

// Where the trace's workers start again at each epoch (not persistent, spikes an epoch
// apart): the job simulated epoch by epoch (the DataLoader over one epoch's indices, the
// loop's epochs after it), a worker's start-up fitted so that at the traced settings its
// epochs run at the rate of all the traced steps, then at `to`. nullopt where the trace
// shows no such epochs.
engine::Result<std::optional<EpochRates>> RatesOverEpochs(const trace::LoaderJob& job,
                                                          const FittedJob& fitted,
                                                          const LoaderSettings& to) {
  const LoaderSettings& traced = fitted.base.traced;
  EpochRates r;
  r.epoch_steps = EpochStepsOf(job);
  // Steps of another batch size do not compare over the trace's epochs: left to samples/s.
  if (traced.num_workers == 0 || traced.persistent_workers || r.epoch_steps < 2 ||
      to.num_workers == 0 || to.batch_size != traced.batch_size) {
    return std::optional<EpochRates>();
  }
  double traced_ns = 0;
  for (const auto& st : job.steps) traced_ns += static_cast<double>(st.duration_ns);
  r.measured = static_cast<double>(job.steps.size()) * 1e9 / traced_ns;
  JobCosts costs = fitted.costs;
  costs.epoch_items = r.epoch_steps * traced.batch_size;
  const int64_t steps = r.epoch_steps * 24;
  for (int round = 0; round < kFitRounds; ++round) {
    ASSIGN_OR_RETURN(const WhatIfFigures as_traced,
                     SimulateJob(traced, costs, fitted.device_busy_ns, fitted.seed, steps));
    if (as_traced.steps_per_s <= 0) return std::optional<EpochRates>();
    if (std::abs(as_traced.steps_per_s / r.measured - 1) <= kFitTolerance) break;
    // Each epoch's start costs the difference, one start-up for the epoch's steps.
    const double per_epoch_ns =
        (1e9 / r.measured - 1e9 / as_traced.steps_per_s) * static_cast<double>(r.epoch_steps);
    costs.worker_startup_ns =
        std::max<int64_t>(0, costs.worker_startup_ns + std::llround(per_epoch_ns));
  }
  ASSIGN_OR_RETURN(const WhatIfFigures at,
                   SimulateJob(to, costs, fitted.device_busy_ns, fitted.seed, steps));
  r.predicted = at.steps_per_s;
  r.worker_startup_ns = costs.worker_startup_ns;
  return std::optional<EpochRates>(r);
}

std::string OverEpochs(const EpochRates& r) {
  return Text(
             "over epochs of %.0f steps (the trace's epoch starts are that far apart), all steps "
             "counted: %.2f → %.2f steps/s predicted",
             static_cast<double>(r.epoch_steps), r.measured, r.predicted) +
         Text(" (%+.0f%%; a worker's start-up of %.0f ms, fitted to the trace's epoch starts)",
              100 * (r.predicted / r.measured - 1), static_cast<double>(r.worker_startup_ns) / 1e6);
}

void SetOverEpochs(WhatIfPrediction& p, const EpochRates& r) {
  p.over_epochs = OverEpochs(r);
  p.epochs_measured_steps_per_s = r.measured;
  p.epochs_predicted_steps_per_s = r.predicted;
}

// persistent_workers where the search's settings keep the traced workers and the trace's
// start at each epoch: set in `best`, with the rates over epochs, where it gains beyond the
// model's spread over whole epochs; nullopt otherwise.
engine::Result<std::optional<EpochRates>> PersistentWorkersGain(const trace::LoaderJob& job,
                                                                const FittedJob& fitted,
                                                                WhatIfPrediction& best) {
  if (best.changed.num_workers != fitted.base.traced.num_workers) {
    return std::optional<EpochRates>();
  }
  LoaderSettings kept = best.changed;
  kept.persistent_workers = true;
  ASSIGN_OR_RETURN(const auto rates, RatesOverEpochs(job, fitted, kept));
  if (!rates || rates->predicted < kWorthChanging * rates->measured) {
    return std::optional<EpochRates>();
  }
  best.changed.persistent_workers = true;
  return rates;
}

}  // namespace

engine::Result<WhatIfPrediction> PredictWhatIf(const trace::LoaderJob& job,
                                               const WhatIfOptions& options) {
  ASSIGN_OR_RETURN(const FittedJob fitted, FitJob(job, options));
  LoaderSettings changed = fitted.base.traced;
  bool prefetch_factor_set = false;
  for (const auto& [name, value] : options.sets) {
    RETURN_IF_ERROR(SetLoaderKnob(changed, name, value));
    prefetch_factor_set |= KnobName(name) == "prefetch_factor";
    if (!fitted.batch_known && KnobName(name) == "batch_size") {
      return engine::InvalidArgument(
          "the trace does not show the batch size (no tensor copied to the device with its "
          "shape recorded: profile with record_shapes=True), so a change of it cannot be "
          "scaled: give the traced one with --given batch_size=N");
    }
  }
  // As DataLoader's constructor refuses them (torch/utils/data/dataloader.py).
  if (changed.num_workers == 0 && prefetch_factor_set) {
    return engine::InvalidArgument(
        "prefetch_factor is a worker setting: DataLoader refuses it with num_workers=0 "
        "(set num_workers too)");
  }
  if (changed.num_workers == 0 && changed.persistent_workers) {
    return engine::InvalidArgument(
        "persistent_workers needs workers: DataLoader refuses it with num_workers=0 (set "
        "num_workers too)");
  }
  ASSIGN_OR_RETURN(WhatIfPrediction p, PredictFitted(fitted, changed, true));
  // persistent_workers changes only the epochs' starts, which the steady figures leave out.
  if (changed.persistent_workers != fitted.base.traced.persistent_workers) {
    ASSIGN_OR_RETURN(const auto rates, RatesOverEpochs(job, fitted, changed));
    if (rates) SetOverEpochs(p, *rates);
  }
  return p;
}

std::string PredictionSentence(const WhatIfPrediction& p) {
  if (!p.over_epochs.empty())
    return LoaderChanges(p.traced, p.changed) + ": " + p.over_epochs + ".";
  const double gain =
      p.measured.steps_per_s > 0 ? p.predicted.steps_per_s / p.measured.steps_per_s - 1 : 0;
  if (p.changed.batch_size != p.traced.batch_size) {
    // Steps of another size do not compare: samples do.
    const double samples_gain =
        p.measured.samples_per_s > 0 ? p.predicted.samples_per_s / p.measured.samples_per_s - 1 : 0;
    return LoaderChanges(p.traced, p.changed) +
           Text(": %.1f → %.1f samples/s predicted (%+.0f%%;", p.measured.samples_per_s,
                p.predicted.samples_per_s, 100 * samples_gain) +
           Text(" %.2f → %.2f steps/s).", p.measured.steps_per_s, p.predicted.steps_per_s);
  }
  return LoaderChanges(p.traced, p.changed) + Text(": %.2f → %.2f steps/s predicted (%+.0f%%).",
                                                   p.measured.steps_per_s, p.predicted.steps_per_s,
                                                   100 * gain);
}

engine::Result<WhatIfSearch> SearchWhatIf(const trace::LoaderJob& job,
                                          const WhatIfOptions& options) {
  WhatIfSearch search;
  ASSIGN_OR_RETURN(const FittedJob fitted, FitJob(job, options));
  const LoaderSettings traced = fitted.base.traced;
  // Candidates without their timelines; the best gets its own at the end.
  auto predict = [&](const LoaderSettings& s) -> engine::Result<WhatIfPrediction> {
    ASSIGN_OR_RETURN(WhatIfPrediction p, PredictFitted(fitted, s, false));
    search.tried.emplace_back(s, p.predicted);
    return p;
  };
  ASSIGN_OR_RETURN(const WhatIfPrediction as_traced, predict(traced));
  search.best = as_traced;
  // num_workers: the traced count where it is within the model's spread of the best (fewer
  // workers for a gain the model cannot promise is a risk: the H200 job's measured runs at
  // 2 workers were 35% below its prediction); else the fewest within 2% of the best, up to
  // twice the cores.
  const double cores = fitted.costs.cores;
  std::vector<WhatIfPrediction> by_workers;
  double best_rate = 0;
  for (int64_t w : {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32}) {
    if (w > 2 * cores && w > 4) break;
    LoaderSettings s = traced;
    s.num_workers = w;
    ASSIGN_OR_RETURN(WhatIfPrediction p, predict(s));
    best_rate = std::max(best_rate, p.predicted.steps_per_s);
    by_workers.push_back(std::move(p));
  }
  if (as_traced.predicted.steps_per_s * kWorthChanging < best_rate) {
    // The fewest that reach the best while each takes kWorkerHeadroom times a __getitem__
    // fitted to the loop's own fetching; where none does, the fewest that reach it as fitted.
    FittedJob slower = fitted;
    if (fitted.getitem_from_loop) slower.costs.getitem_ns *= kWorkerHeadroom;
    std::optional<size_t> chosen;
    for (size_t i = 0; i < by_workers.size() && !chosen; ++i) {
      if (by_workers[i].predicted.steps_per_s < 0.98 * best_rate) continue;
      ASSIGN_OR_RETURN(const WhatIfPrediction slowed,
                       PredictFitted(slower, by_workers[i].changed, false));
      if (slowed.predicted.steps_per_s >= 0.98 * best_rate) chosen = i;
    }
    for (size_t i = 0; i < by_workers.size() && !chosen; ++i) {
      if (by_workers[i].predicted.steps_per_s >= 0.98 * best_rate) chosen = i;
    }
    if (chosen) search.best = std::move(by_workers[*chosen]);
  }
  // Then pin_memory and a deeper prefetch, each kept where it gains 1%.
  if (search.best.changed.num_workers > 0) {
    for (int change = 0; change < 2; ++change) {
      LoaderSettings s = search.best.changed;
      if (change == 0) s.pin_memory = true;
      if (change == 1) s.prefetch_factor = std::max<int64_t>(4, s.prefetch_factor * 2);
      if (s == search.best.changed) continue;
      ASSIGN_OR_RETURN(WhatIfPrediction p, predict(s));
      if (p.predicted.steps_per_s >= 1.01 * search.best.predicted.steps_per_s)
        search.best = std::move(p);
    }
  }
  // A change is advised only where it gains beyond the model's spread.
  if (search.best.predicted.steps_per_s < kWorthChanging * as_traced.predicted.steps_per_s) {
    search.best = as_traced;
  }
  // Workers started again at each epoch's start (the trace's spikes, an epoch apart):
  // persistent_workers, over whole epochs, start-ups included.
  ASSIGN_OR_RETURN(const auto epochs, PersistentWorkersGain(job, fitted, search.best));
  ASSIGN_OR_RETURN(search.best, PredictFitted(fitted, search.best.changed, true));
  std::string persistent;
  if (epochs) {
    SetOverEpochs(search.best, *epochs);
    persistent = "persistent_workers False → True: " + search.best.over_epochs +
                 ": the workers start once, not at each epoch";
  }
  const WhatIfPrediction& best = search.best;
  const int64_t workers = best.changed.num_workers;
  if (best.predicted.device_busy_fraction >= 0.9) {
    search.limit = "the device is the limit (busy " +
                   trace::FormatPercent(best.predicted.device_busy_fraction) + " of each step)";
  } else if (best.predicted.input_wait_fraction < 0.02) {
    search.limit = Text(
        "the training loop's own work is the limit (%.1f ms a step, the device "
        "busy %.0f%% of it)",
        best.loop_ns / 1e6, 100 * best.predicted.device_busy_fraction);
  } else {
    search.limit = "the loop still waits " +
                   trace::FormatPercent(best.predicted.input_wait_fraction) +
                   " of each step: the cores are the limit; make __getitem__ and collate cheaper";
  }
  const std::string beyond =
      workers > 0 ? "beyond num_workers=" + std::to_string(workers) + " " : "";
  LoaderSettings steady = best.changed;
  steady.persistent_workers = traced.persistent_workers;
  if (steady == traced && !persistent.empty()) {
    search.sentence = persistent + ".";
  } else if (best.changed == traced) {
    search.sentence =
        "Keep DataLoader(" + LoaderArguments(traced) +
        Text("): no setting is predicted faster than %.2f steps/s; ", best.predicted.steps_per_s) +
        search.limit + ".";
  } else {
    search.sentence = LoaderChanges(traced, best.changed) +
                      Text(": %.2f → %.2f steps/s predicted (%+.0f%%); ", best.measured.steps_per_s,
                           best.predicted.steps_per_s,
                           100 * (best.predicted.steps_per_s / best.measured.steps_per_s - 1)) +
                      beyond + search.limit + ".";
  }
  if (!persistent.empty() && !(steady == traced)) search.sentence += " " + persistent + ".";
  if (persistent.empty()) search.sentence += EpochStartNote(job, traced.num_workers > 0);
  return search;
}

engine::Result<WhatIfSearch> SearchWhatIfOnTrace(const trace::Model& model, double cores) {
  ASSIGN_OR_RETURN(const trace::LoaderJob job, trace::ReadLoaderJob(model));
  WhatIfOptions options;
  options.cores = cores;
  return SearchWhatIf(job, options);
}

}  // namespace pipescope::session
