#pragma once
// What the docks and the status bar say of the shown trace for the range looked at: the
// analysis (or a profiler trace's spans by name), which range it covers, the verdict and
// the status line. Computed under the document's lock in one place; the window only shows
// it.

#include <QString>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/tuning/advisor.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/span_statistics.h"

namespace pipescope::ui {

class TraceDocument;

struct FigureRange {
  int64_t selection_start = 0;  // a selection when selection_end > selection_start
  int64_t selection_end = 0;
  bool live = false;    // a run still records into the document
  bool paused = false;  // ... and its consumer is paused
  // The run's advice (null while it is worked out; a live run's is on its first seconds):
  // its first piece becomes the verdict's suggestion, unless a selection is looked at.
  const engine::AdvisorResult* advice = nullptr;
};

struct DocumentFigures {
  trace::RangeAnalysis analysis;
  std::optional<trace::SpanStatistics> spans;  // a profiler's trace: its spans by name
  QString range;                               // "Selection: 1.2 s to 2.0 s (800 ms)..."
  QString verdict;
  QString status;          // "75.2 steps/s   input wait 40%   device busy 60%"
  std::string bottleneck;  // the op the timeline highlights ("" for none)
};

// The live statistics cover the newest 2 s of a run.
inline constexpr int64_t kLiveWindowNs = 2'000'000'000;

DocumentFigures FiguresOf(const TraceDocument& document, const FigureRange& range);

}  // namespace pipescope::ui
