// pipescope-cli: the command-line shell over Pipescope's libraries. Every analysis the
// GUI shows is reachable from here.
#include <CLI/CLI.hpp>
#include <iostream>

#include "app/cli/autotune_command.h"
#include "app/cli/calibrate_command.h"
#include "app/cli/compare_command.h"
#include "app/cli/convert_command.h"
#include "app/cli/dataset_commands.h"
#include "app/cli/grid_command.h"
#include "app/cli/import_code_command.h"
#include "app/cli/lesson_command.h"
#include "app/cli/report_command.h"
#include "app/cli/run_command.h"
#include "app/cli/simulate_command.h"
#include "app/cli/whatif_command.h"
#include "app/session/trace_formats.h"

namespace {
// What every command that runs a pipeline takes: a spec, or code that import-code reads.
constexpr const char* kSpecOrCode = "Pipeline spec (.pbtxt), or Python code (.py)";
constexpr const char* kPipelineOfCode =
    "Of a .py: the variable whose pipeline to read (default: the one its training consumes, "
    "else the last built)";
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Pipescope: find and fix bottlenecks in ML input pipelines"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "pipescope-cli 0.1.0");
  // Recognised by content, whatever the file's name.
  const std::string kOpenedFormats = pipescope::session::ListOfFormats(false);

  pipescope::cli::RunCommandOptions run;
  auto* run_cmd = app.add_subcommand("run", "Run a pipeline spec into its training step");
  run_cmd->add_option("spec", run.spec_path, kSpecOrCode)->required();
  auto* duration = run_cmd->add_option("--duration", run.duration_s, "Seconds to run (default 5)");
  run_cmd->add_option("--steps", run.steps, "Training steps to run")->excludes(duration);
  run_cmd->add_option("--pipeline", run.pipeline, kPipelineOfCode);
  run_cmd->add_option("--set", run.overrides, "Override a knob: OP.KNOB=VALUE (repeatable)");
  run_cmd->add_option("--print", run.print, "Print the first N elements as JSON lines");
  run_cmd->add_flag("--json", run.json, "Print the summary as JSON");
  run_cmd->add_option("--workers", run.workers,
                      "Data-parallel workers on this host, each its own pipeline and process "
                      "(shard index = worker); default 1");
  run_cmd->add_flag("!--no-advice", run.advice,
                    "Do not try changes in the simulator for advice (faster)");
  auto* trace = run_cmd->add_option("--trace", run.trace_path, "Save the trace to FILE (.pstrace)");
  run_cmd->add_flag("!--no-trace", run.record, "Do not record (measures the bare engine)")
      ->excludes(trace);
  run_cmd->add_flag("!--no-gpu-activity", run.gpu_activity,
                    "On a GPU, do not record its activity with CUPTI (measures CUPTI's cost)");

  pipescope::cli::ReportCommandOptions report;
  auto* report_cmd =
      app.add_subcommand("report", "Summary and bottleneck verdict of a saved trace");
  report_cmd->add_option("trace", report.trace_path, "Trace file: " + kOpenedFormats)->required();
  report_cmd->add_option("more", report.more_paths,
                         "More traces of the same job, one per host: reported host by host");
  report_cmd->add_flag("--json", report.json, "Print the summary as JSON");
  report_cmd->add_flag("!--no-advice", report.advice,
                       "Do not try changes in the simulator for advice (faster)");
  report_cmd->add_option("--range", report.range, "Only [T0, T1), seconds from the start: T0:T1");
  report_cmd
      ->add_option("--cores", report.cores,
                   "Advise for a machine of this many cores, 1 or more (default: the recorded "
                   "run's budget, or this machine's for an imported trace)")
      ->check(CLI::Range(1.0, 4096.0));
  report_cmd->add_option("--top", report.top, "Imported traces: how many span names to list")
      ->check(CLI::Range(0, 100000));

  pipescope::cli::MakeDatasetCommandOptions make;
  auto* make_cmd =
      app.add_subcommand("make-dataset", "Write sharded TFRecord files of tf.train.Examples");
  make_cmd->add_option("--kind", make.kind, "imagenet-like, mnist-like or chess")->required();
  make_cmd->add_option("--records", make.records, "Records in all (default 1000)");
  make_cmd->add_option("--shards", make.shards, "Files to spread them over (default 1)");
  make_cmd->add_option("--out", make.out_dir, "Directory to write to")->required();
  make_cmd->add_option("--compression", make.compression, "GZIP or ZLIB (default none)");
  make_cmd->add_option("--seed", make.seed, "Same seed, same bytes (default 1)");

  pipescope::cli::InspectCommandOptions inspect;
  auto* inspect_cmd = app.add_subcommand(
      "inspect", "Records, compression, features and checksums of TFRecord files");
  inspect_cmd->add_option("files", inspect.files, "TFRecord files")->required();
  inspect_cmd->add_flag("--json", inspect.json, "One JSON object per file");

  pipescope::cli::GridCommandOptions grid;
  auto* grid_cmd = app.add_subcommand(
      "grid", "Steps/s at every point of a grid of knob values, and the best point");
  grid_cmd->add_option("spec", grid.spec_path, kSpecOrCode)->required();
  grid_cmd->add_option(
      "--knobs", grid.knobs,
      "Knobs to vary: OP.KNOB,OP.KNOB (default: every parallelism and buffer size)");
  grid_cmd->add_option("--pipeline", grid.pipeline, kPipelineOfCode);
  grid_cmd->add_option("--set", grid.overrides,
                       "Set a knob, or a cost a .py leaves open, before the grid: OP.KNOB=VALUE "
                       "(repeatable)");
  grid_cmd->add_option("--duration", grid.duration_s, "Seconds per point (default 1)");
  grid_cmd->add_option("--plot", grid.plot_path,
                       "Also write a chart of steps/s against the first knob (PNG)");
  grid_cmd->add_flag("--json", grid.json, "Print results and best as JSON");

  pipescope::cli::AutotuneCommandOptions tune;
  auto* tune_cmd = app.add_subcommand("autotune", "Tune parallelism and buffers on this machine");
  tune_cmd->add_option("spec", tune.spec_path, kSpecOrCode)->required();
  tune_cmd->add_option("--pipeline", tune.pipeline, kPipelineOfCode);
  tune_cmd->add_option("--set", tune.overrides,
                       "Start from this knob value, or set a cost a .py leaves open: "
                       "OP.KNOB=VALUE (repeatable)");
  tune_cmd->add_option("--algorithm", tune.algorithm, "pipescope (default) or tfdata");
  tune_cmd->add_option("--budget-s", tune.budget_s, "Seconds of tuning at most (default 20)");
  tune_cmd->add_option("--cores", tune.cores, "CPU budget (default: the spec's, else all)");
  tune_cmd->add_option("--measure-s", tune.measure_s, "Seconds per measuring run (default 1.5)");
  tune_cmd->add_option("--out", tune.out_path, "Write the tuned spec to this file");
  tune_cmd->add_flag("--json", tune.json, "Print the result as JSON");
  tune_cmd->add_option("--emit", tune.emit,
                       "Also give the tuned configuration as code: tfdata, pytorch, keras or auto "
                       "(the spec's framework; beside --out as .py, else printed)");
  tune_cmd->add_flag(
      "--simulate", tune.simulate,
      "Measure candidates in the simulator (what-if tuning) instead of running them");
  tune_cmd->add_option("--model", tune.model_path,
                       "With --simulate: the cost model (calibrate --out); default the spec's");
  tune_cmd->add_flag("--explain", tune.explain,
                     "With --algorithm tfdata: each hill-climb step and why it stopped");

  pipescope::cli::CompareCommandOptions compare;
  auto* compare_cmd =
      app.add_subcommand("compare", "Run two specs for the same time and set them side by side");
  compare_cmd->add_option("a", compare.a_path, "First spec (.pbtxt)")->required();
  compare_cmd->add_option("b", compare.b_path, "Second spec (.pbtxt)")->required();
  compare_cmd->add_option("--duration", compare.duration_s, "Seconds each (default 3)");
  compare_cmd->add_flag("--json", compare.json, "Print the comparison as JSON");

  pipescope::cli::ConvertCommandOptions convert;
  auto* convert_cmd = app.add_subcommand(
      "convert", "Write a trace in another format: " + pipescope::session::ListOfFormats(true));
  convert_cmd->add_option("in", convert.in_path, "Trace file: " + kOpenedFormats)->required();
  convert_cmd->add_option("out", convert.out_path, "Output; its extension picks the format")
      ->required();

  pipescope::cli::SimulateCommandOptions simulate;
  auto* simulate_cmd = app.add_subcommand(
      "simulate", "Run a pipeline spec in the simulator: virtual time on a cost model");
  simulate_cmd->add_option("spec", simulate.spec_path, kSpecOrCode)->required();
  simulate_cmd->add_option("--print", simulate.print,
                           "Print the first N elements that reach the training step, as JSON "
                           "lines (as run --print)");
  simulate_cmd->add_option("--model", simulate.model_path,
                           "Cost model (JSON, from calibrate); default: the spec's costs");
  auto* sim_duration = simulate_cmd->add_option("--duration", simulate.duration_s,
                                                "Seconds of virtual time (default 5)");
  simulate_cmd->add_option("--steps", simulate.steps, "Training steps to simulate")
      ->excludes(sim_duration);
  simulate_cmd->add_option("--pipeline", simulate.pipeline, kPipelineOfCode);
  simulate_cmd->add_option("--set", simulate.overrides, "Override a knob: OP.KNOB=VALUE");
  simulate_cmd->add_option("--seed", simulate.seed, "Seed of cost draws and seedless shuffles");
  simulate_cmd->add_flag("--json", simulate.json, "Print the summary as JSON");
  simulate_cmd->add_option("--workers", simulate.workers,
                           "Data-parallel workers sharing the cost model's cores, each its own "
                           "pipeline (shard index = worker); default 1");
  auto* no_advice = simulate_cmd->add_flag(
      "!--no-advice", simulate.advice, "Do not try changes in the simulator for advice (faster)");
  simulate_cmd->add_option("--trace", simulate.trace_path, "Save the simulated trace (.pstrace)");
  auto* advice_code =
      simulate_cmd
          ->add_option("--advice-code", simulate.advice_code_path,
                       "For a .py: write the file with the advice in it (the changes given "
                       "Together, else the first) to FILE.py")
          ->excludes(no_advice);
  simulate_cmd
      ->add_option("--advice-piece", simulate.advice_piece,
                   "Which piece of advice --advice-code writes, N as listed (default: Together's "
                   "changes, else the first the code can take)")
      ->check(CLI::PositiveNumber)
      ->needs(advice_code);

  pipescope::cli::CalibrateCommandOptions calibrate;
  auto* calibrate_cmd =
      app.add_subcommand("calibrate", "Fit the simulator's cost model to a recorded run's trace");
  calibrate_cmd->add_option("trace", calibrate.trace_path, "Recorded trace (.pstrace)")->required();
  calibrate_cmd->add_option("--out", calibrate.out_path, "Cost model to write (JSON)")->required();
  calibrate_cmd->add_flag("--json", calibrate.json, "Print the fitted model as JSON");

  pipescope::cli::WhatIfCommandOptions whatif;
  auto* whatif_cmd = app.add_subcommand(
      "whatif", "Predict what other DataLoader settings would give a PyTorch profiler trace's job");
  whatif_cmd->add_option("trace", whatif.trace_path, "PyTorch profiler trace (.json, .json.gz)")
      ->required();
  whatif_cmd->add_option("--set", whatif.sets,
                         "A DataLoader setting to change: num_workers, prefetch_factor, "
                         "batch_size, pin_memory, persistent_workers (KNOB=VALUE; repeatable). "
                         "None: search for the best");
  whatif_cmd->add_option("--given", whatif.given,
                         "What the trace does not show: num_workers=N of a multi-process trace, "
                         "getitem=DURATION (a sample), worker_startup=DURATION, batch_size=N");
  whatif_cmd
      ->add_option("--cores", whatif.cores,
                   "Cores the traced process had, 1 or more (default: this machine's)")
      ->check(CLI::Range(1.0, 4096.0));
  whatif_cmd->add_flag("--json", whatif.json, "Print measured, predicted and assumptions as JSON");

  pipescope::cli::ImportCodeCommandOptions import_code;
  auto* import_cmd = app.add_subcommand(
      "import-code",
      "Read the input pipeline a Python file builds (tf.data, DataLoader, Keras fit) into a spec");
  import_cmd->add_option("file", import_code.code_path, "Python file")->required();
  import_cmd->add_option("--out", import_code.out_path, "Write the spec here (default: print it)");
  import_cmd->add_option("--set", import_code.sets,
                         "OP.KNOB=VALUE: a cost (parse.cost=40us), real files "
                         "(read.files=PATTERN), or any knob of the spec");
  import_cmd->add_option("--pipeline", import_code.pipeline, kPipelineOfCode);
  import_cmd->add_option(
      "--emit", import_code.emit,
      "Print the spec as code: tfdata, pytorch, keras, or auto (the framework the "
      "file's code uses); the file itself with tuned knobs is --apply");
  import_cmd->add_option("--apply", import_code.apply,
                         "Print the file with a tuned spec's knobs written in (autotune --out)");
  import_cmd->add_option("--calibrate", import_code.calibrate,
                         "A PyTorch profiler trace of the job: fit the DataLoader's __getitem__ "
                         "and the step to it");
  import_cmd->add_flag("--json", import_code.json, "Print the spec and the notes as JSON");

  pipescope::cli::LessonCommandOptions lesson;
  auto* lesson_cmd = app.add_subcommand("lesson", "Workshop lessons: list, show NAME, check NAME");
  lesson_cmd->add_option("action", lesson.action, "list, show or check")
      ->required()
      ->check(CLI::IsMember({"list", "show", "check"}));
  lesson_cmd->add_option("name", lesson.name, "Lesson (its folder name, or its number)");
  auto* lesson_solution =
      lesson_cmd->add_flag("--solution", lesson.solution, "Check the lesson's solution");
  lesson_cmd->add_option("--spec", lesson.spec_path, "Check this spec instead of the start")
      ->excludes(lesson_solution);
  lesson_cmd->add_flag("--real", lesson.real, "Run the engine for real instead of simulating");
  lesson_cmd->add_flag("--json", lesson.json, "Print as JSON");

  std::string help_topic;
  auto* help_cmd = app.add_subcommand("help", "Print this help, or a command's: help COMMAND");
  help_cmd->add_option("command", help_topic, "A command's name");

  CLI11_PARSE(app, argc, argv);
  if (help_cmd->parsed()) {
    // The formatter's own: App::help would print the selected subcommand's, this one's.
    if (help_topic.empty() || help_topic == "help") {
      std::cout << app.get_formatter()->make_help(&app, "pipescope-cli",
                                                  CLI::AppFormatMode::Normal);
      return 0;
    }
    try {
      std::cout << app.get_subcommand(help_topic)->help("pipescope-cli");
      return 0;
    } catch (const CLI::OptionNotFound&) {
      std::cerr << "pipescope-cli: there is no command '" << help_topic
                << "' (pipescope-cli help lists them)\n";
      return 2;
    }
  }
  if (lesson_cmd->parsed()) return pipescope::cli::LessonCommand(lesson, std::cout, std::cerr);
  if (simulate_cmd->parsed())
    return pipescope::cli::SimulateCommand(simulate, std::cout, std::cerr);
  if (calibrate_cmd->parsed())
    return pipescope::cli::CalibrateCommand(calibrate, std::cout, std::cerr);
  if (convert_cmd->parsed()) return pipescope::cli::ConvertCommand(convert, std::cout, std::cerr);
  if (compare_cmd->parsed()) return pipescope::cli::CompareCommand(compare, std::cout, std::cerr);
  if (tune_cmd->parsed()) return pipescope::cli::AutotuneCommand(tune, std::cout, std::cerr);
  if (grid_cmd->parsed()) return pipescope::cli::GridCommand(grid, std::cout, std::cerr);
  if (make_cmd->parsed()) return pipescope::cli::MakeDatasetCommand(make, std::cout, std::cerr);
  if (inspect_cmd->parsed()) return pipescope::cli::InspectCommand(inspect, std::cout, std::cerr);
  if (run_cmd->parsed()) return pipescope::cli::RunCommand(run, std::cout, std::cerr);
  if (import_cmd->parsed())
    return pipescope::cli::ImportCodeCommand(import_code, std::cout, std::cerr);
  if (whatif_cmd->parsed()) return pipescope::cli::WhatIfCommand(whatif, std::cout, std::cerr);
  if (report_cmd->parsed()) return pipescope::cli::ReportCommand(report, std::cout, std::cerr);
  return 2;
}
