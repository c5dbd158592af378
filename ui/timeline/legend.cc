#include "ui/timeline/legend.h"

#include <algorithm>
#include <set>

#include "ui/timeline/lanes.h"

namespace pipescope::ui {

namespace {

using record::EventKind;

constexpr float kEntryGap = 14;  // pixels after an entry's text

}  // namespace

std::vector<LegendEntry> BuildLegend(const trace::Model& model, const Palette& palette) {
  std::set<EventKind> kinds;
  bool labelled = false;
  for (const auto& track : model.tracks()) {
    if (track->empty()) continue;
    kinds.insert(track->key().kind);
    labelled = labelled || track->has_labels();
  }
  std::vector<LegendEntry> out;
  auto add = [&](EventKind kind, std::string label) {
    if (kinds.contains(kind)) out.push_back({std::move(label), ColorOf(kind)});
  };
  // The red of the consumer lane means what its label says (lanes.h).
  add(EventKind::kInputWait,
      RedOnlyWhileDeviceIdles(model) ? "consumer waits, device idle" : "consumer waits for input");
  add(EventKind::kStep, "device step");
  if (kinds.contains(EventKind::kStep) && ShowsDeviceIdle(model)) {
    // DrawDeviceGaps paints the device's idle time in the consumer's red.
    out.push_back({"device idle", WithAlpha(ColorOf(EventKind::kInputWait), 200)});
  }
  add(EventKind::kGpuKernel, "GPU kernel");
  add(EventKind::kGpuMemcpy, "GPU copy");
  add(EventKind::kGpuMemset, "GPU memset");
  if (labelled) {
    // An imported trace's slices keep their kind's colour and carry their own names.
    out.push_back({"traced slice (wide ones: a colour per name)", ColorOf(EventKind::kCall)});
  } else {
    add(EventKind::kCall, "op called on its caller's thread");
  }
  add(EventKind::kWork, "worker: work");
  add(EventKind::kWaitInput, "worker: waiting for input");
  add(EventKind::kBlocked, "worker: blocked on output");
  add(EventKind::kLockWait, "waiting for the interpreter lock");
  add(EventKind::kReceive, "receiving a batch from a worker process");
  add(EventKind::kIdle, "worker: parked");
  if (kinds.contains(EventKind::kBufferLevel) || kinds.contains(EventKind::kDeviceUtil) ||
      kinds.contains(EventKind::kCpuTime) || kinds.contains(EventKind::kStorageBusy)) {
    out.push_back({"counter", palette.counter});
  }
  const auto& changes = model.knob_changes();
  const bool tuner = std::any_of(changes.begin(), changes.end(),
                                 [](const auto& k) { return k.who.starts_with("autotuner"); });
  const bool person = std::any_of(changes.begin(), changes.end(),
                                  [](const auto& k) { return !k.who.starts_with("autotuner"); });
  if (person) out.push_back({"knob change", palette.knob_line, true});
  if (tuner) out.push_back({"tuner move", palette.tuner_line, true});
  if (!model.markers().empty()) out.push_back({"marker", palette.dim_text, true});
  out.push_back({"bottleneck, culprit, match", palette.highlight, true});
  return out;
}

std::vector<LegendSlot> LayOutLegend(const std::vector<LegendEntry>& entries, float width) {
  std::vector<LegendSlot> out;
  out.reserve(entries.size());
  LegendSlot at{0, 0};
  for (const LegendEntry& e : entries) {
    const float w =
        kLegendSwatch + kLegendSwatchGap + ImGui::CalcTextSize(e.label.c_str()).x + kEntryGap;
    if (at.x > 0 && at.x + w > width) at = {0, at.row + 1};
    out.push_back(at);
    at.x += w;
  }
  return out;
}

}  // namespace pipescope::ui
