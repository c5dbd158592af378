#pragma once
// The timeline: the consumer lane (its input waits drawn as red gaps), the device lane,
// one lane per op and worker thread, counter lanes, knob-change markers and annotations,
// over a time axis. Drawn with Dear ImGui from trace::Model's per-pixel summaries, so the
// cost of a frame follows the pixels, not the events. A live run's model is read under
// its lock, and the view follows the newest data until the user navigates away.
//
// Each frame is read from the model under its lock into plain data (frame_prep.h) and drawn
// after the lock is released, so a live run's collector never waits for the drawing.
//
// Mouse: the wheel zooms around the cursor (over the labels it scrolls the lanes), drag
// pans, Shift+drag (or a drag on the time axis) selects a range, Ctrl+drag measures
// between span edges, a click on a red gap names the op that caused it, a click on a span
// highlights its element's path through every op, the right button opens a menu (notes,
// selection). Keys: W/S zoom, A/D pan, F fit, End follows a live run, Esc clears.

#include <QString>
#include <QTimer>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>

#include "instrumentation/trace/model.h"
#include "ui/imgui_gl_widget.h"
#include "ui/timeline/frame_content.h"
#include "ui/timeline/frame_prep.h"
#include "ui/timeline/lanes.h"
#include "ui/timeline/legend.h"
#include "ui/timeline/palette.h"
#include "ui/timeline/span_search.h"
#include "ui/timeline/time_axis.h"
#include "ui/timeline/timeline_layout.h"

namespace pipescope::ui {

class TimelineWidget : public ImGuiGlWidget {
  Q_OBJECT
 public:
  // What a click on a gap found: the consumer's wait, or the device's idle time, and what
  // caused it (an op of the pipeline, or in an imported trace what the host was doing).
  struct GapHighlight {
    bool active = false;
    bool device = false;  // a device gap (else the consumer's wait)
    int64_t start = 0;
    int64_t end = 0;
    int op = -1;
    std::string text;
  };

  explicit TimelineWidget(QWidget* parent = nullptr);

  // `lock` (null: the model is not written) is held while the model is read; `live`: the
  // model still grows.
  void SetModel(std::shared_ptr<const trace::Model> model, std::mutex* lock = nullptr,
                bool live = false);
  void SetLive(bool live);
  void ZoomToFit();
  void SetView(int64_t t0, int64_t t1);
  // The shown trace's length (0 with none).
  int64_t trace_duration_ns() const;
  int64_t view_start() const { return axis_.t0; }
  int64_t view_end() const { return axis_.t1; }
  void SetFollowing(bool following);
  bool following() const { return following_; }
  void SetDarkTheme(bool dark);

  // The selected range; t1 <= t0 when there is none.
  void SetSelection(int64_t t0, int64_t t1);
  int64_t selection_start() const { return sel_t0_; }
  int64_t selection_end() const { return sel_t1_; }
  void ZoomToSelection();

  // Highlights lanes whose label, and spans whose kind, contain `text` (case-insensitive).
  // Returns how many lanes match.
  int SetSearch(const QString& text);
  // Spans whose own name matched the last search (imported traces).
  int64_t span_matches() const { return search_.span_matches; }
  // Moves the view to the next span the search matches after the last one shown (or the
  // view's middle), or the previous one; the span is outlined. Returns its caption and
  // start ("decode #841 3.2 ms at 2.513 s"), or an empty string when no span matches.
  QString NextMatch(bool backward = false);
  // Where the span NextMatch showed last starts (-1 before any).
  int64_t shown_match_start() const {
    return match_track_ != nullptr ? match_track_->start(match_index_) : -1;
  }

  // The op the verdict names as the bottleneck ("" for none): its lanes' labels and a bar
  // at their left edge are drawn in the highlight colour.
  void SetBottleneck(const std::string& op);
  const std::string& bottleneck() const { return bottleneck_; }

  // Another run's steps/s drawn over this one's plot on one y-axis, labelled `name` (the
  // Compare window: each side shows the other's rate). `other` must be finished (nothing
  // appends to it); nullptr removes the overlay.
  void SetRateOverlay(std::shared_ptr<const trace::Model> other, const std::string& name);
  // The steps/s plot's y-axis top as last drawn (0 before, or without steps).
  double rate_axis_top() const { return rate_axis_top_; }

  // Explains the consumer's wait that contains time t (as a click on it does).
  bool ExplainGapAt(int64_t t);
  // Explains the device gap that contains time t (as a click on the device lane does).
  bool ExplainDeviceGapAt(int64_t t);
  const GapHighlight& gap() const { return gap_; }
  // The last Ctrl+drag measurement (edges snapped to spans within 8 px).
  bool measuring() const { return measuring_; }
  int64_t measure_from() const { return measure_from_; }
  int64_t measure_to() const { return measure_to_; }
  // Highlights every span of `element` within a few seconds of t (as a click does).
  int HighlightElement(uint64_t element, int64_t t);

  const std::vector<Lane>& lanes() const { return lanes_; }
  const trace::Model* model() const { return model_.get(); }
  // Flow arrows drawn in the last frame (a hovered span's flows).
  int flow_arrows() const { return flow_arrows_; }
  // The top of lane i in widget pixels, as last drawn (-1 before the first frame).
  float lane_top(size_t i) const { return i < lane_y_.size() ? lane_y_[i] : -1; }
  // Folds (or unfolds) the nested rows of the track lane `lane` heads, as a click on its
  // label does; false when it has none.
  bool ToggleFold(size_t lane);
  bool folded(size_t lane) const {
    return lane < lanes_.size() && folded_.contains(FoldKey(lanes_[lane]));
  }
  // Lane i's height as last laid out (0: folded away).
  float row_height(size_t i) const { return i < row_height_.size() ? row_height_[i] : 0; }

  // The label column's width (logical pixels), and the width a person dragged it to (0: it
  // follows the longest label). Dragging its edge sets it, a double click there resets it;
  // the choice persists.
  float label_width() const { return label_width_; }
  float dragged_label_width() const { return dragged_label_width_; }
  void SetDraggedLabelWidth(float width);

  // The current layout: the lanes' left edge and width in pixels (tests and benchmarks).
  const TimeAxis& axis() const { return axis_; }
  // How long the last frame held the model's lock (reading it, not drawing), in time and
  // in this thread's CPU time, for `pipescope --bench-frames`.
  int64_t last_lock_held_ns() const { return last_lock_held_ns_; }
  int64_t last_lock_cpu_ns() const { return last_lock_cpu_ns_; }

 signals:
  void SelectionChanged(qint64 t0, qint64 t1);
  void GapExplained(const QString& text);
  void NoteRequested(qint64 t0, qint64 t1);
  void FollowingChanged(bool following);
  // The visible time range changed (zoom, pan, follow, SetView), announced after the frame
  // that drew it: what keeps stacked timelines on one time axis.
  void ViewChanged(qint64 t0, qint64 t1);

 protected:
  void DrawImGui() override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;

 private:
  enum class Drag { kNone, kPan, kSelect, kMeasure, kLabelEdge };

  void RefreshLanes();
  void FitLocked();  // ZoomToFit with the model's lock held
  // The model's lock is held by the caller.
  bool ExplainGapLocked(int64_t t);
  bool ExplainDeviceGapLocked(int64_t t);
  // Reads this frame's content from the model (its lock held): the lanes on screen between
  // lanes_top and lanes_bottom, the tooltip of the span under the pointer.
  void PrepareFrame(float lanes_top, float lanes_bottom, int hovered, bool span_tooltip);
  int HighlightElementLocked(uint64_t element, int64_t t);
  void HandleKeys();
  void HandleMouse(float axis_bottom, float lanes_bottom);
  void Click(float mouse_y, int64_t t);
  int LaneAt(float y) const;
  int64_t SnapToEdge(int lane, int64_t t) const;
  void ContextMenu();
  void UserNavigated();
  // Emits a signal after the frame (slots may open dialogs, which must not run inside
  // painting).
  void Later(std::function<void()> fn);

  static constexpr const char* kMenuId = "timeline menu";  // the right button's ImGui popup
  void DrawAxis(float y);
  // The legend strip from (x, y): the places LayOutLegend gave.
  void DrawLegend(float x, float y, const std::vector<LegendSlot>& places);
  // The drawing, from frame_ alone (timeline_draw.cc): a lane's content at y.
  void DrawSpanLane(const LaneContent& lane, float y, float height);
  // The consumer's waits on an asynchronous device: red where the device idled with it,
  // faint where queued work kept the device busy meanwhile.
  void DrawConsumerWaits(const LaneContent& lane, float y, float height);
  // Red over the device lane where the device idles: the rest of each pixel in a
  // recording, the rest of the steps' time in an imported trace.
  void DrawDeviceIdle(const LaneContent& lane, float y, float height);
  // The arrows of a hovered span's flows (an imported trace's launch -> kernel links).
  void DrawFlowArrows(const std::vector<FlowArrow>& flows);
  int flow_arrows_ = 0;  // drawn in the last frame
  void DrawCounterLane(const Lane& lane, const LaneContent& content, float y, float height);
  // The steps/s plot: a line over round-numbered gridlines, its y labels in the label column.
  void DrawRatePlot(float y, float height);
  void DrawOverlays(float top, float bottom);
  void DrawTooltip();
  void OutlineMatchingSpans(const LaneContent& lane, float y, float height);

  std::shared_ptr<const trace::Model> model_;
  // The model is read under the lock it came with, else (a model nothing writes) under the
  // timeline's own: every read locks the same way.
  std::mutex own_lock_;
  std::mutex* lock_ = &own_lock_;
  bool live_ = false;
  bool following_ = false;
  size_t lane_fingerprint_ = 0;
  std::vector<Lane> lanes_;
  std::vector<LegendEntry> legend_;
  size_t legend_key_ = 0;      // what legend_ was built from: lanes, changes, theme
  std::vector<float> lane_y_;  // top of each lane in the last frame
  TimeAxis axis_;
  Palette palette_ = Palette::Dark();
  float scroll_y_ = 0;

  Drag drag_ = Drag::kNone;
  float press_x_ = 0;
  float press_y_ = 0;
  TimeAxis press_axis_;
  int64_t press_t_ = 0;
  bool moved_ = false;
  int64_t announced_t0_ = 0;  // the view last announced with ViewChanged
  int64_t announced_t1_ = 0;
  int64_t sel_t0_ = 0;
  int64_t sel_t1_ = 0;
  int64_t measure_from_ = 0;
  int64_t measure_to_ = 0;
  bool measuring_ = false;
  int64_t menu_t_ = 0;

  // Tracks with nested rows (imported threads): which lane each row continues, which tracks
  // have rows, which are folded (by kind, op, thread: folds survive a lane rebuild), and
  // each lane's height this frame (0: folded away).
  std::vector<int> parents_;
  std::vector<bool> has_rows_;
  std::set<std::tuple<int, int, uint32_t>> folded_;
  std::vector<float> row_height_;
  std::tuple<int, int, uint32_t> FoldKey(const Lane& lane) const {
    return {static_cast<int>(lane.kind), lane.op, lane.thread};
  }
  void LayOutRows();
  void DrawFoldMark(float x, float y, bool folded);
  // A group's lanes sit close together, except a thread that follows another thread's
  // nested rows (an imported process's next thread): the gap shows where its track starts.
  float RowGap(size_t i) const {
    if (parents_[i] < 0) return kLaneGap;
    return lanes_[i].continues_op && i > 0 && lanes_[i - 1].depth > 0 ? kLaneGap : kNestedRowGap;
  }

  float label_width_ = kMinLabelWidth;
  float dragged_label_width_ = 0;  // QSettings "timeline/label_width"
  float natural_label_width_ = 0;  // the widest label's text, for labels_key_
  size_t labels_key_ = 0;          // the lanes and font natural_label_width_ was measured for
  // Updates natural_label_width_ when the lanes or the font changed.
  void MeasureLabels(bool with_plot);

  std::shared_ptr<const trace::Model> overlay_model_;  // SetRateOverlay's run
  const trace::Track* overlay_steps_ = nullptr;        // its steps
  std::string overlay_name_;
  double rate_axis_top_ = 0;

  GapHighlight gap_;
  std::vector<OutlinedSpan> path_;
  std::string bottleneck_;
  int bottleneck_op_ = -1;  // its stage id in the model shown
  // The span NextMatch last showed (outlined), and whether there is one.
  const trace::Track* match_track_ = nullptr;
  size_t match_index_ = 0;
  uint64_t path_element_ = 0;
  SpanSearch search_;
  FramePrep prep_;      // reads frames from the model; keeps the per-pixel summaries
  FrameContent frame_;  // the frame being drawn, read under the lock
  int64_t last_lock_held_ns_ = 0;
  int64_t last_lock_cpu_ns_ = 0;
  QTimer live_frames_;  // redraws a live run's view 20 times a second
};

}  // namespace pipescope::ui
