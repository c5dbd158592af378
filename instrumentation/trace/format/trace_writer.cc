#include "instrumentation/trace/format/trace_writer.h"

#include <zstd.h>

#include <cerrno>
#include <cstring>

#include "instrumentation/record/crc32c.h"
#include "instrumentation/trace/format/column_codec.h"
#include "instrumentation/trace/format/record_framing.h"
#include "instrumentation/trace/model.h"

namespace pipescope::pstrace {
namespace {

// The columns of one track's events; a column whose values are all 0 stays empty.
void EncodeColumns(const std::vector<record::TraceEvent>& events, int64_t base_ns,
                   const std::vector<uint32_t>& labels, const std::vector<std::string>& args,
                   TrackColumns& out) {
  if (!labels.empty()) {
    VarintColumnWriter column(labels.size());
    for (uint32_t l : labels) column.Put(l);
    out.set_labels(column.Take());
  }
  if (!args.empty()) {
    VarintColumnWriter lengths(args.size());
    std::string text;
    for (const auto& a : args) {
      lengths.Put(a.size());
      text += a;
    }
    out.set_arg_lengths(lengths.Take());
    out.set_arg_text(std::move(text));
  }
  VarintColumnWriter starts(events.size()), durations(events.size()), elements(events.size()),
      values(events.size()), extra_calls(events.size());
  int64_t previous_end = base_ns;
  uint64_t previous_element = 0;
  bool any_element = false, any_value = false, any_duration = false, any_run = false;
  for (const auto& e : events) {
    starts.Put(ZigZag(e.start_ns - previous_end));
    const int64_t d = std::max<int64_t>(0, e.end_ns - e.start_ns);
    durations.Put(static_cast<uint64_t>(d));
    const uint64_t element = e.element;
    elements.Put(ZigZag(static_cast<int64_t>(element - previous_element)));
    values.Put(e.value);
    const uint32_t extra = e.calls > 1 ? e.calls - 1 : 0;
    extra_calls.Put(extra);
    any_duration |= d != 0;
    any_element |= element != 0;
    any_value |= e.value != 0;
    any_run |= extra != 0;
    previous_end = e.start_ns + d;
    previous_element = element;
  }
  out.set_count(static_cast<uint32_t>(events.size()));
  out.set_starts(starts.Take());  // always present: it bounds the count (FORMAT.md)
  if (any_duration) out.set_durations(durations.Take());
  if (any_element) out.set_elements(elements.Take());
  if (any_value) out.set_values(values.Take());
  if (any_run) out.set_extra_calls(extra_calls.Take());
}

}  // namespace

engine::Result<std::unique_ptr<TraceWriter>> TraceWriter::Create(const std::string& path,
                                                                 const TraceHeader& header,
                                                                 Options options) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    return engine::Status(engine::StatusCode::kNotFound,
                          "cannot create trace file '" + path + "': " + std::strerror(errno));
  }
  std::unique_ptr<TraceWriter> w(new TraceWriter(f, path, options));
  if (std::fwrite(kMagic, 1, sizeof kMagic, f) != sizeof kMagic) {
    return engine::Status(engine::StatusCode::kInternal, "cannot write to '" + path + "'");
  }
  w->offset_ = sizeof kMagic;
  TraceHeader h = header;
  h.set_format_version(kFormatVersion);
  w->WriteRecord(RecordType::kHeader, h.SerializeAsString());
  if (!w->status_.ok()) return w->status_;
  return w;
}

TraceWriter::TraceWriter(std::FILE* file, std::string path, Options options)
    : file_(file), path_(std::move(path)), options_(options) {}

TraceWriter::~TraceWriter() {
  if (file_) std::fclose(file_);
}

void TraceWriter::Consume(const record::TraceBatch& batch, bool final) {
  ConsumeWithExtras(batch, Extras{}, final);
}

void TraceWriter::ConsumeWithExtras(const record::TraceBatch& batch, const Extras& extras,
                                    bool final) {
  if (finished_) return;
  for (const auto& [id, label] : extras.labels) {
    SpanLabel* out = chunk_.add_labels();
    out->set_id(id);
    out->set_name(label.name);
    out->set_category(label.category);
  }
  for (const auto& f : extras.flows) *chunk_.add_flows() = f;
  for (const auto& s : batch.stages) {
    Stage* out = chunk_.add_stages();
    out->set_id(s.id);
    out->set_name(s.name);
    out->set_kind(s.kind);
    out->set_depth(s.depth);
    out->set_position(s.position);
    out->set_input(s.input);
    out->set_asynchronous(s.asynchronous);
    out->set_parallelism(s.parallelism);
    out->set_buffer_size(s.buffer_size);
    out->set_traits(s.traits);
  }
  for (const auto& t : batch.threads) {
    Thread* out = chunk_.add_threads();
    out->set_id(t.id);
    out->set_name(t.name);
  }
  for (const auto& k : batch.knob_changes) {
    KnobChange* out = chunk_.add_knob_changes();
    out->set_time_ns(k.time_ns);
    out->set_op(k.op);
    out->set_knob(k.knob);
    out->set_from(k.from);
    out->set_to(k.to);
    out->set_who(k.who);
  }
  for (const auto& m : batch.markers) {
    Marker* out = chunk_.add_markers();
    out->set_time_ns(m.time_ns);
    out->set_text(m.text);
  }
  for (const auto& a : batch.annotations) {
    Annotation* out = chunk_.add_annotations();
    out->set_start_ns(a.start_ns);
    out->set_end_ns(a.end_ns);
    out->set_text(a.text);
    out->set_author(a.author);
  }
  // Events come in runs of one track (a thread's ring at a time): look the track up once
  // per run.
  uint64_t last_key = UINT64_MAX;
  PendingTrack* last = nullptr;
  for (size_t i = 0; i < batch.events.size(); ++i) {
    const record::TraceEvent& e = batch.events[i];
    // An imported event's track is as given (its GPU stream, its depth); a recorded one's
    // follows from its kind.
    const EventDetail* detail = extras.details.empty() ? nullptr : &extras.details[i];
    const trace::TrackKey track =
        detail ? trace::TrackKey{e.kind, e.op, e.thread, detail->depth} : trace::TrackKeyOf(e);
    const uint64_t key = trace::PackTrackKey(track);
    if (key != last_key) {
      last_key = key;
      last = &pending_[key];
    }
    last->events.push_back(e);
    // Names and arguments: a column each once one appears, with the zeros before it.
    if (detail && (detail->label != 0 || !last->labels.empty())) {
      last->labels.resize(last->events.size() - 1, 0);
      last->labels.push_back(detail->label);
    }
    if (detail && (!detail->args.empty() || !last->args.empty())) {
      last->args.resize(last->events.size() - 1);
      last->args.emplace_back(detail->args);
    }
  }
  pending_events_ += batch.events.size();
  dropped_total_ = batch.dropped_total;
  if (final || pending_events_ >= options_.chunk_events ||
      batch.time_ns - last_chunk_ns_ >= options_.chunk_period_ns) {
    WriteChunk(batch.time_ns);
  }
  if (final) {
    WriteFooter(batch.time_ns);
    finished_ = true;
    if (file_ && std::fclose(file_) != 0 && status_.ok()) {
      status_ = engine::Status(engine::StatusCode::kInternal, "cannot finish '" + path_ + "'");
    }
    file_ = nullptr;
  }
}

void TraceWriter::WriteChunk(int64_t time_ns) {
  const int64_t base_ns = last_chunk_ns_;
  last_chunk_ns_ = time_ns;
  if (pending_events_ == 0 && chunk_.stages_size() == 0 && chunk_.threads_size() == 0 &&
      chunk_.knob_changes_size() == 0 && chunk_.markers_size() == 0 &&
      chunk_.annotations_size() == 0 && chunk_.labels_size() == 0 && chunk_.flows_size() == 0) {
    return;
  }
  chunk_.set_sequence(sequence_++);
  chunk_.set_base_ns(base_ns);
  chunk_.set_time_ns(time_ns);
  chunk_.set_dropped_total(dropped_total_);
  for (auto& [packed, track] : pending_) {
    if (track.events.empty()) continue;
    const trace::TrackKey key = trace::UnpackTrackKey(packed);
    TrackColumns* columns = chunk_.add_tracks();
    columns->set_kind(static_cast<uint32_t>(key.kind));
    columns->set_op(key.op);
    columns->set_thread(key.thread);
    columns->set_depth(key.depth);
    if (!track.labels.empty()) track.labels.resize(track.events.size(), 0);
    if (!track.args.empty()) track.args.resize(track.events.size());
    EncodeColumns(track.events, chunk_.base_ns(), track.labels, track.args, *columns);
    track_totals_[packed] += track.events.size();
    track.events.clear();
    track.labels.clear();
    track.args.clear();
  }
  const std::string raw = chunk_.SerializeAsString();
  std::string payload;
  AppendLe32(payload, static_cast<uint32_t>(raw.size()));
  const size_t bound = ZSTD_compressBound(raw.size());
  payload.resize(4 + bound);
  const size_t n =
      ZSTD_compress(payload.data() + 4, bound, raw.data(), raw.size(), options_.zstd_level);
  if (ZSTD_isError(n)) {
    status_ = engine::Status(engine::StatusCode::kInternal,
                             std::string("compressing a trace chunk: ") + ZSTD_getErrorName(n));
    return;
  }
  payload.resize(4 + n);
  ChunkIndexEntry* index = footer_.add_chunks();
  index->set_offset(offset_);
  index->set_time_ns(time_ns);
  index->set_events(pending_events_);
  total_events_ += pending_events_;
  WriteRecord(RecordType::kChunk, payload);
  if (file_) std::fflush(file_);  // a complete chunk survives the process being killed
  pending_events_ = 0;
  chunk_.Clear();
}

void TraceWriter::WriteFooter(int64_t duration_ns) {
  for (const auto& [packed, count] : track_totals_) {
    const trace::TrackKey key = trace::UnpackTrackKey(packed);
    TrackTotal* t = footer_.add_tracks();
    t->set_kind(static_cast<uint32_t>(key.kind));
    t->set_op(key.op);
    t->set_thread(key.thread);
    t->set_depth(key.depth);
    t->set_events(count);
  }
  footer_.set_total_events(total_events_);
  footer_.set_dropped_total(dropped_total_);
  footer_.set_duration_ns(duration_ns);
  const uint64_t footer_offset = offset_;
  WriteRecord(RecordType::kFooter, footer_.SerializeAsString());
  std::string trailer;
  AppendLe64(trailer, footer_offset);
  trailer.append(kEndMagic, sizeof kEndMagic);
  if (status_.ok() && file_ &&
      std::fwrite(trailer.data(), 1, trailer.size(), file_) != trailer.size()) {
    status_ = engine::Status(engine::StatusCode::kInternal, "cannot write to '" + path_ + "'");
  }
}

void TraceWriter::WriteRecord(RecordType type, const std::string& payload) {
  if (!status_.ok() || !file_) return;
  std::string head;
  head.push_back(static_cast<char>(type));
  head.append(3, '\0');
  AppendLe32(head, static_cast<uint32_t>(payload.size()));
  AppendLe32(head, record::Crc32c(payload.data(), payload.size()));
  if (std::fwrite(head.data(), 1, head.size(), file_) != head.size() ||
      std::fwrite(payload.data(), 1, payload.size(), file_) != payload.size()) {
    status_ = engine::Status(engine::StatusCode::kInternal,
                             "cannot write to '" + path_ + "': " + std::strerror(errno));
    return;
  }
  offset_ += head.size() + payload.size();
}

}  // namespace pipescope::pstrace
