#pragma once
// `pipescope-cli import-code FILE.py`: the input pipeline a Python file builds, as a spec.
// tf.data chains and assignments, a PyTorch DataLoader over the file's Dataset class, Keras's
// fit over a Sequence or generator (dialects.h). Whatever the code leaves to run time (files
// from a glob, flags, a function's cost) gets a stand-in and a note naming its line and
// column and the `--set` that completes it; nothing is dropped without a note.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/code/code_values.h"
#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::code {

struct ImportOptions {
  std::string pipeline;  // the variable whose pipeline to read; empty: the one the file ends with
};

struct ImportedCode {
  spec::PipelineSpec spec;
  std::string framework;  // "tfdata", "pytorch" or "keras"
  std::vector<CodeNote> notes;
  // How a stand-in becomes real files (SetCodeKnob): the format the source reads, and the
  // interleaves whose synthetic files stand in for files of a format.
  bool source_stand_in = false;
  std::optional<spec::ElementSource> source_reader;             // Pipeline's reader
  std::map<std::string, spec::ElementSource> stand_in_readers;  // Pipeline's
  std::map<std::string, KnobSite> sites;  // where the code sets each knob, by "op.knob"
  std::map<std::string, std::string> before_more_workers;  // Pipeline's
  std::string autotune_spelling;                           // Pipeline's
  bool tensorflow_1 = false;                               // Pipeline's
  std::map<std::string, SourcePoint> op_at;                // where the code makes each op
  // For --apply: each op's method call in the text, where the source's call ends, and the
  // calls a map's function must rename once it takes batches (Pipeline's).
  std::map<std::string, TextSpan> op_spans;
  size_t source_end = 0;
  size_t source_statement = 0;                       // Pipeline's
  std::map<std::string, NamedFileReads> file_reads;  // Pipeline's
  std::map<std::string, std::vector<Rename>> batched_renames;
  std::map<std::string, std::string> made_inside;  // Pipeline's
  // Native work that cannot run on the data at hand (parsing stand-in records, decoding
  // what no JPEG reader gave it): the function the code calls, by op, while its typical
  // cost stands in for it as cpu_work (that duration beside it).
  std::map<std::string, std::pair<spec::WorkFunction, std::string>> native_work;
  // Files the code names that are not here: the source and the per-element readers as
  // written, while synthetic ones stand in.
  std::optional<spec::Source> written_source;
  std::map<std::string, spec::ElementSource> written_per_element;
  std::string source_text;  // the file as read
};

// The spec as the code says it: the files it names and the native work it calls, where
// stand-ins replaced them so that the spec runs here.
spec::PipelineSpec AsWritten(const ImportedCode& code);

// Errors: nothing in the file builds a pipeline import-code reads (InvalidArgument, naming
// what the parser could not read), or `options.pipeline` names no pipeline.
engine::Result<ImportedCode> ImportCode(const std::string& source, const std::string& origin,
                                        const ImportOptions& options = {});
// Errors also when the file cannot be read (NotFound).
engine::Result<ImportedCode> ImportCodeFile(const std::string& path,
                                            const ImportOptions& options = {});

// `--set OP.KNOB=VALUE` on imported code: what import-code left as a parameter
// (`STAGE.cost`, `loader.collate_cost`, `FILTER.fraction`, `read.files=PATTERN`,
// `list_files.pattern=PATTERN`) and every knob `--set` sets on a spec. Drops the notes the
// setting answers.
engine::Status SetCodeKnob(ImportedCode& code, const std::string& assignment);

// "FILE:LINE:COLUMN: message", as compilers print.
std::string FormatNote(const std::string& origin, const CodeNote& note);

}  // namespace pipescope::code
