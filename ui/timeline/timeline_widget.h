#pragma once
// The timeline: one lane per op with a sub-lane per worker thread, the consumer lane
// whose input waits are drawn as red gaps, and the device lane, over a time axis. Drawn
// with Dear ImGui from trace::Model's per-pixel summaries, so the cost of a frame follows
// the pixels, not the events.
//
// Navigation: the wheel zooms around the cursor, dragging pans, W/S zoom in/out, A/D pan,
// F zooms to fit. Hovering a span shows its details.

#include <memory>

#include "instrumentation/trace/model.h"
#include "ui/imgui_gl_widget.h"

namespace pipescope::ui {

class TimelineWidget : public ImGuiGlWidget {
  Q_OBJECT
 public:
  explicit TimelineWidget(QWidget* parent = nullptr);

  void SetModel(std::shared_ptr<const trace::Model> model);
  void ZoomToFit();
  void SetView(int64_t t0, int64_t t1);
  int64_t view_start() const { return t0_; }
  int64_t view_end() const { return t1_; }

 protected:
  void DrawImGui() override;

 private:
  struct Lane {
    std::string label;
    const trace::Track* tracks[4] = {};  // drawn in order, later ones on top
    int track_count = 0;
  };
  void BuildLanes();
  void HandleNavigation(float timeline_x, float timeline_width);
  void DrawAxis(float x, float y, float width);
  void DrawLane(const Lane& lane, float x, float y, float width, float height);
  void DrawTooltip(const Lane& lane, int64_t t);

  std::shared_ptr<const trace::Model> model_;
  std::vector<Lane> lanes_;
  int64_t t0_ = 0;
  int64_t t1_ = 1'000'000'000;
  bool dragging_ = false;
  float drag_origin_x_ = 0;
  int64_t drag_origin_t0_ = 0;
};

}  // namespace pipescope::ui
