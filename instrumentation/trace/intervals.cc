#include "instrumentation/trace/intervals.h"

#include <algorithm>

namespace pipescope::trace {

std::vector<Interval> Union(const std::vector<const Track*>& tracks, int64_t t0, int64_t t1) {
  std::vector<Interval> all;
  for (const Track* track : tracks) {
    for (size_t i = track->FirstEndingAfter(t0); i < track->size() && track->start(i) < t1; ++i)
      all.emplace_back(std::max(track->start(i), t0), std::min(track->end(i), t1));
  }
  std::sort(all.begin(), all.end());
  std::vector<Interval> merged;
  for (const auto& iv : all) {
    if (iv.second <= iv.first) continue;
    if (!merged.empty() && iv.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, iv.second);
    } else {
      merged.push_back(iv);
    }
  }
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
