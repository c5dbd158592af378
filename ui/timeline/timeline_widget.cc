#include "ui/timeline/timeline_widget.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pipescope::ui {
namespace {

using record::EventKind;

constexpr float kLabelWidth = 230;
constexpr float kAxisHeight = 24;
constexpr float kLaneHeight = 16;
constexpr float kLaneGap = 3;

ImU32 ColorOf(EventKind kind) {
  switch (kind) {
    case EventKind::kCall:
      return IM_COL32(86, 145, 220, 255);
    case EventKind::kWork:
      return IM_COL32(66, 120, 210, 255);
    case EventKind::kWaitInput:
      return IM_COL32(120, 120, 130, 255);
    case EventKind::kBlocked:
      return IM_COL32(230, 150, 50, 255);
    case EventKind::kIdle:
      return IM_COL32(70, 70, 76, 255);
    case EventKind::kInputWait:
      return IM_COL32(225, 60, 60, 255);
    case EventKind::kStep:
      return IM_COL32(70, 190, 100, 255);
    default:
      return IM_COL32(150, 150, 150, 255);
  }
}

const char* KindLabel(EventKind kind) {
  switch (kind) {
    case EventKind::kCall:
      return "call";
    case EventKind::kWork:
      return "work";
    case EventKind::kWaitInput:
      return "waiting for input";
    case EventKind::kBlocked:
      return "blocked on output";
    case EventKind::kIdle:
      return "idle";
    case EventKind::kInputWait:
      return "consumer waiting for input";
    case EventKind::kStep:
      return "device step";
    default:
      return "event";
  }
}

// "1.5 ms", "250 µs": a duration in the unit that keeps it readable.
std::string FormatDuration(double ns) {
  char buf[32];
  const double a = std::fabs(ns);
  if (a >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.3g s", ns / 1e9);
  } else if (a >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3g ms", ns / 1e6);
  } else if (a >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.3g us", ns / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  }
  return buf;
}

}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : ImGuiGlWidget(parent) {
  setMinimumSize(480, 240);
}

void TimelineWidget::SetModel(std::shared_ptr<const trace::Model> model) {
  model_ = std::move(model);
  BuildLanes();
  ZoomToFit();
}

void TimelineWidget::ZoomToFit() {
  t0_ = 0;
  t1_ = std::max<int64_t>(model_ ? model_->duration_ns() : 0, 1'000);
  update();
}

void TimelineWidget::SetView(int64_t t0, int64_t t1) {
  t0_ = t0;
  t1_ = std::max(t1, t0 + 100);
  update();
}

void TimelineWidget::BuildLanes() {
  lanes_.clear();
  if (!model_) return;
  // The consumer and the device first: where the accelerator waits is the question.
  for (const trace::Track* t : model_->TracksOf(EventKind::kInputWait, record::kConsumerOp)) {
    lanes_.push_back({"consumer (waits in red)", {t}, 1});
  }
  if (const trace::Track* steps = model_->FindTrack({EventKind::kStep, record::kDeviceOp, 0})) {
    lanes_.push_back({"device", {steps}, 1});
  }
  // Then every op, last (nearest the consumer) first, a sub-lane per thread.
  auto stages = model_->StagesInOrder();
  std::reverse(stages.begin(), stages.end());
  for (const auto* stage : stages) {
    std::map<uint32_t, Lane> by_thread;
    for (EventKind kind : {EventKind::kIdle, EventKind::kWaitInput, EventKind::kBlocked,
                           EventKind::kCall, EventKind::kWork}) {
      for (const trace::Track* t : model_->TracksOf(kind, stage->id)) {
        Lane& lane = by_thread[t->key().thread];
        if (lane.track_count < 4) lane.tracks[lane.track_count++] = t;
      }
    }
    for (auto& [thread, lane] : by_thread) {
      lane.label = std::string(static_cast<size_t>(2 * stage->depth), ' ') + stage->name + "  " +
                   model_->ThreadName(thread);
      lanes_.push_back(lane);
    }
  }
}

void TimelineWidget::HandleNavigation(float x, float width) {
  ImGuiIO& io = ImGui::GetIO();
  const double span = static_cast<double>(t1_ - t0_);
  auto zoom_around = [&](double factor, double at_fraction) {
    const double at = static_cast<double>(t0_) + span * at_fraction;
    const double new_span = std::clamp(span * factor, 100.0, 1e13);
    t0_ = static_cast<int64_t>(at - new_span * at_fraction);
    t1_ = static_cast<int64_t>(at + new_span * (1 - at_fraction));
  };
  const double cursor = std::clamp((io.MousePos.x - x) / width, 0.0f, 1.0f);
  if (io.MouseWheel != 0 && ImGui::IsWindowHovered())
    zoom_around(std::pow(0.8, io.MouseWheel), cursor);
  if (ImGui::IsKeyDown('W')) zoom_around(0.9, 0.5);
  if (ImGui::IsKeyDown('S')) zoom_around(1.0 / 0.9, 0.5);
  const auto step = static_cast<int64_t>(span * 0.05);
  if (ImGui::IsKeyDown('A')) t0_ -= step, t1_ -= step;
  if (ImGui::IsKeyDown('D')) t0_ += step, t1_ += step;
  if (ImGui::IsKeyPressed('F')) ZoomToFit();
  if (ImGui::IsMouseClicked(0) && io.MousePos.x >= x) {
    dragging_ = true;
    drag_origin_x_ = io.MousePos.x;
    drag_origin_t0_ = t0_;
  }
  if (!ImGui::IsMouseDown(0)) dragging_ = false;
  if (dragging_) {
    const auto shift = static_cast<int64_t>((io.MousePos.x - drag_origin_x_) / width * span);
    t1_ = drag_origin_t0_ - shift + (t1_ - t0_);
    t0_ = drag_origin_t0_ - shift;
  }
}

void TimelineWidget::DrawAxis(float x, float y, float width) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const double span = static_cast<double>(t1_ - t0_);
  // About one tick per 100 px, on a 1-2-5 grid.
  const double raw = span / std::max(1.0f, width / 100.0f);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double tick = raw / magnitude < 2   ? 2 * magnitude
                      : raw / magnitude < 5 ? 5 * magnitude
                                            : 10 * magnitude;
  for (double t = std::ceil(static_cast<double>(t0_) / tick) * tick; t < static_cast<double>(t1_);
       t += tick) {
    const float px = x + static_cast<float>((t - static_cast<double>(t0_)) / span * width);
    draw->AddLine(ImVec2(px, y + kAxisHeight - 6), ImVec2(px, y + kAxisHeight),
                  IM_COL32(200, 200, 200, 255));
    draw->AddText(ImVec2(px + 3, y + 2), IM_COL32(200, 200, 200, 255), FormatDuration(t).c_str());
  }
}

void TimelineWidget::DrawLane(const Lane& lane, float x, float y, float width, float height) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const int pixels = std::max(1, static_cast<int>(width));
  std::vector<trace::Track::Bucket> buckets;
  for (int k = 0; k < lane.track_count; ++k) {
    const trace::Track* track = lane.tracks[k];
    track->Summarize(t0_, t1_, pixels, buckets);
    const ImU32 color = ColorOf(track->key().kind);
    const double bucket_ns = static_cast<double>(t1_ - t0_) / pixels;
    for (int p = 0; p < pixels; ++p) {
      if (buckets[static_cast<size_t>(p)].covered_ns <= 0) continue;
      // Runs of fully covered pixels become one rectangle; partial ones fade.
      int q = p;
      while (q + 1 < pixels && buckets[static_cast<size_t>(q + 1)].covered_ns >= bucket_ns * 0.95)
        ++q;
      const double fill = std::min(
          1.0, static_cast<double>(buckets[static_cast<size_t>(p)].covered_ns) / bucket_ns);
      const ImU32 c = q > p || fill > 0.95
                          ? color
                          : (color & 0x00FFFFFF) | (static_cast<ImU32>(80 + 175 * fill) << 24);
      draw->AddRectFilled(ImVec2(x + static_cast<float>(p), y),
                          ImVec2(x + static_cast<float>(q + 1), y + height), c);
      p = q;
    }
  }
}

void TimelineWidget::DrawTooltip(const Lane& lane, int64_t t) {
  for (int k = lane.track_count - 1; k >= 0; --k) {
    const trace::Track* track = lane.tracks[k];
    const size_t i = track->FirstEndingAfter(t);
    if (i >= track->size() || track->start(i) > t) continue;
    ImGui::BeginTooltip();
    ImGui::Text("%s", KindLabel(track->key().kind));
    ImGui::Text("%s", lane.label.c_str());
    ImGui::Text("start %s, duration %s",
                FormatDuration(static_cast<double>(track->start(i))).c_str(),
                FormatDuration(static_cast<double>(track->duration(i))).c_str());
    if (track->element(i) != 0)
      ImGui::Text("element %llu", static_cast<unsigned long long>(track->element(i)));
    if (track->key().kind == EventKind::kCall) {
      ImGui::Text("own work %s", FormatDuration(track->value(i)).c_str());
    }
    ImGui::EndTooltip();
    return;
  }
}

void TimelineWidget::DrawImGui() {
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
  ImGui::Begin("timeline", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x - kLabelWidth;
  if (!model_) {
    ImGui::TextWrapped("Open a trace (File > Open, Ctrl+O) or a pipeline spec to run it.");
    ImGui::End();
    return;
  }
  const float x = origin.x + kLabelWidth;
  HandleNavigation(x, width);
  DrawAxis(x, origin.y, width);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  float y = origin.y + kAxisHeight;
  for (const Lane& lane : lanes_) {
    draw->AddText(ImVec2(origin.x + 4, y), IM_COL32(220, 220, 220, 255), lane.label.c_str());
    draw->AddRectFilled(ImVec2(x, y), ImVec2(x + width, y + kLaneHeight),
                        IM_COL32(30, 30, 36, 255));
    DrawLane(lane, x, y, width, kLaneHeight);
    if (mouse.x >= x && mouse.x < x + width && mouse.y >= y && mouse.y < y + kLaneHeight &&
        !dragging_) {
      DrawTooltip(
          lane, t0_ + static_cast<int64_t>((mouse.x - x) / width * static_cast<float>(t1_ - t0_)));
    }
    y += kLaneHeight + kLaneGap;
  }
  for (const auto& k : model_->knob_changes()) {
    if (k.time_ns < t0_ || k.time_ns >= t1_) continue;
    const float px = x + static_cast<float>(static_cast<double>(k.time_ns - t0_) /
                                            static_cast<double>(t1_ - t0_) * width);
    draw->AddLine(ImVec2(px, origin.y + kAxisHeight), ImVec2(px, y), IM_COL32(250, 220, 80, 200),
                  1.5f);
  }
  ImGui::End();
}

}  // namespace pipescope::ui
