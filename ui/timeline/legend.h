#pragma once
// What each colour on the timeline means, for the strip under the lanes: one entry per
// colour the shown trace uses, in the order the lanes come (consumer, device, ops,
// counters, changes), so that an imported trace does not list a worker's "blocked on
// output" it never has. Built from the same ColorOf and Palette the lanes are drawn with.

#include <imgui.h>

#include <string>
#include <vector>

#include "instrumentation/trace/model.h"
#include "ui/timeline/palette.h"

namespace pipescope::ui {

struct LegendEntry {
  std::string label;
  ImU32 color;
  bool line = false;  // drawn as a vertical line (a change), not a block
};

std::vector<LegendEntry> BuildLegend(const trace::Model& model, const Palette& palette);

// Where each entry goes in rows `width` pixels wide (with the current ImGui font): its x from
// the strip's left and its row. Drawing and the strip's height both come from this.
struct LegendSlot {
  float x;
  int row;
};
std::vector<LegendSlot> LayOutLegend(const std::vector<LegendEntry>& entries, float width);
inline constexpr float kLegendSwatch = 10, kLegendSwatchGap = 4, kLegendRowHeight = 16;

}  // namespace pipescope::ui
