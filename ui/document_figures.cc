#include "ui/document_figures.h"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "app/session/advising.h"
#include "engine/core/duration.h"
#include "instrumentation/trace/import/framework_report.h"
#include "ui/trace_document.h"

namespace pipescope::ui {
namespace {

QString Time(int64_t ns) { return QString::fromStdString(engine::FormatDuration(ns)); }

// "\n\nThe device idled 1.05 s in 245 gaps (longest 9.0 ms): input: decode 0.95 s, ..."
QString DeviceGapsText(const trace::DeviceGapSummary& g) {
  if (!g.measured || g.count == 0) return {};
  std::vector<std::pair<int64_t, std::string>> causes;
  for (const auto& [cause, ns] : g.by_cause_ns) causes.emplace_back(ns, cause);
  std::sort(causes.rbegin(), causes.rend());
  std::string text = "\n\nThe device idled " + engine::FormatDuration(g.total_ns) + " in " +
                     std::to_string(g.count) + (g.count == 1 ? " gap" : " gaps") + " (longest " +
                     engine::FormatDuration(g.longest_ns) + ")";
  for (size_t i = 0; i < causes.size() && i < 3; ++i)
    text +=
        (i == 0 ? ": " : "; ") + causes[i].second + " " + engine::FormatDuration(causes[i].first);
  return QString::fromStdString(text + ".");
}

// An imported profiler trace: its framework's figures and verdict (steps, DataLoader or
// tf.data wait, device activity).
void FrameworkFigures(const trace::Model& model, const FigureRange& range, DocumentFigures& f) {
  const bool selected = range.selection_end > range.selection_start;
  const auto summary =
      trace::SummarizeFramework(model, range.selection_start, selected ? range.selection_end : 0);
  f.verdict = QString::fromStdString(summary.verdict) + DeviceGapsText(summary.device_gaps);
  f.status =
      QString::asprintf("imported %s trace   %lld steps   input wait %.0f%%   device busy %.0f%%",
                        summary.framework.c_str(), static_cast<long long>(summary.steps),
                        100 * summary.input_wait_fraction, 100 * summary.device_busy_fraction);
}

}  // namespace

DocumentFigures FiguresOf(const TraceDocument& document, const FigureRange& range) {
  DocumentFigures f;
  if (!document.is_open()) return f;
  const trace::Model& model = *document.model();
  const std::string& from = document.imported_from();
  const bool selected = range.selection_end > range.selection_start;
  const auto guard = document.Lock();
  int64_t t0 = 0;
  int64_t t1 = 0;
  if (selected) {
    t0 = range.selection_start;
    t1 = range.selection_end;
    f.range =
        QString("Selection: %1 to %2 (%3). Esc clears it.").arg(Time(t0), Time(t1), Time(t1 - t0));
  } else if (range.live) {
    t1 = model.duration_ns();
    t0 = std::max<int64_t>(0, t1 - kLiveWindowNs);
    f.range = QString("Live: the newest %1 (select a range with Shift+drag)").arg(Time(t1 - t0));
    if (t1 <= 0) t1 = t0 = 0;
  }
  if (!selected && !range.live && from.empty()) {
    // A finished run or a saved trace of Pipescope's own: after its first step, as the CLI
    // grades it.
    f.analysis = trace::AnalyzeSteady(model);
    f.range = f.analysis.startup_ns > 0
                  ? QString(
                        "After the first step: %1 of start-up left out (select a range with "
                        "Shift+drag)")
                        .arg(Time(f.analysis.startup_ns))
                  : QString("Whole trace (select a range with Shift+drag)");
  } else {
    f.analysis = trace::Analyze(model, t0, t1);
  }
  // A profiler's trace: its spans by name, not ops ("ops" of an imported trace are its
  // processes, so the verdict's bottleneck is not highlighted either).
  if (!from.empty() && from != "hosts" && from != "tensorflow")
    f.spans = trace::SummarizeSpans(model, t0, t1);
  if (from.empty()) f.bottleneck = f.analysis.verdict.bottleneck;
  if (from == "hosts") {
    f.verdict = document.hosts_verdict();
    f.status =
        QString("%1 on one clock").arg(QString::fromStdString(model.run_info().pipeline_name));
    return f;
  }
  if (!from.empty()) {
    FrameworkFigures(model, range, f);
    return f;
  }
  if (range.advice != nullptr && !selected) session::ApplyAdvice(*range.advice, f.analysis.verdict);
  f.verdict =
      QString::fromStdString(f.analysis.verdict.text) + DeviceGapsText(f.analysis.device_gaps);
  // A simulated trace says so, and on which cost model: its figures are virtual time.
  // A model file by its name (the header keeps its whole path, for advice to load it again).
  const std::string& cost_model = model.run_info().cost_model;
  const std::string costs = cost_model.ends_with(".json")
                                ? std::filesystem::path(cost_model).filename().string()
                                : cost_model;
  const std::string simulated =
      model.run_info().simulated ? "SIMULATED (" + costs + " costs)   " : std::string();
  f.status = QString::asprintf("%s%s%.1f steps/s   input wait %.0f%%   device busy %.0f%%",
                               simulated.c_str(), range.paused ? "PAUSED   " : "",
                               f.analysis.steps_per_s, 100 * f.analysis.input_wait_fraction,
                               100 * f.analysis.device_busy_fraction);
  if (f.analysis.storage_busy_fraction >= 0) {
    f.status += QString::asprintf("   disk busy %.0f%%", 100 * f.analysis.storage_busy_fraction);
  }
  return f;
}

}  // namespace pipescope::ui
