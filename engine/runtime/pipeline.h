#pragma once
// A running pipeline: what the CLI, the GUI and the autotuners drive. The consumer side
// (GetNext) is used by one thread; the control interface (SetKnob, Reorder, Cancel, the
// snapshots) may be called from any thread while it runs — it never hands out op
// pointers, only names and values.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/runtime/pipeline_builder.h"
#include "engine/runtime/stage_registry.h"
#include "engine/runtime/storage_device.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

struct KnobInfo {
  std::string op;
  std::string knob;
  int64_t value;
  int64_t min;
  int64_t max;
  bool autotune;
};

struct TimedKnobChange {
  int64_t time_ns;  // record::NowNs() clock
  KnobChange change;
};

// The cores a pipeline may use: `requested` when positive, else the spec's budget, else
// this machine's cores.
int CpuCoresFor(const spec::PipelineSpec& spec, int requested = 0);

class Pipeline {
 public:
  struct Options {
    record::Recorder* recorder = nullptr;  // null: nothing is recorded
    int cpu_cores = 0;                     // 0: the spec's budget, else this machine's cores
  };

  static Result<std::unique_ptr<Pipeline>> Create(const spec::PipelineSpec& spec, Options options);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // ---- consumer side (one thread)
  Status GetNext(Element& out, bool& end_of_sequence);

  // ---- control interface (any thread)
  // Changes a live knob ("decode", "num_parallel_calls"); takes effect within one element.
  Status SetKnob(const std::string& op, const std::string& knob, int64_t value,
                 const std::string& who);
  std::vector<KnobInfo> Knobs() const;
  // Rebuilds with a new op order (or any other valid spec) and continues: the consumer's
  // next GetNext reads from the new pipeline, which starts from the beginning of its
  // source. Ops that still exist keep their counters and knob values. The trace's marker
  // says "pipeline rebuilt", followed by `description` when there is one.
  Status Reorder(const spec::PipelineSpec& new_spec, const std::string& description = "");
  // Stops everything; blocked calls return CANCELLED. Idempotent.
  void Cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

  spec::PipelineSpec spec() const;
  bool output_batched() const;
  std::vector<StageInfo> Stages() const { return registry_.Stages(); }
  std::vector<TimedKnobChange> KnobChanges() const;
  int cpu_cores() const { return settings_.cpu_cores; }
  record::Recorder* recorder() const { return settings_.recorder; }
  // What the buffers of the ops can hold at their current knobs, in bytes: capacity (a
  // prefetch's or shuffle's buffer_size, a parallel op's parallelism) times the size of
  // the op's recent output element. 0 until elements were produced while recording.
  int64_t BufferMemoryBytes() const;
  // Bytes of a recent output element of each op with a buffer, by name (recorded runs).
  std::map<std::string, int64_t> ElementBytes() const;
  // Times at which Reorder rebuilt the pipeline.
  std::vector<int64_t> RebuildTimes() const;
  // The share of time the spec's disk was busy serving reads, since the last build; nullopt
  // where the spec has no storage.
  std::optional<double> StorageBusyFraction() const;
  int64_t StorageReads() const;  // the reads the spec's disk served; 0 where it has none

 private:
  Pipeline() = default;
  Status Install(const spec::PipelineSpec& spec, const std::string& description = "");
  void OnKnobChanged(const KnobChange& change);
  // The collector's sampler: buffer levels that changed, and the disk's busy time since its
  // previous sample.
  void SampleCounters(record::Recorder& recorder);
  void DescribeStages(record::Recorder& recorder);

  // One build: its context, its datasets and the iterator over them (destroyed in reverse).
  struct Live {
    std::unique_ptr<PipelineContext> context;
    DatasetPtr dataset;
    std::unique_ptr<Iterator> iterator;
    void Cancel() {
      if (!iterator) return;
      context->cancellation.Cancel();
      iterator->Cancel();
    }
  };

  struct Settings {
    record::Recorder* recorder = nullptr;
    int cpu_cores = 1;
    std::shared_ptr<std::atomic<uint64_t>> element_ids = std::make_shared<std::atomic<uint64_t>>(1);
  };
  Settings settings_;
  std::atomic<bool> cancelled_{false};
  StageRegistry registry_;
  mutable std::mutex buffered_mu_;  // guards buffered_stages_ and the disk's last sample
  std::vector<std::shared_ptr<StageStats>> buffered_stages_;  // async ops of the current build
  // The disk the sampler read last (held, so that a rebuild's new disk is never taken for
  // it) and its busy time then: a new disk starts at 0.
  StorageDevicePtr sampled_storage_;
  double sampled_storage_busy_ns_ = 0;
  std::vector<std::shared_ptr<StageStats>> memory_stages_;  // ops with a buffer (+ shuffle)
  mutable std::mutex mu_;                                   // guards everything below
  spec::PipelineSpec spec_;
  bool output_batched_ = false;
  StorageDevicePtr storage_;  // the latest build's disk; null: none
  Live current_;              // used by the consumer
  Live pending_;              // a rebuilt pipeline, installed by the consumer's next GetNext
  std::vector<TimedKnobChange> changes_;
  std::vector<int64_t> rebuilds_;
};

}  // namespace pipescope::engine
