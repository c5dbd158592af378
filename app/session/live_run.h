#pragma once
// A pipeline running in the background while a view watches it: a recorded run on its own
// thread, feeding a trace model that the view reads under model_mutex(), with pause,
// resume, stop and live knob changes. What the GUI's Run menu and Pipeline dock drive.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/session/recorded_run.h"

namespace pipescope::session {

class LiveRun {
 public:
  struct Options {
    std::string spec_path;    // stored in the trace
    std::string trace_path;   // empty: in memory only
    int64_t duration_ns = 0;  // 0: until stopped or the data ends
  };

  // Starts the run; errors are those of building the pipeline (bad spec, missing files).
  static engine::Result<std::unique_ptr<LiveRun>> Start(const spec::PipelineSpec& spec,
                                                        Options options);
  ~LiveRun();  // stops the run and waits for it
  LiveRun(const LiveRun&) = delete;
  LiveRun& operator=(const LiveRun&) = delete;

  // The model being recorded into. Read it only while holding model_mutex(), until
  // finished() — after that it no longer changes.
  std::shared_ptr<trace::Model> model() const { return model_; }
  std::mutex& model_mutex() const { return model_mutex_; }

  bool finished() const { return finished_.load(std::memory_order_acquire); }
  // The run's outcome once finished(): an error of the pipeline, or Ok.
  engine::Status outcome() const;
  // The run loop's own summary once finished().
  engine::RunSummary summary() const;

  void SetPaused(bool paused) { paused_.store(paused, std::memory_order_release); }
  bool paused() const { return paused_.load(std::memory_order_acquire); }
  // Ends the run (returns at once; finished() turns true shortly after).
  void Stop();

  // The pipeline's knobs with their current values (empty once finished).
  std::vector<engine::KnobInfo> Knobs() const;
  // `who` is stored with the change in the trace ("user", "autotuner:pipescope", ...).
  engine::Status SetKnob(const std::string& op, const std::string& knob, int64_t value,
                         const std::string& who = "user");
  // What the buffers hold now, and a recent output element's bytes per buffered op
  // (engine::Pipeline::BufferMemoryBytes / ElementBytes); 0 / empty once finished.
  int64_t BufferMemoryBytes() const;
  std::map<std::string, int64_t> ElementBytes() const;
  // The spec the pipeline runs now: its current op order with its live knob values (knobs
  // under AUTOTUNE stay AUTOTUNE). Empty once finished.
  spec::PipelineSpec CurrentSpec() const;
  // Rebuilds the running pipeline from `spec` (another order, ops added or removed); the
  // trace gets a marker "pipeline rebuilt: <description>". The new pipeline restarts
  // from its source. Errors: an invalid spec, or the run is over.
  engine::Status Reorder(const spec::PipelineSpec& spec, const std::string& description);

 private:
  LiveRun() = default;

  std::shared_ptr<trace::Model> model_;
  mutable std::mutex model_mutex_;
  std::atomic<bool> paused_{false};
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> finished_{false};
  mutable std::mutex pipeline_mu_;  // guards pipeline_ (cleared when the run ends)
  engine::Pipeline* pipeline_ = nullptr;
  mutable std::mutex result_mu_;  // guards outcome_ and summary_
  engine::Status outcome_;
  engine::RunSummary summary_;
  std::thread thread_;
};

}  // namespace pipescope::session
