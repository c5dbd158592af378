#include "app/session/recorded_run.h"

#include <algorithm>

#include "app/session/machine_probe.h"
#include "app/session/measurement.h"
#include "app/session/model_feed.h"
#include "engine/core/duration.h"
#include "engine/tuning/cache_memory.h"
#include "instrumentation/gpu/gpu_tracing.h"
#include "instrumentation/record/recorder.h"
#include "instrumentation/trace/format/trace_writer.h"

namespace pipescope::session {
namespace {

pstrace::TraceHeader MakeHeader(const spec::PipelineSpec& spec, const std::string& spec_path,
                                const std::string& device, int cpu_budget,
                                const record::Recorder& recorder) {
  pstrace::TraceHeader h = MakeTraceHeader(spec, spec_path, device, cpu_budget);
  auto* clock = h.mutable_clock();
  clock->set_source(recorder.calibration().tsc ? "tsc" : "clock_monotonic");
  clock->set_ns_per_tick(recorder.calibration().ns_per_tick);
  clock->set_origin_monotonic_ns(recorder.origin_ns());
  clock->set_origin_unix_ns(recorder.origin_unix_ns());
  return h;
}

}  // namespace

pstrace::TraceHeader MakeTraceHeader(const spec::PipelineSpec& spec, const std::string& spec_path,
                                     const std::string& device, int cpu_budget) {
  pstrace::TraceHeader h;
  h.set_producer("pipescope 0.1.0");
  *h.mutable_spec() = spec;
  h.set_spec_path(spec_path);
  *h.mutable_machine() = ProbeMachine(cpu_budget);
  h.set_device(device);
  return h;
}

namespace {

// The engine's elements are real: a shuffle whose buffer, full, holds more than this
// machine's available memory would swap, or be killed, before its first step (a decode's
// 2 MB images, 70000 of them: yolo3#12). It is refused before it starts, saying what the
// simulator and its advice offer instead.
engine::Status ShuffleBuffersFitThisMachine(const spec::PipelineSpec& spec) {
  const auto available = static_cast<int64_t>(AvailableMemoryBytes());
  if (available <= 0) return engine::Status::Ok();
  for (const engine::LargeShuffleBuffer& large : engine::LargeShuffleBuffers(spec, available)) {
    if (large.held <= available) continue;
    return engine::InvalidArgument(
        "op '" + spec.ops(large.place).name() + "': its buffer would hold " +
        engine::ElementsText(large.buffer, large.element_bytes) + ": " +
        engine::FormatBytes(large.held) + ", more than this machine's available memory (" +
        engine::FormatBytes(available) +
        "), so the run would swap, or be killed, before its first step; it is not started. "
        "`pipescope-cli simulate` runs it on virtual time, and its advice says what fits (a "
        "smaller buffer_size, or the shuffle before the maps that make its elements large)");
  }
  return engine::Status::Ok();
}

}  // namespace

engine::Result<RecordedRunResult> RunRecorded(const spec::PipelineSpec& spec,
                                              const RecordedRunOptions& options) {
  RETURN_IF_ERROR(ShuffleBuffersFitThisMachine(spec));
  RecordedRunResult result;
  std::unique_ptr<ModelFeed> model_feed;  // declared first: a sink must outlive the recorder
  std::unique_ptr<record::Recorder> recorder;
  if (options.record) recorder = std::make_unique<record::Recorder>();

  engine::Pipeline::Options pipeline_options;
  pipeline_options.recorder = recorder.get();
  ASSIGN_OR_RETURN(auto pipeline, engine::Pipeline::Create(spec, pipeline_options));
  engine::CancellationToken device_cancellation;
  ASSIGN_OR_RETURN(auto device, engine::MakeDevice(spec, device_cancellation));

  std::unique_ptr<pstrace::TraceWriter> writer;
  std::unique_ptr<gpu::GpuTracing> gpu_tracing;
  if (recorder && device->kind() == "gpu" && options.gpu_activity) {
    gpu_tracing = gpu::StartGpuTracing(*recorder, &result.gpu_activity_note);
  }
  if (recorder) {
    auto header = MakeHeader(
        spec, options.spec_path, device->kind(),
        std::max(1, pipeline->cpu_cores() / std::max(1, options.workers_on_host)), *recorder);
    if (gpu_tracing) {
      const gpu::ClockAlignment a = gpu_tracing->clock();  // the start-up alignment
      auto* clock = header.mutable_clock();
      clock->set_gpu_origin_ns(a.gpu_origin_ns);
      // Stored relative to the recording's time 0, like every time in the trace.
      clock->set_gpu_offset_ns(a.offset_ns - static_cast<double>(recorder->origin_ns()));
      clock->set_gpu_scale(a.scale);
      clock->set_gpu_uncertainty_ns(a.uncertainty_ns);
    }
    model_feed = std::make_unique<ModelFeed>(options.model, options.model_mutex, header);
    result.model = model_feed->model();
    recorder->AddSink(model_feed.get());
    if (!options.trace_path.empty()) {
      ASSIGN_OR_RETURN(writer, pstrace::TraceWriter::Create(options.trace_path, header));
      recorder->AddSink(writer.get());
    }
    device->set_recorder(recorder.get());
    recorder->Start();
  }

  if (options.on_pipeline) options.on_pipeline(pipeline.get());
  auto summary = engine::RunTraining(*pipeline, *device, options.run);
  if (options.on_pipeline) options.on_pipeline(nullptr);
  if (gpu_tracing) {
    gpu_tracing->Flush();  // before the recorder's last drain
    result.gpu_activity_records = gpu_tracing->records();
    result.gpu_clock_probes = gpu_tracing->clock_probes();
    gpu_tracing.reset();
  }
  // Stop the pipeline's threads before the recorder's last drain, so that it is complete.
  pipeline.reset();
  if (recorder) recorder->Stop();
  if (writer) {
    result.trace_file_status = writer->status();
    result.trace_file_bytes = writer->bytes_written();
  }
  if (summary.ok()) {
    result.summary = std::move(summary).value();
  } else {
    result.run_status = summary.status();
  }
  return result;
}

}  // namespace pipescope::session
