// The timeline's drawing: the axis, span lanes from per-pixel summaries, counter lanes,
// and the overlays (selection, gap culprit, element path, measurement, knob changes,
// markers, notes) with their tooltips. Called from DrawImGui with the model's lock held.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "instrumentation/trace/device_gaps.h"
#include "instrumentation/trace/intervals.h"
#include "ui/timeline/counter_values.h"
#include "ui/timeline/coverage.h"
#include "ui/timeline/markers_in_view.h"
#include "ui/timeline/span_caption.h"
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
  for (const auto& note : model_->annotations()) {
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

void TimelineWidget::DrawSpanLane(const Lane& lane, float y, float height, bool dimmed) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const int pixels = std::max(1, static_cast<int>(axis_.width));
  const double bucket_ns = axis_.span() / pixels;
  for (int k = 0; k < lane.track_count; ++k) {
    const trace::Track* track = lane.tracks[k];
    const auto& buckets = summaries_.Of(*track, axis_.t0, axis_.t1, pixels);
    ImU32 color = ColorOf(track->key().kind);
    if (dimmed && !KindMatchesSearch(track->key().kind)) color = WithAlpha(color, 70);
    for (int p = 0; p < pixels; ++p) {
      const auto covered = static_cast<double>(buckets[static_cast<size_t>(p)].covered_ns);
      if (covered <= 0) continue;
      // Runs of fully covered pixels become one rectangle; a partly covered pixel is filled
      // from the bottom in proportion to its coverage (coverage.h).
      int q = p;
      while (q + 1 < pixels &&
             static_cast<double>(buckets[static_cast<size_t>(q) + 1].covered_ns) >=
                 bucket_ns * kFullPixelShare)
        ++q;
      const float filled = q > p ? height : CoveredHeight(covered, bucket_ns, height);
      draw->AddRectFilled(ImVec2(axis_.x + static_cast<float>(p), y + height - filled),
                          ImVec2(axis_.x + static_cast<float>(q + 1), y + height), color);
      if (q - p >= kMinLabelPixels) DrawSpanNames(*track, p, q, y, static_cast<int>(color >> 24));
      p = q;
    }
  }
}

void TimelineWidget::RefreshIdleWaits() {
  size_t key = std::hash<const void*>()(model_.get());
  const std::vector<const trace::Track*> device_work = trace::DeviceWorkTracks(*model_);
  for (const trace::Track* t : device_work) key = key * 31 + t->size();
  for (const trace::Track* t : model_->TracksOf(EventKind::kInputWait, record::kConsumerOp))
    key = key * 31 + t->size();
  if (key == idle_waits_key_) return;
  idle_waits_key_ = key;
  async_device_ = RedOnlyWhileDeviceIdles(*model_);
  idle_waits_ =
      async_device_ ? trace::WaitsWhileDeviceIdle(*model_) : std::vector<trace::Interval>{};
}

bool TimelineWidget::DrawConsumerWaits(const Lane& lane, float y, float height) {
  RefreshIdleWaits();
  if (!async_device_) return false;
  // Every wait faint, then in red the part during which the device idled too, each pixel
  // as high as its share of each.
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const int pixels = std::max(1, static_cast<int>(axis_.width));
  const double bucket_ns = axis_.span() / pixels;
  const ImU32 red = ColorOf(EventKind::kInputWait);
  const auto& waits = summaries_.Of(*lane.tracks[0], axis_.t0, axis_.t1, pixels);
  CoverageByPixel(idle_waits_, axis_.t0, axis_.t1, pixels, pixel_ns_);
  for (int p = 0; p < pixels; ++p) {
    const float x = axis_.x + static_cast<float>(p);
    const auto waited = static_cast<double>(waits[static_cast<size_t>(p)].covered_ns);
    if (waited > 0) {
      const float h = CoveredHeight(waited, bucket_ns, height);
      draw->AddRectFilled(ImVec2(x, y + height - h), ImVec2(x + 1, y + height), WithAlpha(red, 60));
    }
    const double idle = pixel_ns_[static_cast<size_t>(p)];
    if (idle > 0) {
      const float h = CoveredHeight(idle, bucket_ns, height);
      draw->AddRectFilled(ImVec2(x, y + height - h), ImVec2(x + 1, y + height), red);
    }
  }
  return true;
}

void TimelineWidget::DrawDeviceGaps(const Lane& lane, float y, float height) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const int pixels = std::max(1, static_cast<int>(axis_.width));
  const double bucket_ns = axis_.span() / pixels;
  const bool imported = !model_->run_info().imported_from.empty();
  // Busy: the device's own records where it has them (the sum over streams, at most the
  // pixel: a per-pixel summary has no union), else its steps.
  pixel_ns_.assign(static_cast<size_t>(pixels), 0.0);
  const std::vector<const trace::Track*> device_work = trace::DeviceWorkTracks(*model_);
  const bool any = !device_work.empty();
  for (const trace::Track* t : device_work) {
    const auto& work = summaries_.Of(*t, axis_.t0, axis_.t1, pixels);
    for (int p = 0; p < pixels; ++p)
      pixel_ns_[static_cast<size_t>(p)] +=
          static_cast<double>(work[static_cast<size_t>(p)].covered_ns);
  }
  if (!ShowsDeviceIdle(*model_)) return;  // nothing says when the device idled
  const trace::Track* steps = lane.tracks[0];
  const auto& step_buckets = summaries_.Of(*steps, axis_.t0, axis_.t1, pixels);
  // Idle only up to the trace's end: past a live run's "now" nothing is known, and red
  // there looked like a stall.
  const int known = axis_.PixelsBefore(model_->duration_ns(), pixels);
  for (int p = 0; p < known; ++p) {
    const auto step_ns = static_cast<double>(step_buckets[static_cast<size_t>(p)].covered_ns);
    const double busy = any ? std::min(pixel_ns_[static_cast<size_t>(p)], bucket_ns) : step_ns;
    // A recording's device idles wherever it is not busy; an imported trace's within steps.
    const double window = imported ? step_ns : bucket_ns;
    const double idle = std::max(0.0, window - busy);
    if (idle < bucket_ns * 0.02) continue;
    const float h = CoveredHeight(idle, bucket_ns, height);
    draw->AddRectFilled(ImVec2(axis_.x + static_cast<float>(p), y),
                        ImVec2(axis_.x + static_cast<float>(p + 1), y + h),
                        WithAlpha(ColorOf(EventKind::kInputWait), 200));
  }
}

void TimelineWidget::OutlineMatchingSpans(const Lane& lane, float y, float height) {
  // The spans whose name matches the search, outlined; at most kMaxOutlines a lane and
  // frame (zoomed out, thousands of matches are one band anyway).
  constexpr int kMaxOutlines = 20'000;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  int drawn = 0;
  for (int k = 0; k < lane.track_count; ++k) {
    const trace::Track& track = *lane.tracks[k];
    if (!search_tracks_.count(&track)) continue;
    float last = -1e9f;
    for (size_t i = track.FirstEndingAfter(axis_.t0);
         i < track.size() && track.start(i) < axis_.t1 && drawn < kMaxOutlines; ++i) {
      if (!search_labels_[track.label(i)]) continue;
      const float a = std::max(axis_.ToPixel(track.start(i)), axis_.x);
      const float b = std::min(std::max(axis_.ToPixel(track.end(i)), a + 2), axis_.x + axis_.width);
      if (b <= last) continue;  // within a pixel already outlined
      draw->AddRect(ImVec2(a, y), ImVec2(b, y + height), palette_.highlight, 0, 0, 2);
      last = b;
      ++drawn;
    }
  }
}

void TimelineWidget::DrawFlowArrows(const std::vector<trace::Flow>& flows) {
  // Each flow as a line from the start of its first span to the start of its second, in
  // the lanes that show them (an end whose lane is scrolled away is drawn at the edge).
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  auto where = [&](trace::EventRef e) -> std::optional<ImVec2> {
    const trace::Track* track = model_->tracks()[e.track].get();
    for (size_t l = 0; l < lanes_.size() && l < lane_y_.size(); ++l) {
      for (int k = 0; k < lanes_[l].track_count; ++k) {
        if (lanes_[l].tracks[k] != track) continue;
        const float x =
            std::clamp(axis_.ToPixel(track->start(e.index)), axis_.x, axis_.x + axis_.width);
        return ImVec2(x, lane_y_[l] + row_height(l) / 2);
      }
    }
    return std::nullopt;
  };
  for (const trace::Flow& f : flows) {
    const auto a = where(f.from), b = where(f.to);
    if (!a || !b) continue;
    draw->AddLine(*a, *b, palette_.highlight, 2);
    ++flow_arrows_;
    draw->AddCircleFilled(*a, 3, palette_.highlight);
    // The arrowhead at the flow's end.
    const float dx = b->x - a->x, dy = b->y - a->y;
    const float len = std::max(1.0f, std::sqrt(dx * dx + dy * dy));
    const ImVec2 u(dx / len, dy / len);
    draw->AddTriangleFilled(*b, ImVec2(b->x - 9 * u.x + 4 * u.y, b->y - 9 * u.y - 4 * u.x),
                            ImVec2(b->x - 9 * u.x - 4 * u.y, b->y - 9 * u.y + 4 * u.x),
                            palette_.highlight);
  }
}

void TimelineWidget::DrawSpanNames(const trace::Track& track, int p, int q, float y, int alpha) {
  // The spans in a run of covered pixels [p, q], each named inside itself where it is wide
  // enough: one binary search per span drawn, nothing for runs too narrow to hold a name.
  // An imported span that wide is also painted in its name's colour (NameColor).
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float right = axis_.x + static_cast<float>(q + 1);
  float x = axis_.x + static_cast<float>(p);
  for (size_t i = track.FirstEndingAfter(axis_.ToTime(x)); i < track.size() && x < right - 4; ++i) {
    const float a = std::max(axis_.ToPixel(track.start(i)), x);
    const float b = std::min(axis_.ToPixel(track.end(i)), right);
    x = b;
    if (b - a < kMinLabelPixels) {
      if (track.start(i) > axis_.t1) break;
      // Past the narrow ones, and always past this one (pixel rounding may map b + 1 back
      // into it).
      i = std::max(track.FirstEndingAfter(axis_.ToTime(b + 1)), i + 1) - 1;
      continue;
    }
    if (track.label(i) != 0) {
      draw->AddRectFilled(ImVec2(a, y), ImVec2(b, y + kLaneHeight),
                          NameColor(model_->SpanName(track, i), alpha));
    }
    DrawClippedText(SpanCaption(*model_, track, i), a, b, y);
  }
}

void TimelineWidget::DrawCounterLane(const Lane& lane, float y, float height) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const int pixels = std::max(1, static_cast<int>(axis_.width));
  const int64_t window = CounterWindowNs(axis_);
  // The values first (counter_values.h), then the drawing.
  std::vector<float>& values = counter_values_;
  CounterValues(lane, axis_, pixels, model_->duration_ns(), values);
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
  if (lane.counter == CounterKind::kDeviceBusy) {
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
  if (mouse.y >= y && mouse.y < y + height && mouse.x >= axis_.x &&
      mouse.x < axis_.x + axis_.width && drag_ == Drag::kNone) {
    const float v =
        values[static_cast<size_t>(std::clamp(static_cast<int>(mouse.x - axis_.x), 0, pixels - 1))];
    NoteShownContent(static_cast<uint64_t>(lane.counter) * 0x9E3779B97F4A7C15ull +
                     static_cast<uint64_t>(static_cast<double>(v) * 1000));
    ImGui::BeginTooltip();
    ImGui::Text("%s", lane.label.c_str());
    if (lane.counter == CounterKind::kDeviceBusy) {
      ImGui::Text("%.0f%% busy (over %s)", 100 * v, FormatDuration(window).c_str());
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
  // The span lanes that draw `track`.
  auto holding = [](const trace::Track* track) {
    return [track](const Lane& l) {
      return l.kind != LaneKind::kCounter &&
             std::find(l.tracks, l.tracks + l.track_count, track) != l.tracks + l.track_count;
    };
  };
  auto lane_rows = [&](auto&& match, auto&& fn) {
    for (size_t i = 0; i < lanes_.size() && i < lane_y_.size(); ++i) {
      if (match(lanes_[i]) && row_height(i) > 0) fn(lane_y_[i], lane_y_[i] + row_height(i));
    }
  };

  // Notes over a range: a tinted band with the note's first words.
  for (const auto& note : model_->annotations()) {
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
    const std::string label = note.text.substr(0, std::min(note.text.find('\n'), size_t{40}));
    const ImVec2 size = ImGui::CalcTextSize(label.c_str());
    const ImVec2 at(clamp_x(a) + 4, top + 1);
    float next = right;  // the label stops where the next note starts
    for (const auto& other : model_->annotations()) {
      const float o = axis_.ToPixel(other.start_ns);
      if (o > a + 1 && o < next) next = o;
    }
    draw->PushClipRect(ImVec2(at.x - 2, at.y), ImVec2(std::max(at.x, next - 2), at.y + size.y),
                       true);
    draw->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + size.x + 2, at.y + size.y),
                        WithAlpha(palette_.lane_background, 235));
    draw->AddText(at, palette_.annotation, label.c_str());
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
    lane_rows(
        [&](const Lane& l) {
          return (gap_.device ? l.kind == LaneKind::kDevice : l.kind == LaneKind::kConsumer) ||
                 (l.op == gap_.op && l.kind == LaneKind::kOp);
        },
        [&](float y0, float y1) {
          draw->AddRectFilled(ImVec2(a, y0), ImVec2(b, y1), WithAlpha(palette_.highlight, 90));
          draw->AddRect(ImVec2(a - 1, y0 - 1), ImVec2(b + 1, y1 + 1), palette_.highlight, 0, 0, 2);
        });
    lane_rows(
        [&](const Lane& l) { return l.op == gap_.op && l.kind == LaneKind::kOp; },
        [&](float y0, float) { draw->AddText(ImVec2(left - 18, y0), palette_.highlight, "<<"); });
  }

  // The search match NextMatch moved to.
  if (match_track_ != nullptr && match_index_ < match_track_->size() && !search_.empty()) {
    const float a = axis_.ToPixel(match_track_->start(match_index_));
    const float b = std::max(axis_.ToPixel(match_track_->end(match_index_)), a + 2);
    lane_rows(holding(match_track_), [&](float y0, float y1) {
      draw->AddRect(ImVec2(clamp_x(a) - 2, y0 - 2), ImVec2(clamp_x(b) + 2, y1 + 2),
                    palette_.highlight, 0, 0, 3);
    });
  }

  // One element's path through the ops.
  for (const PathSpan& span : path_) {
    const float a = axis_.ToPixel(span.start);
    const float b = std::max(axis_.ToPixel(span.end), a + 2);
    if (b < left || a > right) continue;
    lane_rows(holding(span.track), [&](float y0, float y1) {
      draw->AddRect(ImVec2(clamp_x(a) - 1, y0 - 1), ImVec2(clamp_x(b) + 1, y1 + 1),
                    palette_.highlight, 0, 0, 2);
    });
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
  for (const auto& k : model_->knob_changes()) {
    if (k.time_ns < axis_.t0 || k.time_ns >= axis_.t1) continue;
    const float px = axis_.ToPixel(k.time_ns);
    const record::StageDef* stage = model_->Stage(k.op);
    const std::string what = (stage ? stage->name : std::string("?")) + "." + k.knob;
    const ImU32 color = k.who.starts_with("autotuner") ? palette_.tuner_line : palette_.knob_line;
    draw->AddLine(ImVec2(px, top), ImVec2(px, bottom), color, 1.5f);
    label(1, px, what + " " + std::to_string(k.from) + "->" + std::to_string(k.to), color);
    if (Near(mouse.x, px) && mouse.y >= top && mouse.y < bottom && drag_ == Drag::kNone) {
      ImGui::BeginTooltip();
      ImGui::Text("%s changed %s: %lld -> %lld", k.who.c_str(), what.c_str(),
                  static_cast<long long>(k.from), static_cast<long long>(k.to));
      ImGui::Text("at %s", FormatDuration(k.time_ns).c_str());
      ImGui::EndTooltip();
    }
  }
  // Markers: lines with labels, or ticks where there are too many (markers_in_view.h).
  const MarkersInView shown = FindMarkersInView(model_->markers(), axis_);
  float last_tick = -1;
  for (size_t i = shown.first; i < shown.last; ++i) {
    const record::MarkerDef& m = model_->markers()[i];
    const float px = axis_.ToPixel(m.time_ns);
    if (shown.as_ticks) {
      if (std::floor(px) != last_tick) {
        draw->AddLine(ImVec2(px, top), ImVec2(px, top + 5), palette_.dim_text, 1.0f);
        last_tick = std::floor(px);
      }
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

void TimelineWidget::DrawTooltip(const Lane& lane, int64_t t) {
  if (lane.kind == LaneKind::kCounter) return;  // counters draw their own
  for (int k = lane.track_count - 1; k >= 0; --k) {
    const trace::Track* track = lane.tracks[k];
    const size_t i = track->FirstEndingAfter(t);
    if (i >= track->size() || track->start(i) > t) continue;
    NoteShownContent((static_cast<uint64_t>(track->id()) << 40) ^ i);
    ImGui::BeginTooltip();
    if (track->label(i) != 0) {
      const trace::SpanLabel& label = model_->labels()[track->label(i)];
      ImGui::PushTextWrapPos(520);
      ImGui::TextUnformatted(label.name.c_str());
      ImGui::PopTextWrapPos();
      if (!label.category.empty()) ImGui::TextDisabled("%s", label.category.c_str());
    } else {
      ImGui::Text("%s", KindLabel(track->key().kind));
    }
    ImGui::Text("%s", lane.label.c_str());
    // The start as precisely as a pixel tells times apart at this zoom.
    ImGui::Text("start %s, duration %s",
                FormatTimeAt(track->start(i), axis_.ns_per_pixel()).c_str(),
                FormatDuration(track->duration(i)).c_str());
    const uint32_t calls = track->calls(i);
    if (calls > 1) {
      ImGui::Text("a run of %u calls, elements %llu to %llu", calls,
                  static_cast<unsigned long long>(track->element(i)),
                  static_cast<unsigned long long>(track->element(i) + calls - 1));
    } else if (track->element(i) != 0) {
      ImGui::Text("element %llu (click: its path)",
                  static_cast<unsigned long long>(track->element(i)));
    }
    if (track->key().kind == EventKind::kCall) {
      ImGui::Text("own work %s%s", FormatDuration(track->value(i)).c_str(),
                  calls > 1 ? " in all" : "");
    }
    if ((track->key().kind == EventKind::kGpuMemcpy ||
         track->key().kind == EventKind::kGpuMemset) &&
        track->value(i) > 0) {
      ImGui::Text("%u bytes", track->value(i));
    }
    if (const std::string_view args = model_->args()[track->args(i)]; !args.empty()) {
      const std::string shown(args.substr(0, 400));
      ImGui::PushTextWrapPos(520);
      ImGui::TextDisabled("%s%s", shown.c_str(), args.size() > 400 ? "..." : "");
      ImGui::PopTextWrapPos();
    }
    const auto flows = model_->FlowsOf({track->id(), static_cast<uint32_t>(i)});
    DrawFlowArrows(flows);
    for (size_t f = 0; f < flows.size() && f < 4; ++f) {
      const trace::EventRef other =
          flows[f].from == trace::EventRef{track->id(), static_cast<uint32_t>(i)} ? flows[f].to
                                                                                  : flows[f].from;
      const std::string name(model_->SpanName(*model_->tracks()[other.track], other.index));
      ImGui::TextDisabled(
          "%s %s: %s",
          flows[f].to == trace::EventRef{track->id(), static_cast<uint32_t>(i)} ? "from" : "to",
          model_->labels()[flows[f].label].name.c_str(), name.substr(0, 80).c_str());
    }
    if (lane.kind == LaneKind::kConsumer) ImGui::TextDisabled("click: which op caused this wait");
    ImGui::EndTooltip();
    return;
  }
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
