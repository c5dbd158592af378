#include "instrumentation/trace/format/model_writer.h"

#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cstdio>

#include "instrumentation/trace/format/trace_writer.h"

namespace pipescope::pstrace {
namespace {

constexpr int64_t kSliceNs = 1'000'000'000;

// The metadata that goes into the first chunk: everything but the events.
record::TraceBatch MetadataBatch(const trace::Model& model) {
  record::TraceBatch batch;
  for (const record::StageDef* stage : model.StagesInOrder()) batch.stages.push_back(*stage);
  for (const auto& [id, name] : model.threads()) batch.threads.push_back({id, name});
  batch.knob_changes = model.knob_changes();
  batch.markers = model.markers();
  batch.annotations = model.annotations();
  return batch;
}

}  // namespace

TraceHeader HeaderOf(const trace::Model& model) {
  const trace::RunInfo& info = model.run_info();
  TraceHeader h;
  h.set_producer(info.producer.empty() ? "pipescope 0.1.0" : info.producer);
  // The spec text came from a parsed spec, so it parses; a trace without one keeps none.
  google::protobuf::TextFormat::ParseFromString(info.spec_text, h.mutable_spec());
  h.set_spec_path(info.spec_path);
  h.set_device(info.device);
  h.set_simulated(info.simulated);
  h.set_cost_model(info.cost_model);
  h.set_imported_from(info.imported_from);
  Machine* m = h.mutable_machine();
  m->set_hostname(info.machine.hostname);
  m->set_cpu_cores(static_cast<uint32_t>(info.machine.cpu_cores));
  m->set_cpu_budget(static_cast<uint32_t>(info.machine.cpu_budget));
  m->set_memory_bytes(info.machine.memory_bytes);
  m->set_cpu_model(info.machine.cpu_model);
  m->set_gpu(info.machine.gpu);
  ClockInfo* c = h.mutable_clock();
  c->set_source(info.clock.source);
  c->set_ns_per_tick(info.clock.ns_per_tick);
  c->set_origin_monotonic_ns(info.clock.origin_monotonic_ns);
  c->set_origin_unix_ns(info.clock.origin_unix_ns);
  c->set_gpu_origin_ns(info.clock.gpu_origin_ns);
  c->set_gpu_offset_ns(info.clock.gpu_offset_ns);
  c->set_gpu_scale(info.clock.gpu_scale);
  c->set_gpu_uncertainty_ns(info.clock.gpu_uncertainty_ns);
  return h;
}

engine::Status WriteModel(const trace::Model& model, const std::string& path,
                          const std::function<bool(double)>& progress) {
  ASSIGN_OR_RETURN(auto writer, TraceWriter::Create(path, HeaderOf(model)));
  const auto& tracks = model.tracks();
  std::vector<size_t> cursor(tracks.size(), 0);
  const int64_t duration = std::max<int64_t>(model.duration_ns(), 1);
  record::TraceBatch batch = MetadataBatch(model);
  batch.dropped_total = model.dropped_events();
  // An imported trace's names, depths, arguments and flows (format version 2).
  const bool detailed =
      model.labels().size() > 1 || model.args().size() > 1 ||
      std::any_of(tracks.begin(), tracks.end(), [](const auto& t) { return t->key().depth != 0; });
  TraceWriter::Extras extras;
  for (uint32_t id = 1; id < model.labels().size(); ++id)
    extras.labels.emplace_back(id, model.labels()[id]);
  for (int64_t slice_end = kSliceNs;; slice_end += kSliceNs) {
    const bool last = slice_end >= duration;
    // Each track's events that start in this slice (all that are left, in the last one).
    for (size_t k = 0; k < tracks.size(); ++k) {
      const trace::Track& track = *tracks[k];
      const trace::TrackKey key = track.key();
      size_t& i = cursor[k];
      for (; i < track.size() && (last || track.start(i) < slice_end); ++i) {
        batch.events.push_back({track.start(i), track.end(i), track.element(i), track.value(i),
                                key.thread, key.op, key.kind, 0, track.calls(i)});
        if (detailed)
          extras.details.push_back({key.depth, track.label(i), model.args()[track.args(i)]});
      }
    }
    if (last) {
      for (const trace::Flow& f : model.flows()) {
        FlowRecord r;
        r.set_from_track(trace::PackTrackKey(tracks[f.from.track]->key()));
        r.set_from_index(f.from.index);
        r.set_to_track(trace::PackTrackKey(tracks[f.to.track]->key()));
        r.set_to_index(f.to.index);
        r.set_label(f.label);
        extras.flows.push_back(r);
      }
    }
    batch.time_ns = last ? duration : slice_end;
    writer->ConsumeWithExtras(batch, extras, last);
    extras = TraceWriter::Extras{};
    if (!writer->status().ok()) return writer->status();
    if (last) break;
    batch = record::TraceBatch{};
    batch.dropped_total = model.dropped_events();
    if (progress && !progress(static_cast<double>(slice_end) / static_cast<double>(duration))) {
      writer.reset();
      std::remove(path.c_str());
      return engine::Status(engine::StatusCode::kCancelled, "saving '" + path + "' was cancelled");
    }
  }
  return writer->status();
}

}  // namespace pipescope::pstrace
