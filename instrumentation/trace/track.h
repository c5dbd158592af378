#pragma once
// One time-sorted track of a trace: the spans (or counter samples) of one kind, one op and
// one thread (and, for an imported trace's nested slices, one depth). Columnar: starts,
// durations, values, element ids, call counts, names and arguments in separate chunked
// arrays, all but the first two only once a value other than the default appears. A start
// is 32 bits from its block's first start (one 64-bit start per kBlock events), so a
// recorded event takes at most 16 bytes, plus 0.375 for the block starts and the
// level-of-detail sums; an imported span with a name and arguments 8 more.
//
// A span may be a run (record::TraceEvent::calls > 1): several calls of the op back to back,
// on consecutive elements from element(i), recorded as one span with their count and total
// self time. Counting calls goes through calls()/CallsIn(), never the number of spans.
//
// Level of detail: every kBlock events keep a running sum of durations and of values, so
// the time covered by any run of events costs two lookups plus at most two partial
// blocks. Summarize() answers "what is in [t0, t1) at this pixel width" in time
// proportional to the pixels (times log N), not to the events.
//
// Spans in one track never overlap (one thread does one thing of a kind at a time), so
// ends are sorted like starts. Append keeps that true for any input: a start before the
// previous end is moved to it.
//
// Searches by time look at the block starts first (one contiguous array, 1/64 of the
// events) and then inside one block: a zoomed-out frame searches once per pixel, and a
// search over tens of millions of spans in chunks would miss the cache at every step.

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "instrumentation/record/event.h"
#include "instrumentation/trace/chunked_column.h"

namespace pipescope::trace {

using record::EventKind;

struct TrackKey {
  EventKind kind;
  uint16_t op;      // stage id, or record::kConsumerOp / kDeviceOp / kNoOp
  uint32_t thread;  // 0 for tracks that are not about one thread (device, buffer levels)
  // Nesting depth on the thread: 0 for the outermost spans. A recording's spans are all at
  // 0; an imported trace's nested slices stack one track per depth, so that the spans of
  // one track still never overlap.
  uint8_t depth = 0;

  friend bool operator==(const TrackKey&, const TrackKey&) = default;
};

inline constexpr int kMaxDepth = 255;

// A TrackKey as one integer (for maps) and back.
inline uint64_t PackTrackKey(const TrackKey& k) {
  return (static_cast<uint64_t>(k.kind) << 56) | (static_cast<uint64_t>(k.depth) << 48) |
         (static_cast<uint64_t>(k.op) << 32) | k.thread;
}
inline TrackKey UnpackTrackKey(uint64_t packed) {
  return {static_cast<EventKind>(packed >> 56), static_cast<uint16_t>(packed >> 32),
          static_cast<uint32_t>(packed), static_cast<uint8_t>(packed >> 48)};
}

class Track {
 public:
  static constexpr size_t kBlock = 64;

  explicit Track(TrackKey key, uint32_t id = 0) : key_(key), id_(id) {}

  const TrackKey& key() const { return key_; }
  // The track's index in its model's tracks() (flows name events by track and index).
  uint32_t id() const { return id_; }
  size_t size() const { return durations_.size(); }
  bool empty() const { return durations_.empty(); }

  void ShrinkToFit();
  // `calls` > 1: a run of that many calls, on elements element .. element + calls - 1.
  // `label` and `args` are ids in the model's name and argument tables (0: none); only
  // imported spans have them.
  void Append(int64_t start, int64_t end, uint64_t element, uint64_t value, uint32_t calls = 1,
              uint32_t label = 0, uint32_t args = 0);

  int64_t start(size_t i) const {
    const uint32_t offset = start_offsets_[i];
    return offset == kFarStart ? far_starts_.at(i) : block_starts_[i / kBlock] + offset;
  }
  int64_t duration(size_t i) const {
    const uint32_t d = durations_[i];
    return d == kLongDuration ? long_durations_.at(i) : d;
  }
  int64_t end(size_t i) const { return start(i) + duration(i); }
  uint64_t value(size_t i) const {
    if (values_.empty()) return 0;
    const uint32_t v = values_[i];
    return v == kLargeValue ? large_values_.at(i) : v;
  }
  uint64_t element(size_t i) const;
  // Calls (elements) span i stands for: 1, or a run's count.
  uint32_t calls(size_t i) const { return extra_calls_.empty() ? 1 : 1 + extra_calls_[i]; }
  // Calls of the spans with index in [i, j).
  int64_t CallsIn(size_t i, size_t j) const;
  bool has_runs() const { return !extra_calls_.empty(); }
  // The span's name and category (Model::label), 0 when it has none but its kind.
  uint32_t label(size_t i) const { return labels_.empty() ? 0 : labels_[i]; }
  // The span's arguments (Model::args), 0 when it has none.
  uint32_t args(size_t i) const { return args_.empty() ? 0 : args_[i]; }
  bool has_labels() const { return !labels_.empty(); }
  bool has_args() const { return !args_.empty(); }
  int64_t first_start() const { return empty() ? 0 : block_starts_[0]; }
  int64_t last_end() const { return last_end_; }

  // First index at or after `from` whose span ends after t (size() if none).
  size_t FirstEndingAfter(int64_t t, size_t from = 0) const;
  // First index at or after `from` whose span starts at or after t (size() if none).
  size_t FirstStartingAtOrAfter(int64_t t, size_t from = 0) const;

  // Totals over the parts of spans that lie in [t0, t1). `value` is apportioned like the
  // duration (a kCall's self time, spread evenly over its span).
  struct Sums {
    int64_t covered_ns = 0;
    double value = 0;
    size_t events = 0;  // spans overlapping the range
  };
  Sums SumRange(int64_t t0, int64_t t1) const;
  // Sum of raw values of the events with index in [i, j).
  double SumValues(size_t i, size_t j) const;
  // Sum of the durations of the events with index in [i, j).
  int64_t SumDurations(size_t i, size_t j) const;

  // The level-of-detail query: `pixels` equal buckets over [t0, t1).
  struct Bucket {
    uint32_t events = 0;     // spans overlapping the bucket
    int64_t covered_ns = 0;  // time of the bucket covered by spans
    uint32_t first = 0;      // index of the first overlapping span (for tooltips)
  };
  void Summarize(int64_t t0, int64_t t1, int pixels, std::vector<Bucket>& out) const;
  // The same on a grid fixed in time: cell c is [origin + floor(c * width), origin +
  // floor((c + 1) * width)); `count` cells from first_cell into out. Summarize(t0, t1, n)
  // is cells 0..n-1 from origin t0. A pan reuses the cells of a grid it kept and
  // summarizes only the new ones (ui/timeline/summary_cache.h).
  void SummarizeCells(int64_t origin, double width, int64_t first_cell, Bucket* out,
                      int count) const;

  size_t memory_bytes() const;

 private:
  static constexpr uint32_t kLongDuration = UINT32_MAX;  // the real one is in long_durations_
  static constexpr uint32_t kFarStart = UINT32_MAX;      // the real one is in far_starts_

  // Where a search for time t can end, from the block starts alone: the index range
  // [first, last] (last may be size()) that holds the first span whose key passes t, for
  // keys sorted like starts. `after` picks "start > t" over "start >= t" for the blocks.
  struct Window {
    size_t first;
    size_t last;
  };
  Window SearchWindow(int64_t t, size_t from, bool after) const;
  // Sum of the durations of the spans before index k.
  int64_t DurationsBefore(size_t k) const;

  template <typename T, typename At>
  static T BlockSum(size_t i, size_t j, const std::vector<T>& block_sums, T total, At at);

  TrackKey key_;
  uint32_t id_;
  std::vector<int64_t> block_starts_;      // the start of each block's first span
  ChunkedColumn<uint32_t> start_offsets_;  // start - its block's start
  ChunkedColumn<uint32_t> durations_;
  ChunkedColumn<uint32_t> values_;         // empty while every value was 0
  ChunkedColumn<uint32_t> elements_;       // empty while every element was 0
  ChunkedColumn<uint64_t> wide_elements_;  // replaces elements_ once an id needs 64 bits
  ChunkedColumn<uint32_t> extra_calls_;    // calls - 1; empty while every span is one call
  ChunkedColumn<uint32_t> labels_;         // empty while no span has a name of its own
  ChunkedColumn<uint32_t> args_;           // empty while no span has arguments
  std::unordered_map<size_t, int64_t> long_durations_;
  // Values of 2^32 - 1 or more (a call's self time past 4.3 s: a batch of slow items), by
  // index; the column holds kLargeValue there.
  static constexpr uint32_t kLargeValue = UINT32_MAX;
  std::unordered_map<size_t, uint64_t> large_values_;
  std::unordered_map<size_t, int64_t> far_starts_;  // 2^32 ns (4.3 s) or more past its block's
  // Running sums at the start of each block: block b covers [b*kBlock, (b+1)*kBlock).
  std::vector<int64_t> block_duration_sums_;
  std::vector<double> block_value_sums_;
  std::vector<int64_t> block_extra_call_sums_;  // kept from the first run on
  int64_t duration_sum_ = 0;
  double value_sum_ = 0;
  int64_t extra_call_sum_ = 0;
  int64_t last_end_ = INT64_MIN;
};

}  // namespace pipescope::trace
