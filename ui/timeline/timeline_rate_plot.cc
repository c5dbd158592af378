// TimelineWidget's steps/s plot, pinned under the time axis: where the lanes show what each
// op did, the plot shows what it added up to, on a y-axis of round numbers. Drawn from the
// frame's prepared plot (frame_prep.h), after the model's lock is released.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "ui/timeline/rate_plot.h"
#include "ui/timeline/timeline_layout.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {

void TimelineWidget::DrawRatePlot(float y, float height) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const RatePlot& plot = frame_.plot;
  // The other run's rate on the same axis: two runs compared by the height of their lines.
  const RatePlot& other = frame_.overlay;
  const double axis_top = engine::RoundAxisTop(std::max(plot.max, other.max));
  rate_axis_top_ = axis_top;
  const float left = axis_.x - label_width_;
  draw->AddRectFilled(ImVec2(left, y), ImVec2(axis_.x + axis_.width, y + height),
                      WithAlpha(palette_.lane_background, 255));
  // Room above the top gridline and below the bottom one for their labels' halves.
  const float top = y + 8, bottom = y + height - 9;
  auto y_of = [&](double v) { return bottom - static_cast<float>(v / axis_top) * (bottom - top); };
  draw->AddText(ImVec2(left + 4, y + 2), palette_.text, "steps/s");
  if (!std::isnan(plot.mean_in_view)) {
    char mean[48];
    std::snprintf(mean, sizeof mean, "%.1f mean", plot.mean_in_view);
    draw->AddText(ImVec2(left + 4, y + 18), palette_.dim_text, mean);
  }
  for (const double v : {0.0, axis_top / 2, axis_top}) {
    const float gy = std::round(y_of(v));
    draw->AddLine(ImVec2(axis_.x, gy), ImVec2(axis_.x + axis_.width, gy),
                  WithAlpha(palette_.dim_text, 60));
    char label[32];
    std::snprintf(label, sizeof label, "%g", v);
    const ImVec2 size = ImGui::CalcTextSize(label);
    draw->AddText(ImVec2(axis_.x - 6 - size.x, gy - size.y / 2), palette_.dim_text, label);
  }
  // A line, broken where nothing is known (before the first step, after the last).
  auto draw_line = [&](const RatePlot& line, ImU32 color) {
    std::vector<ImVec2> points;
    auto flush = [&] {
      if (points.size() >= 2) {
        draw->AddPolyline(points.data(), static_cast<int>(points.size()), color, ImDrawFlags_None,
                          1.5f);
      }
      points.clear();
    };
    for (size_t p = 0; p < line.rate.size(); ++p) {
      const float r = line.rate[p];
      if (std::isnan(r)) {
        flush();
        continue;
      }
      points.emplace_back(axis_.x + static_cast<float>(p) + 0.5f, y_of(r));
    }
    flush();
  };
  const ImU32 overlay_color = WithAlpha(palette_.text, 120);
  if (overlay_steps_ != nullptr) {
    draw_line(other, overlay_color);
    char label[96];
    std::snprintf(label, sizeof label, "%.1f %s", other.mean_in_view, overlay_name_.c_str());
    if (!std::isnan(other.mean_in_view)) {
      draw->AddText(ImVec2(left + 4, y + 34), overlay_color, label);
    }
  }
  draw_line(plot, ColorOf(record::EventKind::kStep));
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (mouse.y >= y && mouse.y < y + height && mouse.x >= axis_.x &&
      mouse.x < axis_.x + axis_.width && drag_ == Drag::kNone && !ImGui::IsPopupOpen(kMenuId)) {
    const auto p = static_cast<size_t>(mouse.x - axis_.x);
    const float r = p < plot.rate.size() ? plot.rate[p] : NAN;
    NoteShownContent(std::isnan(r) ? 1 : static_cast<uint64_t>(r * 100) + 2);
    ImGui::BeginTooltip();
    if (std::isnan(r)) {
      ImGui::Text("no steps here");
    } else {
      ImGui::Text("%.1f steps/s", static_cast<double>(r));
      const float o = p < other.rate.size() ? other.rate[p] : NAN;
      if (!std::isnan(o)) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(overlay_color), "%.1f steps/s %s",
                           static_cast<double>(o), overlay_name_.c_str());
      }
      ImGui::TextDisabled("mean over %s around this time", FormatDuration(plot.window_ns).c_str());
    }
    ImGui::EndTooltip();
  }
}

}  // namespace pipescope::ui
