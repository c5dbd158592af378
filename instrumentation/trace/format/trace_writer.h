#pragma once
// Writes a .pstrace file while a run records: a record::TraceSink that cuts a chunk every
// second or 256 Ki events, so a process killed mid-run leaves a file that opens up to its
// last complete chunk. The final batch adds the footer (index, per-track totals) and the
// trailer. Write errors (a full disk) end writing and are kept in status(); recording
// itself goes on.

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"
#include "instrumentation/record/trace_sink.h"
#include "instrumentation/trace/format/pstrace.pb.h"
#include "instrumentation/trace/format/record_framing.h"
#include "instrumentation/trace/span_tables.h"
#include "instrumentation/trace/track.h"

namespace pipescope::pstrace {

class TraceWriter : public record::TraceSink {
 public:
  struct Options {
    int64_t chunk_period_ns = 1'000'000'000;
    size_t chunk_events = 256 * 1024;
    int zstd_level = 1;
  };

  // Creates (truncates) `path` and writes the magic and the header.
  static engine::Result<std::unique_ptr<TraceWriter>> Create(const std::string& path,
                                                             const TraceHeader& header,
                                                             Options options);
  static engine::Result<std::unique_ptr<TraceWriter>> Create(const std::string& path,
                                                             const TraceHeader& header) {
    return Create(path, header, Options{});
  }
  ~TraceWriter() override;

  void Consume(const record::TraceBatch& batch, bool final) override;

  // What an imported trace's events carry beyond a recording's: `details` parallel to
  // batch.events (or empty), the span names first used in this batch, and flows whose
  // spans are all in this batch or earlier ones.
  struct EventDetail {
    uint8_t depth = 0;
    uint32_t label = 0;
    std::string_view args;
  };
  struct Extras {
    std::vector<EventDetail> details;
    std::vector<std::pair<uint32_t, trace::SpanLabel>> labels;  // id, name and category
    std::vector<FlowRecord> flows;
  };
  void ConsumeWithExtras(const record::TraceBatch& batch, const Extras& extras, bool final);
  // The first write error, if any.
  const engine::Status& status() const { return status_; }
  uint64_t bytes_written() const { return offset_; }
  uint64_t events_written() const { return total_events_; }

 private:
  struct PendingTrack {
    std::vector<record::TraceEvent> events;
    std::vector<uint32_t> labels;   // parallel to events once one has a name
    std::vector<std::string> args;  // likewise for arguments
  };

  TraceWriter(std::FILE* file, std::string path, Options options);
  void WriteChunk(int64_t time_ns);
  void WriteFooter(int64_t duration_ns);
  void WriteRecord(RecordType type, const std::string& payload);

  std::FILE* file_;
  const std::string path_;
  const Options options_;
  engine::Status status_;
  uint64_t offset_ = 0;
  uint32_t sequence_ = 0;
  EventChunk chunk_;                          // metadata waiting for the next chunk
  std::map<uint64_t, PendingTrack> pending_;  // by packed track key
  size_t pending_events_ = 0;
  int64_t last_chunk_ns_ = 0;
  uint64_t dropped_total_ = 0;
  uint64_t total_events_ = 0;
  TraceFooter footer_;
  std::map<uint64_t, uint64_t> track_totals_;
  bool finished_ = false;
};

}  // namespace pipescope::pstrace
