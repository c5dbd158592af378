#pragma once
// The timeline's colours for the dark and the light theme. Event colours keep their hue
// in both (red is always the consumer waiting), only backgrounds and text change.

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "instrumentation/record/event.h"

namespace pipescope::ui {

struct Palette {
  ImU32 text;
  ImU32 dim_text;
  ImU32 lane_background;
  ImU32 axis;
  ImU32 knob_line;   // a person's knob change
  ImU32 tuner_line;  // an autotuner's knob change
  ImU32 selection;   // translucent band over the selected range
  ImU32 highlight;   // gap culprit, element path, search matches
  ImU32 annotation;
  ImU32 counter;
  float clear[3];
  bool dark;

  static Palette Dark() {
    return {
        IM_COL32(220, 220, 220, 255), IM_COL32(140, 140, 150, 255), IM_COL32(30, 30, 36, 255),
        IM_COL32(200, 200, 200, 255), IM_COL32(160, 240, 60, 220),  IM_COL32(90, 220, 255, 220),
        IM_COL32(120, 170, 255, 60),  IM_COL32(255, 230, 60, 255),  IM_COL32(255, 170, 220, 255),
        IM_COL32(150, 110, 220, 255), {0.09f, 0.09f, 0.11f},        true};
  }
  static Palette Light() {
    return {IM_COL32(20, 20, 24, 255),   IM_COL32(110, 110, 120, 255), IM_COL32(228, 228, 234, 255),
            IM_COL32(60, 60, 60, 255),   IM_COL32(60, 150, 0, 230),    IM_COL32(0, 130, 190, 230),
            IM_COL32(40, 100, 230, 50),  IM_COL32(230, 120, 0, 255),   IM_COL32(200, 40, 140, 255),
            IM_COL32(120, 80, 200, 255), {0.97f, 0.97f, 0.98f},        false};
  }
};

inline ImU32 ColorOf(record::EventKind kind) {
  using record::EventKind;
  switch (kind) {
    case EventKind::kCall:  // lighter than a worker's work: the same blue read alike
      return IM_COL32(125, 175, 235, 255);
    case EventKind::kWork:
      return IM_COL32(66, 120, 210, 255);
    case EventKind::kWaitInput:
      return IM_COL32(120, 120, 130, 255);
    case EventKind::kBlocked:
      return IM_COL32(230, 150, 50, 255);
    case EventKind::kIdle:
      return IM_COL32(70, 70, 76, 255);
    case EventKind::kLockWait:  // brown: a worker that could work but waits its turn
      return IM_COL32(160, 105, 55, 255);
    case EventKind::kReceive:  // dark cyan: the main process's own time on a worker's batch
      return IM_COL32(0, 150, 160, 255);
    case EventKind::kInputWait:
      return IM_COL32(225, 60, 60, 255);
    case EventKind::kStep:
      return IM_COL32(70, 190, 100, 255);
    case EventKind::kGpuKernel:
      return IM_COL32(40, 200, 170, 255);
    case EventKind::kGpuMemcpy:  // pink: yellow is the highlight's
      return IM_COL32(235, 120, 170, 255);
    case EventKind::kGpuMemset:
      return IM_COL32(170, 170, 120, 255);
    default:
      return IM_COL32(150, 150, 150, 255);
  }
}

// `color` with its alpha replaced (0 transparent, 255 opaque).
inline ImU32 WithAlpha(ImU32 color, int alpha) {
  return (color & 0x00FFFFFF) | (static_cast<ImU32>(std::clamp(alpha, 0, 255)) << 24);
}

// An imported span's colour from its name, as Perfetto colours slices: the same name the
// same colour everywhere, neighbours of different names told apart. Mid tones (saturation
// 0.5, value 0.62) so that the light span text reads on every hue.
inline ImU32 NameColor(std::string_view name, int alpha = 255) {
  uint32_t hash = 2166136261u;  // FNV-1a
  for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  float r = 0, g = 0, b = 0;
  ImGui::ColorConvertHSVtoRGB(static_cast<float>(hash % 360) / 360.0f, 0.5f, 0.62f, r, g, b);
  return IM_COL32(static_cast<int>(r * 255), static_cast<int>(g * 255), static_cast<int>(b * 255),
                  std::clamp(alpha, 0, 255));
}

using record::KindLabel;

}  // namespace pipescope::ui
