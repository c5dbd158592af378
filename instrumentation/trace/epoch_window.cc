#include "instrumentation/trace/epoch_window.h"

#include <algorithm>

namespace pipescope::trace {

namespace {

// The top-level repeat nearest the consumer, or null.
const record::StageDef* OutermostRepeat(const Model& model) {
  const record::StageDef* repeat = nullptr;
  for (const record::StageDef* s : model.StagesInOrder()) {
    if (s->depth == 0 && s->kind == "repeat") repeat = s;
  }
  return repeat;
}

}  // namespace

bool HasEpochs(const Model& model) {
  const record::StageDef* repeat = OutermostRepeat(model);
  return repeat != nullptr && repeat->input >= 0;
}

std::vector<int64_t> EpochEndsNs(const Model& model) {
  const record::StageDef* repeat = OutermostRepeat(model);
  std::vector<int64_t> ends;
  if (repeat == nullptr || repeat->input < 0) return ends;
  const auto input = static_cast<uint16_t>(repeat->input);
  for (const Track* t : model.TracksOf(EventKind::kCallEnd, input)) {
    for (size_t i = 0; i < t->size(); ++i) ends.push_back(t->end(i));
  }
  std::sort(ends.begin(), ends.end());
  return ends;
}

EpochWindow WholeEpochsIn(const std::vector<int64_t>& epoch_ends, int64_t t0, int64_t t1) {
  const auto first = std::lower_bound(epoch_ends.begin(), epoch_ends.end(), t0);
  const auto past = std::upper_bound(first, epoch_ends.end(), t1);
  if (past - first < 2) return EpochWindow{t0, t1, 0};
  return EpochWindow{*first, *(past - 1), past - first - 1};
}

}  // namespace pipescope::trace
