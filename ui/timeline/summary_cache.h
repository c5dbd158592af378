#pragma once
// The per-pixel summaries of the tracks the timeline draws, kept while the zoom and the
// track stay the same. A frame where only the mouse moved draws from them instead of
// searching tens of millions of spans again. A pan keeps them too: the summaries are cells
// of a grid fixed in time at the zoom's pixel width (trace::Track::SummarizeCells), and
// pixel p shows the cell nearest to it, at most half a pixel away. So a pan of k pixels
// summarizes k cells per track, not the whole width, as Perfetto and Tracy keep their
// summaries by zoom level; a live track that grew, the cells from its old end on. A zoom
// starts the grid afresh at the view's first pixel.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "instrumentation/trace/track.h"

namespace pipescope::ui {

class SummaryCache {
 public:
  // Above this many tracks the cache starts again (lanes scrolled out of view keep theirs).
  static constexpr size_t kMaxTracks = 512;

  // `pixels` summaries of [t0, t1), one per pixel.
  const std::vector<trace::Track::Bucket>& Of(const trace::Track& track, int64_t t0, int64_t t1,
                                              int pixels);
  // Forgets every summary: the tracks they came from may be gone (a new model).
  void Clear() { entries_.clear(); }

  // For tests: views that summarized anything, and the cells they summarized.
  int64_t summarized() const { return summarized_; }
  int64_t cells_summarized() const { return cells_summarized_; }

 private:
  struct Entry {
    size_t size = 0;       // the track's, when summarized: tracks only grow
    int64_t last_end = 0;  // of its last span then
    int64_t origin = 0;
    double width = 0;  // ns per cell; 0: no grid yet
    int64_t first_cell = 0;
    std::vector<trace::Track::Bucket> cells;  // from first_cell on
    std::vector<trace::Track::Bucket> spare;  // the cells before a pan, reused
  };
  void Summarize(const trace::Track& track, Entry& e, int64_t from_cell, int count);

  std::unordered_map<const trace::Track*, Entry> entries_;
  int64_t summarized_ = 0;
  int64_t cells_summarized_ = 0;
};

}  // namespace pipescope::ui
