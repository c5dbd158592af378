#pragma once
// One frame of the timeline as plain data: what FramePrep (frame_prep.h) reads from the
// model while its lock is held, and what the drawing turns into rectangles and text after
// the lock is released. Nothing here points into the model, so a live run's collector
// waits for the reading, never for the drawing. Positions are pixels from the lanes' left
// edge (x) and shares of a lane's height or times (y): the drawing alone knows where each
// lane sits on the screen.

#include <imgui.h>

#include <cstdint>
#include <string>
#include <vector>

#include "instrumentation/record/event.h"
#include "instrumentation/trace/track.h"
#include "ui/timeline/rate_plot.h"

namespace pipescope::ui {

// Covered pixels [p, q] of one track: a run of whole pixels when q > p, else one pixel
// covered for `covered_ns` of its time (drawn as high as that share: coverage.h).
struct PixelRun {
  int p = 0;
  int q = 0;
  double covered_ns = 0;
};

// A span wide enough to show its caption, [a, b) in pixels; an imported one is also
// painted in its name's colour.
struct SpanNameInView {
  float a = 0;
  float b = 0;
  std::string caption;
  bool painted = false;
  ImU32 paint = 0;
};

struct TrackInView {
  ImU32 color = 0;  // the kind's colour, faint where a search dims it
  std::vector<PixelRun> runs;
  std::vector<SpanNameInView> names;
};

// A lane's content. Which parts are filled depends on the lane's kind.
struct LaneContent {
  bool in_view = false;  // false: scrolled away or folded, nothing prepared
  // The search matches the lane's label or op (its label and outline are highlighted).
  bool matches = false;
  std::vector<TrackInView> tracks;  // span lanes (and the consumer on a synchronous device)
  // The consumer on an asynchronous device: per pixel, the time waited, and of that the
  // time the device idled too (the red part).
  bool split_waits = false;
  std::vector<double> waited_ns;
  std::vector<double> idle_wait_ns;
  // The device's steps lane: per pixel, the time the device idled (0: none to show).
  std::vector<double> device_idle_ns;
  // A counter lane: its value per pixel, and the device-busy window it was taken over.
  std::vector<float> values;
  int64_t counter_window_ns = 0;
  // Spans whose name matches the search, [a, b) in pixels.
  std::vector<std::pair<float, float>> outlines;
};

// Spans outlined over every lane that shows their track: the search's current match, the
// clicked element's path. [a, b) in pixels, on lanes `lanes`.
struct BoxInView {
  float a = 0;
  float b = 0;
  std::vector<int> lanes;
};

struct NoteInView {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::string label;  // the first words
  std::string text;
  std::string author;
};

struct KnobChangeInView {
  int64_t time_ns = 0;
  std::string what;  // "decode.num_parallel_calls"
  std::string who;
  int64_t from = 0;
  int64_t to = 0;
  bool by_tuner = false;
};

struct MarkerInView {
  int64_t time_ns = 0;
  std::string text;
};

// The hover tooltip over a span: its lines, and the arrows of its flows (from lane, x to
// lane, x).
struct TooltipLine {
  enum class Style { kPlain, kWrapped, kDim, kDimWrapped };
  std::string text;
  Style style = Style::kPlain;
};
struct FlowArrow {
  int from_lane = 0;
  float from_x = 0;
  int to_lane = 0;
  float to_x = 0;
};
struct SpanTooltip {
  bool shown = false;
  uint64_t key = 0;  // which span (NoteShownContent)
  std::vector<TooltipLine> lines;
  std::vector<FlowArrow> flows;
};

struct FrameContent {
  int pixels = 0;
  double pixel_ns = 1;
  std::vector<LaneContent> lanes;  // one per lane
  bool has_plot = false;
  RatePlot plot;
  RatePlot overlay;  // another run's rate (empty without one)
  std::vector<NoteInView> notes;
  std::vector<KnobChangeInView> knob_changes;  // in view
  std::vector<MarkerInView> markers;           // in view
  bool markers_as_ticks = false;
  std::vector<BoxInView> boxes;  // the path, then the search's match (drawn thicker)
  bool has_match_box = false;    // boxes.back() is the search's match
  SpanTooltip tooltip;
};

}  // namespace pipescope::ui
