#include "engine/runtime/training_run.h"

#include "engine/core/duration.h"
#include "engine/device/simulated_device.h"
#include "instrumentation/record/clock.h"

namespace pipescope::engine {
namespace {

int64_t RowsOf(const Element& e, bool batched) {
  if (!batched) return 1;
  const Tensor& t = e.value.valid() || e.features.empty() ? e.value : e.features[0].value;
  return t.shape().rank() > 0 ? t.shape().dim(0) : 1;
}

}  // namespace

std::vector<StageSummary> SummariseStages(const Pipeline& pipeline, int64_t wall_ns) {
  std::vector<StageSummary> out;
  const double wall = static_cast<double>(std::max<int64_t>(wall_ns, 1));
  for (const auto& info : pipeline.Stages()) {
    const StageStats& s = *info.stats;
    StageSummary st;
    st.name = s.name;
    st.op = s.kind;
    st.depth = info.depth;
    st.parallelism = s.parallelism ? s.parallelism->value() : 1;
    st.buffer_size = s.buffer_size ? s.buffer_size->value() : (s.parallelism ? st.parallelism : 0);
    st.elements = s.elements.load(std::memory_order_relaxed);
    const auto busy = static_cast<double>(s.busy_ns.load(std::memory_order_relaxed));
    const auto waiting = static_cast<double>(s.waiting_input_ns.load(std::memory_order_relaxed));
    const auto blocked = static_cast<double>(s.blocked_output_ns.load(std::memory_order_relaxed));
    // Fractions of the op's thread capacity: its workers for an async op, the calling
    // thread for a synchronous one.
    const double capacity = wall * static_cast<double>(s.asynchronous ? st.parallelism : 1);
    st.self_ns_per_element = st.elements > 0 ? busy / static_cast<double>(st.elements) : 0;
    st.busy_fraction = std::min(1.0, busy / capacity);
    st.waiting_input_fraction = std::min(1.0, waiting / capacity);
    st.blocked_output_fraction = std::min(1.0, blocked / capacity);
    out.push_back(st);
  }
  return out;
}

Result<std::unique_ptr<DeviceStep>> MakeDevice(const spec::PipelineSpec& spec,
                                               CancellationToken& cancellation) {
  int64_t step_ns = 0;
  if (!spec.train_step().step_time().empty()) {
    ASSIGN_OR_RETURN(step_ns, ParseDurationNs(spec.train_step().step_time()));
  }
  // GPU steps arrive with the CUDA device; until then every spec runs on the simulated one.
  return std::unique_ptr<DeviceStep>(std::make_unique<SimulatedDevice>(
      step_ns, static_cast<int>(std::max<int64_t>(1, spec.train_step().max_in_flight())),
      cancellation));
}

Result<RunSummary> RunTraining(Pipeline& pipeline, DeviceStep& device, const RunOptions& options) {
  RunSummary summary;
  summary.device = device.kind();
  const bool batched = pipeline.output_batched();
  const int64_t start = record::NowNs();
  const int64_t deadline = options.duration_ns > 0 ? start + options.duration_ns : INT64_MAX;
  int64_t input_wait_ns = 0;
  Status error;
  while (options.max_steps <= 0 || summary.steps < options.max_steps) {
    if (record::NowNs() >= deadline) break;
    Element element;
    bool end = false;
    const int64_t t0 = record::NowNs();
    Status s = pipeline.GetNext(element, end);
    input_wait_ns += record::NowNs() - t0;
    if (!s.ok()) {
      if (s.code() != StatusCode::kCancelled) error = std::move(s);
      break;
    }
    if (end) {
      summary.end_of_data = true;
      break;
    }
    if (options.on_element) options.on_element(element);
    if (!device.Submit(element).ok()) break;
    ++summary.steps;
    summary.elements += RowsOf(element, batched);
  }
  device.Drain();
  const int64_t end_ns = record::NowNs();
  const int64_t wall = std::max<int64_t>(end_ns - start, 1);
  summary.duration_s = static_cast<double>(wall) / 1e9;
  summary.steps_per_s = static_cast<double>(summary.steps) / summary.duration_s;
  summary.elements_per_s = static_cast<double>(summary.elements) / summary.duration_s;
  summary.input_wait_fraction = static_cast<double>(input_wait_ns) / static_cast<double>(wall);
  summary.device_busy_fraction =
      std::min(1.0, static_cast<double>(device.BusyNs(end_ns)) / static_cast<double>(wall));
  summary.stages = SummariseStages(pipeline, wall);
  summary.knob_changes = pipeline.KnobChanges();
  if (!error.ok()) return error;
  return summary;
}

}  // namespace pipescope::engine
