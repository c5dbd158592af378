// The timeline's drawing: the axis, span lanes, counter lanes, and the overlays (selection,
// gap culprit, element path, measurement, knob changes, markers, notes) with their
// tooltips, all from the frame's prepared content (frame_prep.h). Called from DrawImGui
// after the model's lock is released: nothing here reads the model.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "ui/timeline/coverage.h"
#include "ui/timeline/timeline_layout.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

using record::EventKind;

constexpr float kHoverPixels = 3;
// Names inside spans: every span colour is a mid tone, light text reads on all of them.
constexpr ImU32 kSpanTextColor = IM_COL32(250, 250, 250, 255);

// `text`'s first line inside the span [a, b) of a lane at y: whole where it fits, else the
// longest prefix that fits followed by "..." (the default font has no ellipsis glyph), else
// nothing. Imported names may hold newlines (Python stacks, annotations): a second line
// would be drawn over the lanes below, so only the first is shown (the tooltip has all).
void DrawClippedText(std::string_view text, float a, float b, float y) {
  text = text.substr(0, text.find_first_of("\r\n"));
  const float room = b - a - 6;
  const float dots = ImGui::CalcTextSize("...").x;
  if (room < dots || text.empty()) return;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 at(a + 3, y + 1);
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (ImGui::CalcTextSize(begin, end).x <= room) {
    draw->AddText(at, kSpanTextColor, begin, end);
    return;
  }
  // The font stops measuring at the first character that would pass the width (between
  // UTF-8 characters): one pass however long the name.
  const char* fits = begin;
  ImGui::GetFont()->CalcTextSizeA(ImGui::GetFontSize(), room - dots, 0.0f, begin, end, &fits);
  std::string shown(begin, fits);
  shown += "...";
  draw->AddText(at, kSpanTextColor, shown.c_str());
}

bool Near(float a, float b) { return std::fabs(a - b) <= kHoverPixels; }

}  // namespace

void TimelineWidget::DrawAxis(float y) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(ImVec2(axis_.x - label_width_, y),
                      ImVec2(axis_.x + axis_.width, y + kAxisHeight),
                      WithAlpha(palette_.lane_background, 255));
  const double tick = axis_.TickStep();
  for (double t = std::ceil(static_cast<double>(axis_.t0) / tick) * tick;
       t < static_cast<double>(axis_.t1); t += tick) {
    const float px = axis_.ToPixel(static_cast<int64_t>(t));
    draw->AddLine(ImVec2(px, y + kAxisHeight - 6), ImVec2(px, y + kAxisHeight), palette_.axis);
    draw->AddText(ImVec2(px + 3, y + 2), palette_.axis,
                  FormatTimeAt(static_cast<int64_t>(t), tick).c_str());
  }
  if (following_) {
    draw->AddText(ImVec2(axis_.x - label_width_ + 4, y + 2), palette_.highlight,
                  "LIVE (following)");
  } else if (live_) {
    draw->AddText(ImVec2(axis_.x - label_width_ + 4, y + 2), palette_.dim_text,
                  "live (End: follow)");
  }
  // Notes pinned to a time show as a pin on the axis.
  for (const NoteInView& note : frame_.notes) {
    const float px = axis_.ToPixel(note.start_ns);
    if (px < axis_.x || px > axis_.x + axis_.width) continue;
    draw->AddTriangleFilled(ImVec2(px - 5, y + 12), ImVec2(px + 5, y + 12), ImVec2(px, y + 22),
                            palette_.annotation);
  }
}

void TimelineWidget::DrawLegend(float x, float y, const std::vector<LegendSlot>& places) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (size_t i = 0; i < places.size() && i < legend_.size(); ++i) {
    const LegendEntry& e = legend_[i];
    const float left = x + places[i].x;
    const float top = y + static_cast<float>(places[i].row) * kLegendRowHeight;
    if (e.line) {
      draw->AddLine(ImVec2(left + kLegendSwatch / 2, top + 1),
                    ImVec2(left + kLegendSwatch / 2, top + kLegendRowHeight - 3), e.color, 2);
    } else {
      draw->AddRectFilled(ImVec2(left, top + 3),
                          ImVec2(left + kLegendSwatch, top + 3 + kLegendSwatch), e.color);
    }
    draw->AddText(ImVec2(left + kLegendSwatch + kLegendSwatchGap, top), palette_.dim_text,
                  e.label.c_str());
  }
}

void TimelineWidget::DrawSpanLane(const LaneContent& lane, float y, float height) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (const TrackInView& track : lane.tracks) {
    for (const PixelRun& run : track.runs) {
      const float filled =
          run.q > run.p ? height : CoveredHeight(run.covered_ns, frame_.pixel_ns, height);
      draw->AddRectFilled(ImVec2(axis_.x + static_cast<float>(run.p), y + height - filled),
                          ImVec2(axis_.x + static_cast<float>(run.q + 1), y + height), track.color);
    }
    for (const SpanNameInView& name : track.names) {
      const float a = axis_.x + name.a, b = axis_.x + name.b;
      if (name.painted) draw->AddRectFilled(ImVec2(a, y), ImVec2(b, y + kLaneHeight), name.paint);
      DrawClippedText(name.caption, a, b, y);
    }
  }
}

void TimelineWidget::DrawConsumerWaits(const LaneContent& lane, float y, float height) {
  // Every wait faint, then in red the part during which the device idled too, each pixel
  // as high as its share of each.
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 red = ColorOf(EventKind::kInputWait);
  for (size_t p = 0; p < lane.waited_ns.size(); ++p) {
    const float x = axis_.x + static_cast<float>(p);
    if (lane.waited_ns[p] > 0) {
      const float h = CoveredHeight(lane.waited_ns[p], frame_.pixel_ns, height);
      draw->AddRectFilled(ImVec2(x, y + height - h), ImVec2(x + 1, y + height), WithAlpha(red, 60));
    }
    const double idle = p < lane.idle_wait_ns.size() ? lane.idle_wait_ns[p] : 0;
    if (idle > 0) {
      const float h = CoveredHeight(idle, frame_.pixel_ns, height);
      draw->AddRectFilled(ImVec2(x, y + height - h), ImVec2(x + 1, y + height), red);
    }
  }
}

void TimelineWidget::DrawDeviceIdle(const LaneContent& lane, float y, float height) {
  // Red from the top of the device lane, as high as the pixel's idle share.
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 red = WithAlpha(ColorOf(EventKind::kInputWait), 200);
  for (size_t p = 0; p < lane.device_idle_ns.size(); ++p) {
    if (lane.device_idle_ns[p] <= 0) continue;
    const float h = CoveredHeight(lane.device_idle_ns[p], frame_.pixel_ns, height);
    draw->AddRectFilled(ImVec2(axis_.x + static_cast<float>(p), y),
                        ImVec2(axis_.x + static_cast<float>(p + 1), y + h), red);
  }
}

void TimelineWidget::OutlineMatchingSpans(const LaneContent& lane, float y, float height) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (const auto& [a, b] : lane.outlines) {
    draw->AddRect(ImVec2(axis_.x + a, y), ImVec2(axis_.x + b, y + height), palette_.highlight, 0, 0,
                  2);
  }
}

void TimelineWidget::DrawFlowArrows(const std::vector<FlowArrow>& flows) {
  // Each flow as a line from the start of its first span to the start of its second.
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  auto at = [&](int lane, float x) {
    const auto l = static_cast<size_t>(lane);
    return ImVec2(axis_.x + x, (l < lane_y_.size() ? lane_y_[l] : 0) + row_height(l) / 2);
  };
  for (const FlowArrow& f : flows) {
    const ImVec2 a = at(f.from_lane, f.from_x), b = at(f.to_lane, f.to_x);
    draw->AddLine(a, b, palette_.highlight, 2);
    ++flow_arrows_;
    draw->AddCircleFilled(a, 3, palette_.highlight);
    // The arrowhead at the flow's end.
    const float dx = b.x - a.x, dy = b.y - a.y;
    const float len = std::max(1.0f, std::sqrt(dx * dx + dy * dy));
    const ImVec2 u(dx / len, dy / len);
    draw->AddTriangleFilled(b, ImVec2(b.x - 9 * u.x + 4 * u.y, b.y - 9 * u.y - 4 * u.x),
                            ImVec2(b.x - 9 * u.x - 4 * u.y, b.y - 9 * u.y + 4 * u.x),
                            palette_.highlight);
  }
}

void TimelineWidget::DrawCounterLane(const Lane& lane, const LaneContent& content, float y,
                                     float height) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const std::vector<float>& values = content.values;
  const auto pixels = static_cast<int>(values.size());
  const double full = lane.counter_max;
  // Heights in whole pixels, and runs of equal height as one rectangle: a counter lane
  // costs tens of rectangles, not one per pixel.
  auto height_at = [&](int p) {
    return std::round(
        height * static_cast<float>(std::clamp(values[static_cast<size_t>(p)] / full, 0.0, 1.0)));
  };
  for (int p = 0; p < pixels;) {
    const float h = height_at(p);
    int q = p + 1;
    while (q < pixels && height_at(q) == h) ++q;
    if (h > 0) {
      draw->AddRectFilled(ImVec2(axis_.x + static_cast<float>(p), y + height - h),
                          ImVec2(axis_.x + static_cast<float>(q), y + height), palette_.counter);
    }
    p = q;
  }
  char scale[48];
  if (IsBusyShare(lane.counter)) {
    std::snprintf(scale, sizeof scale, "100%%");
  } else {
    std::snprintf(scale, sizeof scale, "%.4g", full);
  }
  // The scale on its own background: grey text over the purple data did not read.
  const ImVec2 scale_at(axis_.x + axis_.width - 50, y);
  const ImVec2 scale_size = ImGui::CalcTextSize(scale);
  draw->AddRectFilled(ImVec2(scale_at.x - 2, scale_at.y),
                      ImVec2(scale_at.x + scale_size.x + 2, scale_at.y + scale_size.y),
                      WithAlpha(palette_.lane_background, 220));
  draw->AddText(scale_at, palette_.text, scale);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (pixels > 0 && mouse.y >= y && mouse.y < y + height && mouse.x >= axis_.x &&
      mouse.x < axis_.x + axis_.width && drag_ == Drag::kNone) {
    const float v =
        values[static_cast<size_t>(std::clamp(static_cast<int>(mouse.x - axis_.x), 0, pixels - 1))];
    NoteShownContent(static_cast<uint64_t>(lane.counter) * 0x9E3779B97F4A7C15ull +
                     static_cast<uint64_t>(static_cast<double>(v) * 1000));
    ImGui::BeginTooltip();
    ImGui::Text("%s", lane.label.c_str());
    if (IsBusyShare(lane.counter)) {
      ImGui::Text("%.0f%% busy (over %s)", 100 * v,
                  FormatDuration(content.counter_window_ns).c_str());
    } else {
      ImGui::Text("%.1f of %.0f elements", v, lane.counter_max);
    }
    ImGui::EndTooltip();
  }
}

void TimelineWidget::DrawOverlays(float top, float bottom) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const float left = axis_.x;
  const float right = axis_.x + axis_.width;
  auto clamp_x = [&](float px) { return std::clamp(px, left, right); };
  auto lane_rows = [&](auto&& match, auto&& fn) {
    for (size_t i = 0; i < lanes_.size() && i < lane_y_.size(); ++i) {
      if (match(i) && row_height(i) > 0) fn(lane_y_[i], lane_y_[i] + row_height(i));
    }
  };

  // Notes over a range: a tinted band with the note's first words.
  for (const NoteInView& note : frame_.notes) {
    const float a = axis_.ToPixel(note.start_ns);
    const float b = axis_.ToPixel(note.end_ns);
    if (b < left || a > right) continue;
    if (note.end_ns > note.start_ns) {
      draw->AddRectFilled(ImVec2(clamp_x(a), top), ImVec2(clamp_x(b), bottom),
                          WithAlpha(palette_.annotation, 28));
    } else {
      draw->AddLine(ImVec2(a, top), ImVec2(a, bottom), WithAlpha(palette_.annotation, 160));
    }
    // The first words on an opaque label, so that they stay readable over the spans.
    const ImVec2 size = ImGui::CalcTextSize(note.label.c_str());
    const ImVec2 at(clamp_x(a) + 4, top + 1);
    float next = right;  // the label stops where the next note starts
    for (const NoteInView& other : frame_.notes) {
      const float o = axis_.ToPixel(other.start_ns);
      if (o > a + 1 && o < next) next = o;
    }
    draw->PushClipRect(ImVec2(at.x - 2, at.y), ImVec2(std::max(at.x, next - 2), at.y + size.y),
                       true);
    draw->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + size.x + 2, at.y + size.y),
                        WithAlpha(palette_.lane_background, 235));
    draw->AddText(at, palette_.annotation, note.label.c_str());
    draw->PopClipRect();
    if ((Near(mouse.x, a) || (mouse.x > a && mouse.x < b)) && mouse.y >= top - kAxisHeight &&
        mouse.y < top + 14) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(360);
      ImGui::TextUnformatted(note.text.c_str());
      ImGui::PopTextWrapPos();
      if (!note.author.empty()) ImGui::TextDisabled("%s", note.author.c_str());
      ImGui::EndTooltip();
    }
  }

  // The selected range and its length.
  if (sel_t1_ > sel_t0_) {
    const float a = clamp_x(axis_.ToPixel(sel_t0_));
    const float b = clamp_x(axis_.ToPixel(sel_t1_));
    draw->AddRectFilled(ImVec2(a, top), ImVec2(b, bottom), palette_.selection);
    draw->AddLine(ImVec2(a, top), ImVec2(a, bottom), WithAlpha(palette_.selection, 220));
    draw->AddLine(ImVec2(b, top), ImVec2(b, bottom), WithAlpha(palette_.selection, 220));
    draw->AddText(ImVec2(a + 4, bottom - 16), palette_.text,
                  ("selected " + FormatDuration(sel_t1_ - sel_t0_)).c_str());
  }

  // The explained gap, and the lanes of the op that caused it over the same interval.
  if (gap_.active) {
    const float a = clamp_x(axis_.ToPixel(gap_.start));
    const float b = clamp_x(std::max(axis_.ToPixel(gap_.end), axis_.ToPixel(gap_.start) + 2));
    auto culprit = [&](size_t i) {
      return lanes_[i].op == gap_.op && lanes_[i].kind == LaneKind::kOp;
    };
    lane_rows(
        [&](size_t i) {
          const LaneKind kind = lanes_[i].kind;
          return (gap_.device ? kind == LaneKind::kDevice : kind == LaneKind::kConsumer) ||
                 culprit(i);
        },
        [&](float y0, float y1) {
          draw->AddRectFilled(ImVec2(a, y0), ImVec2(b, y1), WithAlpha(palette_.highlight, 90));
          draw->AddRect(ImVec2(a - 1, y0 - 1), ImVec2(b + 1, y1 + 1), palette_.highlight, 0, 0, 2);
        });
    lane_rows(culprit, [&](float y0, float) {
      draw->AddText(ImVec2(left - 18, y0), palette_.highlight, "<<");
    });
  }

  // One element's path through the ops, and the search match NextMatch moved to (thicker).
  for (size_t k = 0; k < frame_.boxes.size(); ++k) {
    const BoxInView& box = frame_.boxes[k];
    const bool match = frame_.has_match_box && k + 1 == frame_.boxes.size();
    const float margin = match ? 2 : 1;
    const float a = clamp_x(axis_.x + box.a) - margin, b = clamp_x(axis_.x + box.b) + margin;
    for (const int l : box.lanes) {
      const auto i = static_cast<size_t>(l);
      if (i >= lane_y_.size() || row_height(i) <= 0) continue;
      draw->AddRect(ImVec2(a, lane_y_[i] - margin), ImVec2(b, lane_y_[i] + row_height(i) + margin),
                    palette_.highlight, 0, 0, match ? 3 : 2);
    }
  }

  // A measurement between two (snapped) instants.
  if (measuring_) {
    const float a = axis_.ToPixel(measure_from_);
    const float b = axis_.ToPixel(measure_to_);
    draw->AddLine(ImVec2(a, top), ImVec2(a, bottom), palette_.highlight);
    draw->AddLine(ImVec2(b, top), ImVec2(b, bottom), palette_.highlight);
    const float mid_y = std::clamp(mouse.y, top, bottom);
    draw->AddLine(ImVec2(a, mid_y), ImVec2(b, mid_y), palette_.highlight, 1.5f);
    draw->AddText(ImVec2(std::min(a, b) + 4, mid_y - 16), palette_.highlight,
                  FormatDuration(std::llabs(measure_to_ - measure_from_)).c_str());
  }

  // Knob changes (who, what, from, to) and markers (rebuilds), each with a short label at
  // the top where it does not run into the previous one.
  // Markers label the first row, knob changes the second.
  float label_end[2] = {-1e9f, -1e9f};
  auto label = [&](int row, float px, const std::string& text, ImU32 color) {
    if (px < label_end[row] + 6) return;
    const ImVec2 at(px + 3, top + 1 + 15.0f * static_cast<float>(row));
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    draw->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + size.x + 2, at.y + size.y),
                        palette_.lane_background);  // readable over the spans below
    draw->AddText(at, color, text.c_str());
    label_end[row] = at.x + size.x;
  };
  for (const KnobChangeInView& k : frame_.knob_changes) {
    const float px = axis_.ToPixel(k.time_ns);
    const ImU32 color = k.by_tuner ? palette_.tuner_line : palette_.knob_line;
    draw->AddLine(ImVec2(px, top), ImVec2(px, bottom), color, 1.5f);
    label(1, px, k.what + " " + std::to_string(k.from) + "->" + std::to_string(k.to), color);
    if (Near(mouse.x, px) && mouse.y >= top && mouse.y < bottom && drag_ == Drag::kNone) {
      ImGui::BeginTooltip();
      ImGui::Text("%s changed %s: %lld -> %lld", k.who.c_str(), k.what.c_str(),
                  static_cast<long long>(k.from), static_cast<long long>(k.to));
      ImGui::Text("at %s", FormatDuration(k.time_ns).c_str());
      ImGui::EndTooltip();
    }
  }
  // Markers: lines with labels, or ticks where there are too many (markers_in_view.h).
  for (const MarkerInView& m : frame_.markers) {
    const float px = axis_.ToPixel(m.time_ns);
    if (frame_.markers_as_ticks) {
      draw->AddLine(ImVec2(px, top), ImVec2(px, top + 5), palette_.dim_text, 1.0f);
      if (Near(mouse.x, px) && mouse.y >= top && mouse.y < top + 6 && drag_ == Drag::kNone) {
        ImGui::SetTooltip("%s at %s", m.text.c_str(), FormatDuration(m.time_ns).c_str());
      }
      continue;
    }
    draw->AddLine(ImVec2(px, top), ImVec2(px, bottom), palette_.dim_text, 2.0f);
    label(0, px, m.text, palette_.text);
    if (Near(mouse.x, px) && mouse.y >= top && mouse.y < bottom && drag_ == Drag::kNone) {
      ImGui::SetTooltip("%s at %s", m.text.c_str(), FormatDuration(m.time_ns).c_str());
    }
  }
}

void TimelineWidget::DrawTooltip() {
  const SpanTooltip& tip = frame_.tooltip;
  if (!tip.shown) return;
  NoteShownContent(tip.key);
  ImGui::BeginTooltip();
  for (const TooltipLine& line : tip.lines) {
    using Style = TooltipLine::Style;
    const bool wrapped = line.style == Style::kWrapped || line.style == Style::kDimWrapped;
    if (wrapped) ImGui::PushTextWrapPos(520);
    if (line.style == Style::kDim || line.style == Style::kDimWrapped) {
      ImGui::TextDisabled("%s", line.text.c_str());
    } else {
      ImGui::TextUnformatted(line.text.c_str());
    }
    if (wrapped) ImGui::PopTextWrapPos();
  }
  DrawFlowArrows(tip.flows);
  ImGui::EndTooltip();
}

void TimelineWidget::DrawFoldMark(float x, float y, bool folded) {
  // A triangle pointing right when the track's nested rows are folded away, down when shown.
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float cx = x + kFoldMarkWidth / 2 - 1, cy = y + kLaneHeight / 2;
  if (folded) {
    draw->AddTriangleFilled(ImVec2(cx - 3, cy - 4), ImVec2(cx + 3, cy), ImVec2(cx - 3, cy + 4),
                            palette_.dim_text);
  } else {
    draw->AddTriangleFilled(ImVec2(cx - 4, cy - 2), ImVec2(cx + 4, cy - 2), ImVec2(cx, cy + 3),
                            palette_.dim_text);
  }
}

}  // namespace pipescope::ui
