// Perfetto's protobuf trace: a Trace message written packet by packet (each one a
// length-delimited field 1), so a trace of any size streams out. One process track, a
// child track per exported lane (counter tracks for counters), a "markers" track for
// markers, knob changes and notes; each span a SLICE_BEGIN / SLICE_END pair carrying its
// element id as a debug annotation and as a flow id, which links the element's spans
// across ops. An imported trace's lanes are its threads and GPU streams, with nested
// slices as nested begin/end pairs on one track and its flows from span to span. Slice
// names and categories are interned (InternedData on the one sequence).
#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>

#include "instrumentation/trace/export/export_lanes.h"
#include "instrumentation/trace/export/output_file.h"
#include "instrumentation/trace/export/perfetto_trace.pb.h"
#include "instrumentation/trace/export/trace_export.h"

namespace pipescope::trace {
namespace {

constexpr uint32_t kSequence = 1;
constexpr uint64_t kProcessTrack = 1;
constexpr uint64_t kMarkerTrack = 2;
constexpr uint64_t kFirstLaneTrack = 16;

using perfetto::TracePacket;
using perfetto::TrackEvent;

class PacketWriter {
 public:
  PacketWriter(OutputFile& file, const ExportProgress& progress, size_t total)
      : buffer_(file, progress, total) {}

  // As Trace.packet (field 1, length-delimited): tag, length, bytes.
  engine::Status Write(const TracePacket& packet) {
    packet.SerializeToString(&scratch_);
    std::string& out = buffer_.text();
    out += static_cast<char>(0x0A);
    for (uint64_t v = scratch_.size();; v >>= 7) {
      if (v < 0x80) {
        out += static_cast<char>(v);
        break;
      }
      out += static_cast<char>((v & 0x7F) | 0x80);
    }
    out += scratch_;
    return buffer_.ItemDone();
  }
  engine::Status Flush() { return buffer_.Flush(); }

 private:
  ExportBuffer buffer_;
  std::string scratch_;
};

TracePacket Packet(int64_t timestamp) {
  TracePacket p;
  p.set_trusted_packet_sequence_id(kSequence);
  if (timestamp >= 0) p.set_timestamp(static_cast<uint64_t>(timestamp));
  return p;
}

TracePacket Descriptor(uint64_t uuid, uint64_t parent, const std::string& name) {
  TracePacket p = Packet(-1);
  auto* d = p.mutable_track_descriptor();
  d->set_uuid(uuid);
  if (parent != 0) d->set_parent_uuid(parent);
  d->set_name(name);
  return p;
}

TracePacket Instant(int64_t t, const std::string& name, const char* category) {
  TracePacket p = Packet(t);
  auto* e = p.mutable_track_event();
  e->set_type(TrackEvent::TYPE_INSTANT);
  e->set_track_uuid(kMarkerTrack);
  e->set_name(name);
  e->add_categories(category);
  return p;
}

}  // namespace

engine::Status ExportPerfetto(const Model& model, const std::string& path,
                              const ExportProgress& progress) {
  ASSIGN_OR_RETURN(auto file, OutputFile::Create(path));
  const std::vector<ExportLane> lanes = ExportLanes(model);
  PacketWriter writer(*file, progress, 2 * ExportedEvents(lanes));  // begin and end packets

  TracePacket process = Packet(-1);
  process.set_sequence_flags(1);  // the sequence starts here
  auto* pd = process.mutable_track_descriptor();
  pd->set_uuid(kProcessTrack);
  pd->mutable_process()->set_pid(1);
  pd->mutable_process()->set_process_name("pipescope: " + model.run_info().pipeline_name);
  RETURN_IF_ERROR(writer.Write(process));
  RETURN_IF_ERROR(writer.Write(Descriptor(kMarkerTrack, kProcessTrack, "markers, knobs, notes")));
  for (size_t l = 0; l < lanes.size(); ++l) {
    TracePacket d = Descriptor(kFirstLaneTrack + l, kProcessTrack, lanes[l].name);
    if (lanes[l].counter)
      d.mutable_track_descriptor()->mutable_counter()->set_unit_name(lanes[l].unit);
    RETURN_IF_ERROR(writer.Write(d));
  }

  // Names and categories interned: a real trace repeats a few thousand names over
  // hundreds of thousands of slices.
  std::unordered_map<std::string, uint64_t> name_iids, category_iids;
  auto intern = [](std::unordered_map<std::string, uint64_t>& table, const std::string& text,
                   auto* added) {
    auto [it, is_new] = table.try_emplace(text, table.size() + 1);
    if (is_new) {
      auto* entry = added->Add();
      entry->set_iid(it->second);
      entry->set_name(text);
    }
    return it->second;
  };
  // Flow ids by span: an imported trace's flows start at one span and end at another.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<uint64_t, bool>>> flows_at;
  for (size_t f = 0; f < model.flows().size(); ++f) {
    const Flow& link = model.flows()[f];
    flows_at[{link.from.track, link.from.index}].push_back({f + 1, false});
    flows_at[{link.to.track, link.to.index}].push_back({f + 1, true});
  }
  // Element flows (a recording's) after them; a recording has no other flows.
  const uint64_t element_flow_base = model.flows().empty() ? 0 : model.flows().size() + 1;
  uint64_t next_uuid = kFirstLaneTrack + lanes.size();  // overlapping tracks

  for (size_t l = 0; l < lanes.size(); ++l) {
    const ExportLane& lane = lanes[l];
    const uint64_t uuid = kFirstLaneTrack + l;
    // Open slices of this lane: begin/end pairs must nest on one track. A span that
    // overlaps one still open without fitting inside it (a profiler's rounding leaves a
    // child a few ns past its parent), or whose parent did, goes whole to an "overlapping"
    // track of the lane, with its depth on the thread as an annotation.
    std::vector<int64_t> open_ends;
    std::vector<std::pair<uint64_t, int64_t>> overflow;  // (track, its last end)
    auto close_until = [&](int64_t t) -> engine::Status {
      while (!open_ends.empty() && open_ends.back() <= t) {
        TracePacket end = Packet(open_ends.back());
        end.mutable_track_event()->set_type(TrackEvent::TYPE_SLICE_END);
        end.mutable_track_event()->set_track_uuid(uuid);
        open_ends.pop_back();
        RETURN_IF_ERROR(writer.Write(end));
      }
      return engine::Status::Ok();
    };
    for (const LaneSpan& span : SpansInNestingOrder(lane)) {
      const Track& track = *span.track;
      const size_t i = span.index;
      TracePacket begin = Packet(track.start(i));
      auto* e = begin.mutable_track_event();
      e->set_track_uuid(uuid);
      if (lane.counter) {
        e->set_type(TrackEvent::TYPE_COUNTER);
        if (WholeReadings(track.key().kind)) {
          e->set_counter_value(track.value(i));
        } else {
          e->set_double_counter_value(CounterReading(span));
        }
        RETURN_IF_ERROR(writer.Write(begin));
        continue;
      }
      RETURN_IF_ERROR(close_until(track.start(i)));
      // On the thread's track the open slices give the depth: a span goes there when it
      // fits in the innermost open one and that makes its depth the one it has.
      const bool nests = (open_ends.empty() || track.end(i) <= open_ends.back()) &&
                         open_ends.size() == track.key().depth;
      uint64_t on = uuid;
      if (!nests) {
        auto free = std::find_if(overflow.begin(), overflow.end(),
                                 [&](const auto& o) { return o.second <= track.start(i); });
        if (free == overflow.end()) {
          overflow.push_back({next_uuid++, 0});
          free = overflow.end() - 1;
          RETURN_IF_ERROR(
              writer.Write(Descriptor(free->first, kProcessTrack, lane.name + " (overlapping)")));
        }
        free->second = track.end(i);
        on = free->first;
        e->set_track_uuid(on);
        auto* a = e->add_debug_annotations();
        a->set_name("depth");
        a->set_int_value(track.key().depth);
      }
      begin.set_sequence_flags(2);  // uses interned names
      e->set_type(TrackEvent::TYPE_SLICE_BEGIN);
      e->set_name_iid(intern(name_iids, SliceName(model, lane, span),
                             begin.mutable_interned_data()->mutable_event_names()));
      e->add_category_iids(intern(category_iids, SliceCategory(model, span),
                                  begin.mutable_interned_data()->mutable_event_categories()));
      if (const uint64_t element = track.element(i); element != 0) {
        e->add_flow_ids(element_flow_base + element);
        auto* a = e->add_debug_annotations();
        a->set_name("element");
        a->set_int_value(static_cast<int64_t>(element));
      }
      if (const uint32_t calls = track.calls(i); calls > 1) {  // a run (see FORMAT.md)
        auto* a = e->add_debug_annotations();
        a->set_name("calls");
        a->set_int_value(calls);
      }
      if (auto it = flows_at.find({track.id(), static_cast<uint32_t>(i)}); it != flows_at.end()) {
        for (const auto& [id, ends_here] : it->second) {
          if (ends_here)
            e->add_terminating_flow_ids(id);
          else
            e->add_flow_ids(id);
        }
      }
      RETURN_IF_ERROR(writer.Write(begin));
      if (nests) {
        open_ends.push_back(track.end(i));
      } else {
        TracePacket end = Packet(track.end(i));
        end.mutable_track_event()->set_type(TrackEvent::TYPE_SLICE_END);
        end.mutable_track_event()->set_track_uuid(on);
        RETURN_IF_ERROR(writer.Write(end));
      }
    }
    RETURN_IF_ERROR(close_until(std::numeric_limits<int64_t>::max()));
  }
  for (const ExportInstant& instant : ExportInstants(model))
    RETURN_IF_ERROR(writer.Write(Instant(instant.time_ns, instant.name, instant.category)));
  RETURN_IF_ERROR(writer.Flush());
  return file->Commit();
}

}  // namespace pipescope::trace
