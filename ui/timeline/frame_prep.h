#pragma once
// The timeline's preprocessing, done as Tracy does it: everything a frame shows that comes
// from the model (per-pixel summaries, span names, counter values, the device's idle time,
// the consumer's red waits, notes, knob changes, markers, outlined spans, the hover
// tooltip, the steps/s plot) read while the model's lock is held, into a FrameContent of
// plain data that the drawing turns into rectangles and text after the lock is released.
// No ImGui context is needed: tested headless (tests/gui/timeline_model_test.cc).

#include <cstdint>
#include <vector>

#include "instrumentation/trace/intervals.h"
#include "instrumentation/trace/model.h"
#include "ui/timeline/frame_content.h"
#include "ui/timeline/lanes.h"
#include "ui/timeline/span_search.h"
#include "ui/timeline/summary_cache.h"
#include "ui/timeline/time_axis.h"

namespace pipescope::ui {

// A covered run this many pixels wide or wider names the spans in it that fit a caption.
inline constexpr int kMinLabelPixels = 24;

// A span outlined on every lane that shows its track (a clicked element's path).
struct OutlinedSpan {
  const trace::Track* track = nullptr;
  int64_t start = 0;
  int64_t end = 0;
};

// What a frame is prepared for. The pointers are the timeline's and the model's; the
// content prepared holds none of them.
struct FrameRequest {
  const trace::Model* model = nullptr;
  const std::vector<Lane>* lanes = nullptr;
  std::vector<bool> in_view;  // by lane: on screen this frame (not scrolled away or folded)
  TimeAxis axis;              // its x is ignored: the content's pixels start at 0
  const SpanSearch* search = nullptr;
  const std::vector<OutlinedSpan>* path = nullptr;
  const trace::Track* match_track = nullptr;  // the search's current match, if any
  size_t match_index = 0;
  // The hover tooltip's lane and time (-1: no span tooltip this frame).
  int hovered_lane = -1;
  int64_t hovered_t = 0;
  const trace::Track* steps = nullptr;          // the steps/s plot's (nullptr: no plot)
  const trace::Track* overlay_steps = nullptr;  // another, finished run's (Compare)
};

class FramePrep {
 public:
  // Fills `out` from request.model, whose lock the caller holds.
  void Prepare(const FrameRequest& request, FrameContent& out);
  // A new model: the summaries kept are of the old one's tracks.
  void Clear();
  const SummaryCache& summaries() const { return summaries_; }

 private:
  void PrepareSpans(const FrameRequest& r, const Lane& lane, bool dimmed, LaneContent& out);
  void PrepareNames(const trace::Model& model, const trace::Track& track, int p, int q, int alpha,
                    TrackInView& out) const;
  bool PrepareConsumerWaits(const FrameRequest& r, const Lane& lane, LaneContent& out);
  void PrepareDeviceIdle(const FrameRequest& r, const Lane& lane, LaneContent& out);
  void PrepareOverlays(const FrameRequest& r, FrameContent& out) const;
  void PrepareTooltip(const FrameRequest& r, FrameContent& out) const;
  void RefreshIdleWaits(const trace::Model& model);

  SummaryCache summaries_;
  TimeAxis axis_;  // the request's, from pixel 0
  int pixels_ = 1;
  // On an asynchronous device, the consumer's waits while the device idled too (the red
  // ones), recomputed when the waits or the device's work grow (idle_waits_key_).
  std::vector<trace::Interval> idle_waits_;
  size_t idle_waits_key_ = 0;
  bool async_device_ = false;
};

}  // namespace pipescope::ui
