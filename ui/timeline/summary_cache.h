#pragma once
// The per-pixel summaries of the tracks the timeline draws, kept while the view and the
// track stay the same. A frame where only the mouse moved draws from them instead of
// searching tens of millions of spans again; a pan, a zoom, a resize or a live track that
// grew makes the next frame summarize that track afresh.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "instrumentation/trace/track.h"

namespace pipescope::ui {

class SummaryCache {
 public:
  // Above this many tracks the cache starts again (lanes scrolled out of view keep theirs).
  static constexpr size_t kMaxTracks = 512;

  const std::vector<trace::Track::Bucket>& Of(const trace::Track& track, int64_t t0, int64_t t1,
                                              int pixels);
  // Forgets every summary: the tracks they came from may be gone (a new model).
  void Clear() { entries_.clear(); }

  int64_t summarized() const { return summarized_; }  // summaries computed, for tests

 private:
  struct Entry {
    size_t size = 0;
    int64_t t0 = 0, t1 = 0;
    int pixels = -1;
    std::vector<trace::Track::Bucket> buckets;
  };
  std::unordered_map<const trace::Track*, Entry> entries_;
  int64_t summarized_ = 0;
};

}  // namespace pipescope::ui
