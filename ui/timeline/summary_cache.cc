#include "ui/timeline/summary_cache.h"

namespace pipescope::ui {

const std::vector<trace::Track::Bucket>& SummaryCache::Of(const trace::Track& track, int64_t t0,
                                                          int64_t t1, int pixels) {
  if (entries_.size() >= kMaxTracks && !entries_.count(&track)) entries_.clear();
  Entry& e = entries_[&track];
  // Tracks only grow, so an unchanged size is an unchanged track.
  if (e.size != track.size() || e.t0 != t0 || e.t1 != t1 || e.pixels != pixels) {
    track.Summarize(t0, t1, pixels, e.buckets);
    e.size = track.size();
    e.t0 = t0;
    e.t1 = t1;
    e.pixels = pixels;
    ++summarized_;
  }
  return e.buckets;
}

}  // namespace pipescope::ui
