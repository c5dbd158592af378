#pragma once
// trace::Model: everything one recording (or one loaded trace file) holds, organised for
// drawing and analysis: the stages and threads by id, knob changes and markers, and one
// time-sorted columnar Track per (kind, op, thread). Append-only: a live run feeds it batch
// by batch as a record::TraceSink, the file reader feeds it chunk by chunk.
//
// Not thread-safe: one writer, and readers only when the writer is done or excluded
// (the live GUI wraps it in its own lock).

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "instrumentation/record/trace_sink.h"
#include "instrumentation/trace/span_tables.h"
#include "instrumentation/trace/track.h"

namespace pipescope::trace {

struct MachineInfo {
  std::string hostname;
  int cpu_cores = 0;   // of the machine
  int cpu_budget = 0;  // cores the pipeline may use (the spec's budget, else cpu_cores)
  // The spec of a recording or simulation set no budget: cpu_budget is the cores of the
  // machine that ran it, not necessarily of the one that trains.
  bool cpu_budget_is_this_machines = false;
  uint64_t memory_bytes = 0;
  std::string cpu_model;
  std::string gpu;  // empty: none
};

// How the recording's clock relates to the machine's clocks (kept so a saved copy of a
// trace carries it on).
struct ClockInfo {
  std::string source;  // "tsc" or "clock_monotonic"
  double ns_per_tick = 1;
  int64_t origin_monotonic_ns = 0;
  int64_t origin_unix_ns = 0;
  // The GPU clock's alignment (CUPTI runs): host = offset + scale * (gpu - origin).
  uint64_t gpu_origin_ns = 0;
  double gpu_offset_ns = 0;
  double gpu_scale = 0;  // 0: none
  int64_t gpu_uncertainty_ns = 0;
};

struct RunInfo {
  std::string pipeline_name;
  std::string spec_text;  // the PipelineSpec in text format
  std::string spec_path;
  std::string producer;       // "pipescope 0.1.0"
  std::string device;         // "simulated" or "gpu"
  std::string imported_from;  // "pytorch", "tensorflow", "chrome"; empty: recorded here
  bool simulated = false;     // virtual time from the simulator, not a recording
  std::string cost_model;     // a simulation's cost model: "spec" or what it was fitted to
  MachineInfo machine;
  ClockInfo clock;
};

class Model : public record::TraceSink {
 public:
  Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  // A copy of everything the model holds now: what a live run's model is read from outside
  // its lock (the copy costs a memcpy of the columns; analysing and simulating take far
  // longer, and the recorder waits for neither).
  std::unique_ptr<Model> Snapshot() const;

  // ---- building
  void Consume(const record::TraceBatch& batch, bool final) override;
  // From now on Consume keeps only the training step's events, the consumer's waits and the
  // calls that end a sequence: a model that counts steps (trace::Analyze's rate, first step,
  // whole epochs) and nothing else, for simulations that are measured, never shown.
  void KeepStepsOnly() { steps_only_ = true; }
  void AddStage(const record::StageDef& stage);
  void AddThread(const record::ThreadDef& thread) { threads_[thread.id] = thread.name; }
  void AddKnobChange(const record::KnobChangeDef& change) { knob_changes_.push_back(change); }
  void AddMarker(const record::MarkerDef& marker) { markers_.push_back(marker); }
  void AddAnnotation(const record::AnnotationDef& note) { annotations_.push_back(note); }
  void RemoveAnnotation(size_t index);
  void AddEvent(const record::TraceEvent& e);
  // An imported span (or counter reading) on the track `key` names, with its name and
  // arguments (ids in labels() and args()). Returns where it went, for flows.
  EventRef AddSpan(const TrackKey& key, int64_t start, int64_t end, uint32_t value, uint32_t label,
                   uint32_t args);
  LabelTable& labels() { return labels_; }
  ArgsTable& args() { return args_; }
  void AddFlow(const Flow& flow) { flows_.push_back(flow); }
  // The track for `key`, created if new.
  Track& TrackFor(const TrackKey& key) {
    const uint64_t packed = PackTrackKey(key);
    CachedTrack& cached = track_cache_[(packed * 0x9E3779B97F4A7C15ull) >> (64 - kTrackCacheBits)];
    if (cached.key == packed) return *cached.track;
    return TrackForUncached(key, packed, cached);
  }
  void SetDropped(uint64_t dropped) { dropped_ = dropped; }
  void ExtendDuration(int64_t t) { duration_ns_ = std::max(duration_ns_, t); }
  void Finish();  // releases spare capacity
  RunInfo& run_info() { return run_info_; }

  // ---- reading
  const RunInfo& run_info() const { return run_info_; }
  int64_t duration_ns() const { return duration_ns_; }
  uint64_t dropped_events() const { return dropped_; }
  size_t event_count() const;
  size_t memory_bytes() const;

  // Stages by id, in pipeline order (position) of their latest definition.
  std::vector<const record::StageDef*> StagesInOrder() const;
  const record::StageDef* Stage(uint16_t id) const;
  const record::StageDef* StageNamed(const std::string& name) const;
  // The op the consumer pulls from: the top-level op with the highest position.
  const record::StageDef* LastStage() const;
  // The stages of the sub-pipeline an op opens (an interleave's per element, a zip's second
  // pipeline): those that follow it one level deeper, in order (its source first, the stage
  // it reads last); empty for an op without one.
  std::vector<const record::StageDef*> SubPipelineOf(const record::StageDef& op) const;
  // The op whose sub-pipeline `stage` is in (the nearest stage before it one level up);
  // null at the top level.
  const record::StageDef* ParentOf(const record::StageDef& stage) const;
  std::string ThreadName(uint32_t id) const;
  const std::map<uint32_t, std::string>& threads() const { return threads_; }
  const std::vector<record::KnobChangeDef>& knob_changes() const { return knob_changes_; }
  // In time order (a recording adds them as they happen; Finish sorts an import's).
  const std::vector<record::MarkerDef>& markers() const { return markers_; }
  const std::vector<record::AnnotationDef>& annotations() const { return annotations_; }

  const std::vector<std::unique_ptr<Track>>& tracks() const { return tracks_; }
  const LabelTable& labels() const { return labels_; }
  const ArgsTable& args() const { return args_; }
  // The name a span shows: its own (imported traces) or its kind's.
  std::string_view SpanName(const Track& track, size_t i) const;
  // Flows in the order of their start (Finish sorts them).
  const std::vector<Flow>& flows() const { return flows_; }
  // The flows that start or end at `event` (a few; found by binary search after Finish).
  std::vector<Flow> FlowsOf(EventRef event) const;
  // Tracks of one kind and op (any thread). Indexed: analyses ask this per gap and op.
  const std::vector<const Track*>& TracksOf(EventKind kind, uint16_t op) const;
  const Track* FindTrack(const TrackKey& key) const;

  // A knob's value at time t: its last change at or before t, else `initial`.
  int64_t KnobValueAt(uint16_t op, const std::string& knob, int64_t t, int64_t initial) const;
  // The time-average of a knob over [t0, t1).
  double KnobAverage(uint16_t op, const std::string& knob, int64_t t0, int64_t t1,
                     int64_t initial) const;

 private:
  RunInfo run_info_;
  std::map<uint16_t, record::StageDef> stages_;
  std::map<uint32_t, std::string> threads_;
  std::vector<record::KnobChangeDef> knob_changes_;
  std::vector<record::MarkerDef> markers_;
  std::vector<record::AnnotationDef> annotations_;
  std::vector<std::unique_ptr<Track>> tracks_;
  LabelTable labels_;
  ArgsTable args_;
  std::vector<Flow> flows_;
  std::vector<uint32_t> flows_by_end_;      // indices into flows_, sorted by `to`
  std::map<uint64_t, size_t> track_index_;  // packed TrackKey → index in tracks_
  std::map<uint32_t, std::vector<const Track*>> tracks_by_op_;  // (kind << 16 | op) → tracks
  // TrackFor's recently used tracks, by a hash of the packed key. A simulation's events
  // come from a few dozen tracks interleaved, and a lookup in track_index_ per event was a
  // tenth of building its model.
  struct CachedTrack {
    uint64_t key = UINT64_MAX;  // no key packs to this (kinds are under 256)
    Track* track = nullptr;
  };
  static constexpr int kTrackCacheBits = 8;
  std::array<CachedTrack, size_t{1} << kTrackCacheBits> track_cache_;
  // TrackFor when the cache does not have the track: finds or makes it and caches it.
  Track& TrackForUncached(const TrackKey& key, uint64_t packed, CachedTrack& cached);
  uint64_t dropped_ = 0;
  int64_t duration_ns_ = 0;
  bool steps_only_ = false;
};

// Which track an event belongs to: device steps and buffer levels are not per thread.
TrackKey TrackKeyOf(const record::TraceEvent& e);

}  // namespace pipescope::trace
