#include "ui/timeline/span_caption.h"

#include "engine/core/duration.h"

namespace pipescope::ui {

namespace {

using record::EventKind;

// The element a span worked on: "#841", or "#841-850" for a run of calls; nothing when the
// span is not about one element (record::Event's element 0).
std::string ElementPart(const trace::Track& track, size_t i) {
  const uint64_t first = track.element(i);
  if (first == 0) return {};
  const uint32_t calls = track.calls(i);
  std::string out(" #");
  out += std::to_string(first);
  if (calls > 1) {
    out += '-';
    out += std::to_string(first + calls - 1);
  }
  return out;
}

}  // namespace

std::string SpanCaption(const trace::Model& model, const trace::Track& track, size_t i) {
  if (track.label(i) != 0) return std::string(model.SpanName(track, i));
  const EventKind kind = track.key().kind;
  std::string out;
  switch (kind) {
    case EventKind::kCall:
    case EventKind::kWork:
    case EventKind::kCallEnd: {
      const record::StageDef* stage = model.Stage(track.key().op);
      out = stage != nullptr ? stage->name : record::KindLabel(kind);
      out += ElementPart(track, i);
      break;
    }
    case EventKind::kStep:
      out = "step";
      out += ElementPart(track, i);
      break;
    default:
      // Waits, blocks and device copies: what the time was spent on is the kind itself.
      out = record::KindLabel(kind);
  }
  out += ' ';
  out += engine::FormatDuration(track.duration(i));
  return out;
}

}  // namespace pipescope::ui
