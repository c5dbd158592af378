#include "ui/timeline/timeline_widget.h"

#include <imgui.h>

#include <QKeyEvent>
#include <QMetaObject>
#include <QMouseEvent>
#include <QSettings>
#include <algorithm>
#include <chrono>
#include <limits>
#include <tuple>

#include "instrumentation/trace/device_gaps.h"
#include "instrumentation/trace/gap_attribution.h"
#include "ui/timeline/span_caption.h"
#include "ui/timeline/timeline_layout.h"

namespace pipescope::ui {
namespace {

using record::EventKind;

constexpr float kClickSlop = 3;                   // pixels a press may move and still be a click
constexpr float kSnapPixels = 8;                  // a measurement snaps to span edges this close
constexpr int64_t kPathWindowNs = 5'000'000'000;  // how far an element's path is looked for

}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : ImGuiGlWidget(parent) {
  setMinimumSize(480, 240);
  setFocusPolicy(Qt::StrongFocus);
  live_frames_.setInterval(50);
  connect(&live_frames_, &QTimer::timeout, this, [this] { update(); });
  dragged_label_width_ = QSettings().value("timeline/label_width", 0.0).toFloat();
}

void TimelineWidget::SetDraggedLabelWidth(float width) {
  dragged_label_width_ = std::max(0.0f, width);
  QSettings().setValue("timeline/label_width", static_cast<double>(dragged_label_width_));
  update();
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* e) {
  // On the label column's edge: fit the column to its labels again.
  const float x = static_cast<float>(e->position().x()) / ui_scale();
  if (model_ && std::fabs(x - axis_.x) <= kLabelEdgeGrab) {
    SetDraggedLabelWidth(0);
    return;
  }
  ImGuiGlWidget::mouseDoubleClickEvent(e);
}

void TimelineWidget::MeasureLabels(bool with_plot) {
  const size_t key = lane_fingerprint_ * 31 + lanes_.size() * 7 +
                     static_cast<size_t>(ImGui::GetFontSize() * 16) + (with_plot ? 1 : 0);
  if (key == labels_key_) return;
  labels_key_ = key;
  // The plot's label column holds its name, a mean and the y labels beside it.
  float widest = with_plot ? ImGui::CalcTextSize("9999.9 mean  1000").x : 0;
  for (const Lane& lane : lanes_)
    widest = std::max(widest, ImGui::CalcTextSize(lane.label.c_str()).x);
  const bool folds = std::find(has_rows_.begin(), has_rows_.end(), true) != has_rows_.end();
  natural_label_width_ = widest + (folds ? kFoldMarkWidth : 0);
}

void TimelineWidget::SetModel(std::shared_ptr<const trace::Model> model, std::mutex* lock,
                              bool live) {
  prep_.Clear();  // before the old model's tracks can go
  model_ = std::move(model);
  lock_ = lock != nullptr ? lock : &own_lock_;
  live_ = live;
  lane_fingerprint_ = 0;
  gap_ = {};
  path_.clear();
  match_track_ = nullptr;  // a track of the old model
  bottleneck_.clear();
  bottleneck_op_ = -1;
  sel_t0_ = sel_t1_ = 0;
  measuring_ = false;
  {
    const std::lock_guard<std::mutex> guard(*lock_);
    RefreshLanes();
    if (!live_) axis_.Fit(model_ ? model_->duration_ns() : 0);
  }
  if (live_) {
    axis_.t0 = 0;
    axis_.t1 = 2'000'000'000;  // the newest two seconds, until the user zooms
  }
  SetFollowing(live_);
  if (live_) {
    live_frames_.start();
  } else {
    live_frames_.stop();
  }
  update();
}

void TimelineWidget::SetLive(bool live) {
  live_ = live;
  if (!live_) {
    SetFollowing(false);
    live_frames_.stop();
  }
  update();
}

void TimelineWidget::SetFollowing(bool following) {
  following = following && live_;
  if (following == following_) return;
  following_ = following;
  emit FollowingChanged(following_);
  update();
}

void TimelineWidget::SetDarkTheme(bool dark) {
  palette_ = dark ? Palette::Dark() : Palette::Light();
  SetImGuiTheme(dark, palette_.clear);
}

void TimelineWidget::ZoomToFit() {
  const std::lock_guard<std::mutex> guard(*lock_);
  FitLocked();
}

void TimelineWidget::FitLocked() {
  if (live_) {
    SetFollowing(true);
  } else {
    axis_.Fit(model_ ? model_->duration_ns() : 0);
  }
  update();
}

int64_t TimelineWidget::trace_duration_ns() const {
  const std::lock_guard<std::mutex> guard(*lock_);
  return model_ ? model_->duration_ns() : 0;
}

void TimelineWidget::SetView(int64_t t0, int64_t t1) {
  axis_.t0 = t0;
  axis_.t1 = std::max(t1, t0 + static_cast<int64_t>(TimeAxis::kMinSpanNs));
  update();
}

void TimelineWidget::SetSelection(int64_t t0, int64_t t1) {
  if (t1 < t0) std::swap(t0, t1);
  sel_t0_ = t0;
  sel_t1_ = t1;
  emit SelectionChanged(sel_t0_, sel_t1_);
  update();
}

void TimelineWidget::ZoomToSelection() {
  if (sel_t1_ <= sel_t0_) return;
  UserNavigated();
  SetView(sel_t0_, sel_t1_);
}

int TimelineWidget::SetSearch(const QString& text) {
  // The names and stages searched grow while a live run records.
  const std::lock_guard<std::mutex> guard(*lock_);
  search_.Set(text.trimmed().toStdString(), model_.get());
  int matches = 0;
  if (search_.active()) {
    for (const Lane& lane : lanes_) {
      bool match = search_.LaneMatches(model_.get(), lane) || search_.LaneHasMatchingSpans(lane);
      for (int k = 0; k < lane.track_count && !match; ++k)
        match = search_.KindMatches(lane.tracks[k]->key().kind);
      matches += match ? 1 : 0;
    }
  }
  update();
  return matches;
}

void TimelineWidget::SetBottleneck(const std::string& op) {
  const std::lock_guard<std::mutex> guard(*lock_);
  const record::StageDef* stage = model_ && !op.empty() ? model_->StageNamed(op) : nullptr;
  const int id = stage != nullptr ? stage->id : -1;
  if (op == bottleneck_ && id == bottleneck_op_) return;
  bottleneck_ = op;
  bottleneck_op_ = id;
  update();
}

QString TimelineWidget::NextMatch(bool backward) {
  const std::lock_guard<std::mutex> guard(*lock_);
  if (!model_ || !search_.active()) return {};
  // Spans are ordered by (start, track, index), so that spans starting together are each
  // visited once. From the span shown last if it is still in view, else from the view's
  // middle.
  using Key = std::tuple<int64_t, uint32_t, size_t>;
  auto key_of = [](const trace::Track* track, size_t i) {
    return Key{track->start(i), track->id(), i};
  };
  const int64_t middle_of_view = (axis_.t0 + axis_.t1) / 2;
  Key from{middle_of_view, backward ? UINT32_MAX : 0, backward ? SIZE_MAX : 0};
  if (match_track_ != nullptr && match_index_ < match_track_->size()) {
    const int64_t shown = match_track_->start(match_index_);
    if (shown >= axis_.t0 && shown <= axis_.t1) from = key_of(match_track_, match_index_);
  }
  auto beyond = [&](const Key& k) { return backward ? k < from : k > from; };
  const trace::Track* best_track = nullptr;
  size_t best_index = 0;
  // Past the last match, around to the first (and back from the first to the last); the
  // second pass finds the one shown now again when it is the only match.
  for (int pass = 0; pass < 2 && best_track == nullptr; ++pass) {
    if (pass == 1) {
      from = backward ? Key{std::numeric_limits<int64_t>::max(), UINT32_MAX, SIZE_MAX}
                      : Key{std::numeric_limits<int64_t>::min(), 0, 0};
    }
    for (const Lane& lane : lanes_) {
      if (lane.kind == LaneKind::kCounter) continue;
      const bool whole_lane = search_.LaneMatches(model_.get(), lane);
      for (int k = 0; k < lane.track_count; ++k) {
        const trace::Track* track = lane.tracks[k];
        if (track->empty()) continue;
        const bool named = search_.tracks.contains(track);
        if (!whole_lane && !named && !search_.KindMatches(track->key().kind)) continue;
        auto matches = [&](size_t i) {
          return (whole_lane || !named || search_.labels[track->label(i)]) &&
                 beyond(key_of(track, i));
        };
        // This track's nearest match past `from`: a walk only over the spans at `from`'s
        // start and those whose names do not match.
        const int64_t t = std::get<0>(from);
        size_t found = track->size();
        if (!backward) {
          for (size_t i = track->FirstStartingAtOrAfter(t); i < track->size(); ++i) {
            if (matches(i)) {
              found = i;
              break;
            }
          }
        } else {
          const size_t end = t == std::numeric_limits<int64_t>::max()
                                 ? track->size()
                                 : track->FirstStartingAtOrAfter(t + 1);
          for (size_t i = end; i-- > 0;) {
            if (matches(i)) {
              found = i;
              break;
            }
          }
        }
        if (found == track->size()) continue;
        if (best_track != nullptr) {
          const Key candidate = key_of(track, found), best = key_of(best_track, best_index);
          if (backward ? candidate < best : candidate > best) continue;
        }
        best_track = track;
        best_index = found;
      }
    }
  }
  if (best_track == nullptr) return {};
  match_track_ = best_track;
  match_index_ = best_index;
  // Centred, at the current zoom unless the span is wider than most of the view.
  const int64_t start = best_track->start(best_index), end = best_track->end(best_index);
  const int64_t span = std::max<int64_t>(axis_.t1 - axis_.t0, (end - start) * 5 / 4);
  const int64_t middle = start + (end - start) / 2;
  UserNavigated();
  SetView(middle - span / 2, middle - span / 2 + span);
  return QString::fromStdString(SpanCaption(*model_, *best_track, best_index) + " at " +
                                FormatTimeAt(start, axis_.ns_per_pixel()));
}

void TimelineWidget::SetRateOverlay(std::shared_ptr<const trace::Model> other,
                                    const std::string& name) {
  overlay_model_ = std::move(other);
  overlay_steps_ = overlay_model_ ? StepTrackOf(*overlay_model_) : nullptr;
  overlay_name_ = name;
  update();
}

void TimelineWidget::RefreshLanes() {
  if (!model_) {
    lanes_.clear();
    return;
  }
  const size_t fingerprint = LaneFingerprint(*model_);
  // The legend follows the tracks, the changes and markers (a live run adds them) and the theme.
  const size_t legend_key =
      ((fingerprint * 31 + model_->knob_changes().size()) * 31 + model_->markers().size()) * 2 +
      (palette_.dark ? 1 : 0);
  if (legend_key != legend_key_ || legend_.empty()) {
    legend_key_ = legend_key;
    legend_ = BuildLegend(*model_, palette_);
  }
  if (fingerprint == lane_fingerprint_ && !lanes_.empty()) return;
  lane_fingerprint_ = fingerprint;
  lanes_ = BuildLanes(*model_);
  parents_ = TrackParents(lanes_);
  has_rows_.assign(lanes_.size(), false);
  for (const int parent : parents_) {
    if (parent >= 0) has_rows_[static_cast<size_t>(parent)] = true;
  }
}

void TimelineWidget::LayOutRows() {
  row_height_.resize(lanes_.size());
  for (size_t i = 0; i < lanes_.size(); ++i) {
    // Hidden under any folded group it is in: its thread's track or its op's.
    bool hidden = false;
    for (int parent = i < parents_.size() ? parents_[i] : -1; parent >= 0 && !hidden;
         parent = parents_[static_cast<size_t>(parent)])
      hidden = folded_.contains(FoldKey(lanes_[static_cast<size_t>(parent)]));
    row_height_[i] = hidden ? 0 : LaneHeight(lanes_[i]);
  }
}

bool TimelineWidget::ToggleFold(size_t lane) {
  if (lane >= has_rows_.size() || !has_rows_[lane]) return false;
  const auto key = FoldKey(lanes_[lane]);
  if (!folded_.erase(key)) folded_.insert(key);
  update();
  return true;
}

bool TimelineWidget::ExplainGapAt(int64_t t) {
  const std::lock_guard<std::mutex> guard(*lock_);
  return ExplainGapLocked(t);
}

bool TimelineWidget::ExplainGapLocked(int64_t t) {
  if (!model_) return false;
  for (const trace::Track* waits : model_->TracksOf(EventKind::kInputWait, record::kConsumerOp)) {
    const size_t i = waits->FirstEndingAfter(t);
    if (i >= waits->size() || waits->start(i) > t) continue;
    const trace::GapCause cause = trace::AttributeGap(*model_, waits->start(i), waits->end(i));
    gap_.active = true;
    gap_.device = false;
    gap_.start = waits->start(i);
    gap_.end = waits->end(i);
    gap_.op = cause.op;
    const record::StageDef* stage =
        cause.op >= 0 ? model_->Stage(static_cast<uint16_t>(cause.op)) : nullptr;
    gap_.text = "The consumer waited " + FormatDuration(gap_.end - gap_.start) + " at " +
                FormatDuration(gap_.start) + ": caused by " +
                (stage ? stage->name : std::string("no op")) +
                (cause.reason.empty() ? "" : " (" + cause.reason + ")") + ".";
    const QString text = QString::fromStdString(gap_.text);
    Later([this, text] { emit GapExplained(text); });
    update();
    return true;
  }
  return false;
}

bool TimelineWidget::ExplainDeviceGapAt(int64_t t) {
  const std::lock_guard<std::mutex> guard(*lock_);
  return ExplainDeviceGapLocked(t);
}

bool TimelineWidget::ExplainDeviceGapLocked(int64_t t) {
  if (!model_) return false;
  const auto gap = trace::DeviceGapAt(*model_, t);
  if (!gap) return false;
  gap_.active = true;
  gap_.device = true;
  gap_.start = gap->first;
  gap_.end = gap->second;
  const std::string cause = trace::DeviceGapCause(*model_, gap->first, gap->second);
  gap_.op = -1;
  if (cause.starts_with("input: ")) {
    if (const record::StageDef* stage = model_->StageNamed(cause.substr(7))) gap_.op = stage->id;
  }
  gap_.text = "The device was idle " + FormatDuration(gap_.end - gap_.start) + " at " +
              FormatDuration(gap_.start) + ": " + cause + ".";
  const QString text = QString::fromStdString(gap_.text);
  Later([this, text] { emit GapExplained(text); });
  update();
  return true;
}

int TimelineWidget::HighlightElement(uint64_t element, int64_t t) {
  const std::lock_guard<std::mutex> guard(*lock_);
  return HighlightElementLocked(element, t);
}

int TimelineWidget::HighlightElementLocked(uint64_t element, int64_t t) {
  path_.clear();
  path_element_ = element;
  if (element == 0 || !model_) return 0;
  for (const auto& track : model_->tracks()) {
    const record::EventKind kind = track->key().kind;
    if (record::IsCounter(kind) || record::IsGpuActivity(kind)) continue;  // not elements
    const size_t end = track->FirstStartingAtOrAfter(t + kPathWindowNs);
    for (size_t i = track->FirstEndingAfter(t - kPathWindowNs); i < end; ++i) {
      // A run covers its elements element(i) .. element(i) + calls(i) - 1.
      if (track->element(i) <= element && element - track->element(i) < track->calls(i))
        path_.push_back({track.get(), track->start(i), track->end(i)});
    }
  }
  update();
  return static_cast<int>(path_.size());
}

void TimelineWidget::UserNavigated() {
  if (following_) SetFollowing(false);
}

void TimelineWidget::Later(std::function<void()> fn) {
  QMetaObject::invokeMethod(this, std::move(fn), Qt::QueuedConnection);
}

int TimelineWidget::LaneAt(float y) const {
  for (size_t i = 0; i < lane_y_.size() && i < lanes_.size() && i < row_height_.size(); ++i) {
    if (y >= lane_y_[i] && y < lane_y_[i] + row_height_[i]) return static_cast<int>(i);
  }
  return -1;
}

int64_t TimelineWidget::SnapToEdge(int lane_index, int64_t t) const {
  if (lane_index < 0) return t;
  const Lane& lane = lanes_[static_cast<size_t>(lane_index)];
  const auto tolerance = static_cast<int64_t>(axis_.ns_per_pixel() * kSnapPixels);
  int64_t best = t;
  int64_t best_distance = tolerance + 1;
  for (int k = 0; k < lane.track_count; ++k) {
    const trace::Track* track = lane.tracks[k];
    for (size_t i = track->FirstEndingAfter(t - tolerance);
         i < track->size() && track->start(i) <= t + tolerance; ++i) {
      for (int64_t edge : {track->start(i), track->end(i)}) {
        const int64_t d = std::llabs(edge - t);
        if (d < best_distance) best = edge, best_distance = d;
      }
    }
  }
  return best;
}

void TimelineWidget::keyPressEvent(QKeyEvent* e) {
  // Keys ImGui 1.86 does not map through its 512-entry key table.
  if (e->key() == Qt::Key_Escape) {
    gap_ = {};
    path_.clear();
    measuring_ = false;
    if (sel_t1_ > sel_t0_) SetSelection(0, 0);
    update();
    return;
  }
  if (e->key() == Qt::Key_End) {
    SetFollowing(true);
    return;
  }
  ImGuiGlWidget::keyPressEvent(e);
}

void TimelineWidget::HandleKeys() {
  const float centre = axis_.x + axis_.width / 2;
  bool navigated = false;
  if (ImGui::IsKeyDown('W')) axis_.ZoomAround(0.9, centre), navigated = true;
  if (ImGui::IsKeyDown('S')) axis_.ZoomAround(1.0 / 0.9, centre), navigated = true;
  if (ImGui::IsKeyDown('A')) axis_.PanPixels(axis_.width * 0.05f), navigated = true;
  if (ImGui::IsKeyDown('D')) axis_.PanPixels(-axis_.width * 0.05f), navigated = true;
  if (navigated) UserNavigated();
  if (ImGui::IsKeyPressed('F')) FitLocked();
}

void TimelineWidget::HandleMouse(float axis_bottom, float lanes_bottom) {
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 mouse = io.MousePos;
  // The axis, the steps/s plot and the lanes: a drag on the axis selects, elsewhere pans.
  const bool over_lanes = mouse.x >= axis_.x && mouse.x < axis_.x + axis_.width &&
                          mouse.y >= axis_bottom - kAxisHeight && mouse.y < lanes_bottom;
  if (io.MouseWheel != 0 && ImGui::IsWindowHovered()) {
    if (mouse.x < axis_.x) {
      scroll_y_ = std::max(0.0f, scroll_y_ - io.MouseWheel * 3 * (kLaneHeight + kLaneGap));
    } else {
      axis_.ZoomAround(std::pow(0.8, io.MouseWheel), mouse.x);
      UserNavigated();
    }
  }
  // The label column's edge: dragged to resize it, double-clicked to fit it to the labels.
  const bool on_edge = std::fabs(mouse.x - axis_.x) <= kLabelEdgeGrab &&
                       mouse.y >= axis_bottom - kAxisHeight && mouse.y < lanes_bottom;
  if (on_edge || drag_ == Drag::kLabelEdge) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  if (on_edge && ImGui::IsMouseClicked(0) && !ImGui::IsPopupOpen(kMenuId)) {
    drag_ = Drag::kLabelEdge;
    press_x_ = mouse.x;
    return;
  }
  if (drag_ == Drag::kLabelEdge) {
    const bool moved = std::fabs(mouse.x - press_x_) > kClickSlop;
    if (ImGui::IsMouseDown(0)) {
      if (moved) {
        dragged_label_width_ = std::max(kMinLabelWidth / 2, mouse.x - (axis_.x - label_width_));
      }
    } else {
      if (moved) SetDraggedLabelWidth(dragged_label_width_);  // a click alone keeps the fit
      drag_ = Drag::kNone;
    }
    return;
  }
  // A click on a track's label folds or unfolds its nested rows.
  if (ImGui::IsMouseClicked(0) && mouse.x < axis_.x - kLabelEdgeGrab &&
      mouse.x >= axis_.x - label_width_ && mouse.y >= axis_bottom && mouse.y < lanes_bottom &&
      !ImGui::IsPopupOpen(kMenuId)) {
    const int lane = LaneAt(mouse.y);
    if (lane >= 0) ToggleFold(static_cast<size_t>(lane));
    return;
  }
  // A click on the context menu (or outside it, closing it) is the menu's, not a click on
  // the span under it.
  const bool menu_open = ImGui::IsPopupOpen(kMenuId);
  if (ImGui::IsMouseClicked(0) && over_lanes && !menu_open) {
    press_x_ = mouse.x;
    press_y_ = mouse.y;
    press_axis_ = axis_;
    press_t_ = axis_.ToTime(mouse.x);
    moved_ = false;
    const bool on_axis = mouse.y < axis_bottom;
    if (io.KeyCtrl) {
      drag_ = Drag::kMeasure;
      measuring_ = true;
      measure_from_ = measure_to_ = SnapToEdge(LaneAt(mouse.y), press_t_);
    } else {
      drag_ = io.KeyShift || on_axis ? Drag::kSelect : Drag::kPan;
    }
  }
  if (drag_ != Drag::kNone && ImGui::IsMouseDown(0)) {
    moved_ = moved_ || std::fabs(mouse.x - press_x_) > kClickSlop;
    const int64_t t = press_axis_.ToTime(mouse.x);
    if (drag_ == Drag::kPan && moved_) {
      axis_.t0 = press_axis_.t0;
      axis_.t1 = press_axis_.t1;
      axis_.PanPixels(mouse.x - press_x_);
      UserNavigated();
    } else if (drag_ == Drag::kSelect && moved_) {
      sel_t0_ = std::min(press_t_, t);
      sel_t1_ = std::max(press_t_, t);
    } else if (drag_ == Drag::kMeasure) {
      measure_to_ = SnapToEdge(LaneAt(mouse.y), t);
    }
  }
  if (drag_ != Drag::kNone && !ImGui::IsMouseDown(0)) {
    if (drag_ == Drag::kSelect && moved_) {
      const qint64 t0 = sel_t0_, t1 = sel_t1_;
      Later([this, t0, t1] { emit SelectionChanged(t0, t1); });
    } else if (drag_ == Drag::kPan && !moved_) {
      Click(press_y_, press_t_);
    }
    drag_ = Drag::kNone;
  }
  if (ImGui::IsMouseClicked(1) && over_lanes) {
    menu_t_ = axis_.ToTime(mouse.x);
    ImGui::OpenPopup(kMenuId);
  }
}

void TimelineWidget::Click(float mouse_y, int64_t t) {
  const int lane_index = LaneAt(mouse_y);
  if (lane_index < 0) return;
  const Lane& lane = lanes_[static_cast<size_t>(lane_index)];
  if (lane.kind == LaneKind::kConsumer && ExplainGapLocked(t)) return;
  if (lane.kind == LaneKind::kDevice && ExplainDeviceGapLocked(t)) return;
  for (int k = lane.track_count - 1; k >= 0; --k) {
    const trace::Track* track = lane.tracks[k];
    const size_t i = track->FirstEndingAfter(t);
    if (i < track->size() && track->start(i) <= t && track->element(i) != 0) {
      HighlightElementLocked(track->element(i), t);
      return;
    }
  }
}

void TimelineWidget::ContextMenu() {
  if (!ImGui::BeginPopup(kMenuId)) return;
  const int64_t t = menu_t_;
  if (ImGui::MenuItem("Add a note here...")) Later([this, t] { emit NoteRequested(t, t); });
  const bool has_selection = sel_t1_ > sel_t0_;
  if (ImGui::MenuItem("Add a note to the selection...", nullptr, false, has_selection)) {
    const qint64 t0 = sel_t0_, t1 = sel_t1_;
    Later([this, t0, t1] { emit NoteRequested(t0, t1); });
  }
  if (ImGui::MenuItem("Zoom to the selection", nullptr, false, has_selection)) ZoomToSelection();
  if (ImGui::MenuItem("Clear the selection", "Esc", false, has_selection)) {
    Later([this] { SetSelection(0, 0); });
  }
  // The menu is drawn after the model's lock is released: these take it.
  if (ImGui::MenuItem("Explain the wait here", nullptr, false, true)) ExplainGapAt(t);
  if (ImGui::MenuItem("Explain the device's idle time here", nullptr, false, true))
    ExplainDeviceGapAt(t);
  ImGui::EndPopup();
}

void TimelineWidget::PrepareFrame(float lanes_top, float lanes_bottom, int hovered,
                                  bool span_tooltip) {
  FrameRequest request;
  request.model = model_.get();
  request.lanes = &lanes_;
  request.in_view.resize(lanes_.size());
  for (size_t i = 0; i < lanes_.size(); ++i) {
    request.in_view[i] =
        row_height_[i] > 0 && lane_y_[i] + row_height_[i] >= lanes_top && lane_y_[i] < lanes_bottom;
  }
  request.axis = axis_;
  request.search = &search_;
  request.path = &path_;
  request.match_track = match_track_;
  request.match_index = match_index_;
  request.hovered_lane = span_tooltip ? hovered : -1;
  request.hovered_t = axis_.ToTime(ImGui::GetIO().MousePos.x);
  request.steps = StepTrackOf(lanes_);
  request.overlay_steps = overlay_steps_;
  prep_.Prepare(request, frame_);
}

void TimelineWidget::DrawImGui() {
  flow_arrows_ = 0;
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
  ImGui::Begin("timeline", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  if (!model_) {
    ImGui::TextWrapped("Open a trace (File > Open, Ctrl+O) or a pipeline spec to run it.");
    ImGui::End();
    return;
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  float plot_top = 0, lanes_top = 0, lanes_bottom = 0;
  std::vector<LegendSlot> legend;
  int hovered = -1;
  {
    // What reads the model: the lanes, the interaction (a click explains a gap), this
    // frame's content. The drawing below does not.
    const std::lock_guard<std::mutex> guard(*lock_);
    const auto locked_at = std::chrono::steady_clock::now();  // held from here, not waited for
    const int64_t locked_cpu = ThreadCpuNs();
    RefreshLanes();
    const bool has_plot = StepTrackOf(lanes_) != nullptr;
    MeasureLabels(has_plot);
    const float room = ImGui::GetContentRegionAvail().x;
    label_width_ = LabelColumnWidth(natural_label_width_, dragged_label_width_, room);
    axis_.x = origin.x + label_width_;
    axis_.width = std::max(1.0f, room - label_width_);
    if (following_) axis_.EndAt(model_->duration_ns());

    plot_top = origin.y + kAxisHeight;
    lanes_top = plot_top + (has_plot ? kRatePlotHeight : 0);
    // The legend strip takes the bottom rows; the lanes what is left.
    legend = LayOutLegend(legend_, axis_.width + label_width_ - 8);
    const float legend_height =
        legend.empty() ? 0 : static_cast<float>(legend.back().row + 1) * kLegendRowHeight + 4;
    lanes_bottom = ImGui::GetIO().DisplaySize.y - legend_height;
    LayOutRows();
    float content = 0;
    for (size_t i = 0; i < lanes_.size(); ++i) {
      if (row_height_[i] > 0) content += row_height_[i] + RowGap(i);
    }
    scroll_y_ = std::clamp(scroll_y_, 0.0f, std::max(0.0f, content - (lanes_bottom - lanes_top)));

    HandleKeys();
    HandleMouse(plot_top, lanes_bottom);
    // Where each lane sits this frame.
    lane_y_.resize(lanes_.size());
    float y = lanes_top - scroll_y_;
    for (size_t i = 0; i < lanes_.size(); ++i) {
      lane_y_[i] = y;
      if (row_height_[i] == 0) continue;                // folded into its track's first row
      if (parents_[i] >= 0) y += RowGap(i) - kLaneGap;  // a track's rows sit close together
      lane_y_[i] = y;
      y += row_height_[i] + kLaneGap;
    }
    hovered = LaneAt(mouse.y);
    // No hover tooltip over the open context menu.
    const bool span_tooltip = hovered >= 0 && drag_ == Drag::kNone && mouse.x >= axis_.x &&
                              mouse.x < axis_.x + axis_.width && !ImGui::IsPopupOpen(kMenuId);
    PrepareFrame(lanes_top, lanes_bottom, hovered, span_tooltip);
    last_lock_held_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - locked_at)
                             .count();
    last_lock_cpu_ns_ = ThreadCpuNs() - locked_cpu;
  }

  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->PushClipRect(ImVec2(origin.x, lanes_top), ImVec2(origin.x + 1e6f, lanes_bottom), true);
  // Room for the fold triangles when some track has nested rows.
  const float label_x =
      origin.x + 4 +
      (std::find(has_rows_.begin(), has_rows_.end(), true) != has_rows_.end() ? kFoldMarkWidth : 0);
  float lanes_end = lanes_top;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    const Lane& lane = lanes_[i];
    const LaneContent& content = frame_.lanes[i];
    const float h = row_height_[i];
    const float y = lane_y_[i];
    if (h > 0) lanes_end = y + h + kLaneGap;
    if (!content.in_view) continue;
    const bool match = content.matches;
    const bool culprit = lane.op >= 0 && lane.op == bottleneck_op_;
    if (has_rows_[i]) DrawFoldMark(label_x - kFoldMarkWidth, y, folded(i));
    draw->AddText(ImVec2(label_x, y), match || culprit ? palette_.highlight : palette_.text,
                  lane.label.c_str());
    draw->AddRectFilled(ImVec2(axis_.x, y), ImVec2(axis_.x + axis_.width, y + h),
                        palette_.lane_background);
    if (culprit) {
      draw->AddRectFilled(ImVec2(axis_.x - 4, y), ImVec2(axis_.x - 1, y + h), palette_.highlight);
    }
    if (lane.kind == LaneKind::kCounter) {
      DrawCounterLane(lane, content, y, h);
    } else {
      if (content.split_waits) {
        DrawConsumerWaits(content, y, h);
      } else {
        DrawSpanLane(content, y, h);
      }
      DrawDeviceIdle(content, y, h);
      OutlineMatchingSpans(content, y, h);
    }
    if (match) {
      draw->AddRect(ImVec2(axis_.x - 1, y - 1), ImVec2(axis_.x + axis_.width + 1, y + h + 1),
                    palette_.highlight);
    }
  }
  DrawOverlays(lanes_top, std::min(lanes_end, lanes_bottom));
  draw->PopClipRect();
  DrawAxis(origin.y);
  if (frame_.has_plot) DrawRatePlot(plot_top, kRatePlotHeight);
  DrawLegend(origin.x + 4, lanes_bottom + 4, legend);
  DrawTooltip();
  ContextMenu();
  ImGui::End();
  if (axis_.t0 != announced_t0_ || axis_.t1 != announced_t1_) {
    announced_t0_ = axis_.t0;
    announced_t1_ = axis_.t1;
    Later([this, t0 = axis_.t0, t1 = axis_.t1] { emit ViewChanged(t0, t1); });
  }
}

}  // namespace pipescope::ui
