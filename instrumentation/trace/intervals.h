#pragma once
// Disjoint unions of spans and their overlaps: how device busy, input wait and device gaps
// are measured over any set of tracks (several streams, several nesting rows).

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "instrumentation/trace/model.h"

namespace pipescope::trace {

using Interval = std::pair<int64_t, int64_t>;  // [start, end)

// The spans of `tracks`, clipped to [t0, t1), sorted and merged into a disjoint union.
std::vector<Interval> Union(const std::vector<const Track*>& tracks, int64_t t0, int64_t t1);

// The same union one interval at a time, in order, holding nothing but a cursor per track:
// for figures over a whole recording, whose unions can have tens of millions of intervals.
class UnionCursor {
 public:
  UnionCursor(const std::vector<const Track*>& tracks, int64_t t0, int64_t t1);
  // The next interval of the union; false when there is none.
  bool Next(Interval& out);

 private:
  struct Cursor {
    const Track* track;
    size_t i;
  };
  static bool StartsLater(const Cursor& a, const Cursor& b);

  std::vector<Cursor> cursors_;  // a heap, the earliest start on top
  int64_t t0_, t1_;
};

// What [t0, t1) holds outside the union of `tracks`, one gap at a time, in order.
class GapCursor {
 public:
  GapCursor(const std::vector<const Track*>& tracks, int64_t t0, int64_t t1)
      : busy_(tracks, t0, t1), at_(t0), t1_(t1) {}
  bool Next(Interval& out);

 private:
  UnionCursor busy_;
  int64_t at_, t1_;
};

int64_t Total(const std::vector<Interval>& intervals);

// Time covered by both of two disjoint, sorted unions.
int64_t Overlap(const std::vector<Interval>& a, const std::vector<Interval>& b);

// What `within` covers and `busy` does not: both disjoint and sorted.
std::vector<Interval> Subtract(const std::vector<Interval>& within,
                               const std::vector<Interval>& busy);

// The device's own work: its kernels, copies and sets, on every stream and nesting row.
// Device busy is their union.
std::vector<const Track*> DeviceWorkTracks(const Model& model);

// The tracks of these kinds for `op`.
std::vector<const Track*> TracksOfKinds(const Model& model,
                                        std::initializer_list<record::EventKind> kinds,
                                        uint16_t op);

// The consumer's waits on the input: for its next element (kInputWait), and for the
// interpreter lock its own Python needs between steps (kLockWait), which only the pipeline's
// Python can hold (tensorflow#44274: an eager loop's next() held up by eight generators'
// Python, the device idle through it, is the input's doing, not the loop's own work).
std::vector<const Track*> ConsumerWaitTracks(const Model& model);

}  // namespace pipescope::trace
