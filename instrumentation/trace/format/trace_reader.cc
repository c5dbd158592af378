#include "instrumentation/trace/format/trace_reader.h"

#include <google/protobuf/text_format.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "instrumentation/record/crc32c.h"
#include "instrumentation/trace/format/byte_source.h"
#include "instrumentation/trace/format/column_codec.h"
#include "instrumentation/trace/format/legacy_stage_traits.h"
#include "instrumentation/trace/format/record_framing.h"

namespace pipescope::pstrace {
namespace {

using engine::Status;
using engine::StatusCode;

Status Corrupt(const std::string& where, const std::string& what) {
  return Status(StatusCode::kDataLoss, where + ": " + what);
}

bool KnownKind(uint32_t kind) {
  switch (static_cast<record::EventKind>(kind)) {
    case record::EventKind::kCall:
    case record::EventKind::kWork:
    case record::EventKind::kWaitInput:
    case record::EventKind::kBlocked:
    case record::EventKind::kIdle:
    case record::EventKind::kInputWait:
    case record::EventKind::kStep:
    case record::EventKind::kCallEnd:
    case record::EventKind::kLockWait:
    case record::EventKind::kReceive:
    case record::EventKind::kGpuKernel:
    case record::EventKind::kGpuMemcpy:
    case record::EventKind::kGpuMemset:
    case record::EventKind::kBufferLevel:
    case record::EventKind::kCpuTime:
    case record::EventKind::kDeviceUtil:
    case record::EventKind::kStorageBusy:
      return true;
    case record::EventKind::kRunCalls:  // between a thread and its collector only
      return false;
  }
  return false;
}

// The file's span label ids, as the model's (they differ when a model held labels already).
using LabelIds = std::vector<uint32_t>;

// Checks a track's identity and finds (or makes) its track in the model.
engine::Result<trace::Track*> TrackOf(const TrackColumns& t, trace::Model& model,
                                      const std::string& where) {
  if (!KnownKind(t.kind())) return Corrupt(where, "unknown event kind " + std::to_string(t.kind()));
  if (t.op() > 0xFFFF) return Corrupt(where, "op id " + std::to_string(t.op()) + " out of range");
  if (t.depth() > trace::kMaxDepth)
    return Corrupt(where, "depth " + std::to_string(t.depth()) + " out of range");
  // Every event has at least one byte in `starts`, so the count is bounded by the data.
  if (t.count() > t.starts().size()) {
    return Corrupt(where, "track claims " + std::to_string(t.count()) + " events in " +
                              std::to_string(t.starts().size()) + " bytes");
  }
  const trace::TrackKey key{static_cast<record::EventKind>(t.kind()), static_cast<uint16_t>(t.op()),
                            t.thread(), static_cast<uint8_t>(t.depth())};
  return &model.TrackFor(key);
}

// Decodes one track's event columns into `track`. It touches nothing else but `args`
// (only when the track has arguments) and `latest_end`, so different tracks decode at once.
Status DecodeEvents(const TrackColumns& t, int64_t base_ns, const LabelIds& label_ids,
                    trace::Track& track, trace::ArgsTable& args, int64_t& latest_end,
                    const std::string& where) {
  VarintReader starts(t.starts()), durations(t.durations()), elements(t.elements()),
      values(t.values()), extra_calls(t.extra_calls()), labels(t.labels()),
      arg_lengths(t.arg_lengths());
  size_t arg_at = 0;
  int64_t previous_end = base_ns;
  uint64_t previous_element = 0;
  const bool has_durations = !t.durations().empty(), has_elements = !t.elements().empty(),
             has_values = !t.values().empty(), has_extra_calls = !t.extra_calls().empty(),
             has_labels = !t.labels().empty(), has_args = !t.arg_lengths().empty();
  for (uint32_t i = 0; i < t.count(); ++i) {
    uint64_t s = 0, d = 0, e = 0, v = 0, x = 0;
    if (!starts.Next(s) || (has_durations && !durations.Next(d)) ||
        (has_elements && !elements.Next(e)) || (has_values && !values.Next(v)) ||
        (has_extra_calls && !extra_calls.Next(x))) {
      return Corrupt(where, "event column ends at event " + std::to_string(i) + " of " +
                                std::to_string(t.count()));
    }
    if (d > (uint64_t{1} << 62) || v > (uint64_t{1} << 62) || x >= UINT32_MAX) {
      return Corrupt(
          where, "event " + std::to_string(i) + " has an impossible duration, value or call count");
    }
    // Wrapping arithmetic: hostile deltas give nonsense times, never undefined behaviour.
    const auto start = static_cast<int64_t>(static_cast<uint64_t>(previous_end) +
                                            static_cast<uint64_t>(UnZigZag(s)));
    const auto end = static_cast<int64_t>(static_cast<uint64_t>(start) + d);
    // Times beyond 2^50 ns (13 days) are not a recording: rejecting them keeps every sum
    // over a track's (non-overlapping) spans far from overflow.
    constexpr int64_t kMaxTime = int64_t{1} << 50;
    if (start < -kMaxTime || start > kMaxTime || end < -kMaxTime || end > kMaxTime) {
      return Corrupt(where, "event " + std::to_string(i) + " lies outside any plausible recording");
    }
    const uint64_t element = previous_element + static_cast<uint64_t>(UnZigZag(e));
    uint64_t label = 0, arg_length = 0;
    if ((has_labels && !labels.Next(label)) || (has_args && !arg_lengths.Next(arg_length))) {
      return Corrupt(where, "name or argument column ends at event " + std::to_string(i));
    }
    if (label >= label_ids.size() || (label != 0 && label_ids[label] == 0)) {
      return Corrupt(where, "event " + std::to_string(i) + " names label " + std::to_string(label) +
                                ", which no chunk so far defines");
    }
    if (arg_length > t.arg_text().size() - arg_at) {
      return Corrupt(where, "event " + std::to_string(i) + "'s arguments run past their column");
    }
    const uint32_t arg_id =
        arg_length == 0 ? 0 : args.Add(std::string_view(t.arg_text()).substr(arg_at, arg_length));
    arg_at += arg_length;
    track.Append(start, end, element, v, static_cast<uint32_t>(x + 1), label_ids[label], arg_id);
    latest_end = std::max(latest_end, end);
    previous_end = end;
    previous_element = element;
  }
  if (!starts.at_end() || !durations.at_end() || !elements.at_end() || !values.at_end() ||
      !extra_calls.at_end() || !labels.at_end() || !arg_lengths.at_end() ||
      arg_at != t.arg_text().size()) {
    return Corrupt(where, "event columns hold more than " + std::to_string(t.count()) + " events");
  }
  return Status::Ok();
}

// Below this many events a chunk decodes on the reading thread alone: starting threads
// would cost more than they save.
constexpr uint64_t kParallelDecodeEvents = 1 << 16;

// Decodes a chunk's tracks into the model, on several threads when the chunk is large, its
// tracks are distinct and none has arguments (the argument table is shared). The first
// failing track, in file order, is the answer, as when decoding one by one.
Status DecodeTracks(const EventChunk& chunk, const std::vector<trace::Track*>& targets,
                    const LabelIds& label_ids, trace::Model& model, const std::string& where) {
  const auto count = static_cast<size_t>(chunk.tracks_size());
  std::vector<Status> statuses(count, Status::Ok());
  std::vector<int64_t> latest_ends(count, INT64_MIN);
  const auto decode = [&](size_t i) {
    statuses[i] = DecodeEvents(chunk.tracks(static_cast<int>(i)), chunk.base_ns(), label_ids,
                               *targets[i], model.args(), latest_ends[i], where);
  };
  uint64_t events = 0;
  bool independent = true;
  for (const auto& t : chunk.tracks()) {
    events += t.count();
    independent = independent && t.arg_text().empty();
  }
  std::vector<trace::Track*> distinct = targets;
  std::sort(distinct.begin(), distinct.end());
  independent =
      independent && std::adjacent_find(distinct.begin(), distinct.end()) == distinct.end();
  const size_t threads =
      std::min<size_t>({count, std::max(1u, std::thread::hardware_concurrency()), 4});
  if (!independent || events < kParallelDecodeEvents || threads < 2) {
    for (size_t i = 0; i < count; ++i) {
      decode(i);
      if (!statuses[i].ok()) return statuses[i];
    }
  } else {
    // The largest tracks first, taken by whichever thread is free.
    std::vector<size_t> order(count);
    for (size_t i = 0; i < count; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return chunk.tracks(static_cast<int>(a)).count() > chunk.tracks(static_cast<int>(b)).count();
    });
    std::atomic<size_t> next{0};
    const auto work = [&] {
      for (size_t k = next++; k < count; k = next++) decode(order[k]);
    };
    std::vector<std::thread> helpers;
    for (size_t h = 1; h < threads; ++h) helpers.emplace_back(work);
    work();
    for (auto& h : helpers) h.join();
    for (const Status& status : statuses) RETURN_IF_ERROR(status);
  }
  for (const int64_t end : latest_ends) model.ExtendDuration(end);
  return Status::Ok();
}

// A flow's end: its track and index, which must exist by the flow's chunk.
std::optional<trace::EventRef> FlowEnd(const trace::Model& model, uint64_t packed, uint32_t index) {
  const trace::TrackKey key = trace::UnpackTrackKey(packed);
  const trace::Track* track = model.FindTrack(key);
  if (!track || index >= track->size()) return std::nullopt;
  return trace::EventRef{track->id(), index};
}

Status ApplyChunk(const EventChunk& chunk, LabelIds& label_ids, trace::Model& model,
                  const std::string& where) {
  for (const auto& l : chunk.labels()) {
    if (l.id() == 0 || l.id() > (1u << 24)) {
      return Corrupt(where, "span label id " + std::to_string(l.id()) + " out of range");
    }
    if (l.id() >= label_ids.size()) label_ids.resize(l.id() + 1, 0);
    label_ids[l.id()] = model.labels().Intern(l.name(), l.category());
  }
  for (const auto& s : chunk.stages()) {
    if (s.id() > 0xFFFF)
      return Corrupt(where, "stage id " + std::to_string(s.id()) + " out of range");
    record::StageDef def;
    def.id = static_cast<uint16_t>(s.id());
    def.name = s.name();
    def.kind = s.kind();
    def.depth = s.depth();
    def.position = s.position();
    def.input = s.input() >= 0 && s.input() <= 0xFFFF ? s.input() : -1;
    def.asynchronous = s.asynchronous();
    def.parallelism = s.parallelism();
    def.buffer_size = s.buffer_size();
    def.traits = s.traits() != 0 ? s.traits() : trace::LegacyStageTraits(def.kind);
    model.AddStage(def);
  }
  for (const auto& t : chunk.threads()) model.AddThread({t.id(), t.name()});
  for (const auto& k : chunk.knob_changes()) {
    model.AddKnobChange(
        {k.time_ns(), static_cast<uint16_t>(k.op()), k.knob(), k.from(), k.to(), k.who()});
  }
  for (const auto& m : chunk.markers()) model.AddMarker({m.time_ns(), m.text()});
  for (const auto& a : chunk.annotations()) {
    model.AddAnnotation({a.start_ns(), std::max(a.start_ns(), a.end_ns()), a.text(), a.author()});
  }
  constexpr int64_t kMaxTime = int64_t{1} << 50;
  if (chunk.base_ns() < 0 || chunk.base_ns() > kMaxTime)
    return Corrupt(where, "base time out of range");
  std::vector<trace::Track*> targets;
  targets.reserve(static_cast<size_t>(chunk.tracks_size()));
  for (const auto& t : chunk.tracks()) {
    ASSIGN_OR_RETURN(trace::Track* const track, TrackOf(t, model, where));
    targets.push_back(track);
  }
  RETURN_IF_ERROR(DecodeTracks(chunk, targets, label_ids, model, where));
  for (const auto& f : chunk.flows()) {
    const auto from = FlowEnd(model, f.from_track(), f.from_index());
    const auto to = FlowEnd(model, f.to_track(), f.to_index());
    if (!from || !to) return Corrupt(where, "a flow names a span the file does not hold");
    if (f.label() >= label_ids.size()) return Corrupt(where, "a flow names an unknown label");
    model.AddFlow({*from, *to, label_ids[f.label()]});
  }
  model.SetDropped(chunk.dropped_total());
  model.ExtendDuration(std::clamp<int64_t>(chunk.time_ns(), 0, int64_t{1} << 50));
  return Status::Ok();
}

}  // namespace

void ApplyHeader(const TraceHeader& header, trace::Model& model) {
  trace::RunInfo& info = model.run_info();
  info.pipeline_name = header.spec().name();
  google::protobuf::TextFormat::PrintToString(header.spec(), &info.spec_text);
  info.device = header.device();
  info.simulated = header.simulated();
  info.cost_model = header.cost_model();
  info.imported_from = header.imported_from();
  info.machine.hostname = header.machine().hostname();
  info.machine.cpu_cores =
      static_cast<int>(std::min<uint32_t>(header.machine().cpu_cores(), 1u << 16));
  info.machine.cpu_budget =
      static_cast<int>(std::min<uint32_t>(header.machine().cpu_budget(), 1u << 16));
  info.machine.cpu_budget_is_this_machines =
      header.imported_from().empty() && header.spec().budget().cpu_cores() <= 0;
  info.machine.memory_bytes = header.machine().memory_bytes();
  info.machine.cpu_model = header.machine().cpu_model();
  info.machine.gpu = header.machine().gpu();
  info.spec_path = header.spec_path();
  info.producer = header.producer();
  info.clock.source = header.clock().source();
  info.clock.ns_per_tick = header.clock().ns_per_tick();
  info.clock.origin_monotonic_ns = header.clock().origin_monotonic_ns();
  info.clock.origin_unix_ns = header.clock().origin_unix_ns();
  info.clock.gpu_origin_ns = header.clock().gpu_origin_ns();
  info.clock.gpu_offset_ns = header.clock().gpu_offset_ns();
  info.clock.gpu_scale = header.clock().gpu_scale();
  info.clock.gpu_uncertainty_ns = header.clock().gpu_uncertainty_ns();
}

namespace {

engine::Result<LoadedTrace> ReadTrace(ByteSource& bytes, const std::string& name,
                                      const ReadOptions& options) {
  LoadedTrace out;
  out.model = std::make_unique<trace::Model>();
  if (bytes.size() < sizeof kMagic) {
    return Corrupt(name, "not a Pipescope trace (the file does not start with the .pstrace magic)");
  }
  ASSIGN_OR_RETURN(const std::string_view magic, bytes.Read(0, sizeof kMagic));
  if (std::memcmp(magic.data(), kMagic, sizeof kMagic) != 0) {
    return Corrupt(name, "not a Pipescope trace (the file does not start with the .pstrace magic)");
  }
  size_t pos = sizeof kMagic;
  bool have_header = false;
  int chunks = 0;
  std::string raw;
  EventChunk chunk;
  LabelIds label_ids{0};
  while (pos < bytes.size()) {
    const std::string where = name + ": record at byte " + std::to_string(pos);
    if (bytes.size() - pos == kTrailerBytes && out.complete) break;
    if (bytes.size() - pos < kRecordHeaderBytes) {
      out.warnings.push_back(where +
                             ": the file ends inside a record header (the recording was cut "
                             "off); loaded " +
                             std::to_string(chunks) + " complete chunks");
      break;
    }
    ASSIGN_OR_RETURN(const std::string_view header_bytes, bytes.Read(pos, kRecordHeaderBytes));
    const char* head = header_bytes.data();
    const auto type = static_cast<RecordType>(static_cast<uint8_t>(head[0]));
    const uint32_t length = LoadLe32(head + 4);
    const uint32_t crc = LoadLe32(head + 8);
    if (length > kMaxRecordBytes) {
      return Corrupt(where, "record length " + std::to_string(length) + " exceeds the limit of " +
                                std::to_string(kMaxRecordBytes));
    }
    if (length > bytes.size() - pos - kRecordHeaderBytes) {
      out.warnings.push_back(where +
                             ": the file ends inside this record (the recording was cut off); "
                             "loaded " +
                             std::to_string(chunks) + " complete chunks");
      break;
    }
    ASSIGN_OR_RETURN(const std::string_view payload, bytes.Read(pos + kRecordHeaderBytes, length));
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    if (record::Crc32c(payload.data(), payload.size()) != crc) {
      return Corrupt(where, "checksum mismatch (the file is damaged)");
    }
#else
    (void)crc;
#endif
    pos += kRecordHeaderBytes + length;
    if (!have_header && type != RecordType::kHeader)
      return Corrupt(where, "the first record is not the header");
    switch (type) {
      case RecordType::kHeader: {
        if (have_header) return Corrupt(where, "a second header");
        if (!out.header.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
          return Corrupt(where, "the header does not parse");
        }
        if (out.header.format_version() < kOldestFormatVersion ||
            out.header.format_version() > kFormatVersion) {
          return Status(StatusCode::kUnimplemented,
                        where + ": format version " + std::to_string(out.header.format_version()) +
                            " (this build reads versions " + std::to_string(kOldestFormatVersion) +
                            " to " + std::to_string(kFormatVersion) + ")");
        }
        ApplyHeader(out.header, *out.model);
        have_header = true;
        break;
      }
      case RecordType::kChunk: {
        const std::string chunk_where = name + ": chunk " + std::to_string(chunks) + " at byte " +
                                        std::to_string(pos - kRecordHeaderBytes - length);
        if (payload.size() < 4) return Corrupt(chunk_where, "too short");
        const uint32_t raw_size = LoadLe32(payload.data());
        if (raw_size > kMaxChunkRawBytes ||
            raw_size > (payload.size() - 4) * kMaxCompressionRatio + 4096) {
          return Corrupt(chunk_where,
                         "declared size " + std::to_string(raw_size) + " is out of bounds");
        }
        raw.resize(raw_size);
        const size_t n =
            ZSTD_decompress(raw.data(), raw.size(), payload.data() + 4, payload.size() - 4);
        if (ZSTD_isError(n) || n != raw_size) {
          return Corrupt(chunk_where,
                         std::string("does not decompress: ") +
                             (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "size mismatch"));
        }
        chunk.Clear();
        if (!chunk.ParseFromArray(raw.data(), static_cast<int>(raw.size()))) {
          return Corrupt(chunk_where, "does not parse");
        }
        RETURN_IF_ERROR(ApplyChunk(chunk, label_ids, *out.model, chunk_where));
        ++chunks;
        break;
      }
      case RecordType::kFooter: {
        TraceFooter footer;
        if (!footer.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
          return Corrupt(where, "the footer does not parse");
        }
        out.model->ExtendDuration(std::clamp<int64_t>(footer.duration_ns(), 0, int64_t{1} << 50));
        out.complete = true;
        break;
      }
      default:
        return Corrupt(where, "unknown record type " + std::to_string(static_cast<int>(type)));
    }
    if (options.progress &&
        !options.progress(static_cast<double>(pos) / static_cast<double>(bytes.size()))) {
      return Status(StatusCode::kCancelled, name + ": loading cancelled");
    }
  }
  if (!have_header) return Corrupt(name, "the file ends before its header");
  if (out.complete && pos == bytes.size()) {  // the footer is whole; the trailer is not there
    out.warnings.push_back(name + ": the file ends before its trailer (cut off after its " +
                           "footer); every record is there");
  }
  if (!out.complete && out.warnings.empty()) {
    out.warnings.push_back(name + ": no footer (the recording did not finish); loaded " +
                           std::to_string(chunks) + " complete chunks");
  }
  out.model->Finish();
  return out;
}

}  // namespace

engine::Result<LoadedTrace> ReadTraceBytes(std::string_view bytes, const std::string& name,
                                           const ReadOptions& options) {
  MemoryBytes source(bytes);
  return ReadTrace(source, name, options);
}

engine::Result<LoadedTrace> ReadTraceFile(const std::string& path, const ReadOptions& options) {
  ASSIGN_OR_RETURN(const std::unique_ptr<FileBytes> source, FileBytes::Open(path));
  return ReadTrace(*source, path, options);
}

}  // namespace pipescope::pstrace
