// Perfetto's protobuf trace: a Trace message written packet by packet (each one a
// length-delimited field 1), so a trace of any size streams out. One process track, a
// child track per exported lane (counter tracks for counters), a "markers" track for
// markers, knob changes and notes; each span a SLICE_BEGIN / SLICE_END pair carrying its
// element id as a debug annotation and as a flow id, which links the element's spans
// across ops. All packets are on one sequence and use no interning.
#include <memory>

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
    if (lanes[l].counter) d.mutable_track_descriptor()->mutable_counter();
    RETURN_IF_ERROR(writer.Write(d));
  }

  for (size_t l = 0; l < lanes.size(); ++l) {
    const ExportLane& lane = lanes[l];
    const Track& track = *lane.track;
    const uint64_t uuid = kFirstLaneTrack + l;
    const std::string category = record::KindLabel(track.key().kind);
    for (size_t i = 0; i < track.size(); ++i) {
      TracePacket begin = Packet(track.start(i));
      auto* e = begin.mutable_track_event();
      e->set_track_uuid(uuid);
      if (lane.counter) {
        e->set_type(TrackEvent::TYPE_COUNTER);
        e->set_counter_value(track.value(i));
        RETURN_IF_ERROR(writer.Write(begin));
        continue;
      }
      e->set_type(TrackEvent::TYPE_SLICE_BEGIN);
      e->set_name(lane.slice_name);
      e->add_categories(category);
      if (const uint64_t element = track.element(i); element != 0) {
        e->add_flow_ids(element);
        auto* a = e->add_debug_annotations();
        a->set_name("element");
        a->set_int_value(static_cast<int64_t>(element));
      }
      if (const uint32_t calls = track.calls(i); calls > 1) {  // a run (see FORMAT.md)
        auto* a = e->add_debug_annotations();
        a->set_name("calls");
        a->set_int_value(calls);
      }
      RETURN_IF_ERROR(writer.Write(begin));
      TracePacket end = Packet(track.end(i));
      end.mutable_track_event()->set_type(TrackEvent::TYPE_SLICE_END);
      end.mutable_track_event()->set_track_uuid(uuid);
      RETURN_IF_ERROR(writer.Write(end));
    }
  }
  for (const ExportInstant& instant : ExportInstants(model))
    RETURN_IF_ERROR(writer.Write(Instant(instant.time_ns, instant.name, instant.category)));
  RETURN_IF_ERROR(writer.Flush());
  return file->Commit();
}

}  // namespace pipescope::trace
