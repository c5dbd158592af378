#include "app/cli/import_code_command.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/code/code_emit.h"
#include "app/code/code_import.h"
#include "app/code/code_patch.h"
#include "app/session/trace_files.h"
#include "app/session/trace_whatif.h"
#include "engine/core/duration.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_validator.h"
#include "instrumentation/trace/import/loader_job.h"

namespace pipescope::cli {

namespace {

// The costs a PyTorch trace shows, fitted as what-if fits them, set on the imported
// DataLoader: a sample's __getitem__ (collate folded in) and the loop's own time per step.
engine::Status Calibrate(code::ImportedCode& c, const std::string& trace_path) {
  const spec::Op* loader = nullptr;
  for (const auto& op : c.spec.ops()) {
    if (op.has_dataloader()) loader = &op;
  }
  if (!loader) {
    return engine::Unimplemented(
        "--calibrate fits a DataLoader's costs to a PyTorch profiler trace; a " + c.framework +
        " pipeline's would need a TensorFlow profile's Iterator:: events, which Pipescope does "
        "not read yet: set the costs with --set STAGE.cost=DURATION");
  }
  ASSIGN_OR_RETURN(auto opened, session::OpenTraceFile(trace_path));
  ASSIGN_OR_RETURN(const trace::LoaderJob job, trace::ReadLoaderJob(*opened.model));
  session::WhatIfOptions options;
  // The worker count the trace cannot show is the code's.
  options.given.emplace_back("num_workers", std::to_string(loader->dataloader().num_workers()));
  ASSIGN_OR_RETURN(const session::WhatIfPrediction fit, session::PredictWhatIf(job, options));
  const std::string name = loader->name();
  const auto ns = [](double v) { return std::to_string(static_cast<int64_t>(v)) + "ns"; };
  RETURN_IF_ERROR(code::SetCodeKnob(c, name + ".cost=" + ns(fit.getitem_ns)));
  RETURN_IF_ERROR(code::SetCodeKnob(c, "train_step.step_time=" + ns(fit.loop_ns)));
  const auto at = c.op_at.find(name);
  c.notes.push_back({at != c.op_at.end() ? at->second : code::SourcePoint{1, 1},
                     "calibrated from " + trace_path + ": __getitem__ " +
                         engine::FormatDuration(static_cast<int64_t>(fit.getitem_ns)) +
                         " a sample and the training loop's own " +
                         engine::FormatDuration(static_cast<int64_t>(fit.loop_ns)) +
                         " a step as the training step (the trace's batches are " +
                         std::to_string(fit.traced.batch_size) + " samples)"});
  return engine::Status::Ok();
}

}  // namespace

int ImportCodeCommand(const ImportCodeCommandOptions& options, std::ostream& out,
                      std::ostream& err) {
  // A spec is not code: the commands that take a spec write code from it.
  if (options.code_path.ends_with(".pbtxt")) {
    err << "pipescope-cli: " << options.code_path
        << " is a pipeline spec, not Python: import-code reads a .py; `autotune "
        << options.code_path << " --emit tfdata|pytorch|keras` writes a spec as code\n";
    return 2;
  }
  auto imported = code::ImportCodeFile(options.code_path, {.pipeline = options.pipeline});
  if (!imported.ok()) {
    err << "pipescope-cli: " << imported.status().message() << "\n";
    return 2;
  }
  code::ImportedCode& c = *imported;
  for (const std::string& assignment : options.sets) {
    if (auto s = code::SetCodeKnob(c, assignment); !s.ok()) {
      err << "pipescope-cli: --set " << assignment << ": " << s.message() << "\n";
      return 2;  // a bad argument
    }
  }
  if (!options.calibrate.empty()) {
    if (auto s = Calibrate(c, options.calibrate); !s.ok()) {
      err << "pipescope-cli: --calibrate " << options.calibrate << ": " << s.message() << "\n";
      return 1;
    }
  }
  if (auto s = engine::ValidateSpec(c.spec, options.code_path); !s.ok()) {
    err << "pipescope-cli: the spec read from " << options.code_path
        << " does not validate (a bug of import-code, or a --set): " << s.message() << "\n";
    return 1;
  }
  for (const code::CodeNote& n : c.notes) {
    err << code::FormatNote(options.code_path, n) << "\n";
  }
  const std::string text = engine::SpecToText(c.spec);
  if (!options.out_path.empty()) {
    if (auto s = engine::WriteSpecFile(
            c.spec, options.out_path,
            "read from " + options.code_path + " by pipescope-cli import-code");
        !s.ok()) {
      err << "pipescope-cli: " << s.message() << "\n";
      return 1;
    }
  }
  if (!options.apply.empty() || !options.emit.empty()) {
    auto written = [&]() -> engine::Result<code::EmittedCode> {
      if (options.apply.empty()) {
        return code::EmitCode(c.spec, options.emit == "auto" ? c.framework : options.emit);
      }
      ASSIGN_OR_RETURN(const spec::PipelineSpec tuned, engine::LoadSpecFile(options.apply));
      return code::PatchCode(c, tuned);
    }();
    if (!written.ok()) {
      err << "pipescope-cli: " << written.status().message() << "\n";
      return 1;
    }
    for (const std::string& n : written->notes) err << "pipescope-cli: note: " << n << "\n";
    out << written->text;
    return 0;
  }
  if (options.json) {
    nlohmann::json j;
    j["framework"] = c.framework;
    j["spec"] = text;
    j["ops"] = nlohmann::json::array();
    for (const auto& op : c.spec.ops()) j["ops"].push_back(op.name());
    j["source"] = c.spec.source().name();
    j["notes"] = nlohmann::json::array();
    for (const code::CodeNote& n : c.notes) {
      nlohmann::json note = {{"line", n.at.line}, {"column", n.at.column}, {"message", n.message}};
      if (n.at.file) note["file"] = n.at.file;  // a module the file imports
      j["notes"].push_back(std::move(note));
    }
    if (!options.out_path.empty()) j["written_to"] = options.out_path;
    out << j.dump(2) << "\n";
  } else if (options.out_path.empty()) {
    out << text;
  } else {
    out << "read " << c.framework << " pipeline of " << c.spec.ops_size() + 1 << " stages from "
        << options.code_path << " into " << options.out_path << " (" << c.notes.size()
        << (c.notes.size() == 1 ? " note)\n" : " notes)\n");
  }
  return 0;
}

}  // namespace pipescope::cli
