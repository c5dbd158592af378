#include "app/session/live_tuning.h"

#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_overrides.h"
#include "engine/tuning/pipescope_tuner.h"
#include "engine/tuning/tfdata_tuner.h"

namespace pipescope::session {
namespace {

std::string Format(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace

engine::Result<std::unique_ptr<LiveTuning>> LiveTuning::Start(LiveRun& run, Options options) {
  if (options.algorithm != "pipescope" && options.algorithm != "tfdata") {
    return engine::InvalidArgument("unknown autotuner '" + options.algorithm +
                                   "' (pipescope or tfdata)");
  }
  std::unique_ptr<LiveTuning> tuning(new LiveTuning(run, std::move(options)));
  tuning->thread_ = std::thread([t = tuning.get()] { t->Loop(); });
  return tuning;
}

LiveTuning::~LiveTuning() {
  Stop();
  if (thread_.joinable()) thread_.join();
}

void LiveTuning::Stop() {
  std::lock_guard lock(mu_);
  stop_ = true;
  wake_.notify_all();
}

LiveTuning::Progress LiveTuning::progress() const {
  std::lock_guard lock(mu_);
  return progress_;
}

void LiveTuning::Log(std::string line) {
  std::lock_guard lock(mu_);
  progress_.log.push_back(std::move(line));
}

bool LiveTuning::Sleep(double seconds) {
  std::unique_lock lock(mu_);
  return !wake_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stop_; });
}

void LiveTuning::Loop() {
  const engine::Measurer measure = [this](const spec::PipelineSpec& candidate) {
    return Measure(candidate);
  };
  // A running pipeline takes its knobs without a rebuild; the search keeps to those.
  engine::TunerOptions tuner = options_.tuner;
  tuner.try_rebuilds = false;
  double period = options_.first_period_s;
  engine::Status outcome;
  while (true) {
    const spec::PipelineSpec current = run_.CurrentSpec();
    if (current.ops_size() == 0) {
      outcome = engine::Status(engine::StatusCode::kCancelled, "the run is over");
      break;
    }
    Log("tuning with " + options_.algorithm + "...");
    auto result = options_.algorithm == "tfdata" ? engine::TuneTfData(current, measure, tuner)
                                                 : engine::TunePipescope(current, measure, tuner);
    if (!result.ok()) {
      outcome = result.status();
      break;
    }
    // The last configuration measured is not always the one kept: set the kept one.
    if (const engine::Status s = Apply(result->tuned); !s.ok()) {
      outcome = s;
      break;
    }
    {
      std::lock_guard lock(mu_);
      progress_.tunings += 1;
      progress_.log.push_back("tuned: " + Format("%.1f", result->steps_per_s_before) + " -> " +
                              Format("%.1f", result->steps_per_s_after) + " steps/s in " +
                              Format("%.1f", result->tuning_s) + " s");
      progress_.last = std::move(result).value();
    }
    if (!options_.periodic) break;
    {
      std::lock_guard lock(mu_);
      progress_.next_tuning_in_s = period;
      progress_.log.push_back("next tuning in " + Format("%.0f", period) + " s");
    }
    if (!Sleep(period)) break;
    period = std::min(period * 2, options_.max_period_s);
  }
  std::lock_guard lock(mu_);
  if (outcome.code() == engine::StatusCode::kCancelled && stop_) outcome = engine::Status::Ok();
  progress_.outcome = outcome;
  progress_.finished = true;
  progress_.next_tuning_in_s = 0;
  if (!outcome.ok()) progress_.log.push_back("stopped: " + outcome.message());
}

engine::Status LiveTuning::Apply(const spec::PipelineSpec& candidate) {
  const spec::PipelineSpec current = run_.CurrentSpec();
  if (current.ops_size() == 0)
    return engine::Status(engine::StatusCode::kCancelled, "the run is over");
  const std::vector<engine::KnobInfo> knobs = run_.Knobs();
  // The candidate with the live knobs' values as they are now: if that is the running
  // spec, knobs make the whole change; otherwise the pipeline is rebuilt.
  spec::PipelineSpec same_knobs = candidate;
  for (const auto& k : knobs) {
    if (const auto now = engine::ReadIntKnob(current, k.op, k.knob)) {
      (void)engine::ApplyOverride(same_knobs, k.op + "." + k.knob + "=" + std::to_string(*now));
    }
  }
  if (!google::protobuf::util::MessageDifferencer::Equals(same_knobs, current)) {
    return run_.Reorder(candidate, "the " + options_.algorithm + " autotuner's configuration");
  }
  for (const auto& k : knobs) {
    const auto wanted = engine::ReadIntKnob(candidate, k.op, k.knob);
    if (!wanted || *wanted == engine::kAutotune || *wanted == k.value) continue;
    RETURN_IF_ERROR(run_.SetKnob(k.op, k.knob, std::clamp(*wanted, k.min, k.max), who_));
  }
  return engine::Status::Ok();
}

engine::Result<engine::TunerMeasurement> LiveTuning::Measure(const spec::PipelineSpec& candidate) {
  RETURN_IF_ERROR(Apply(candidate));
  // The knobs as set, before the tuner moves on: what the trial's point says on hover.
  std::string configuration;
  for (const engine::KnobInfo& k : run_.Knobs()) {
    configuration +=
        (configuration.empty() ? "" : ", ") + k.op + "." + k.knob + "=" + std::to_string(k.value);
  }
  auto model_end = [this] {
    std::lock_guard lock(run_.model_mutex());
    return run_.model()->duration_ns();
  };
  const engine::Status stopped(engine::StatusCode::kCancelled, "stopped");
  if (!Sleep(options_.settle_s)) return stopped;
  const int64_t t0 = model_end();
  if (!Sleep(options_.measure_s)) return stopped;
  if (run_.finished()) return engine::Status(engine::StatusCode::kCancelled, "the run is over");
  trace::RangeAnalysis analysis;
  {
    std::lock_guard lock(run_.model_mutex());
    analysis = trace::Analyze(*run_.model(), t0, run_.model()->duration_ns());
  }
  engine::TunerMeasurement m = engine::MeasurementOf(std::move(analysis));
  m.buffer_bytes = run_.BufferMemoryBytes();
  m.element_bytes = run_.ElementBytes();
  Log("measured " + engine::RateForPeople(m));
  {
    std::lock_guard lock(mu_);
    progress_.trials.push_back(
        {progress_.tunings + 1,
         std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count(),
         std::move(configuration), m.steps_per_s});
  }
  return m;
}

}  // namespace pipescope::session
