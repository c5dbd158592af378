#include "app/cli/run_command.h"

#include <csignal>
#include <iostream>

#include "app/cli/summary_format.h"
#include "engine/core/element.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_overrides.h"
#include "engine/spec/spec_validator.h"

namespace pipescope::cli {
namespace {

constexpr double kDefaultDurationS = 5.0;

// Ctrl-C stops the run gracefully: the summary of what ran is still printed.
engine::Pipeline* g_running = nullptr;
void OnInterrupt(int) {
  if (g_running) g_running->Cancel();
}

}  // namespace

int RunCommand(const RunCommandOptions& options, std::ostream& out, std::ostream& err) {
  auto loaded = engine::LoadSpecFile(options.spec_path);
  if (!loaded.ok()) {
    err << "pipescope-cli: " << loaded.status().message() << "\n";
    return 2;
  }
  spec::PipelineSpec spec = std::move(loaded).value();
  for (const auto& assignment : options.overrides) {
    if (auto s = engine::ApplyOverride(spec, assignment); !s.ok()) {
      err << "pipescope-cli: " << s.message() << "\n";
      return 2;
    }
  }
  if (auto s = engine::ValidateSpec(spec, options.spec_path + " (with --set)"); !s.ok()) {
    err << "pipescope-cli: " << s.message() << "\n";
    return 2;
  }

  engine::Pipeline::Options pipeline_options;
  pipeline_options.collect_stats = options.stats;
  auto pipeline = engine::Pipeline::Create(spec, pipeline_options);
  if (!pipeline.ok()) {
    err << "pipescope-cli: " << pipeline.status().message() << "\n";
    return 2;
  }
  engine::CancellationToken device_cancellation;
  auto device = engine::MakeDevice(spec, device_cancellation);
  if (!device.ok()) {
    err << "pipescope-cli: " << device.status().message() << "\n";
    return 2;
  }

  engine::RunOptions run;
  run.max_steps = options.steps;
  const double duration = options.duration_s > 0 ? options.duration_s
                          : options.steps > 0   ? 0
                                                : kDefaultDurationS;
  run.duration_ns = static_cast<int64_t>(duration * 1e9);
  int64_t printed = 0;
  if (options.print > 0) {
    run.on_element = [&](const engine::Element& e) {
      if (printed++ < options.print) out << engine::ElementToJson(e) << "\n";
    };
  }

  g_running = pipeline->get();
  auto previous = std::signal(SIGINT, OnInterrupt);
  auto summary = engine::RunTraining(**pipeline, **device, run);
  std::signal(SIGINT, previous);
  g_running = nullptr;
  if (!summary.ok()) {
    err << "pipescope-cli: the pipeline failed: " << summary.status().message() << "\n";
    return 1;
  }
  if (options.json) {
    out << SummaryToJson(*summary).dump(2) << "\n";
  } else {
    out << SummaryToText(*summary);
  }
  return 0;
}

}  // namespace pipescope::cli
