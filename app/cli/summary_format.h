#pragma once
// The run summary and verdict, as JSON for scripts and as text for people. The same for a
// run that just ended (`run`) and for a saved trace (`report`).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/runtime/pipeline.h"
#include "engine/runtime/training_run.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/import/framework_report.h"
#include "instrumentation/trace/span_statistics.h"

namespace pipescope::cli {

struct SummaryContext {
  std::string device;  // "simulated" or "gpu"
  bool end_of_data = false;
  bool recorded = true;  // false: --no-trace, so there are no per-op figures
  uint64_t events = 0;   // in the trace
  std::vector<record::KnobChangeDef> knob_changes;
  std::vector<record::MarkerDef> markers;  // rebuilds, skipped corrupt data, ...
  std::vector<std::string> op_names;       // by stage id, for knob changes
  // Each batch is handed out this many times an epoch (engine::BatchCopies: a DataLoader over
  // an IterableDataset replicated in its workers): the steps/s of new batches are the rate
  // divided by it.
  int64_t batch_copies = 1;
  // The spec's disk (spec::Storage), in words, and the share of the run it was busy serving
  // reads; empty and nullopt where the spec has none.
  std::string storage;
  std::optional<double> storage_busy_fraction;
  bool storage_unread = false;  // the run read nothing from it
  // A DataLoader whose workers start again each epoch (engine::LoaderRestartingEachEpoch):
  // its name (empty: none), its epochs (-1: endless), and its workers' start-ups' time
  // before the first step.
  std::string restarting_loader;
  int64_t epoch_steps = 0;  // an epoch's steps, where the spec says (engine::StepsOfAnEpoch)
  int64_t loader_epochs = 0;
  int64_t loader_startup_ns = 0;
  bool loader_made_each_epoch = false;  // made anew each epoch, rather than not persistent
  // The whole run, start-up included, where the command ran it (RunSummary): its time and
  // steps, which the graded figures may leave much of out (the tf.data guide's cached
  // program: its first epoch, 38% of the run, before the four graded).
  double run_s = 0;
  int64_t run_steps = 0;
};
// The storage figures of a run of `spec` into `c`: its busy share and the reads it served.
void SetStorage(SummaryContext& c, const spec::PipelineSpec& spec,
                std::optional<double> busy_fraction, int64_t reads);
// The steps of an epoch of `spec`, and a loader of it that starts its workers each epoch with
// their start-ups' time before the first step of `model` (`steady`'s start-up), into `c`.
void SetEpochs(SummaryContext& c, const spec::PipelineSpec& spec, const trace::Model& model,
               const trace::RangeAnalysis& steady);

// Device, knob changes and op names as a trace records them; the whole run's end, time and
// steps where the command ran it (`run`; null for a saved trace); with the run's `steady`
// figures, its epochs as the spec in the trace's header says (SetEpochs).
SummaryContext ContextFromModel(const trace::Model& model, const engine::RunSummary* run,
                                const trace::RangeAnalysis* steady = nullptr);

// A figure's value in --json (figure_table.h): whole numbers as integers, a figure that
// does not apply as null.
nlohmann::json FigureJson(std::optional<double> value);

nlohmann::json SummaryToJson(const trace::RangeAnalysis& a, const SummaryContext& c);
std::string SummaryToText(const trace::RangeAnalysis& a, const SummaryContext& c);

// An imported profiler trace's figures (framework_report.h).
nlohmann::json FrameworkSummaryToJson(const trace::FrameworkSummary& s,
                                      const std::vector<std::string>& warnings);
std::string FrameworkSummaryToText(const trace::FrameworkSummary& s);
// An imported trace's spans: their shape, and the `top` names by total time (and the
// heaviest device kernels).
nlohmann::json SpanStatisticsToJson(const trace::SpanStatistics& s, int top);
std::string SpanStatisticsToText(const trace::SpanStatistics& s, int top);

}  // namespace pipescope::cli
