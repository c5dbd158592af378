#pragma once
// Every figure Pipescope shows about an op or a measured configuration, declared once:
// header, unit, --json key, tooltip, which way is better, and where it appears. The CLI's
// text and JSON, the Statistics dock and the Compare window (measured and what-if) render
// from these two tables, so a figure added here appears in the same words wherever it
// belongs, and no view can quietly show a set that differs from another's.

#include <optional>
#include <span>
#include <string>

#include "app/session/measurement.h"
#include "instrumentation/trace/analysis.h"

namespace pipescope::session {

enum class Better { kHigher, kLower, kNeither };

// Where a figure appears (bits of Figure::views).
enum FigureView : unsigned {
  kTextView = 1u << 0,  // the CLI's text (run and report's op table, compare's rows)
  kJsonView = 1u << 1,  // the CLI's --json
  kGuiView = 1u << 2,   // the GUI's table (the Statistics dock, the Compare window)
  // With kTextView: shown in the text only when some row has a value (the interpreter
  // lock's waits, for pipelines that run Python), so the table of others stays as wide.
  kTextViewWhereMeasured = 1u << 3,
};

template <typename Source>
struct Figure {
  const char* key;       // how code and tests name it: "busy"
  const char* header;    // its column or row header, one word where a text table needs it
  const char* unit;      // of the shown value: "%", "µs", "KiB", "" (a count or a rate)
  const char* json_key;  // the value under it is in base units (fractions, ns, bytes)
  const char* tooltip;   // what it means, for people
  Better better;
  double shown_per_base;  // shown value = base value × this (100 for a fraction in %)
  int decimals;           // of the shown value
  unsigned views;         // FigureView bits
  // Run figures: a what-if's prediction (a simulation of a trace) gives it too.
  bool predicted;
  // The base value; nullopt where the figure does not apply (no buffer, not sampled).
  std::optional<double> (*value)(const Source&);
};

using StageFigure = Figure<trace::StageFigures>;  // one op over a time range
using RunFigure = Figure<SpecMeasurement>;        // a configuration measured (or predicted)

// In the order the views show them.
std::span<const StageFigure> StageFigureTable();
std::span<const RunFigure> RunFigureTable();

// The figure whose key is `key`; nullptr when none (a programming error in the caller).
const StageFigure* FindStageFigure(const std::string& key);
const RunFigure* FindRunFigure(const std::string& key);

// A header that carries the unit, for tables whose cells are bare numbers: "busy %",
// "self/elem (µs)", "buffer memory (KiB)", "steps/s".
std::string HeaderWithUnit(const char* header, const char* unit);

// The shown value as a bare number ("94", "3090.5"); "" where the figure does not apply.
std::string FormatNumber(std::optional<double> base, double shown_per_base, int decimals);

// The shown value with its unit ("94%", "3090.5 µs", "910"); "" where it does not apply.
std::string FormatWithUnit(std::optional<double> base, double shown_per_base, int decimals,
                           const char* unit);

// Whether `mine` beats `other` by more than `margin` (a share: 0.03 is 3%) in the direction
// `better` says; never for kNeither.
bool Beats(Better better, double mine, double other, double margin);

template <typename Source>
std::string FormatNumber(const Figure<Source>& f, const Source& s) {
  return FormatNumber(f.value(s), f.shown_per_base, f.decimals);
}

template <typename Source>
std::string FormatWithUnit(const Figure<Source>& f, const Source& s) {
  return FormatWithUnit(f.value(s), f.shown_per_base, f.decimals, f.unit);
}

template <typename Source>
std::string HeaderWithUnit(const Figure<Source>& f) {
  return HeaderWithUnit(f.header, f.unit);
}

}  // namespace pipescope::session
