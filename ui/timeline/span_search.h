#pragma once
// What the timeline's search box matches: lanes whose label or op contains the text, span
// kinds whose label does ("wait"), and an imported trace's spans whose own name does
// (case-insensitive). Kept as plain data beside the model: which names match is worked out
// once per search, so a frame only looks bits up. The model's lock is held while a method
// that takes the model runs.

#include <set>
#include <string>
#include <vector>

#include "instrumentation/trace/model.h"
#include "ui/timeline/lanes.h"

namespace pipescope::ui {

struct SpanSearch {
  std::string text;  // lower case; empty: no search
  std::vector<record::EventKind> kinds;
  std::vector<bool> labels;              // by label id: its name matches
  std::set<const trace::Track*> tracks;  // tracks holding a matching span
  int64_t span_matches = 0;              // spans whose own name matches

  // Sets the text and works out what it matches in `model` (nullptr: nothing).
  void Set(const std::string& text, const trace::Model* model);
  bool active() const { return !text.empty(); }
  bool LaneMatches(const trace::Model* model, const Lane& lane) const;
  bool KindMatches(record::EventKind kind) const;
  bool LaneHasMatchingSpans(const Lane& lane) const;
};

}  // namespace pipescope::ui
