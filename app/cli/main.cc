// pipescope-cli: the command-line shell over Pipescope's libraries. Every analysis the
// GUI shows is reachable from here.
#include <CLI/CLI.hpp>
#include <iostream>

#include "app/cli/run_command.h"

int main(int argc, char** argv) {
  CLI::App app{"Pipescope: find and fix bottlenecks in ML input pipelines"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "pipescope-cli 0.1.0");

  pipescope::cli::RunCommandOptions run;
  auto* run_cmd = app.add_subcommand("run", "Run a pipeline spec into its training step");
  run_cmd->add_option("spec", run.spec_path, "Pipeline spec (.pbtxt)")->required();
  auto* duration = run_cmd->add_option("--duration", run.duration_s, "Seconds to run (default 5)");
  run_cmd->add_option("--steps", run.steps, "Training steps to run")->excludes(duration);
  run_cmd->add_option("--set", run.overrides, "Override a knob: OP.KNOB=VALUE (repeatable)");
  run_cmd->add_option("--print", run.print, "Print the first N elements as JSON lines");
  run_cmd->add_flag("--json", run.json, "Print the summary as JSON");
  run_cmd->add_flag("!--no-stats", run.stats, "Do not time ops (measures the bare engine)");

  CLI11_PARSE(app, argc, argv);
  if (run_cmd->parsed()) return pipescope::cli::RunCommand(run, std::cout, std::cerr);
  return 2;
}
