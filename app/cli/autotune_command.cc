#include "app/cli/autotune_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "app/cli/spec_argument.h"
#include "app/code/code_emit.h"
#include "app/code/code_patch.h"
#include "app/session/measurement.h"
#include "app/session/simulated_run.h"
#include "engine/spec/spec_loader.h"
#include "engine/tuning/advice_candidates.h"
#include "engine/tuning/order_advice.h"
#include "engine/tuning/pipescope_tuner.h"
#include "engine/tuning/tfdata_tuner.h"
#include "instrumentation/trace/rate_interval.h"
#include "instrumentation/trace/verdict.h"

namespace pipescope::cli {

int AutotuneCommand(const AutotuneCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (options.algorithm != "pipescope" && options.algorithm != "tfdata") {
    err << "pipescope-cli: unknown --algorithm '" << options.algorithm
        << "' (pipescope or tfdata)\n";
    return 2;
  }
  // A .py is read once: its spec is tuned, and the file written back with the tuned knobs.
  std::optional<code::ImportedCode> from_code;
  auto spec = [&]() -> engine::Result<spec::PipelineSpec> {
    if (!options.spec_path.ends_with(".py"))
      return LoadSpecArgument(options.spec_path, options.overrides, &err,
                              {.pipeline = options.pipeline});
    ASSIGN_OR_RETURN(from_code, LoadCodeArgument(options.spec_path, options.overrides, &err,
                                                 {.pipeline = options.pipeline}));
    return from_code->spec;
  }();
  if (!spec.ok()) {
    err << "pipescope-cli: " << spec.status().message() << "\n";
    return 2;
  }
  // In the simulator the cores are the model's: --cores is the budget the simulated machine
  // has, as --set budget.cpu_cores gives it (the tuner planned for N cores and measured on
  // the spec's, 2, and called every step above 2 slower).
  if (options.simulate && options.cores > 0) spec->mutable_budget()->set_cpu_cores(options.cores);
  // Progress on stderr: each measurement as it comes (a real-run tuning takes minutes).
  int measured = 0;
  const auto report = [&err, &measured](double steps_per_s) {
    char line[96];
    std::snprintf(line, sizeof line, "pipescope-cli: measurement %d: %.*f steps/s\n", ++measured,
                  steps_per_s < 10 ? 2 : 1, steps_per_s);
    err << line;
  };
  engine::Measurer measure;
  if (options.simulate) {
    // Simulated seconds are cheap: measure longer for steadier figures.
    engine::Measurer simulate =
        session::SimulatedMeasurer(options.model_path, std::max(options.measure_s, 5.0));
    measure = [simulate, report](const spec::PipelineSpec& s) {
      auto m = simulate(s);
      if (m.ok()) report(m->steps_per_s);
      return m;
    };
  } else {
    measure = session::RecordedMeasurer(options.measure_s, nullptr, report);
  }
  engine::TunerOptions tuner;
  tuner.cores = options.cores;
  tuner.budget_s = options.budget_s;
  tuner.ram_bytes = session::DefaultRamBudgetBytes();
  tuner.explain = options.explain;
  if (options.explain && options.algorithm != "tfdata") {
    err << "pipescope-cli: note: --explain explains tf.data's AUTOTUNE (--algorithm tfdata); "
           "pipescope's rounds are in the log as they are\n";
  }
  auto result = options.algorithm == "tfdata" ? engine::TuneTfData(*spec, measure, tuner)
                                              : engine::TunePipescope(*spec, measure, tuner);
  if (!result.ok()) {
    err << "pipescope-cli: " << result.status().message() << "\n";
    return 1;
  }
  // Order advice on the tuned spec, each measured the same way.
  nlohmann::json advice = nlohmann::json::array();
  for (const auto& a : engine::AdviseOrder(result->tuned, result->final_analysis)) {
    auto m = measure(a.spec);
    if (!m.ok()) continue;
    const double gain =
        result->steps_per_s_after > 0 ? m->steps_per_s / result->steps_per_s_after - 1 : 0;
    // Gains only beyond the noise of both rates, as the tuners keep a change.
    const trace::RateInterval tuned{result->steps_per_s_after, result->half_width_after};
    advice.push_back(
        {{"change", a.change},
         {"why", a.why},
         {"keeps_output", true},
         {"steps_per_s", m->steps_per_s},
         {"half_width", m->half_width},
         {"measured_gain", gain},
         {"gains", trace::ClearlyFaster(engine::IntervalOf(*m), tuned, tuner.min_gain)}});
  }
  if (!options.out_path.empty()) {
    const std::string comment =
        result->kept_given ? "The spec as given: what autotune --algorithm " + options.algorithm +
                                 " tuned measured slower (" + options.spec_path + ")"
                           : "Tuned by pipescope-cli autotune --algorithm " + options.algorithm +
                                 " from " + options.spec_path;
    const auto written = engine::WriteSpecFile(result->tuned, options.out_path, comment);
    if (!written.ok()) {
      err << "pipescope-cli: " << written.message() << "\n";
      return 2;
    }
  }
  std::string code_text;
  if (!options.emit.empty()) {
    // From a .py: the user's own file with the tuned knobs written in.
    auto emitted = from_code ? code::PatchCode(*from_code, result->tuned)
                             : code::EmitCode(result->tuned, options.emit);
    if (!emitted.ok()) {
      err << "pipescope-cli: --emit: " << emitted.status().message() << "\n";
      return 2;
    }
    for (const std::string& n : emitted->notes) err << "pipescope-cli: note: " << n << "\n";
    code_text = emitted->text;
    if (!options.out_path.empty()) {
      const std::string code_path =
          std::filesystem::path(options.out_path).replace_extension(".py").string();
      std::ofstream f(code_path);
      f << code_text;
      if (!f) {
        err << "pipescope-cli: cannot write " << code_path << "\n";
        return 2;
      }
      err << "pipescope-cli: the tuned configuration as code: " << code_path << "\n";
      code_text.clear();
    }
  }
  if (options.json) {
    nlohmann::json knobs = nlohmann::json::object(), before = nlohmann::json::object();
    for (const auto& k : result->knobs) {
      knobs[k.name] = k.after;
      before[k.name] = k.before;
    }
    out << nlohmann::json{{"algorithm", options.algorithm},
                          {"measured_by", options.simulate ? "simulator" : "runs"},
                          {"knobs", knobs},
                          {"knobs_before", before},
                          {"steps_per_s_before", result->steps_per_s_before},
                          {"steps_per_s_after", result->steps_per_s_after},
                          {"half_width_before", result->half_width_before},
                          {"half_width_after", result->half_width_after},
                          {"measurements", result->measurements},
                          {"other_settings", result->other_settings},
                          {"kept_given", result->kept_given},
                          {"worker_threads", result->worker_threads},
                          {"loader_workers", result->loader_workers},
                          {"cpu_cores_busy", result->cpu_cores_busy},
                          {"buffer_bytes", result->buffer_bytes},
                          {"ram_budget_bytes", tuner.ram_bytes},
                          {"tuning_s", result->tuning_s},
                          {"rounds", result->rounds},
                          {"log", result->log},
                          {"advice", advice},
                          {"code", code_text}}
               .dump(2)
        << "\n";
  } else {
    for (const auto& line : result->log) out << line << "\n";
    for (const auto& k : result->knobs) {
      // In tf.data's words: AUTOTUNE, sequential.
      const std::string knob = k.name.substr(k.name.rfind('.') + 1);
      out << k.name << ": " << engine::KnobValueForPeople(knob, k.before);
      if (k.after == k.before) {
        out << " (unchanged)\n";
      } else {
        out << " -> " << engine::KnobValueForPeople(knob, k.after) << "\n";
      }
    }
    for (const auto& setting : result->other_settings) out << setting << "\n";
    // Runs of a slow pipeline can spend the budget before a change is measured: nothing
    // changed then says nothing of the knobs.
    const bool unchanged = std::all_of(result->knobs.begin(), result->knobs.end(),
                                       [](const auto& k) { return k.after == k.before; });
    if (unchanged && !options.simulate && result->tuning_s >= options.budget_s) {
      err << "pipescope-cli: note: the " << options.budget_s << " s budget was spent after "
          << result->measurements
          << " measuring runs, before a change could be measured: --budget-s S tunes longer, "
             "and --simulate tunes on the simulator, where a run takes a fraction of its time\n";
    }
    char rates[160];
    std::snprintf(rates, sizeof rates, "%.1f ± %.1f -> %.1f ± %.1f steps/s (95%% intervals)",
                  result->steps_per_s_before, result->half_width_before, result->steps_per_s_after,
                  result->half_width_after);
    char tuning[32];
    std::snprintf(tuning, sizeof tuning, "%.*f", result->tuning_s < 10 ? 2 : 0, result->tuning_s);
    out << rates << " in " << tuning << " s of tuning, " << result->measurements
        << " measuring runs; ";
    if (result->worker_threads > 0 || result->loader_workers == 0) {
      out << result->worker_threads
          << (result->worker_threads == 1 ? " worker thread" : " worker threads");
      if (result->loader_workers > 0) out << ", ";
    }
    if (result->loader_workers > 0) {
      out << result->loader_workers
          << (result->loader_workers == 1 ? " loader worker" : " loader workers")
          << " (a DataLoader's processes, a Keras enqueuer's workers)";
    }
    // The simulator does not hold the elements, so it has no buffer memory to report.
    if (!options.simulate) out << ", buffers of " << result->buffer_bytes / 1024 << " KiB";
    out << "\n";
    for (const auto& a : advice) {
      if (!a["gains"].get<bool>()) continue;  // measured no better: not advice
      out << "advice: " << a["change"].get<std::string>() << ": " << a["why"].get<std::string>()
          << " Measured: "
          << trace::StepRateText({a["steps_per_s"].get<double>(), a["half_width"].get<double>()})
          << " (" << trace::FormatPercentChange(a["measured_gain"].get<double>()) << ")\n";
    }
    if (!code_text.empty()) out << "\n" << code_text;
  }
  return 0;
}

}  // namespace pipescope::cli
