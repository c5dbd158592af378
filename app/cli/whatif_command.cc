#include "app/cli/whatif_command.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app/session/trace_files.h"
#include "app/session/trace_whatif.h"
#include "instrumentation/trace/verdict.h"

namespace pipescope::cli {
namespace {

using session::LoaderSettings;
using session::WhatIfFigures;

bool SplitSetting(const std::string& text, std::pair<std::string, std::string>& out) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) return false;
  out = {text.substr(0, eq), text.substr(eq + 1)};
  return true;
}

nlohmann::json FiguresJson(const WhatIfFigures& f) {
  return {{"steps_per_s", f.steps_per_s},
          {"samples_per_s", f.samples_per_s},
          {"input_wait_fraction", f.input_wait_fraction},
          {"device_busy_fraction", f.device_busy_fraction}};
}

nlohmann::json SettingsJson(const LoaderSettings& s) {
  return {{"batch_size", s.batch_size},
          {"num_workers", s.num_workers},
          {"prefetch_factor", s.prefetch_factor},
          {"persistent_workers", s.persistent_workers},
          {"pin_memory", s.pin_memory}};
}

std::string Number(const char* format, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// One row of the side-by-side table.
std::string Row(const std::string& name, const std::string& a, const std::string& b,
                const std::string& c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %-13s %12s %16s %12s\n", name.c_str(), a.c_str(), b.c_str(),
                c.c_str());
  return buf;
}

std::string Table(const session::WhatIfPrediction& p) {
  const WhatIfFigures* f[3] = {&p.measured, &p.reproduced, &p.predicted};
  std::string out = Row("", "measured", "model, traced", "predicted");
  auto row = [&](const std::string& name, auto get) {
    out += Row(name, get(*f[0]), get(*f[1]), get(*f[2]));
  };
  row("steps/s", [](const WhatIfFigures& x) { return Number("%.2f", x.steps_per_s); });
  row("samples/s", [](const WhatIfFigures& x) { return Number("%.1f", x.samples_per_s); });
  row("step", [](const WhatIfFigures& x) {
    return x.steps_per_s > 0 ? Number("%.1f ms", 1e3 / x.steps_per_s) : std::string("-");
  });
  row("input wait",
      [](const WhatIfFigures& x) { return trace::FormatPercent(x.input_wait_fraction); });
  row("device busy",
      [](const WhatIfFigures& x) { return trace::FormatPercent(x.device_busy_fraction); });
  return out;
}

// A core count as people write it: 16, or 1.5 for a fraction of a machine.
std::string CoresText(double cores) {
  char buf[32];
  std::snprintf(buf, sizeof buf, cores == std::round(cores) ? "%.0f" : "%.1f", cores);
  return buf;
}

// A setting or a --given it cannot take is a bad argument (2, as a malformed KNOB=VALUE);
// the rest is the trace's (1).
int ExitCodeOf(const engine::Status& status) {
  return status.code() == engine::StatusCode::kInvalidArgument ? 2 : 1;
}

}  // namespace

nlohmann::json WhatIfAdviceJson(const session::WhatIfPrediction& p, const std::string& text) {
  // A change of the epochs' starts (persistent_workers) is weighed over whole epochs.
  const bool epochs = !p.over_epochs.empty();
  const double from = epochs ? p.epochs_measured_steps_per_s : p.measured.steps_per_s;
  const double to = epochs ? p.epochs_predicted_steps_per_s : p.predicted.steps_per_s;
  const double gain = from > 0 ? to / from - 1 : 0;
  return {{"kind", "dataloader_settings"},
          {"op", "DataLoader"},
          {"change", session::LoaderChanges(p.traced, p.changed)},
          {"settings", "DataLoader(" + session::LoaderArguments(p.changed) + ")"},
          {"predicted_steps_per_s", to},
          {"predicted_gain", gain},
          {"confidence", "simulated on a model fitted to the trace"},
          {"changes_output", p.changed.batch_size != p.traced.batch_size},
          {"text", text}};
}

WhatIfAdvice AdviseFromTrace(const trace::Model& model, const std::string& trace_path,
                             double cores) {
  WhatIfAdvice advice;
  auto search = session::SearchWhatIfOnTrace(model, cores);
  if (!search.ok()) {
    advice.text = "no prediction: " + search.status().message() + " (pipescope-cli whatif " +
                  trace_path + " --given ...)";
    return advice;
  }
  const std::string on =
      cores > 0 ? " Predicted on " + CoresText(cores) + " cores, as given: "
                : " Predicted on this machine's cores (report --cores N for the traced "
                  "machine's): ";
  advice.text = search->sentence + on + "`pipescope-cli whatif " + trace_path +
                (cores > 0 ? " --cores " + CoresText(cores) : std::string(" --cores N")) +
                "` lists every assumption.";
  advice.json = WhatIfAdviceJson(search->best, search->sentence);
  return advice;
}

int WhatIfCommand(const WhatIfCommandOptions& options, std::ostream& out, std::ostream& err) {
  session::WhatIfOptions what;
  what.cores = options.cores;
  for (const auto* list : {&options.sets, &options.given}) {
    for (const auto& text : *list) {
      std::pair<std::string, std::string> kv;
      if (!SplitSetting(text, kv)) {
        err << "pipescope-cli: whatif: expected KNOB=VALUE, got '" << text << "'\n";
        return 2;
      }
      (list == &options.sets ? what.sets : what.given).push_back(kv);
    }
  }
  auto loaded = session::OpenTraceFile(options.trace_path);
  if (!loaded.ok()) {
    err << "pipescope-cli: " << loaded.status().message() << "\n";
    return 1;
  }
  for (const auto& w : loaded->warnings) err << "pipescope-cli: warning: " << w << "\n";
  auto job = trace::ReadLoaderJob(*loaded->model);
  if (!job.ok()) {
    err << "pipescope-cli: whatif: " << options.trace_path << ": " << job.status().message()
        << "\n";
    return 1;
  }
  session::WhatIfPrediction p;
  std::string sentence;
  if (what.sets.empty()) {
    auto search = session::SearchWhatIf(*job, what);
    if (!search.ok()) {
      err << "pipescope-cli: whatif: " << options.trace_path << ": " << search.status().message()
          << "\n";
      return ExitCodeOf(search.status());
    }
    p = search->best;
    sentence = search->sentence;
  } else {
    auto predicted = session::PredictWhatIf(*job, what);
    if (!predicted.ok()) {
      err << "pipescope-cli: whatif: " << options.trace_path << ": " << predicted.status().message()
          << "\n";
      return ExitCodeOf(predicted.status());
    }
    p = *predicted;
    sentence = session::PredictionSentence(p);
  }
  if (options.json) {
    out << nlohmann::json{{"trace", options.trace_path},
                          {"traced_settings", SettingsJson(p.traced)},
                          {"settings", SettingsJson(p.changed)},
                          {"measured", FiguresJson(p.measured)},
                          {"reproduced", FiguresJson(p.reproduced)},
                          {"predicted", FiguresJson(p.predicted)},
                          {"getitem_ns", p.getitem_ns},
                          {"loop_ns", p.loop_ns},
                          {"assumptions", p.assumptions},
                          {"advice", nlohmann::json::array({WhatIfAdviceJson(p, sentence)})}}
               .dump(2)
        << "\n";
    return 0;
  }
  out << "What-if on " << options.trace_path << "\n"
      << "  traced:    DataLoader(" << session::LoaderArguments(p.traced) << ")\n"
      << "  predicted: DataLoader(" << session::LoaderArguments(p.changed) << ")\n\n"
      << Table(p) << "\n"
      << sentence << "\n\nAssumptions:\n";
  for (const auto& a : p.assumptions) out << "  - " << a << "\n";
  return 0;
}

}  // namespace pipescope::cli
