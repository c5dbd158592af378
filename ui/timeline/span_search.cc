#include "ui/timeline/span_search.h"

#include <algorithm>
#include <cctype>

namespace pipescope::ui {

namespace {

using record::EventKind;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void SpanSearch::Set(const std::string& new_text, const trace::Model* model) {
  text = Lower(new_text);
  kinds.clear();
  labels.clear();
  tracks.clear();
  span_matches = 0;
  if (text.empty()) return;
  for (EventKind kind :
       {EventKind::kCall, EventKind::kWork, EventKind::kWaitInput, EventKind::kBlocked,
        EventKind::kIdle, EventKind::kLockWait, EventKind::kReceive, EventKind::kInputWait,
        EventKind::kStep, EventKind::kBufferLevel}) {
    if (std::string(record::KindLabel(kind)).find(text) != std::string::npos) kinds.push_back(kind);
  }
  // Which names match (a few thousand at most), then which tracks hold such spans and how
  // many: one pass over the named spans per search.
  if (model == nullptr || model->labels().size() <= 1) return;
  labels.assign(model->labels().size(), false);
  bool any = false;
  for (uint32_t id = 1; id < model->labels().size(); ++id) {
    labels[id] = Lower(model->labels()[id].name).find(text) != std::string::npos;
    any = any || labels[id];
  }
  if (!any) return;
  for (const auto& track : model->tracks()) {
    if (!track->has_labels()) continue;
    int64_t n = 0;
    for (size_t i = 0; i < track->size(); ++i) n += labels[track->label(i)];
    if (n > 0) tracks.insert(track.get());
    span_matches += n;
  }
}

bool SpanSearch::LaneHasMatchingSpans(const Lane& lane) const {
  for (int k = 0; k < lane.track_count; ++k)
    if (tracks.contains(lane.tracks[k])) return true;
  return false;
}

bool SpanSearch::LaneMatches(const trace::Model* model, const Lane& lane) const {
  if (text.empty()) return false;
  if (Lower(lane.label).find(text) != std::string::npos) return true;
  // A lane that leaves its op's name to the lane above still belongs to it.
  const record::StageDef* stage =
      model != nullptr && lane.op >= 0 ? model->Stage(static_cast<uint16_t>(lane.op)) : nullptr;
  return stage != nullptr && Lower(stage->name).find(text) != std::string::npos;
}

bool SpanSearch::KindMatches(EventKind kind) const {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

}  // namespace pipescope::ui
