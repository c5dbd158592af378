#pragma once
// An autotuner (pipescope or tfdata) tuning a pipeline while it runs, on its own thread:
// each configuration the tuner wants measured is set on the running pipeline (knob changes
// recorded as "autotuner:<algorithm>", so the timeline marks them; a change no knob can make
// rebuilds the pipeline), left to settle, and measured from the live trace. At the end the
// best configuration is applied. With `periodic`, it tunes again after a period that
// doubles each time (tf.data re-optimises on a growing period too), until stopped.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/session/live_run.h"
#include "engine/tuning/tuner.h"

namespace pipescope::session {

class LiveTuning {
 public:
  struct Options {
    std::string algorithm = "pipescope";  // or "tfdata"
    double settle_s = 0.5;                // after a change, before measuring
    double measure_s = 1.5;               // the window each configuration is measured over
    bool periodic = false;
    double first_period_s = 10;  // between the first and the second tuning; doubles
    double max_period_s = 160;
    engine::TunerOptions tuner;
  };

  // One configuration the tuner had measured on the running pipeline.
  struct Trial {
    int tuning = 0;             // which tuning it belongs to (periodic tuning has several)
    double at_s = 0;            // when its measurement ended, from the tuning's start
    std::string configuration;  // its knobs as set: "decode.num_parallel_calls=2, ..."
    double steps_per_s = 0;
  };

  struct Progress {
    bool finished = false;                    // stopped, failed, or done and not periodic
    int tunings = 0;                          // completed tunings
    std::vector<std::string> log;             // one line per measurement and result
    std::vector<Trial> trials;                // each measurement, in order
    std::optional<engine::TunerResult> last;  // the latest completed tuning
    engine::Status outcome;                   // why it ended, when it ended on an error
    double next_tuning_in_s = 0;              // periodic: until the next tuning starts
  };

  // `run` must outlive the tuning (stop the tuning first). Errors: an unknown algorithm.
  static engine::Result<std::unique_ptr<LiveTuning>> Start(LiveRun& run, Options options);
  ~LiveTuning();  // stops and waits
  LiveTuning(const LiveTuning&) = delete;
  LiveTuning& operator=(const LiveTuning&) = delete;

  // Ends the tuning at its next measurement (the knobs keep their current values).
  void Stop();
  Progress progress() const;
  const Options& options() const { return options_; }

 private:
  LiveTuning(LiveRun& run, Options options) : run_(run), options_(std::move(options)) {}
  void Loop();
  engine::Result<engine::TunerMeasurement> Measure(const spec::PipelineSpec& candidate);
  // Sets `candidate` on the running pipeline: its knob values, or a rebuild if it differs
  // in anything a knob cannot change.
  engine::Status Apply(const spec::PipelineSpec& candidate);
  // Sleeps `seconds` unless stopped first; false when stopped.
  bool Sleep(double seconds);
  void Log(std::string line);

  LiveRun& run_;
  const Options options_;
  const std::string who_ = "autotuner:" + options_.algorithm;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  Progress progress_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::thread thread_;
};

}  // namespace pipescope::session
