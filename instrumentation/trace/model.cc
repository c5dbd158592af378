#include "instrumentation/trace/model.h"

#include <algorithm>

namespace pipescope::trace {

TrackKey TrackKeyOf(const record::TraceEvent& e) {
  // Device steps and GPU activity belong to the device, buffer levels to their op, the
  // disk's busy time to the run.
  const bool per_thread = e.kind != EventKind::kStep && e.kind != EventKind::kBufferLevel &&
                          e.kind != EventKind::kDeviceUtil && e.kind != EventKind::kStorageBusy &&
                          !record::IsGpuActivity(e.kind);
  return TrackKey{e.kind, e.op, per_thread ? e.thread : 0};
}

void Model::Consume(const record::TraceBatch& batch, bool final) {
  for (const auto& s : batch.stages) AddStage(s);
  for (const auto& t : batch.threads) AddThread(t);
  for (const auto& k : batch.knob_changes) AddKnobChange(k);
  for (const auto& m : batch.markers) AddMarker(m);
  for (const auto& a : batch.annotations) AddAnnotation(a);
  for (const auto& e : batch.events) {
    // A pass's end (kCallEnd) is kept too: few, and where epochs end (epoch_window.h).
    if (!steps_only_ || e.kind == EventKind::kStep || e.kind == EventKind::kInputWait ||
        e.kind == EventKind::kCallEnd) {
      AddEvent(e);
    }
  }
  dropped_ = batch.dropped_total;
  ExtendDuration(batch.time_ns);
  if (final) Finish();
}

void Model::RemoveAnnotation(size_t index) {
  if (index < annotations_.size())
    annotations_.erase(annotations_.begin() + static_cast<ptrdiff_t>(index));
}

void Model::AddStage(const record::StageDef& stage) { stages_[stage.id] = stage; }

Track& Model::TrackForUncached(const TrackKey& key, uint64_t packed, CachedTrack& cached) {
  auto [it, inserted] = track_index_.try_emplace(packed, tracks_.size());
  if (inserted) {
    tracks_.push_back(std::make_unique<Track>(key, static_cast<uint32_t>(tracks_.size())));
    tracks_by_op_[(static_cast<uint32_t>(key.kind) << 16) | key.op].push_back(tracks_.back().get());
  }
  cached = {packed, tracks_[it->second].get()};
  return *cached.track;
}

std::unique_ptr<Model> Model::Snapshot() const {
  auto copy = std::make_unique<Model>();
  copy->run_info_ = run_info_;
  copy->stages_ = stages_;
  copy->threads_ = threads_;
  copy->knob_changes_ = knob_changes_;
  copy->markers_ = markers_;
  copy->annotations_ = annotations_;
  copy->tracks_.reserve(tracks_.size());
  for (const auto& track : tracks_) copy->tracks_.push_back(std::make_unique<Track>(*track));
  copy->labels_ = labels_;
  copy->args_ = args_;
  copy->flows_ = flows_;
  copy->flows_by_end_ = flows_by_end_;
  copy->track_index_ = track_index_;
  // The index by op points at tracks: the copy's own, at the same places.
  for (const auto& [key, tracks] : tracks_by_op_) {
    std::vector<const Track*>& mine = copy->tracks_by_op_[key];
    for (const Track* t : tracks) mine.push_back(copy->tracks_[t->id()].get());
  }
  copy->dropped_ = dropped_;
  copy->duration_ns_ = duration_ns_;
  return copy;
}

void Model::AddEvent(const record::TraceEvent& e) {
  TrackFor(TrackKeyOf(e)).Append(e.start_ns, e.end_ns, e.element, e.value, e.calls);
  duration_ns_ = std::max(duration_ns_, e.end_ns);
}

EventRef Model::AddSpan(const TrackKey& key, int64_t start, int64_t end, uint32_t value,
                        uint32_t label, uint32_t args) {
  Track& track = TrackFor(key);
  track.Append(start, end, 0, value, 1, label, args);
  duration_ns_ = std::max(duration_ns_, end);
  return {track.id(), static_cast<uint32_t>(track.size() - 1)};
}

std::string_view Model::SpanName(const Track& track, size_t i) const {
  const uint32_t id = track.label(i);
  return id != 0 ? std::string_view(labels_[id].name) : record::KindLabel(track.key().kind);
}

std::vector<Flow> Model::FlowsOf(EventRef event) const {
  std::vector<Flow> out;
  auto from = std::lower_bound(flows_.begin(), flows_.end(), event,
                               [](const Flow& f, const EventRef& e) { return f.from < e; });
  for (; from != flows_.end() && from->from == event; ++from) out.push_back(*from);
  auto to = std::lower_bound(flows_by_end_.begin(), flows_by_end_.end(), event,
                             [this](uint32_t f, const EventRef& e) { return flows_[f].to < e; });
  for (; to != flows_by_end_.end() && flows_[*to].to == event; ++to) out.push_back(flows_[*to]);
  return out;
}

void Model::Finish() {
  for (auto& t : tracks_) t->ShrinkToFit();
  // An importer adds instants thread by thread; the timeline finds the ones in view by time.
  std::stable_sort(markers_.begin(), markers_.end(),
                   [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
  args_.ShrinkToFit();
  std::sort(flows_.begin(), flows_.end(),
            [](const Flow& a, const Flow& b) { return a.from < b.from; });
  flows_.shrink_to_fit();
  flows_by_end_.resize(flows_.size());
  for (size_t i = 0; i < flows_.size(); ++i) flows_by_end_[i] = static_cast<uint32_t>(i);
  std::sort(flows_by_end_.begin(), flows_by_end_.end(),
            [this](uint32_t a, uint32_t b) { return flows_[a].to < flows_[b].to; });
}

size_t Model::event_count() const {
  size_t n = 0;
  for (const auto& t : tracks_) n += t->size();
  return n;
}

size_t Model::memory_bytes() const {
  size_t n = sizeof(Model) + labels_.memory_bytes() + args_.memory_bytes() +
             flows_.capacity() * sizeof(Flow) + flows_by_end_.capacity() * sizeof(uint32_t);
  for (const auto& t : tracks_) n += t->memory_bytes();
  return n;
}

std::vector<const record::StageDef*> Model::StagesInOrder() const {
  std::vector<const record::StageDef*> out;
  for (const auto& [id, s] : stages_) out.push_back(&s);
  std::stable_sort(out.begin(), out.end(),
                   [](const auto* a, const auto* b) { return a->position < b->position; });
  return out;
}

const record::StageDef* Model::Stage(uint16_t id) const {
  auto it = stages_.find(id);
  return it == stages_.end() ? nullptr : &it->second;
}

const record::StageDef* Model::StageNamed(const std::string& name) const {
  for (const auto& [id, s] : stages_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const record::StageDef* Model::LastStage() const {
  const record::StageDef* last = nullptr;
  for (const auto& [id, s] : stages_) {
    if (s.depth == 0 && (!last || s.position > last->position)) last = &s;
  }
  return last;
}

std::vector<const record::StageDef*> Model::SubPipelineOf(const record::StageDef& op) const {
  const std::vector<const record::StageDef*> stages = StagesInOrder();
  auto it = std::find(stages.begin(), stages.end(), &op);
  std::vector<const record::StageDef*> sub;
  if (it == stages.end()) return sub;
  for (++it; it != stages.end() && (*it)->depth > op.depth; ++it) {
    if ((*it)->depth == op.depth + 1) sub.push_back(*it);
  }
  return sub;
}

const record::StageDef* Model::ParentOf(const record::StageDef& stage) const {
  if (stage.depth == 0) return nullptr;
  const record::StageDef* parent = nullptr;
  for (const record::StageDef* s : StagesInOrder()) {
    if (s == &stage) return parent;
    if (s->depth < stage.depth) parent = s;
  }
  return nullptr;
}

std::string Model::ThreadName(uint32_t id) const {
  auto it = threads_.find(id);
  return it == threads_.end() ? "thread " + std::to_string(id) : it->second;
}

const std::vector<const Track*>& Model::TracksOf(EventKind kind, uint16_t op) const {
  static const std::vector<const Track*> kNone;
  auto it = tracks_by_op_.find((static_cast<uint32_t>(kind) << 16) | op);
  return it == tracks_by_op_.end() ? kNone : it->second;
}

const Track* Model::FindTrack(const TrackKey& key) const {
  auto it = track_index_.find(PackTrackKey(key));
  return it == track_index_.end() ? nullptr : tracks_[it->second].get();
}

int64_t Model::KnobValueAt(uint16_t op, const std::string& knob, int64_t t, int64_t initial) const {
  int64_t v = initial;
  for (const auto& c : knob_changes_) {
    if (c.time_ns > t) break;
    if (c.op == op && c.knob == knob) v = c.to;
  }
  return v;
}

double Model::KnobAverage(uint16_t op, const std::string& knob, int64_t t0, int64_t t1,
                          int64_t initial) const {
  if (t1 <= t0) return static_cast<double>(KnobValueAt(op, knob, t0, initial));
  int64_t v = KnobValueAt(op, knob, t0, initial);
  int64_t at = t0;
  double area = 0;
  for (const auto& c : knob_changes_) {
    if (c.op != op || c.knob != knob || c.time_ns <= t0) continue;
    if (c.time_ns >= t1) break;
    area += static_cast<double>(v) * static_cast<double>(c.time_ns - at);
    at = c.time_ns;
    v = c.to;
  }
  area += static_cast<double>(v) * static_cast<double>(t1 - at);
  return area / static_cast<double>(t1 - t0);
}

}  // namespace pipescope::trace
