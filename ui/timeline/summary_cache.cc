#include "ui/timeline/summary_cache.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace pipescope::ui {

void SummaryCache::Summarize(const trace::Track& track, Entry& e, int64_t from_cell, int count) {
  if (count <= 0) return;
  track.SummarizeCells(e.origin, e.width, from_cell, e.cells.data() + (from_cell - e.first_cell),
                       count);
  cells_summarized_ += count;
}

const std::vector<trace::Track::Bucket>& SummaryCache::Of(const trace::Track& track, int64_t t0,
                                                          int64_t t1, int pixels) {
  if (entries_.size() >= kMaxTracks && !entries_.count(&track)) entries_.clear();
  Entry& e = entries_[&track];
  const int n = std::max(0, pixels);
  const double width = t1 > t0 && n > 0 ? static_cast<double>(t1 - t0) / n : 0;
  if (width <= 0) {
    e = Entry{};
    e.cells.assign(static_cast<size_t>(n), trace::Track::Bucket{});
    return e.cells;
  }
  if (e.size == 0 || e.size > track.size() || e.width != width) {
    // A new grid, from the view's first pixel.
    e.size = track.size();
    e.last_end = track.last_end();
    e.origin = t0;
    e.width = width;
    e.first_cell = 0;
    e.cells.assign(static_cast<size_t>(n), trace::Track::Bucket{});
    Summarize(track, e, 0, n);
    ++summarized_;
    return e.cells;
  }
  // A live track that grew: what it appended starts at or after the end of its last span
  // summarized (Track::Append), so only the cells from the one holding that end on change.
  int64_t changed_from = INT64_MAX;
  if (e.size != track.size()) {
    changed_from =
        static_cast<int64_t>(std::floor(static_cast<double>(e.last_end - e.origin) / width)) - 1;
    e.size = track.size();
    e.last_end = track.last_end();
  }
  const auto first = static_cast<int64_t>(std::llround(static_cast<double>(t0 - e.origin) / width));
  const auto kept_first = e.first_cell;
  const auto kept_end = kept_first + static_cast<int64_t>(e.cells.size());
  const int64_t end = first + n;
  if (first == kept_first && end == kept_end && changed_from >= end) return e.cells;
  // A pan (or a resize at the same zoom): keep the cells both views show.
  std::swap(e.cells, e.spare);
  e.cells.assign(static_cast<size_t>(n), trace::Track::Bucket{});
  e.first_cell = first;
  const int64_t both_first = std::max(first, kept_first);
  const int64_t both_end = std::min({end, kept_end, std::max(first, changed_from)});
  if (both_first < both_end) {
    std::copy(e.spare.begin() + (both_first - kept_first),
              e.spare.begin() + (both_end - kept_first), e.cells.begin() + (both_first - first));
    Summarize(track, e, first, static_cast<int>(both_first - first));
    Summarize(track, e, both_end, static_cast<int>(end - both_end));
  } else {
    Summarize(track, e, first, n);
  }
  ++summarized_;
  return e.cells;
}

}  // namespace pipescope::ui
