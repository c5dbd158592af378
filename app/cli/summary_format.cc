#include "app/cli/summary_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "app/session/figure_table.h"
#include "engine/core/duration.h"
#include "engine/runtime/dataloader_rules.h"
#include "engine/runtime/storage_device.h"
#include "engine/spec/cardinality.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/trace/op_activity.h"
#include "instrumentation/trace/verdict.h"

namespace pipescope::cli {
namespace {

std::string OpName(const SummaryContext& c, uint16_t op) {
  return op < c.op_names.size() ? c.op_names[op] : "op " + std::to_string(op);
}

nlohmann::json DeviceGapsToJson(const trace::DeviceGapSummary& g) {
  nlohmann::json by_cause = nlohmann::json::object();
  for (const auto& [cause, ns] : g.by_cause_ns) by_cause[cause] = static_cast<double>(ns) / 1e9;
  return {{"measured", g.measured},
          {"count", g.count},
          {"total_s", static_cast<double>(g.total_ns) / 1e9},
          {"longest_s", static_cast<double>(g.longest_ns) / 1e9},
          {"by_cause", by_cause}};
}

// "device gaps: 120, 1.25 s (longest 40 ms): input: decode 1.10 s, the host ... 0.15 s".
std::string DeviceGapsToText(const trace::DeviceGapSummary& g) {
  if (!g.measured) return "";
  char line[160];
  std::snprintf(line, sizeof line, "device gaps          %lld, %.3f s (longest %s)",
                static_cast<long long>(g.count), static_cast<double>(g.total_ns) / 1e9,
                g.longest_ns > 0 ? engine::FormatDuration(g.longest_ns).c_str() : "0 s");
  std::string out = line;
  std::vector<std::pair<int64_t, std::string>> causes;
  for (const auto& [cause, ns] : g.by_cause_ns) causes.emplace_back(ns, cause);
  std::sort(causes.rbegin(), causes.rend());
  for (size_t i = 0; i < causes.size() && i < 3; ++i) {
    std::snprintf(line, sizeof line, "%s %s %.3f s", i == 0 ? ":" : ",", causes[i].second.c_str(),
                  static_cast<double>(causes[i].first) / 1e9);
    out += line;
  }
  return out + "\n";
}

// Characters a terminal shows for `s` (UTF-8: "µ" is two bytes, one character).
size_t Shown(const std::string& s) {
  size_t n = 0;
  for (const char ch : s) n += (static_cast<unsigned char>(ch) & 0xC0u) != 0x80u ? 1 : 0;
  return n;
}

std::string Padded(const std::string& s, size_t width, bool right) {
  const std::string pad(width > Shown(s) ? width - Shown(s) : 0, ' ');
  return right ? pad + s : s + pad;
}

// The op table: name (indented by depth) and kind, then the text view's figures with
// their units, each column as wide as its widest cell.
std::string StageTable(const std::vector<trace::StageFigures>& stages) {
  std::vector<std::vector<std::string>> rows(stages.size() + 1);
  rows[0] = {"stage", "op"};
  for (size_t i = 0; i < stages.size(); ++i) {
    const auto& st = stages[i];
    rows[i + 1] = {std::string(static_cast<size_t>(2 * st.depth), ' ') + st.name, st.op};
  }
  for (const session::StageFigure& f : session::StageFigureTable()) {
    if ((f.views & session::kTextView) == 0u) continue;
    if ((f.views & session::kTextViewWhereMeasured) != 0u &&
        std::none_of(stages.begin(), stages.end(),
                     [&f](const trace::StageFigures& st) { return f.value(st).has_value(); })) {
      continue;
    }
    rows[0].emplace_back(f.header);
    for (size_t i = 0; i < stages.size(); ++i) {
      rows[i + 1].push_back(session::FormatWithUnit(f, stages[i]));
    }
  }
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], Shown(row[c]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const bool last = c + 1 == row.size();
      // Names and kinds read left to right; numbers line up on their last digit.
      line += c < 2 ? Padded(row[c], last ? 0 : widths[c], false) : Padded(row[c], widths[c], true);
      if (!last) line += "  ";
    }
    out += line + "\n";
  }
  return out;
}

// The disk's busy share over the range graded (its trace's samples), or over the whole run
// where nothing was recorded.
std::optional<double> StorageBusy(const trace::RangeAnalysis& a, const SummaryContext& c) {
  if (a.storage_busy_fraction >= 0) return a.storage_busy_fraction;
  return c.storage_busy_fraction;
}

// A span of time as people say it: "3.0 h", "12 min", "42.5 s".
std::string ReadableSpan(double seconds) {
  char text[32];
  if (seconds >= 3600) {
    std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  } else if (seconds >= 60) {
    std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
  } else {
    std::snprintf(text, sizeof text, "%.1f s", seconds);
  }
  return text;
}

}  // namespace

nlohmann::json FigureJson(std::optional<double> v) {
  if (!v) return nullptr;
  if (std::abs(*v) < 9e15 && *v == std::floor(*v)) return static_cast<int64_t>(*v);
  return *v;
}

void SetStorage(SummaryContext& c, const spec::PipelineSpec& spec,
                std::optional<double> busy_fraction, int64_t reads) {
  if (!spec.has_storage() || !busy_fraction) return;
  c.storage = engine::StorageDescription(spec.storage());
  c.storage_busy_fraction = busy_fraction;
  c.storage_unread = reads == 0;
}

void SetEpochs(SummaryContext& c, const spec::PipelineSpec& spec, const trace::Model& model,
               const trace::RangeAnalysis& steady) {
  c.epoch_steps = engine::StepsOfAnEpoch(spec).value_or(0);
  if (steady.startup_ns <= 0) return;
  const std::optional<engine::LoaderRestarts> restarts = engine::LoaderRestartingEachEpoch(spec);
  if (!restarts) return;
  const std::string& name = spec.ops(restarts->op).name();
  c.restarting_loader = name;
  c.loader_epochs = restarts->epochs;
  c.loader_made_each_epoch = restarts->made_each_epoch;
  for (const auto* stage : model.StagesInOrder()) {
    if (stage->name == name) {
      c.loader_startup_ns =
          trace::ActivityOf(model, *stage, 0, steady.startup_ns).startup_covered_ns;
      break;
    }
  }
}

SummaryContext ContextFromModel(const trace::Model& model, const engine::RunSummary* run,
                                const trace::RangeAnalysis* steady) {
  SummaryContext c;
  c.device = model.run_info().device;
  if (run) {
    c.end_of_data = run->end_of_data;
    c.run_s = run->duration_s;
    c.run_steps = run->steps;
  }
  c.knob_changes = model.knob_changes();
  c.markers = model.markers();
  c.events = model.event_count();
  // A saved trace's disk, and its epochs, are the spec's in its header.
  const bool disk = model.FindTrack({record::EventKind::kStorageBusy, record::kNoOp, 0}) != nullptr;
  if (disk || steady) {
    if (auto spec = engine::ParseSpecText(model.run_info().spec_text, "trace header"); spec.ok()) {
      if (disk && spec->has_storage()) c.storage = engine::StorageDescription(spec->storage());
      if (steady) SetEpochs(c, *spec, model, *steady);
    }
  }
  for (const auto* s : model.StagesInOrder()) {
    if (c.op_names.size() <= s->id) c.op_names.resize(s->id + 1u);
    c.op_names[s->id] = s->name;
  }
  return c;
}

nlohmann::json SummaryToJson(const trace::RangeAnalysis& a, const SummaryContext& c) {
  nlohmann::json j;
  j["device"] = c.device;
  j["range_s"] = {static_cast<double>(a.t0) / 1e9, static_cast<double>(a.t1) / 1e9};
  j["duration_s"] = a.duration_s;
  j["startup_s"] = static_cast<double>(a.startup_ns) / 1e9;
  j["steps"] = a.steps;
  j["whole_epochs"] = a.whole_epochs;
  j["steps_per_s"] = a.steps_per_s;
  if (c.batch_copies > 1) {
    j["batch_copies"] = c.batch_copies;
    j["new_steps_per_s"] = a.steps_per_s / static_cast<double>(c.batch_copies);
  }
  j["steps_per_s_half_width"] = a.steps_per_s_half_width;  // its 95% interval's half
  j["elements"] = a.elements;
  j["elements_per_s"] = a.elements_per_s;
  j["input_wait_fraction"] = a.input_wait_fraction;
  j["device_busy_fraction"] = a.device_busy_fraction;
  j["device_busy_source"] = a.device_busy_source;
  if (const std::optional<double> busy = StorageBusy(a, c)) {
    j["storage"] = c.storage;
    j["storage_busy_fraction"] = *busy;
    if (c.storage_unread) j["storage_read_nothing"] = true;
  }
  if (!c.restarting_loader.empty()) {
    // epochs -1: endless.
    j["epoch_start"] = {{"loader", c.restarting_loader},
                        {"epochs", c.loader_epochs},
                        {"wait_s", static_cast<double>(a.startup_ns) / 1e9},
                        {"worker_startups_s", static_cast<double>(c.loader_startup_ns) / 1e9}};
  }
  if (c.epoch_steps > 0) j["epoch_steps"] = c.epoch_steps;
  j["device_gaps"] = DeviceGapsToJson(a.device_gaps);
  if (a.consumer_cpu_share >= 0) j["consumer_cpu_share"] = a.consumer_cpu_share;
  j["end_of_data"] = c.end_of_data;
  // The whole run, start-up included, beside the graded figures above.
  if (c.run_s > 0) {
    j["run_s"] = c.run_s;
    j["run_steps"] = c.run_steps;
  }
  j["recorded"] = c.recorded;
  j["events"] = c.events;
  j["dropped_events"] = a.dropped_events;
  j["stages"] = nlohmann::json::array();
  for (const auto& st : a.stages) {
    nlohmann::json stage = {{"name", st.name}, {"op", st.op}, {"depth", st.depth}};
    for (const session::StageFigure& f : session::StageFigureTable()) {
      if ((f.views & session::kJsonView) != 0u) stage[f.json_key] = FigureJson(f.value(st));
    }
    j["stages"].push_back(std::move(stage));
  }
  if (c.recorded) {
    j["verdict"] = {{"grade", a.verdict.grade},
                    {"bottleneck", a.verdict.bottleneck},
                    {"evidence", a.verdict.evidence},
                    {"suggestion", a.verdict.suggestion},
                    {"text", a.verdict.text}};
  }
  j["markers"] = nlohmann::json::array();
  for (const auto& m : c.markers) {
    j["markers"].push_back({{"time_s", static_cast<double>(m.time_ns) / 1e9}, {"text", m.text}});
  }
  j["knob_changes"] = nlohmann::json::array();
  for (const auto& k : c.knob_changes) {
    j["knob_changes"].push_back({{"time_s", static_cast<double>(k.time_ns) / 1e9},
                                 {"op", OpName(c, k.op)},
                                 {"knob", k.knob},
                                 {"from", k.from},
                                 {"to", k.to},
                                 {"who", k.who}});
  }
  return j;
}

// Fewer steps than this before the data ends are said to be too few to grade.
constexpr int64_t kFewestStepsToGrade = 5;

std::string SummaryToText(const trace::RangeAnalysis& a, const SummaryContext& c) {
  std::string out;
  char line[320];
  const std::string where =
      c.device == "cpu" ? "trained on the CPU" : "on the " + c.device + " device";
  // The rate with its 95% interval where the steps' times give one (README: two rates
  // closer than their intervals are a tie).
  char interval[48] = "";
  if (a.steps_per_s_half_width > 0) {
    std::snprintf(interval, sizeof interval, " ± %.1f", a.steps_per_s_half_width);
  }
  std::snprintf(line, sizeof line, "%lld step%s in %.2f s %s: %.1f%s steps/s, %.1f elements/s%s\n",
                static_cast<long long>(a.steps), a.steps == 1 ? "" : "s", a.duration_s,
                where.c_str(), a.steps_per_s, interval, a.elements_per_s,
                c.end_of_data ? " (end of data)" : "");
  out += line;
  // A handful of steps is mostly start-up and the last batch: no rate to act on (import-code's
  // 100 stand-in files under a batch of 100 make one step).
  if (c.end_of_data && a.steps < kFewestStepsToGrade) {
    out += "  the data ends after " + std::to_string(a.steps) + " step" +
           (a.steps == 1 ? "" : "s") +
           ", too few for these rates to mean much: the data's real size (the counts "
           "that stand in, named above, or real files) gives a run to grade\n";
  }
  // An epoch longer than the run: how long one takes at its rate, which the run does not
  // reach to show (keras#6406: 91,234 steps an epoch where 2,851 were meant, 3 h each).
  if (c.epoch_steps > a.steps && a.steps_per_s > 0 && !c.end_of_data) {
    const double epoch_s = static_cast<double>(c.epoch_steps) / a.steps_per_s;
    std::snprintf(line, sizeof line, "  an epoch is %lld steps: %s at this rate\n",
                  static_cast<long long>(c.epoch_steps), ReadableSpan(epoch_s).c_str());
    out += line;
  }
  if (c.batch_copies > 1) {
    std::snprintf(line, sizeof line,
                  "  every batch comes %lld times an epoch (each worker yields the whole "
                  "IterableDataset): %.2f steps/s of new batches\n",
                  static_cast<long long>(c.batch_copies),
                  a.steps_per_s / static_cast<double>(c.batch_copies));
    out += line;
  }
  if (a.startup_ns > 0) {
    std::snprintf(line, sizeof line,
                  "start-up: %.2f s before the first step (threads and workers starting, files "
                  "opening, buffers filling), left out of these figures\n",
                  static_cast<double>(a.startup_ns) / 1e9);
    out += line;
    if (a.whole_epochs > 0) {
      std::snprintf(line, sizeof line,
                    "  graded over %lld whole epoch%s (%.2f to %.2f s): the epochs under way at "
                    "either end are left out, as a part of one is no epoch's rate\n",
                    static_cast<long long>(a.whole_epochs), a.whole_epochs == 1 ? "" : "s",
                    static_cast<double>(a.t0) / 1e9, static_cast<double>(a.t1) / 1e9);
      out += line;
    }
    if (!c.restarting_loader.empty()) {
      const std::string epochs = c.loader_epochs > 0
                                     ? "each of its " + std::to_string(c.loader_epochs) + " epochs"
                                     : "each epoch";
      out += "  " + c.restarting_loader + " starts its workers again every epoch (" +
             (c.loader_made_each_epoch ? "made anew each epoch" : "no persistent_workers") +
             "): " + epochs + " begins with a wait like this one";
      if (c.loader_startup_ns > 0) {
        std::snprintf(line, sizeof line, ", %.2f s of it their start-ups, which %s pays once; ",
                      static_cast<double>(c.loader_startup_ns) / 1e9,
                      c.loader_made_each_epoch
                          ? "a loader made once, before the epochs' loop, with "
                            "persistent_workers=True,"
                          : "persistent_workers=True");
        out += line;
        out += "the rest is their first batches";
      }
      out += "\n";
    }
    // A start-up that took a fifth of the run or more leaves few steps to grade on; where the
    // data ended, a longer run has no more of them, and the run's own rate, start-up
    // included, is what its wait costs (tensorflow#47687: a shuffle after the augmentation
    // filled for minutes before the first batch, then each came at once).
    const double startup_s = static_cast<double>(a.startup_ns) / 1e9;
    const double run_s = c.run_s > 0 ? c.run_s : startup_s + a.duration_s;
    // Where the data ended, the run's own rate is what the program took: said where the
    // figures leave a fifth of it out (a start-up, an uncached first epoch).
    const int64_t run_steps = c.run_steps > 0 ? c.run_steps : a.steps;
    if (c.end_of_data && run_s - a.duration_s >= 0.2 * run_s) {
      std::snprintf(line, sizeof line,
                    "  these figures leave out %.0f%% of the run (its start-up %.0f%%%s): over "
                    "the whole run, start-up included, %lld step%s in %.2f s, %.2f steps/s\n",
                    100 * (run_s - a.duration_s) / run_s, 100 * startup_s / run_s,
                    a.whole_epochs > 0 ? ", and the epochs outside the graded range" : "",
                    static_cast<long long>(run_steps), run_steps == 1 ? "" : "s", run_s,
                    static_cast<double>(run_steps) / run_s);
      out += line;
    } else if (startup_s >= 0.2 * run_s && a.steps < 100) {
      std::snprintf(line, sizeof line,
                    "  it took %.0f%% of the run: these figures rest on %lld step%s; a longer "
                    "--duration measures more of them\n",
                    100 * startup_s / run_s, static_cast<long long>(a.steps),
                    a.steps == 1 ? "" : "s");
      out += line;
    }
  }
  std::snprintf(line, sizeof line, "input wait %.1f%% of the time, device busy %.1f%%\n",
                100 * a.input_wait_fraction, 100 * a.device_busy_fraction);
  out += line;
  if (const std::optional<double> busy = StorageBusy(a, c)) {
    // A disk busy all the time is the limit whatever the workers: more of them only queue.
    std::snprintf(line, sizeof line, "storage busy %.1f%% of the time, the %s%s\n", 100 * *busy,
                  c.storage.empty() ? "disk" : c.storage.c_str(),
                  *busy >= trace::kStorageBoundBusy
                      ? ": the reads are the limit; more workers or threads only queue for it"
                      : "");
    out += line;
    // A named disk that nothing reads is a setting that changed nothing: say so.
    if (c.storage_unread) {
      out +=
          "  nothing was read from it: a named disk serves record files (TFRecord, "
          "fixed-length, synthetic), the files Python calls load (read_bytes: a DataLoader's "
          "or a Sequence's items) and those a map reads with tf.io.read_file; this pipeline "
          "reads none of them\n";
    }
  }
  out += DeviceGapsToText(a.device_gaps);
  if (!c.recorded) return out + "(not recorded: no per-op figures)\n";
  if (a.dropped_events > 0) {
    std::snprintf(line, sizeof line,
                  "warning: %llu events were dropped (the recorder fell behind)\n",
                  static_cast<unsigned long long>(a.dropped_events));
    out += line;
  }
  for (const auto& m : c.markers) {
    std::snprintf(line, sizeof line, "at %.2f s: %s\n", static_cast<double>(m.time_ns) / 1e9,
                  m.text.c_str());
    out += line;
  }
  out += "\n";
  out += StageTable(a.stages);
  out += "\n" + a.verdict.text + "\n";
  return out;
}

nlohmann::json FrameworkSummaryToJson(const trace::FrameworkSummary& s,
                                      const std::vector<std::string>& warnings) {
  return {{"framework", s.framework},
          {"steps", s.steps},
          {"step_time_s", s.step_time_s},  // the steps' time in all
          {"steps_per_s", s.StepsPerSecond()},
          {"input_wait_fraction", s.input_wait_fraction},
          {"device_busy_fraction", s.device_busy_fraction},
          {"device_activity", s.has_device_activity},
          {"device_gaps", DeviceGapsToJson(s.device_gaps)},
          {"dominant_op", s.dominant_op},
          {"dominant_op_share", s.dominant_op_share},
          {"input_bound", s.input_bound},
          {"verdict", s.verdict},
          {"warnings", warnings}};
}

std::string FrameworkSummaryToText(const trace::FrameworkSummary& s) {
  char line[256];
  const bool recorded = s.framework == "pipescope";
  std::string out = (recorded ? "recorded " : "imported ") + s.framework + " trace\n";
  const char* of = recorded ? "of the run" : "of step time";
  if (const double rate = s.StepsPerSecond(); rate > 0) {
    std::snprintf(line, sizeof line,
                  "steps                %lld in %.3f s: %.2f steps/s, %.1f ms a step\n",
                  static_cast<long long>(s.steps), s.step_time_s, rate, 1e3 / rate);
  } else {
    std::snprintf(line, sizeof line, "steps                %lld (%.3f s)\n",
                  static_cast<long long>(s.steps), s.step_time_s);
  }
  out += line;
  std::snprintf(line, sizeof line, "input wait           %.0f%% %s\n", 100 * s.input_wait_fraction,
                of);
  out += line;
  if (s.has_device_activity) {
    std::snprintf(line, sizeof line, "device busy          %.0f%% %s\n",
                  100 * s.device_busy_fraction, of);
    out += line;
  }
  out += DeviceGapsToText(s.device_gaps);
  if (!s.dominant_op.empty()) {
    std::snprintf(line, sizeof line,
                  "heaviest tf.data op  %s (%.0f%% of the iterators' own time)\n",
                  s.dominant_op.c_str(), 100 * s.dominant_op_share);
    out += line;
  }
  return out + "verdict: " + s.verdict + "\n";
}

namespace {

nlohmann::json NameToJson(const trace::NameTotals& n) {
  return {{"name", n.name},
          {"category", n.category},
          {"count", n.count},
          {"total_s", static_cast<double>(n.total_ns) / 1e9},
          {"self_s", static_cast<double>(n.self_ns) / 1e9}};
}

}  // namespace

nlohmann::json SpanStatisticsToJson(const trace::SpanStatistics& s, int top) {
  nlohmann::json names = nlohmann::json::array(), kernels = nlohmann::json::array();
  for (const auto& n : s.names) {
    if (static_cast<int>(names.size()) < top) names.push_back(NameToJson(n));
    if (n.device && static_cast<int>(kernels.size()) < top) kernels.push_back(NameToJson(n));
  }
  return {{"count", s.spans},
          {"device_spans", s.device_spans},
          {"distinct_names", s.names.size()},
          {"max_depth", s.max_depth},
          {"flows", s.flows},
          {"device_streams", s.device_streams},
          {"names", names},
          {"device_names", kernels}};
}

std::string SpanStatisticsToText(const trace::SpanStatistics& s, int top) {
  char line[512];
  std::snprintf(line, sizeof line,
                "spans                %lld (%lld on the device, %d streams), %zu names, "
                "nested %d deep, %lld flows\n",
                static_cast<long long>(s.spans), static_cast<long long>(s.device_spans),
                s.device_streams, s.names.size(), s.max_depth + (s.spans > 0 ? 1 : 0),
                static_cast<long long>(s.flows));
  std::string out = line;
  if (top <= 0 || s.names.empty()) return out;
  out += "by total time        total      own        count  name\n";
  int shown = 0;
  for (const auto& n : s.names) {
    if (shown++ == top) break;
    const std::string name = n.name.size() > 90 ? n.name.substr(0, 87) + "..." : n.name;
    std::snprintf(line, sizeof line, "  %-18s %-10s %-10s %-6lld %s\n",
                  n.device ? "(device)" : n.category.substr(0, 18).c_str(),
                  engine::FormatDuration(n.total_ns).c_str(),
                  engine::FormatDuration(n.self_ns).c_str(), static_cast<long long>(n.count),
                  name.c_str());
    out += line;
  }
  return out;
}

}  // namespace pipescope::cli
