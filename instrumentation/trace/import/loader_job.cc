#include "instrumentation/trace/import/loader_job.h"

#include <simdjson.h>

#include <algorithm>
#include <string_view>

#include "instrumentation/trace/intervals.h"

namespace pipescope::trace {
namespace {

using record::EventKind;

// The q-quantile of `sorted` (ascending), interpolated between its neighbours as numpy's
// default does: the median is Quantile(v, 0.5).
double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(at);
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

// The host-side ops that copy a tensor to the device (`.to(device)`, `.cuda()`), in the
// spellings of PyTorch's generations.
bool IsCopyOp(std::string_view name) {
  return name == "aten::to" || name == "aten::_to_copy" || name == "aten::copy_" ||
         name == "aten::cuda";
}

// The first shape of a span's "Input Dims" (the copied tensor's), empty when there is none.
// One parser for every span's arguments (it keeps its buffers between documents).
std::vector<int64_t> FirstInputDims(simdjson::dom::parser& parser, std::string_view args) {
  std::vector<int64_t> dims;
  if (args.empty()) return dims;
  simdjson::dom::element root;
  if (parser.parse(simdjson::padded_string(args)).get(root) != simdjson::SUCCESS) return dims;
  simdjson::dom::array shapes, first;
  if (root["Input Dims"].get_array().get(shapes) != simdjson::SUCCESS) return dims;
  for (simdjson::dom::element shape : shapes) {
    if (shape.get_array().get(first) != simdjson::SUCCESS) return dims;
    for (simdjson::dom::element d : first) {
      int64_t v = 0;
      if (d.get_int64().get(v) != simdjson::SUCCESS) return {};
      dims.push_back(v);
    }
    break;
  }
  return dims;
}

int64_t NumberArg(simdjson::dom::parser& parser, std::string_view args, const char* key) {
  if (args.empty()) return 0;
  simdjson::dom::element root;
  if (parser.parse(simdjson::padded_string(args)).get(root) != simdjson::SUCCESS) return 0;
  int64_t v = 0;
  if (root[key].get_int64().get(v) != simdjson::SUCCESS) return 0;
  return v;
}

bool Inside(const std::vector<Interval>& spans, int64_t t) {
  auto it = std::upper_bound(spans.begin(), spans.end(), Interval{t, INT64_MAX});
  return it != spans.begin() && t < std::prev(it)->second;
}

// Batch size and bytes: the training loop's largest copy to the device that is not inside
// __next__ (the batch's `.to(device)`), and the largest host-to-device copy on the device.
void ReadBatch(const Model& model, uint32_t loop_thread, const std::vector<Interval>& steps,
               const std::vector<Interval>& waits, TracedLoader& loader) {
  simdjson::dom::parser parser;
  int64_t best_elements = 0;
  std::vector<int64_t> best_dims;
  for (const auto& track : model.tracks()) {
    if (track->key().kind != EventKind::kCall || track->key().thread != loop_thread ||
        !track->has_args())
      continue;
    for (size_t i = 0; i < track->size(); ++i) {
      if (!IsCopyOp(model.SpanName(*track, i)) || !Inside(steps, track->start(i)) ||
          Inside(waits, track->start(i)))
        continue;
      const std::vector<int64_t> dims = FirstInputDims(parser, model.args()[track->args(i)]);
      if (dims.size() < 2) continue;
      int64_t elements = 1;
      for (int64_t d : dims) elements *= std::max<int64_t>(d, 1);
      if (elements > best_elements) {
        best_elements = elements;
        best_dims = dims;
      }
    }
  }
  if (!best_dims.empty()) {
    loader.batch_size = best_dims[0];
    std::string shape;
    for (int64_t d : best_dims) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    loader.batch_size_from =
        "the first dimension of the largest tensor the training loop copies "
        "to the device ([" +
        shape + "])";
  }
  for (const Track* track : TracksOfKinds(model, {EventKind::kGpuMemcpy}, record::kDeviceOp)) {
    for (size_t i = 0; i < track->size(); ++i) {
      const std::string_view name = model.SpanName(*track, i);
      if (name.find("HtoD") == std::string_view::npos || !Inside(steps, track->start(i))) continue;
      const int64_t bytes = NumberArg(parser, model.args()[track->args(i)], "bytes");
      if (bytes <= loader.batch_bytes) continue;
      loader.batch_bytes = bytes;
      if (name.find("Pinned") != std::string_view::npos) {
        loader.pin_memory = true;
      } else if (name.find("Pageable") != std::string_view::npos) {
        loader.pin_memory = false;
      }
      loader.pin_memory_from = "the batch's copy to the device (\"" + std::string(name) + "\")";
    }
  }
}

// The steady figures and spikes of `job.steps`.
void Summarize(LoaderJob& job) {
  std::vector<double> step_times, wait_times;
  for (const auto& s : job.steps) {
    step_times.push_back(static_cast<double>(s.duration_ns));
    wait_times.push_back(static_cast<double>(s.input_wait_ns));
  }
  if (job.steps.size() >= 3) {
    std::sort(step_times.begin(), step_times.end());
    std::sort(wait_times.begin(), wait_times.end());
    const double usual_wait = Quantile(wait_times, 0.5), usual_step = Quantile(step_times, 0.5);
    const double q1 = Quantile(wait_times, 0.25), q3 = Quantile(wait_times, 0.75);
    for (auto& s : job.steps) {
      const double w = static_cast<double>(s.input_wait_ns);
      s.spike = w > kSpikeRatio * usual_wait && w - usual_wait > 0.1 * usual_step &&
                w > q3 + kSpikeFence * (q3 - q1);
    }
  }
  for (const auto& s : job.steps) {
    if (s.spike) continue;
    ++job.steady_steps;
    job.step_ns += static_cast<double>(s.duration_ns);
    job.input_wait_ns += static_cast<double>(s.input_wait_ns);
    job.device_busy_ns += static_cast<double>(s.device_busy_ns);
  }
  const double n = static_cast<double>(std::max<int64_t>(job.steady_steps, 1));
  job.step_ns /= n;
  job.input_wait_ns /= n;
  job.device_busy_ns /= n;
}

engine::Result<LoaderJob> ReadRecordedJob(const Model& model) {
  LoaderJob job;
  job.recorded_here = true;
  job.loop_cpu_share = 0;
  job.spec_text = model.run_info().spec_text;
  std::vector<Interval> step_spans;
  for (const Track* track : TracksOfKinds(model, {EventKind::kStep}, record::kDeviceOp)) {
    for (size_t i = 0; i < track->size(); ++i)
      step_spans.emplace_back(track->start(i), track->end(i));
  }
  std::sort(step_spans.begin(), step_spans.end());
  if (step_spans.size() < 2) {
    return engine::InvalidArgument(
        "fewer than two training steps in this recording: what-if needs a run of a spec with "
        "a DataLoader, recorded with its steps");
  }
  const auto wait_tracks = TracksOfKinds(model, {EventKind::kInputWait}, record::kConsumerOp);
  const auto device_tracks = DeviceWorkTracks(model);
  for (size_t i = 1; i < step_spans.size(); ++i) {
    TracedStep s;
    s.start_ns = step_spans[i - 1].second;
    s.duration_ns = step_spans[i].second - s.start_ns;
    s.input_wait_ns = Total(Union(wait_tracks, s.start_ns, step_spans[i].second));
    const int64_t device = Total(Union(device_tracks, s.start_ns, step_spans[i].second));
    s.device_busy_ns = device > 0 ? device : step_spans[i].second - step_spans[i].first;
    if (s.duration_ns > 0) job.steps.push_back(s);
  }
  Summarize(job);
  return job;
}

}  // namespace

std::optional<bool> DataLoaderRunsWorkers(const Model& model) {
  for (const Track* track : TracksOfKinds(model, {EventKind::kInputWait}, record::kConsumerOp)) {
    for (size_t i = 0; i < track->size(); ++i) {
      const std::string_view name = model.SpanName(*track, i);
      if (name.find("_MultiProcessingDataLoaderIter") != std::string_view::npos) return true;
      if (name.find("_SingleProcessDataLoaderIter") != std::string_view::npos) return false;
    }
  }
  return std::nullopt;
}

engine::Result<LoaderJob> ReadLoaderJob(const Model& model) {
  const std::string& framework = model.run_info().imported_from;
  if (framework.empty()) return ReadRecordedJob(model);
  if (framework != "pytorch") {
    return engine::InvalidArgument(
        "what-if reads PyTorch profiler traces (torch.profiler's JSON, with ProfilerStep#N "
        "spans) and Pipescope's own recordings; this trace is from " +
        framework);
  }
  LoaderJob job;
  const auto step_tracks = TracksOfKinds(model, {EventKind::kStep}, record::kDeviceOp);
  const auto wait_tracks = TracksOfKinds(model, {EventKind::kInputWait}, record::kConsumerOp);
  const auto device_tracks = DeviceWorkTracks(model);
  const std::vector<Interval> steps = Union(step_tracks, 0, model.duration_ns());
  if (steps.empty()) {
    return engine::InvalidArgument(
        "no training steps: PyTorch marks them as ProfilerStep#N spans when the profiler runs "
        "with a schedule and the loop calls prof.step()");
  }
  const std::vector<Interval> waits = Union(wait_tracks, 0, model.duration_ns());
  if (waits.empty()) {
    return engine::InvalidArgument(
        "no DataLoader __next__ spans in the steps: what-if needs the training loop to iterate "
        "a torch.utils.data.DataLoader inside the profiled steps");
  }
  // Each step span (their union would join steps that touch).
  std::vector<Interval> step_spans;
  for (const Track* track : step_tracks) {
    for (size_t i = 0; i < track->size(); ++i)
      step_spans.emplace_back(track->start(i), track->end(i));
  }
  std::sort(step_spans.begin(), step_spans.end());
  for (const auto& [start, end] : step_spans) {
    TracedStep s;
    s.start_ns = start;
    s.duration_ns = end - start;
    s.input_wait_ns = Total(Union(wait_tracks, start, end));
    s.device_busy_ns = Total(Union(device_tracks, start, end));
    job.steps.push_back(s);
  }

  Summarize(job);  // spikes only with enough steps to tell the usual wait

  // The loader: the iterator's class names it; its thread is the training loop's.
  uint32_t loop_thread = 0;
  for (const Track* track : wait_tracks) {
    if (!track->empty()) loop_thread = track->key().thread;
  }
  job.loader.multiprocess = DataLoaderRunsWorkers(model).value_or(false);
  ReadBatch(model, loop_thread, steps, waits, job.loader);
  return job;
}

}  // namespace pipescope::trace
