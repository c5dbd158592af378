#include "app/session/figure_table.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace pipescope::session {
namespace {

using Stage = trace::StageFigures;
using Run = SpecMeasurement;

constexpr unsigned kEverywhere = kTextView | kJsonView | kGuiView;

// Columns of the op tables, in the order they are shown.
const StageFigure kStageFigures[] = {
    {"parallelism", "parallelism", "", "parallelism",
     "Threads (or worker processes) the op ran with, averaged over the time range; for an op "
     "run on its callers' threads, how many of its calls ran at once (an interleave's "
     "per-file reads).",
     Better::kNeither, 1, 1, kEverywhere, false,
     [](const Stage& s) -> std::optional<double> { return s.parallelism; }},
    {"buffer", "buffer", "", "buffer_size",
     "Elements the op may hold ready ahead of its consumer, averaged over the time range.",
     // The dock leaves it to the Pipeline dock's knob, for room at 1280 px.
     Better::kNeither, 1, 1, kTextView | kJsonView, false,
     [](const Stage& s) -> std::optional<double> { return s.buffer_size; }},
    {"elements", "elements", "", "elements", "Elements the op produced in the time range.",
     Better::kHigher, 1, 0, kTextView | kJsonView, false,
     [](const Stage& s) -> std::optional<double> { return static_cast<double>(s.elements); }},
    {"elements_per_s", "elements/s", "", "elements_per_s",
     "Elements the op produced per second of the time range.", Better::kHigher, 1, 1, kEverywhere,
     false, [](const Stage& s) -> std::optional<double> { return s.elements_per_s; }},
    {"self", "self/elem", "µs", "self_ns_per_element",
     "The op's own work per element, without the time it waited for its input. Python work's "
     "waits for the interpreter lock are in it (GIL wait says their share): the lock is taken "
     "inside the call.",
     Better::kLower, 1e-3, 1, kEverywhere, false,
     [](const Stage& s) -> std::optional<double> { return s.self_ns_per_element; }},
    {"busy", "busy", "%", "busy_fraction",
     "Share of the op's thread capacity (its workers, or the threads that call it) spent "
     "working.",
     Better::kNeither, 100, 0, kEverywhere, false,
     [](const Stage& s) -> std::optional<double> { return s.busy_fraction; }},
    {"waiting", "waiting", "%", "waiting_input_fraction",
     "Share of the op's thread capacity spent waiting for its input.", Better::kLower, 100, 0,
     kEverywhere, false,
     [](const Stage& s) -> std::optional<double> { return s.waiting_input_fraction; }},
    {"blocked", "blocked", "%", "blocked_output_fraction",
     "Share of the op's thread capacity spent blocked on a full output buffer: its consumer "
     "is slower.",
     Better::kNeither, 100, 0, kEverywhere, false,
     [](const Stage& s) -> std::optional<double> { return s.blocked_output_fraction; }},
    {"idle", "idle", "%", "idle_fraction",
     "Share of the op's thread capacity with nothing to do (not asked for an element).",
     Better::kNeither, 100, 0, kJsonView, false,
     [](const Stage& s) -> std::optional<double> { return s.idle_fraction; }},
    {"buffer_level", "buffer level", "", "mean_buffer_level",
     "Elements in the op's buffer, averaged over the time range.", Better::kNeither, 1, 1,
     kJsonView, false, [](const Stage& s) -> std::optional<double> { return s.mean_buffer_level; }},
    {"buffer_fill", "buffer fill", "%", "buffer_fill",
     "How full the op's buffer was on average. Near 0 its consumer empties it as fast as it "
     "fills: the op cannot keep up.",
     Better::kNeither, 100, 0, kJsonView | kGuiView, false,
     [](const Stage& s) -> std::optional<double> {
       if (!s.asynchronous || s.buffer_size <= 0) return std::nullopt;
       return s.buffer_fill;
     }},
    {"caused", "caused", "%", "caused_wait_share",
     "Share of all the training step's input wait in the time range that this op caused.",
     Better::kLower, 100, 0, kEverywhere, false,
     [](const Stage& s) -> std::optional<double> { return s.caused_wait_share; }},
    {"cpu", "CPU", "%", "cpu_share",
     "CPU time the op's threads got while they worked for it, per unit of that time. Under "
     "70%, its workers waited for a core: other programs on the machine, or more threads "
     "than cores.",
     Better::kHigher, 100, 0, kJsonView | kGuiView, false,
     [](const Stage& s) -> std::optional<double> {
       if (s.cpu_share < 0) return std::nullopt;  // not sampled
       return s.cpu_share;
     }},
    {"lock_wait", "GIL wait", "%", "lock_wait_fraction",
     "Share of the op's work its threads spent waiting for their process's interpreter lock "
     "(the GIL) while another thread ran Python: what more threads cannot give back.",
     Better::kLower, 100, 0, kEverywhere | kTextViewWhereMeasured, false,
     [](const Stage& s) -> std::optional<double> {
       if ((s.traits & record::kTraitHoldsInterpreterLock) == 0 && s.lock_wait_fraction <= 0) {
         return std::nullopt;  // runs no Python
       }
       return s.lock_wait_fraction;
     }},
    {"cpu_cores", "cores", "", "cpu_cores",
     "Cores the op's threads used over the time range (CPU seconds per second).", Better::kNeither,
     1, 2, kJsonView, false,
     [](const Stage& s) -> std::optional<double> {
       if (s.cpu_share < 0) return std::nullopt;
       return s.cpu_cores;
     }},
};

// Rows of the Compare tables (CLI and GUI), in the order they are shown.
const RunFigure kRunFigures[] = {
    {"steps_per_s", "steps/s", "", "steps_per_s",
     "Training steps per second in the steady part of the run.", Better::kHigher, 1, 1, kEverywhere,
     true, [](const Run& m) -> std::optional<double> { return m.analysis.steps_per_s; }},
    {"steps_per_s_half_width", "± (95% interval)", "", "steps_per_s_half_width",
     "Half the width of the 95% confidence interval of steps/s, from the spread of the "
     "step times: two rates closer than their noise are a tie.",
     Better::kNeither, 1, 1, kEverywhere, false,
     [](const Run& m) -> std::optional<double> { return m.analysis.steps_per_s_half_width; }},
    {"input_wait", "input wait", "%", "input_wait_fraction",
     "Share of the time the training step waited for its next batch.", Better::kLower, 100, 0,
     kEverywhere, true,
     [](const Run& m) -> std::optional<double> { return m.analysis.input_wait_fraction; }},
    {"device_busy", "device busy", "%", "device_busy_fraction",
     "Share of the time the device (GPU or simulated) computed.", Better::kHigher, 100, 0,
     kEverywhere, true,
     [](const Run& m) -> std::optional<double> { return m.analysis.device_busy_fraction; }},
    {"worker_threads", "worker threads", "", "worker_threads",
     "Threads (or processes) of parallel maps, interleaves and loaders. Not marked better "
     "either way: more workers are how a slow op speeds up (steps/s says whether they did), "
     "and what they cost the machine is in CPU cores busy.",
     Better::kNeither, 1, 0, kEverywhere, true,
     [](const Run& m) -> std::optional<double> { return static_cast<double>(m.worker_threads); }},
    {"cpu_cores_busy", "CPU cores busy", "", "cpu_cores_busy",
     "CPU seconds per second the pipeline's threads used in the steady part.", Better::kLower, 1, 2,
     kEverywhere, false, [](const Run& m) -> std::optional<double> { return m.cpu_cores_busy; }},
    {"buffered_elements", "buffered elements", "", "buffered_elements",
     "Elements the buffers (prefetch, shuffle) may hold at these knobs.", Better::kLower, 1, 0,
     kEverywhere, false,
     [](const Run& m) -> std::optional<double> {
       return static_cast<double>(m.buffered_elements);
     }},
    {"buffer_memory", "buffer memory", "KiB", "buffer_bytes",
     "Memory the buffers hold at these knobs, from the size of the elements measured.",
     Better::kLower, 1.0 / 1024, 0, kEverywhere, false,
     [](const Run& m) -> std::optional<double> { return static_cast<double>(m.buffer_bytes); }},
};

template <typename F, size_t N>
const F* Find(const F (&table)[N], const std::string& key) {
  for (const F& f : table) {
    if (key == f.key) return &f;
  }
  return nullptr;
}

}  // namespace

std::span<const StageFigure> StageFigureTable() { return kStageFigures; }
std::span<const RunFigure> RunFigureTable() { return kRunFigures; }

const StageFigure* FindStageFigure(const std::string& key) { return Find(kStageFigures, key); }
const RunFigure* FindRunFigure(const std::string& key) { return Find(kRunFigures, key); }

std::string HeaderWithUnit(const char* header, const char* unit) {
  if (*unit == '\0') return header;
  if (std::strcmp(unit, "%") == 0) return std::string(header) + " %";
  return std::string(header) + " (" + unit + ")";
}

std::string FormatNumber(std::optional<double> base, double shown_per_base, int decimals) {
  if (!base) return "";
  double shown = *base * shown_per_base;
  // What rounds to zero prints as 0, not "-0": there is no sign to show.
  if (std::abs(shown) < 0.5 * std::pow(10.0, -decimals)) shown = 0;
  char number[48];
  std::snprintf(number, sizeof number, "%.*f", decimals, shown);
  return number;
}

std::string FormatWithUnit(std::optional<double> base, double shown_per_base, int decimals,
                           const char* unit) {
  std::string number = FormatNumber(base, shown_per_base, decimals);
  if (number.empty() || *unit == '\0') return number;
  if (std::strcmp(unit, "%") == 0) return number + "%";
  return number + " " + unit;
}

bool Beats(Better better, double mine, double other, double margin) {
  switch (better) {
    case Better::kHigher:
      return mine > other * (1 + margin);
    case Better::kLower:
      return mine < other * (1 - margin);
    case Better::kNeither:
      return false;
  }
  return false;
}

}  // namespace pipescope::session
