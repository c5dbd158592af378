#pragma once
// The frameworks import-code reads: each dialect lists its functions, classes and methods
// once (tfdata_dialect.cc, torch_dialect.cc, keras_dialect.cc).

#include <optional>
#include <string>

#include "app/code/python_reader.h"

namespace pipescope::code {

const Dialect& TfDataDialect();
const Dialect& TorchDialect();
const Dialect& KerasDialect();
// Command-line flags (argparse, absl): the defaults that args.x and FLAGS.x stand for.
const Dialect& FlagsDialect();

// Where the call passes argument `name` (or where a keyword for it would go), for code
// written back: pipeline.sites["op.name"], or "op.knob" where the call's argument sets a
// knob of another name (`inverted`: to the opposite of its value).
void RecordSite(Pipeline& pipeline, const CallArgs& args, const Value* v, const std::string& op,
                const std::string& name, const std::string& knob = {}, bool inverted = false);
// The expression `call` passes as keyword `name`, as written in the call; null where it
// passes none.
SyntaxNode KeywordExpression(const CallArgs& call, std::string_view name);
// Why a tuned knob of an op that a module beside the file makes (`at`, in that module) is
// not written into the file: Pipeline::made_inside's sentence.
std::string MadeInModule(const SyntaxNode& at);

// A knob read from a value that stands in for one known where the code runs (a flag's
// default, this machine's cores: Value::run_time): the job may run with another value.
// `value_text` is the value read, `values` what --set takes ("N", "true|false").
void NoteRunTime(Pipeline& pipeline, const Value& v, const std::string& op, const std::string& name,
                 const std::string& value_text, const std::string& values);

// An integer argument: as written, -1 for AUTOTUNE in any spelling, nullopt when the call
// leaves it out or passes None. A value known only when the code runs (a flag, a
// computation) is nullopt too, with a note on `pipeline` that says what stands in for it
// (`stands_in`) and the `--set OP.KNOB=N` that sets it.
std::optional<int64_t> ReadKnob(Pipeline& pipeline, const CallArgs& args, size_t position,
                                const std::string& name, const std::string& op,
                                const std::string& stands_in);
// A boolean argument as written; nullopt when left out or not a literal (noted so).
std::optional<bool> ReadFlag(Pipeline& pipeline, const CallArgs& args, size_t position,
                             const std::string& name, const std::string& op);

struct StageWork;
// Files a call's Python loads (np.load, h5py.File, open; a Dataset's __getitem__, a
// py_function's Python): each a read from storage beside its Python, blocking with no core,
// a stand-in's wait on `work` until set, said.
void WaitForFileLoads(Pipeline& p, SourcePoint at, const std::string& op, StageWork& work);
// A work function's note: its cost is a parameter, or the known work it leaves out; for a
// tf.data map (`tfdata_map`), the dispatch each call pays. `rows_per_call` > 1: the map
// takes batches of that many rows, and TensorFlow ops cost their stand-in a row.
void NoteWork(Pipeline& pipeline, SourcePoint at, const std::string& op, const StageWork& work,
              const std::string& cost_knob = "cost", bool tfdata_map = false,
              int64_t rows_per_call = 1);

// Marks `args`' call as the one that made the pipeline's source (where it ends, where its
// statement begins), once; ops made with the source (TFRecordDataset's interleave) mark it
// themselves, as PipelineValue marks it only for a pipeline of no ops.
void MarkSourceCall(Pipeline& pipeline, const CallArgs& args);
Value PipelineValue(std::shared_ptr<Pipeline> pipeline, const CallArgs& args);

}  // namespace pipescope::code
