#pragma once
// Reading PipelineSpecs from text format. Errors name the file, the line and the field:
//   input_bound_demo.pbtxt:14: op 'decode' (map): num_parallel_calls must be ≥ 1 or AUTOTUNE

#include <string>
#include <string_view>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

// The value that stands for AUTOTUNE in every numeric knob (tf.data.AUTOTUNE is -1 too).
inline constexpr int64_t kAutotune = -1;

// Parses and validates `text`; `source_name` (usually the file name) prefixes errors.
// The word AUTOTUNE is accepted wherever a knob takes a number. Ops without a name get
// one from their kind ("map", "map_2", ...).
Result<spec::PipelineSpec> ParseSpecText(std::string_view text, std::string_view source_name);
// Relative data paths in the spec (list_files patterns, tfrecord files) are relative to
// the spec file's folder, so a spec and its data can move together.
Result<spec::PipelineSpec> LoadSpecFile(const std::string& path);
void ResolveDataPaths(spec::PipelineSpec& spec, const std::string& base_dir);

// Text format of a spec (for --out files and trace headers), with AUTOTUNE spelled out.
std::string SpecToText(const spec::PipelineSpec& spec);

// Writes `spec` to `path` after a `# comment` line, its relative data paths (which
// LoadSpecFile made relative to the working folder) rewritten relative to `path`'s folder,
// so the written spec finds its data wherever it is written. Errors name the file.
Status WriteSpecFile(const spec::PipelineSpec& spec, const std::string& path,
                     const std::string& comment);

// Replaces the identifier AUTOTUNE in value position with -1, leaving strings, comments
// and line structure untouched, so parser line numbers stay those of the user's file.
std::string SubstituteAutotune(std::string_view text);

}  // namespace pipescope::engine
