#include "instrumentation/trace/intervals.h"

#include <algorithm>

namespace pipescope::trace {

UnionCursor::UnionCursor(const std::vector<const Track*>& tracks, int64_t t0, int64_t t1)
    : t0_(t0), t1_(t1) {
  for (const Track* track : tracks) {
    const size_t i = track->FirstEndingAfter(t0);
    if (i < track->size() && track->start(i) < t1) cursors_.push_back({track, i});
  }
  std::make_heap(cursors_.begin(), cursors_.end(), StartsLater);
}

bool UnionCursor::StartsLater(const Cursor& a, const Cursor& b) {
  return a.track->start(a.i) > b.track->start(b.i);
}

bool UnionCursor::Next(Interval& out) {
  // Each track is sorted by start and its spans never overlap, so the union is a merge of
  // the tracks by start: no copy of every span and no sort (one recording's step track can
  // hold tens of millions of spans).
  bool have = false;
  while (!cursors_.empty()) {
    std::pop_heap(cursors_.begin(), cursors_.end(), StartsLater);
    Cursor& next = cursors_.back();
    const int64_t a = std::max(next.track->start(next.i), t0_);
    if (have && a > out.second) {  // the merged interval is complete; this span starts the next
      std::push_heap(cursors_.begin(), cursors_.end(), StartsLater);
      return true;
    }
    const int64_t b = std::min(next.track->end(next.i), t1_);
    if (b > a) {
      if (have) {
        out.second = std::max(out.second, b);
      } else {
        out = {a, b};
        have = true;
      }
    }
    if (++next.i < next.track->size() && next.track->start(next.i) < t1_) {
      std::push_heap(cursors_.begin(), cursors_.end(), StartsLater);
    } else {
      cursors_.pop_back();
    }
  }
  return have;
}

bool GapCursor::Next(Interval& out) {
  while (at_ < t1_) {
    Interval busy;
    if (!busy_.Next(busy)) {
      out = {at_, t1_};
      at_ = t1_;
      return true;
    }
    const int64_t from = at_;
    at_ = std::max(at_, busy.second);
    if (busy.first > from) {
      out = {from, busy.first};
      return true;
    }
  }
  return false;
}

std::vector<Interval> Union(const std::vector<const Track*>& tracks, int64_t t0, int64_t t1) {
  UnionCursor cursor(tracks, t0, t1);
  std::vector<Interval> merged;
  for (Interval iv; cursor.Next(iv);) merged.push_back(iv);
  return merged;
}

int64_t Total(const std::vector<Interval>& intervals) {
  int64_t sum = 0;
  for (const auto& [a, b] : intervals) sum += b - a;
  return sum;
}

int64_t Overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t sum = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    sum +=
        std::max<int64_t>(0, std::min(a[i].second, b[j].second) - std::max(a[i].first, b[j].first));
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return sum;
}

std::vector<Interval> Subtract(const std::vector<Interval>& within,
                               const std::vector<Interval>& busy) {
  std::vector<Interval> out;
  size_t j = 0;
  for (const auto& [a, b] : within) {
    int64_t from = a;
    while (j < busy.size() && busy[j].second <= from) ++j;
    for (size_t k = j; k < busy.size() && busy[k].first < b; ++k) {
      if (busy[k].first > from) out.emplace_back(from, busy[k].first);
      from = std::max(from, busy[k].second);
      if (from >= b) break;
    }
    if (from < b) out.emplace_back(from, b);
  }
  return out;
}

std::vector<const Track*> DeviceWorkTracks(const Model& model) {
  return TracksOfKinds(
      model,
      {record::EventKind::kGpuKernel, record::EventKind::kGpuMemcpy, record::EventKind::kGpuMemset},
      record::kDeviceOp);
}

std::vector<const Track*> ConsumerWaitTracks(const Model& model) {
  return TracksOfKinds(model, {record::EventKind::kInputWait, record::EventKind::kLockWait},
                       record::kConsumerOp);
}

std::vector<const Track*> TracksOfKinds(const Model& model,
                                        std::initializer_list<record::EventKind> kinds,
                                        uint16_t op) {
  std::vector<const Track*> out;
  for (record::EventKind k : kinds) {
    const auto& tracks = model.TracksOf(k, op);
    out.insert(out.end(), tracks.begin(), tracks.end());
  }
  return out;
}

}  // namespace pipescope::trace
