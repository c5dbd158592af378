#include "app/cli/import_code_command.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/code/code_emit.h"
#include "app/code/code_import.h"
#include "app/code/code_patch.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_validator.h"

namespace pipescope::cli {

int ImportCodeCommand(const ImportCodeCommandOptions& options, std::ostream& out,
                      std::ostream& err) {
  auto imported = code::ImportCodeFile(options.code_path, {.pipeline = options.pipeline});
  if (!imported.ok()) {
    err << "pipescope-cli: " << imported.status().message() << "\n";
    return 2;
  }
  code::ImportedCode& c = *imported;
  for (const std::string& assignment : options.sets) {
    if (auto s = code::SetCodeKnob(c, assignment); !s.ok()) {
      err << "pipescope-cli: --set " << assignment << ": " << s.message() << "\n";
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
    engine::Result<code::EmittedCode> written = engine::Status::Ok();
    if (!options.apply.empty()) {
      auto tuned = engine::LoadSpecFile(options.apply);
      written = tuned.ok() ? code::PatchCode(c, *tuned) : tuned.status();
    } else {
      written = code::EmitCode(c.spec, options.emit == "auto" ? c.framework : options.emit);
    }
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
      j["notes"].push_back({{"line", n.at.line}, {"column", n.at.column}, {"message", n.message}});
    }
    if (!options.out_path.empty()) j["written_to"] = options.out_path;
    out << j.dump(2) << "\n";
  } else if (options.out_path.empty()) {
    out << text;
  } else {
    out << "read " << c.framework << " pipeline of " << c.spec.ops_size() + 1 << " stages from "
        << options.code_path << " into " << options.out_path << " (" << c.notes.size()
        << " notes)\n";
  }
  return 0;
}

}  // namespace pipescope::cli
