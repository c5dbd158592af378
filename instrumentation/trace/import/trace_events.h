#pragma once
// Chrome's Trace Event Format, read with simdjson's on-demand parser: the events a trace
// holds, as plain records, before anything decides what they mean (framework_mapping.h).
// Object form ({"traceEvents": [...]}) and bare array form ([...]) are both read; a file
// that ends inside the array (a profiler killed mid-write) keeps the events before the cut,
// with a warning. Strings are interned: a trace repeats a few hundred names millions of
// times. Each event's "args" object is kept, minified, in an ArgsTable that the model then
// takes over. A UTF-8 byte-order mark is skipped; text after the document is reported.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/core/status.h"
#include "instrumentation/trace/span_tables.h"

namespace pipescope::trace {

struct RawEvent {
  int64_t ts_ns = 0;
  int64_t dur_ns = -1;  // X events; -1 otherwise
  int64_t tid = 0;
  union {
    int64_t id = 0;  // flow and async events
    double value;    // C events: the first numeric argument
  };
  uint32_t name = 0;  // into TraceEvents::strings
  uint32_t cat = 0;
  uint32_t args = 0;             // into TraceEvents::args
  int32_t pid = 0;               // a pid written as a name ("Spans") gets a negative id of its own
  char ph = 0;                   // 'X', 'B', 'E', 'i', 'C', 's', 'f', ...
  bool binds_enclosing = false;  // a flow event's "bp": "e"
};

struct TraceEvents {
  std::vector<RawEvent> events;
  std::deque<std::string> strings;  // [0] is ""
  std::map<int32_t, std::string> process_names;
  std::map<std::pair<int32_t, int64_t>, std::string> thread_names;
  // Kineto's "process_labels" ("CPU", "GPU 0"): which processes are devices.
  std::map<int32_t, std::string> process_labels;
  std::vector<std::string> warnings;
  ArgsTable args;

  const std::string& str(uint32_t i) const { return strings[i]; }
};

struct EventParseOptions {
  // Share of the text parsed so far; false cancels (kCancelled).
  std::function<bool(double)> progress;
  uint64_t max_events = 200'000'000;  // beyond: an error, not an exhausted machine
  // Texts over `chunked_above` bytes are parsed in pieces of about `chunk_bytes`, split
  // between events, so memory stays bounded by the piece (tests and fuzzing make them small).
  // A piece of 256 KB stays in the core's cache while simdjson indexes it and the events are
  // read: pieces of 8 MB were about 1.3x slower (interleaved medians, trace_benchmark).
  size_t chunk_bytes = size_t{256} << 10;
  size_t chunked_above = size_t{1} << 20;
  // The pages of text already parsed are given back to the system as the parse goes on
  // (madvise), so that a large trace's text and its events are not in memory at once. Only
  // for text nothing reads again (the importer's own buffer or file mapping).
  bool release_parsed_text = false;
};

// `json` must be followed by simdjson::SIMDJSON_PADDING readable bytes (a padded_string).
// Errors name the source and the byte offset.
engine::Result<TraceEvents> ParseTraceEvents(std::string_view json, const std::string& source,
                                             const EventParseOptions& options = {});

}  // namespace pipescope::trace
