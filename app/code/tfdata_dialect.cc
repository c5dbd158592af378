// tf.data as import-code reads it: the Dataset sources and methods people write, in TF 1 and
// 2 spellings (tf.compat.v1, tf.data.experimental, tf.contrib.data), by keyword or position
// as tf.data's own signatures order them.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/code/dialects.h"
#include "app/code/example_size.h"
#include "app/code/filter_predicates.h"
#include "app/code/path_values.h"
#include "app/code/tensor_values.h"
#include "app/code/work_functions.h"
#include "engine/core/duration.h"
#include "engine/spec/cardinality.h"
#include "engine/spec/file_readers.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "engine/work/call_overhead.h"
#include "engine/work/work_registry.h"

namespace pipescope::code {

namespace {

std::vector<std::string> StringsOf(const Value* v, bool& known) {
  known = false;
  if (!v) return {};
  if (v->Is(Value::Kind::kString)) {
    known = true;
    return {v->s};
  }
  if (!v->Is(Value::Kind::kList) || v->items.empty()) return {};
  std::vector<std::string> out;
  for (const Value& item : v->items) {
    if (!item.Is(Value::Kind::kString)) return {};
    out.push_back(item.s);
  }
  known = true;
  return out;
}

std::string ReadFromRemoteStore(spec::SyntheticFile& f, const std::string& op,
                                const std::string& store, int64_t buffer_bytes);

std::string CompressionOf(const Value* v) {
  if (v && v->Is(Value::Kind::kString)) return v->s;
  return {};
}

// TFRecordDataset or TextLineDataset of files on a remote store (gs://, s3://, ...), named or
// not: they are not here, so synthetic files read as from the store stand in, as many as the
// code names or a stand-in count. tf.data reads them one after another (num_parallel_reads
// absent) or num_parallel_reads at a time, each on its own thread: an interleave over the
// file names with that cycle length and parallelism, as TFRecordDataset builds one. The
// argument is the site of both knobs, so a tuned parallelism goes back into it.
Value RemoteFileSource(std::shared_ptr<Pipeline> p, const CallArgs& a, size_t parallel_reads_at,
                       const std::vector<std::string>& files, std::optional<int64_t> parallel_reads,
                       const Value* files_arg, int64_t record_bytes) {
  const std::string format = ReadsOf(*p->reader);
  const std::string name = "read";
  const bool named = !files.empty();
  p->stand_in = !named;  // the files' names, not their records: those the interleave's say
  p->source.set_name("files");
  p->source.mutable_range()->set_stop(named ? static_cast<int64_t>(files.size()) : kStandInFiles);
  if (!named) p->source.set_size_is_stand_in(true);
  spec::Op op;
  op.set_name(name);
  auto* il = op.mutable_interleave();
  auto* f = il->mutable_per_element()->mutable_synthetic_file();
  f->set_records_per_file(kStandInRecordsPerFile);
  f->set_record_bytes(record_bytes);
  f->set_stands_for(StandsForReads(format));
  f->set_size_is_stand_in(true);
  p->stand_in_readers[name] = *p->reader;
  const Value* reads = a.Get(parallel_reads_at, "num_parallel_reads");
  RecordSite(*p, a, reads, name, "num_parallel_reads", "num_parallel_calls");
  RecordSite(*p, a, reads, name, "num_parallel_reads", "cycle_length");
  if (parallel_reads && *parallel_reads > 1) {
    il->set_cycle_length(*parallel_reads);
    il->set_num_parallel_calls(*parallel_reads);
  } else if (parallel_reads && *parallel_reads == -1) {
    il->set_num_parallel_calls(-1);  // cycle length absent: tuned, as AUTOTUNE's is
  } else {
    il->set_cycle_length(1);  // one file after another, on the caller's thread
  }
  const std::string spelling = files_arg ? files_arg->Spelling() : std::string("?");
  p->stand_in_note =
      std::string(ReaderName(format)) + "'s files `" + spelling + "` are on " + p->remote_store +
      ", not here: " +
      (named ? std::to_string(files.size()) + " (as many as it names)"
             : std::to_string(kStandInFiles) + " (a stand-in count: --set files.stop=N)") +
      " files of synthetic records stand in, read " +
      (il->num_parallel_calls() == 0 ? "one after another (num_parallel_reads absent)"
                                     : "num_parallel_reads at a time");
  p->Note(a.node.start(), ReadFromRemoteStore(*f, name, p->remote_store, p->read_buffer_bytes));
  if (const std::string& compression = engine::CompressionOfReader(*p->reader);
      !compression.empty()) {
    p->Note(a.node.start(), CompressedStandInNote("read's", compression, name));
  }
  p->op_at[name] = a.node.start();
  MarkSourceCall(*p, a);
  p->ops.push_back(std::move(op));
  return PipelineValue(std::move(p), a);
}

// Where a tf.data reader of files takes its arguments, by position: TFRecordDataset's and
// TextLineDataset's (filenames, compression_type, buffer_size, num_parallel_reads), or
// FixedLengthRecordDataset's (filenames, record_bytes, header_bytes, footer_bytes,
// buffer_size, compression_type, num_parallel_reads), whose cut is read before.
struct FileCall {
  std::string reads;  // "tfrecord", "text_line" or "fixed_length_record"
  size_t compression_at = 1;
  size_t buffer_at = 2;
  size_t parallel_reads_at = 3;
  spec::FixedLengthRecordFile cut;  // fixed_length_record's
  std::string cut_note;             // what of the cut stands in
};

Value FileSource(PythonReader& r, const CallArgs& a, const FileCall& call) {
  const std::string& format = call.reads;
  auto p = r.NewPipeline("tfdata", a.node.start());
  p->reader =
      FileReaderOf(format, CompressionOf(a.Get(call.compression_at, "compression_type")), call.cut);
  if (!call.cut_note.empty()) p->Note(a.node.start(), call.cut_note);
  const spec::ElementSource& per_file = *p->reader;
  const int64_t stand_in_bytes = StandInRecordBytes(per_file);
  bool known = false;
  const Value* files_arg = a.Get(0, "filenames");
  if (files_arg) p->remote_store = RemoteStoreOf(*files_arg);
  if (const Value* buffer = a.Get(call.buffer_at, "buffer_size"); buffer && format != "text_line") {
    p->read_buffer_bytes = buffer->AsInt().value_or(-1);
  }
  const std::vector<std::string> files = StringsOf(files_arg, known);
  const std::string name = "read";
  const auto parallel_reads = ReadKnob(*p, a, call.parallel_reads_at, "num_parallel_reads", name,
                                       "one file at a time (tf.data's default)");
  const bool parallel = parallel_reads && (*parallel_reads > 1 || *parallel_reads == -1);
  const auto note_unread_parallelism = [&](const std::string& why) {
    if (parallel) {
      p->Note(a.node.start(),
              "num_parallel_reads=" + std::to_string(*parallel_reads) + " is not read: " + why);
    }
  };
  if (!p->remote_store.empty()) {
    return RemoteFileSource(std::move(p), a, call.parallel_reads_at, files, parallel_reads,
                            files_arg, stand_in_bytes);
  }
  if (!known) {
    note_unread_parallelism(
        "the files are known only when the code runs and stand in as one stream of records "
        "(inside an interleave's function the file is one element's: the interleave's "
        "cycle_length and num_parallel_calls read several at once, which is what "
        "num_parallel_reads does too)");
    p->stand_in = true;
    p->source.set_name(name);
    auto* s = p->source.mutable_synthetic();
    s->set_records(kStandInRecords);
    s->set_record_bytes(stand_in_bytes);
    s->set_stands_for(StandsForReads(format));
    // The records' count and size said apart, so that setting them answers that note and
    // leaves the files' (a note naming a setting goes once it is set).
    p->stand_in_note = std::string(ReaderName(format)) + "'s files are `" +
                       (files_arg ? files_arg->Spelling() : "?") +
                       "`, known only when the code runs: synthetic records stand in; --set " +
                       name + ".files=PATTERN reads real files";
    p->stand_in_records = true;
    return PipelineValue(std::move(p), a);
  }
  if (files.size() <= 1) {
    note_unread_parallelism("one file is read as one stream (tf.data interleaves over files)");
  }
  if (parallel && files.size() > 1) {
    // num_parallel_reads is an interleave over the files inside the reader.
    p->source.set_name("files");
    for (const std::string& f : files) p->source.mutable_from_tensor_slices()->add_strings(f);
    spec::Op op;
    op.set_name(name);
    auto* il = op.mutable_interleave();
    *il->mutable_per_element() = per_file;
    if (*parallel_reads > 0) il->set_cycle_length(*parallel_reads);
    il->set_num_parallel_calls(*parallel_reads);
    MarkSourceCall(*p, a);
    p->ops.push_back(op);
    return PipelineValue(std::move(p), a);
  }
  p->source = engine::SourceOfFiles(name, files, per_file);
  return PipelineValue(std::move(p), a);
}

// FixedLengthRecordDataset(filenames, record_bytes, header_bytes, footer_bytes, buffer_size,
// compression_type, num_parallel_reads): read as TFRecordDataset is, once its cut is read.
// Sizes the code does not show as numbers stand in (records of 1 KiB, no header or footer),
// and a note says which.
Value FixedLengthRecords(PythonReader& r, const CallArgs& a) {
  FileCall call{
      .reads = "fixed_length_record", .compression_at = 5, .buffer_at = 4, .parallel_reads_at = 6};
  std::vector<std::string> unknown;
  const auto bytes_of = [&](size_t position, const char* argument, int64_t least) -> int64_t {
    const Value* v = a.Get(position, argument);
    if (!v) return least > 0 ? -1 : 0;
    const auto n = v->AsInt();
    if (n && *n >= least) return *n;
    unknown.push_back(std::string(argument) + "=" + v->Spelling());
    return -1;
  };
  const int64_t record_bytes = bytes_of(1, "record_bytes", 1);
  const int64_t header = bytes_of(2, "header_bytes", 0);
  const int64_t footer = bytes_of(3, "footer_bytes", 0);
  call.cut.set_record_bytes(record_bytes > 0 ? record_bytes : 1024);
  call.cut.set_header_bytes(std::max<int64_t>(0, header));
  call.cut.set_footer_bytes(std::max<int64_t>(0, footer));
  if (!unknown.empty()) {
    std::string list;
    for (const std::string& u : unknown) list += (list.empty() ? "" : ", ") + u;
    call.cut_note = "FixedLengthRecordDataset's " + list +
                    " is not a size the code shows: records of " +
                    SizeText(call.cut.record_bytes()) +
                    " and no header or footer stand in (--set read.record_bytes=N)";
  }
  return FileSource(r, a, call);
}

// estimator.train(input_fn, steps=...) (TensorFlow's Estimator): input_fn, a function of no
// arguments the file defines (or a lambda calling one, as tensorflow-triplet-loss does), makes
// the dataset that trains. Any other `.train(...)` (PyTorch's model.train()) is no call of it.
Value EstimatorTrain(PythonReader& r, const CallArgs& a) {
  const Value* input_fn = a.Get(0, "input_fn");
  if (input_fn && input_fn->Is(Value::Kind::kFunction)) {
    if (const Value made = r.Apply(*input_fn, {}); made.Is(Value::Kind::kPipeline)) {
      r.Trains(made, a.node);
      // Without steps, train goes through the dataset until it ends: in the epochs' loop, an
      // epoch a call.
      if (!a.Get(2, "steps") && !a.Get(3, "max_steps")) r.EpochsOfTheLoopAround(made, true);
    }
  }
  return Value{.node = a.node};
}

Value ListFiles(PythonReader& r, const CallArgs& a) {
  auto p = r.NewPipeline("tfdata", a.node.start());
  const std::string name = "list_files";
  p->source.set_name(name);
  bool known = false;
  const Value* pattern_arg = a.Get(0, "file_pattern");
  const std::vector<std::string> patterns = StringsOf(pattern_arg, known);
  if (pattern_arg) p->remote_store = RemoteStoreOf(*pattern_arg);
  // Files on a remote store are listed only where the job runs, as computed ones are.
  if (!known || !p->remote_store.empty()) {
    p->stand_in = true;
    p->source.mutable_range()->set_stop(kStandInFiles);
    p->stand_in_note = "list_files's pattern is `" +
                       (pattern_arg ? pattern_arg->Spelling() : std::string("?")) + "`, " +
                       (p->remote_store.empty() ? "known only when the code runs"
                                                : "on " + p->remote_store + ", not listed here") +
                       ": " + std::to_string(kStandInFiles) +
                       " files of synthetic records stand in; --set " + name +
                       ".pattern=PATTERN lists real files (--set " + name + ".stop=N: more)";
    return PipelineValue(std::move(p), a);
  }
  const bool names = patterns.size() > 1 &&
                     std::none_of(patterns.begin(), patterns.end(), [](const std::string& s) {
                       return s.find_first_of("*?[") != std::string::npos;
                     });
  if (names) {
    // list_files of file names, no pattern among them: those files.
    for (const std::string& f : patterns) p->source.mutable_from_tensor_slices()->add_strings(f);
    const auto shuffle = ReadFlag(*p, a, 1, "shuffle", name);
    if (!shuffle || *shuffle) {
      p->Note(a.node.start(), "list_files shuffles its " + std::to_string(patterns.size()) +
                                  " names; the spec reads them in the order given");
    }
    return PipelineValue(std::move(p), a);
  }
  auto* lf = p->source.mutable_list_files();
  lf->set_pattern(patterns[0]);
  if (patterns.size() > 1) {
    p->Note(a.node.start(), "list_files lists " + std::to_string(patterns.size()) +
                                " patterns; the spec lists the first, '" + patterns[0] + "'");
  }
  if (const auto shuffle = ReadFlag(*p, a, 1, "shuffle", name)) lf->set_shuffle(*shuffle);
  if (const Value* seed = a.Get(2, "seed"); seed && seed->AsInt()) lf->set_seed(*seed->AsInt());
  return PipelineValue(std::move(p), a);
}

Value Range(PythonReader& r, const CallArgs& a) {
  auto p = r.NewPipeline("tfdata", a.node.start());
  p->source.set_name("range");
  auto* range = p->source.mutable_range();
  std::vector<int64_t> n;
  for (const Value& v : a.positional) {
    if (const auto i = v.AsInt()) {
      n.push_back(*i);
      // range(os.cpu_count()): this machine's cores, which the job's machine may not have.
      if (!v.run_time.empty()) {
        const char* knob = a.positional.size() == 1 ? "stop"
                           : n.size() == 1          ? "start"
                           : n.size() == 2          ? "stop"
                                                    : "step";
        NoteRunTime(*p, v, "range", knob, std::to_string(*i), "N");
      }
    } else {
      p->Note(v.node.start(), "range's `" + v.Spelling() +
                                  "` is known only when the code runs: 1000000 until set: "
                                  "--set range.stop=N");
      n.push_back(1'000'000);
    }
  }
  if (n.size() == 1) range->set_stop(n[0]);
  if (n.size() >= 2) {
    range->set_start(n[0]);
    range->set_stop(n[1]);
  }
  if (n.size() >= 3) range->set_step(n[2]);
  return PipelineValue(std::move(p), a);
}

// The tensors of a structure tf.data takes (a dict's values, a tuple's items, nested), in
// order; empty where `v` is no structure (one tensor, or what the run makes).
std::vector<const Value*> StructureLeaves(const Value& v, int depth = 0) {
  std::vector<const Value*> parts;
  if (v.Is(Value::Kind::kDict)) {
    for (size_t i = 1; i < v.items.size(); i += 2) parts.push_back(&v.items[i]);
  } else if (v.Is(Value::Kind::kList) && v.node.Is("tuple")) {
    for (const Value& item : v.items) parts.push_back(&item);
  }
  std::vector<const Value*> leaves;
  for (const Value* part : parts) {
    std::vector<const Value*> inner =
        depth < 4 ? StructureLeaves(*part, depth + 1) : std::vector<const Value*>{};
    if (inner.empty()) {
      leaves.push_back(part);
    } else {
      leaves.insert(leaves.end(), inner.begin(), inner.end());
    }
  }
  return leaves;
}

// An element's tensors given as `v` (a structure, or one tensor the code shows); 0 where the
// code does not show it.
int64_t ComponentsOf(const Value* v) {
  if (!v) return 0;
  if (const size_t n = StructureLeaves(*v).size()) return static_cast<int64_t>(n);
  return v->Is(Value::Kind::kUnknown) ? 0 : 1;
}

// The bytes of one element sliced from arrays (one, or a structure of them): a row of each,
// where the code shows every array's shape and dtype; nullopt otherwise.
std::optional<int64_t> SliceBytes(const Value& v) {
  std::vector<const Value*> arrays = StructureLeaves(v);
  if (arrays.empty()) arrays = {&v};
  int64_t bytes = 0;
  for (const Value* array : arrays) {
    const auto row = array->Is(Value::Kind::kTensor) ? ItemBytes(*array) : std::nullopt;
    if (!row) return std::nullopt;
    bytes += *row;
  }
  return bytes;
}

Value FromTensorSlices(PythonReader& r, const CallArgs& a) {
  auto p = r.NewPipeline("tfdata", a.node.start());
  const std::string name = "from_tensor_slices";
  p->source.set_name(name);
  auto* slices = p->source.mutable_from_tensor_slices();
  const Value* x = a.Get(0, "tensors");
  p->components = ComponentsOf(x);
  const std::optional<int64_t> element_bytes = x ? SliceBytes(*x) : std::nullopt;
  // (filenames, labels) or {"image": paths, ...}: one element per entry of the first part.
  // A comprehension's items are one list's ([path(i) for i in range(1024)]), not a tuple's.
  const bool comprehension = x && x->comprehension;
  if (x && x->Is(Value::Kind::kList) && !x->items.empty() && !comprehension &&
      (x->items[0].Is(Value::Kind::kList) || !x->items[0].Is(Value::Kind::kString))) {
    if (!x->items[0].Is(Value::Kind::kInt) && !x->items[0].Is(Value::Kind::kFloat)) {
      x = &x->items[0];
    }
  } else if (x && x->Is(Value::Kind::kDict) && x->items.size() >= 2) {
    x = &x->items[1];
  }
  if (x) p->remote_store = RemoteStoreOf(*x);
  bool all_ints = x && x->Is(Value::Kind::kList) && !x->items.empty();
  bool all_strings = all_ints;
  if (all_ints) {
    for (const Value& v : x->items) {
      all_ints = all_ints && v.Is(Value::Kind::kInt);
      all_strings = all_strings && v.Is(Value::Kind::kString);
    }
  }
  if (all_ints) {
    for (const Value& v : x->items) slices->add_values(v.i);
  } else if (all_strings) {
    for (const Value& v : x->items) slices->add_strings(v.s);
  } else if (const auto rows = x ? FirstDimension(*x) : std::nullopt) {
    // An array the code makes (np.random.rand(N, 8)): its rows, each of their bytes.
    slices->set_count(*rows);
    if (element_bytes) slices->set_element_bytes(*element_bytes);
  } else if (comprehension && x->Is(Value::Kind::kList)) {
    slices->set_count(static_cast<int64_t>(x->items.size()));
  } else {
    slices->set_count(kStandInSlices);
    p->stand_in = true;
    p->stand_in_note = "from_tensor_slices's `" + (x ? x->Spelling() : std::string("?")) +
                       "` is known only when the code runs: " + std::to_string(kStandInSlices) +
                       " elements stand in; --set " + name + ".count=N (and " + name +
                       ".element_bytes=SIZE, each element's bytes, for what a shuffle or "
                       "cache of them holds)";
  }
  return PipelineValue(std::move(p), a);
}

// Dataset.from_tensors(x): x as one element (inside an interleave's function, the element
// the function was given).
Value FromTensors(PythonReader& r, const CallArgs& a) {
  auto p = r.NewPipeline("tfdata", a.node.start());
  p->source.set_name("from_tensors");
  p->source.mutable_from_tensor_slices()->set_count(1);
  p->components = ComponentsOf(a.Get(0, "tensors"));
  return PipelineValue(std::move(p), a);
}

// The def a from_generator runs: a def of the file's, or a class's method named through the
// class or an instance (the guide's ArtificialDataset hands over cls._generator).
SyntaxNode GeneratorDef(PythonReader& r, const Value* gen) {
  if (!gen) return {};
  if (gen->Is(Value::Kind::kFunction) && gen->node.Is("function_definition")) return gen->node;
  if (!gen->node.Is("attribute")) return {};
  const Value owner = r.Evaluate(gen->node.field("object"));
  if (!owner.Is(Value::Kind::kClass) && !owner.Is(Value::Kind::kInstance)) return {};
  const ClassInfo* c = r.FindClass(owner.s);
  const std::string method(gen->node.field("attribute").text());
  if (!c || !c->methods.count(method)) return {};
  return c->methods.at(method);
}

Value FromGenerator(PythonReader& r, const CallArgs& a) {
  auto p = r.NewPipeline("tfdata", a.node.start());
  const Value* gen = a.Get(0, "generator");
  // By the generator's name: a def, a name the file does not bind, or cls._generator.
  std::string name = gen && gen->Is(Value::Kind::kFunction) ? gen->s
                     : gen && gen->Is(Value::Kind::kSymbol) ? gen->SymbolTail()
                     : gen && gen->node.Is("attribute")
                         ? std::string(gen->node.field("attribute").text())
                         : std::string();
  if (name.empty()) name = "generator";
  p->source.set_name(name);
  auto* g = p->source.mutable_from_generator();
  if (const Value* signature = a.Get("output_signature")) {
    p->components = std::max<size_t>(1, StructureLeaves(*signature).size());
  } else if (const Value* types = a.Get(1, "output_types")) {
    p->components = std::max<size_t>(1, StructureLeaves(*types).size());
  }
  // A def of the file's (or a class's, as cls._generator) yields what its body says (`for i
  // in range(num_samples): yield ...`, with from_generator's args= bound to its parameters).
  const SyntaxNode def = GeneratorDef(r, gen);
  std::vector<Value> arguments;
  if (const Value* args = a.Get("args"); args && args->Is(Value::Kind::kList)) {
    arguments = args->items;
  }
  const PythonReader::GeneratorBody body =
      def.null() ? PythonReader::GeneratorBody{}
                 : r.ReadGenerator(def, arguments,
                                   [&](const SyntaxNode& n) { return IsPlainPython(r, n); });
  const std::optional<int64_t> yields = body.yields;
  g->set_records(yields.value_or(-1));
  p->source_goes_on = !yields && !def.null() && YieldsInAnEndlessLoop(def.field("body"));
  const std::string yielded =
      yields ? "it yields " + std::to_string(*yields) + " elements, as its loops say"
             : "it yields endlessly until --set " + name + ".records=N";
  if (body.sleep_per_yield_ns > 0) g->set_wait(engine::SpecDuration(body.sleep_per_yield_ns));
  if (body.first_sleep_ns > 0) g->set_first_wait(engine::SpecDuration(body.first_sleep_ns));
  if (body.sleep_per_yield_ns > 0 || body.first_sleep_ns > 0) {
    p->Note(a.node.start(),
            "'" + name + "' sleeps" +
                (body.first_sleep_ns > 0
                     ? " " + engine::SpecDuration(body.first_sleep_ns) + " before its first yield"
                     : std::string()) +
                (body.first_sleep_ns > 0 && body.sleep_per_yield_ns > 0 ? " and" : "") +
                (body.sleep_per_yield_ns > 0
                     ? " " + engine::SpecDuration(body.sleep_per_yield_ns) + " each element"
                     : std::string()) +
                " (time.sleep): waits with the interpreter lock released and no core used; "
                "--set " +
                name + ".wait=DURATION, " + name + ".first_wait=DURATION");
  }
  if (body.only_sleeps) {
    // Its Python beside the sleeps is a loop's turn and a yield: nothing next to tf.data's
    // own work around each next() (the call overhead below).
    g->set_duration("0us");
    const bool sleeps = body.sleep_per_yield_ns > 0 || body.first_sleep_ns > 0;
    p->Note(a.node.start(), "'" + name + "' does nothing but loop" + (sleeps ? ", sleep" : "") +
                                " and yield: its Python beside that is taken as nothing; " +
                                yielded);
  } else {
    g->set_duration(DefaultStageCost());
    g->set_cost_is_stand_in(true);
    p->Note(a.node.start(), "'" + name +
                                "' is a Python generator whose cost per element the "
                                "code does not show: " +
                                DefaultStageCost() + " until set: --set " + name +
                                ".cost=DURATION; " + yielded);
  }
  // tf.data runs each next() through a py_func: its call and the conversion of what the
  // generator yields to tensors, as a map's dispatch (tensorflow#13101's "constant overhead
  // of tf.data runtime" per element).
  g->set_call_overhead(TfDataCallOverhead());
  p->Note(a.node.start(),
          "each next() of '" + name +
              "' pays tf.data's work around it beside its Python (the py_func call, what it "
              "yields made tensors), which a generator yielding whole batches pays once a "
              "batch: " +
              TfDataCallOverhead() +
              " a call stands in (from tensorflow#390's figures; not measured here): --set " +
              name + ".call_overhead=DURATION");
  return PipelineValue(std::move(p), a);
}

// A map that parses each line as `fn` says, on the pipeline's own thread: CsvDataset does
// it inside the op that reads, so there is no function to call per element.
spec::Op CsvParse(const Pipeline& p, const spec::WorkFunction& fn) {
  spec::Op op;
  op.set_name(p.FreshName("decode_csv"));
  *op.mutable_map()->mutable_fn() = fn;
  op.mutable_map()->set_call_overhead("0us");
  return op;
}

const char* kHeaderNote =
    "header=True: each file's first line, the column names, is parsed as a row (one a "
    "file: no figure changes)";

// The op that drops a file's header line, as CsvDataset(header=True) does before parsing.
spec::Op SkipHeader(const Pipeline& p) {
  spec::Op op;
  op.set_name(p.FreshName("skip"));
  op.mutable_skip()->set_count(1);
  return op;
}

// Whether the call's `header` argument is True; `unknown` where the code leaves it to a
// value known only when it runs.
bool HeaderIsTrue(const Value* header, bool unknown) {
  if (!header || header->Is(Value::Kind::kNone)) return unknown;
  return header->Is(Value::Kind::kBool) ? header->b : unknown;
}

// The rows each call of a map appended to `p` takes: the last batch's size before it, 1
// where none batches or an unbatch came after it.
int64_t RowsPerCall(const Pipeline& p) {
  for (auto it = p.ops.rbegin(); it != p.ops.rend(); ++it) {
    if (const int64_t rows = engine::BatchSizeOf(*it); rows > 0) return rows;
    if (it->has_unbatch()) return 1;
  }
  return 1;
}

// CsvDataset(filenames, record_defaults, compression_type, buffer_size, header, field_delim,
// use_quote_delim, na_value, select_cols): its files' lines, each parsed in the same op.
Value CsvDataset(PythonReader& r, const CallArgs& a) {
  CallArgs files;
  files.node = a.node;
  if (const Value* f = a.Get(0, "filenames")) files.positional.push_back(*f);
  if (const Value* c = a.Get(2, "compression_type")) files.keyword["compression_type"] = *c;
  Value read = FileSource(r, files, {.reads = "text_line"});
  auto p = std::const_pointer_cast<Pipeline>(read.pipeline);
  spec::Op parse = CsvParse(
      *p, CsvWork(a.Get(1, "record_defaults"), a.Get(5, "field_delim"), a.Get(7, "na_value"),
                  a.Get(6, "use_quote_delim"), a.Get(8, "select_cols")));
  p->op_at[parse.name()] = a.node.start();
  p->made_inside[parse.name()] =
      "CsvDataset parses its lines inside the reader, one at a time: to set this, read them "
      "with tf.data.TextLineDataset and map tf.io.decode_csv over them (after .batch(n), as "
      "decode_csv takes a batch of lines), with num_parallel_calls";
  p->Note(a.node.start(),
          "CsvDataset reads its files' lines and parses each in the same op: "
          "a text-line source, then '" +
              parse.name() + "', tf.io.decode_csv's work");
  if (const Value* header = a.Get(4, "header"); HeaderIsTrue(header, false)) {
    // One file: its first line is the pipeline's first. With several, each file's first is
    // dropped, which a skip after the whole source cannot say.
    const spec::Source& source = p->source;
    if (source.has_text_line() && source.text_line().files_size() == 1) {
      spec::Op skip = SkipHeader(*p);
      p->op_at[skip.name()] = header->node.start();
      p->Note(header->node.start(),
              "header=True: the file's first line, the column names, is "
              "dropped ('" +
                  skip.name() + "') before the parse");
      p->ops.push_back(std::move(skip));
    } else {
      p->Note(a.node.start(), kHeaderNote);
    }
  }
  p->ops.push_back(std::move(parse));
  return read;
}

// make_csv_dataset(file_pattern, batch_size, column_names, column_defaults, label_name,
// select_columns, field_delim, use_quote_delim, na_value, header, num_epochs, shuffle,
// shuffle_buffer_size, shuffle_seed, prefetch_buffer_size, num_parallel_reads, sloppy, ...):
// the pipeline TensorFlow's readers.py builds of them. The files, shuffled; an interleave of
// CsvDatasets over num_parallel_reads files at a time (1 by default), each on a thread of
// its own; a shuffle of shuffle_buffer_size and a repeat of num_epochs (forever by
// default); a batch that drops the remainder when it repeats forever; prefetch(AUTOTUNE).
Value MakeCsvDataset(PythonReader& r, const CallArgs& a) {
  CallArgs listed;
  listed.node = a.node;
  if (const Value* f = a.Get(0, "file_pattern")) listed.positional.push_back(*f);
  const Value* shuffle_arg = a.Get(11, "shuffle");
  const bool shuffle = !(shuffle_arg && shuffle_arg->Is(Value::Kind::kBool) && !shuffle_arg->b);
  listed.keyword["shuffle"] = Value{.kind = Value::Kind::kBool, .b = shuffle};
  if (const Value* seed = a.Get(13, "shuffle_seed")) listed.keyword["seed"] = *seed;
  Value files = ListFiles(r, listed);
  auto p = std::const_pointer_cast<Pipeline>(files.pipeline);

  spec::Op read;  // named as the tf.data code written back from the spec names it
  read.set_name(p->FreshName("interleave"));
  auto* il = read.mutable_interleave();
  const std::string compression = CompressionOf(a.Get(18, "compression_type"));
  const bool names_known = !p->stand_in;
  if (names_known) {
    il->mutable_per_element()->mutable_text_line_file()->set_compression(compression);
  } else {
    auto* f = il->mutable_per_element()->mutable_synthetic_file();
    f->set_records_per_file(kStandInRecordsPerFile);
    f->set_record_bytes(kStandInLineBytes);
    f->set_stands_for(StandsForReads("text_line"));
    p->stand_in_readers[read.name()] = FileReaderOf("text_line", compression, {});
  }
  // header=True by default: each file's CsvDataset drops its first line, the column names.
  const Value* header = a.Get(9, "header");
  if (HeaderIsTrue(header, true)) {
    *il->add_ops() = SkipHeader(*p);
    p->op_at[il->ops(0).name()] = a.node.start();
  }
  *il->add_ops() = CsvParse(
      *p, CsvWork(a.Get(3, "column_defaults"), a.Get(6, "field_delim"), a.Get(8, "na_value"),
                  a.Get(7, "use_quote_delim"), a.Get(5, "select_columns")));
  p->op_at[il->ops(il->ops_size() - 1).name()] = a.node.start();
  // Tuned values go back into the call's own arguments: num_parallel_reads is the
  // interleave's parallelism (and its cycle length), sloppy its determinism turned round.
  const Value* reads = a.Get(15, "num_parallel_reads");
  RecordSite(*p, a, reads, read.name(), "num_parallel_reads", "num_parallel_calls");
  RecordSite(*p, a, reads, read.name(), "num_parallel_reads", "cycle_length");
  int64_t parallel = 1;
  if (reads && reads->Is(Value::Kind::kSymbol) && reads->SymbolTail() == "AUTOTUNE") {
    parallel = -1;
  } else if (const auto n = reads ? reads->AsInt() : std::nullopt; n && *n > 0) {
    parallel = *n;
  } else if (reads && !reads->Is(Value::Kind::kNone)) {
    p->Note(reads->node.start(), "make_csv_dataset's num_parallel_reads is `" + reads->Spelling() +
                                     "`, known only when the code runs: 1 (its default) until "
                                     "set: --set " +
                                     read.name() + ".num_parallel_calls=N");
  }
  if (parallel > 0) il->set_cycle_length(parallel);
  il->set_block_length(1);
  il->set_num_parallel_calls(parallel);
  const Value* sloppy = a.Get(16, "sloppy");
  RecordSite(*p, a, sloppy, read.name(), "sloppy", "deterministic", /*inverted=*/true);
  if (sloppy && sloppy->Is(Value::Kind::kBool)) il->set_deterministic(!sloppy->b);
  p->op_at[read.name()] = a.node.start();
  p->ops.push_back(read);

  const Value* epochs_arg = a.Get(10, "num_epochs");
  const bool forever = !epochs_arg || epochs_arg->Is(Value::Kind::kNone);
  const std::optional<int64_t> epochs = forever ? std::optional<int64_t>(-1) : epochs_arg->AsInt();
  if (shuffle) {
    spec::Op mix;
    mix.set_name(p->FreshName("shuffle"));
    const Value* size = a.Get(12, "shuffle_buffer_size");
    RecordSite(*p, a, size, mix.name(), "shuffle_buffer_size", "buffer_size");
    mix.mutable_shuffle()->set_buffer_size(size && size->AsInt() ? *size->AsInt() : 10000);
    if (const Value* seed = a.Get(13, "shuffle_seed"); seed && seed->AsInt()) {
      mix.mutable_shuffle()->set_seed(*seed->AsInt());
    }
    p->ops.push_back(mix);
  }
  if (!epochs || *epochs != 1) {
    spec::Op repeat;
    repeat.set_name(p->FreshName("epochs"));
    repeat.mutable_repeat();
    if (epochs && *epochs > 0) repeat.mutable_repeat()->set_count(*epochs);
    if (!epochs) {
      p->Note(epochs_arg->node.start(), "make_csv_dataset's num_epochs is `" +
                                            epochs_arg->Spelling() +
                                            "`, known only when the code runs: forever until "
                                            "set: --set epochs.count=N");
    }
    p->ops.push_back(repeat);
  }
  spec::Op batch;
  batch.set_name(p->FreshName("batch"));
  batch.mutable_batch()->set_batch_size(
      ReadKnob(*p, a, 1, "batch_size", batch.name(), "32").value_or(32));
  if (forever) batch.mutable_batch()->set_drop_remainder(true);
  p->ops.push_back(batch);
  spec::Op prefetch;
  prefetch.set_name(p->FreshName("prefetch"));
  const Value* depth = a.Get(14, "prefetch_buffer_size");
  RecordSite(*p, a, depth, prefetch.name(), "prefetch_buffer_size", "buffer_size");
  prefetch.mutable_prefetch()->set_buffer_size(depth && depth->AsInt() ? *depth->AsInt() : -1);
  p->ops.push_back(prefetch);
  p->Note(
      a.node.start(),
      "make_csv_dataset is read as the pipeline it builds: its files" +
          std::string(shuffle ? " shuffled" : "") + ", '" + read.name() +
          "' parsing each file's lines (num_parallel_reads files at a time), " +
          (shuffle ? "a shuffle, " : "") + (!epochs || *epochs != 1 ? "a repeat, " : "") +
          "a batch and prefetch(AUTOTUNE)" +
          (HeaderIsTrue(header, true) ? "; each file's first line, the column names (header=True), "
                                        "is dropped before the parse"
                                      : ""));
  return files;
}

// Dataset.zip((a, b)): a's pipeline with b's beside it.
Value Zip(PythonReader& r, const CallArgs& a) {
  const Value* parts = a.Get(0, "datasets");
  if (!parts || !parts->Is(Value::Kind::kList) || parts->items.empty() ||
      !parts->items[0].Is(Value::Kind::kPipeline)) {
    r.Note(a.node.start(), "zip of datasets the code does not show: left out");
    return Value{.node = a.node};
  }
  auto p = r.Extend(*parts->items[0].pipeline, a.node.start());
  if (parts->items.size() == 2 && parts->items[1].Is(Value::Kind::kPipeline)) {
    const Pipeline& second = *parts->items[1].pipeline;
    spec::Op op;
    op.set_name(p->FreshName("zip"));
    *op.mutable_zip()->mutable_source() = second.source;
    op.mutable_zip()->mutable_source()->set_name(p->FreshName(second.source.name()));
    for (const spec::Op& o : second.ops) {
      spec::Op& added = *op.mutable_zip()->add_ops();
      added = o;
      added.set_name(p->FreshName(o.name()));
    }
    for (const CodeNote& n : second.notes) p->notes.push_back(n);
    r.TakesIn(p->id, second.id);
    if (second.stand_in && op.zip().source().has_synthetic()) {
      p->Note(a.node.start(),
              "the zip's second pipeline reads files known only when the code "
              "runs: synthetic records stand in for them; --set " +
                  op.zip().source().name() + ".files=PATTERN reads real files");
    }
    p->ops.push_back(op);
  } else {
    p->Note(a.node.start(), "zip of " + std::to_string(parts->items.size()) +
                                " datasets: the spec keeps the first and at most one beside it");
  }
  return PipelineValue(std::move(p), a);
}

// keras.utils.image_dataset_from_directory(directory, ..., batch_size=32, shuffle=True), as
// Keras builds it (keras/src/utils/image_dataset_utils.py): the image paths, shuffled in a
// buffer of batch_size × 8 (1024 without batching) when `shuffle`, each read, decoded and
// resized by a map with AUTOTUNE, batched unless batch_size is None, then prefetched with
// AUTOTUNE. The images are not at hand: the files stand in, and loading one costs a typical
// JPEG's decode until set.
Value ImagesFromDirectory(PythonReader& r, const CallArgs& a) {
  auto p = r.NewPipeline("tfdata", a.node.start());
  p->source.set_name(kImageFiles);
  p->source.mutable_range()->set_stop(kStandInRecords);
  p->stand_in = true;
  const Value* dir = a.Get(0, "directory");
  p->stand_in_note = "image_dataset_from_directory(" + (dir ? dir->Spelling() : std::string("?")) +
                     ") lists images when the code runs: " + std::to_string(kStandInRecords) +
                     " stand in; --set " + kImageFiles + ".stop=N";
  const Value* batch_arg = a.Get(100, "batch_size");
  const bool batched = !batch_arg || !batch_arg->Is(Value::Kind::kNone);
  const int64_t batch_size =
      batched ? ReadKnob(*p, a, 100, "batch_size", "batch", "32 (Keras's default)").value_or(32)
              : 0;
  if (ReadFlag(*p, a, 100, "shuffle", kShuffleFiles).value_or(true)) {
    spec::Op shuffle;
    shuffle.set_name(kShuffleFiles);
    shuffle.mutable_shuffle()->set_buffer_size(ImageFilesShuffleBuffer(batch_size));
    p->ops.push_back(shuffle);
  }
  spec::Op load;
  load.set_name(kLoadImage);
  auto* decode = load.mutable_map()->mutable_fn()->mutable_cpu_work();
  decode->set_duration(std::to_string(kDecodeJpegNs / 1000) + "us");
  // It decodes one image's bytes at a time (tf.io.decode_image): no batched form.
  decode->set_one_element_call("tf.io.decode_image");
  load.mutable_map()->set_num_parallel_calls(-1);  // Keras maps with AUTOTUNE
  p->ops.push_back(load);
  p->Note(a.node.start(), std::string("'") + kLoadImage +
                              "' reads, decodes and resizes each image (Keras's own map): " +
                              load.map().fn().cpu_work().duration() +
                              " an image, a typical JPEG's decode here (large photos cost more) "
                              "until set: --set " +
                              kLoadImage + ".cost=DURATION");
  if (batched) {
    spec::Op batch;
    batch.set_name("batch");
    batch.mutable_batch()->set_batch_size(batch_size);
    p->ops.push_back(batch);
  }
  spec::Op prefetch;
  prefetch.set_name(kPrefetchImages);
  prefetch.mutable_prefetch()->set_buffer_size(-1);
  p->ops.push_back(prefetch);
  return PipelineValue(std::move(p), a);
}

// A source of files the code's call reads that are not at hand (TFRecord-framed): synthetic
// records stand in, named `name`.
std::shared_ptr<Pipeline> StandInRecords(PythonReader& r, const CallArgs& a,
                                         const std::string& name) {
  auto p = r.NewPipeline("tfdata", a.node.start());
  p->source.set_name(name);
  p->reader.emplace().mutable_tfrecord_file();
  p->stand_in = true;
  p->source.mutable_synthetic()->set_records(kStandInRecords);
  p->source.mutable_synthetic()->set_record_bytes(kStandInRecordBytes);
  return p;
}

// Dataset.load(path) (tf.data.experimental.load before TensorFlow 2.10): the elements a
// Dataset.save wrote, read back from its files. What the saved pipeline did is not done
// again: the files are the source, synthetic records standing in for them.
Value SavedDatasetLoad(PythonReader& r, const CallArgs& a) {
  auto p = StandInRecords(r, a, "load");
  const Value* path = a.Get(0, "path");
  const std::string spelled = path ? path->Spelling() : std::string("?");
  const int64_t saved = path && path->Is(Value::Kind::kString) ? r.SavedComponents(path->s) : 0;
  const Value* spec = a.Get(1, "element_spec");
  p->components = spec ? ComponentsOf(spec) : saved;
  p->stand_in_note =
      "load(" + spelled +
      ") reads back the files Dataset.save wrote (the pipeline that saved them does not run "
      "again): " +
      std::to_string(kStandInRecords) +
      " synthetic records stand in (--set load.records=N, load.record_bytes=SIZE)" +
      (saved > 0 ? ", each element the " + std::to_string(saved) + " tensors the saved one holds"
                 : std::string());
  return PipelineValue(std::move(p), a);
}

// ds.save(path) (tf.data.experimental.save(ds, path) before TensorFlow 2.10): writes the
// elements to files, a pass of its own before any training; what a later load reads back.
Value Save(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  if (const Value* path = a.Get(0, "path"); path && path->Is(Value::Kind::kString)) {
    r.NoteSaved(path->s, in.components);
  }
  return Value{};
}

Value ExperimentalSave(PythonReader& r, const CallArgs& a) {
  const Value* dataset = a.Get(0, "dataset");
  const Value* path = a.Get(1, "path");
  if (dataset && dataset->Is(Value::Kind::kPipeline) && dataset->pipeline && path &&
      path->Is(Value::Kind::kString)) {
    r.NoteSaved(path->s, dataset->pipeline->components);
  }
  return Value{};
}

// tfds.load(name, split=...): a TensorFlow Datasets dataset, read from its prepared files,
// which are not at hand.
Value DatasetsLoad(PythonReader& r, const CallArgs& a) {
  auto p = StandInRecords(r, a, "read");
  const Value* name = a.Get(0, "name");
  p->stand_in_note =
      "tfds.load(" + (name ? name->Spelling() : std::string("?")) +
      ") reads TensorFlow Datasets' prepared TFRecord files: " + std::to_string(kStandInRecords) +
      " synthetic records stand in (--set read.records=N); --set read.files=PATTERN reads them; "
      "TFDS also decodes each example as it reads it (an image's PNG or JPEG, in a parallel map "
      "of its own), work these figures leave out";
  Value v = PipelineValue(std::move(p), a);
  // with_info=True: (dataset, info).
  if (const Value* info = a.Get("with_info"); info && info->Is(Value::Kind::kBool) && info->b) {
    return Value{.kind = Value::Kind::kList, .items = {v, Value{}}, .node = a.node};
  }
  return v;
}

// ------------------------------------------------------------------ methods

Value Append(PythonReader& r, const Pipeline& in, const CallArgs& a, spec::Op op,
             const std::function<void(Pipeline&, spec::Op&)>& fill) {
  auto p = r.Extend(in, a.node.start());
  op.set_name(p->FreshName(op.name()));
  p->op_at[op.name()] = a.node.start();
  // Spans are the file's bytes: an op a module makes is not written there (WriteOrder).
  if (const SyntaxNode callee = a.node.field("function");
      callee.Is("attribute") && a.node.file().empty()) {
    p->op_spans[op.name()] = {callee.field("object").end_byte(), a.node.end_byte()};
  }
  if (!a.node.file().empty()) p->made_inside[op.name()] = MadeInModule(a.node);
  fill(*p, op);
  // A function's ops make elements of their own (a map's parse), whose tensors the code
  // shows no more.
  if (op.has_map() || op.has_interleave() || op.has_flat_map() || op.has_zip()) p->components = 0;
  p->ops.push_back(std::move(op));
  return PipelineValue(std::move(p), a);
}

spec::Op Named(const std::string& name) {
  spec::Op op;
  op.set_name(name);
  return op;
}

Value Map(PythonReader& r, const Pipeline& in, const CallArgs& a, size_t npc_position) {
  const Value* fn = a.Get(0, "map_func");
  const StageWork read = ReadWork(r, fn ? *fn : Value{}, "map");
  const std::optional<MaskedRows> masked = RowsMasked(r, fn);
  return Append(r, in, a, Named(read.name), [&](Pipeline& p, spec::Op& op) {
    // The files a py_function's Python loads (open, np.load, nibabel.load) wait on storage.
    StageWork work = read;
    WaitForFileLoads(p, a.node.start(), op.name(), work);
    if (masked) {
      spec::Op& filter = p.masked_rows[op.name()];
      filter.set_name(masked->name);
      *filter.mutable_filter()->mutable_predicate() = masked->kept.predicate;
    }
    auto* m = op.mutable_map();
    *m->mutable_fn() = work.fn;
    // Said where its work does not say it (a random flip beside a heavier decode).
    if (work.random && !engine::WorkFunctionIsRandom(work.fn)) m->set_random(true);
    m->set_num_parallel_calls(ReadKnob(p, a, npc_position, "num_parallel_calls", op.name(),
                                       "sequential (tf.data's default)")
                                  .value_or(0));
    // A traced function's dispatch on every call: a map whose function calls
    // tf.py_function pays it too, before the bridge into Python.
    m->set_call_overhead(TfDataCallOverhead());
    if (const auto d = ReadFlag(p, a, npc_position + 1, "deterministic", op.name())) {
      m->set_deterministic(*d);
    } else if (p.options_not_deterministic) {
      m->set_deterministic(false);
    }
    if (!work.batched_renames.empty()) p.batched_renames[op.name()] = work.batched_renames;
    if (work.files_read > 0) p.file_reads[op.name()] = {p.remote_store, work.files_read};
    NoteWork(p, a.node.start(), op.name(), work, "cost", /*tfdata_map=*/true, RowsPerCall(p));
  });
}

// An interleave's function runs as each input element's dataset is made, on the op's own
// threads (parallel_interleave's workers make their iterators themselves; Dataset.interleave's
// threads for future elements do). Its work is read as a map before the op:
// - Python beside the dataset it makes (`tf.py_function(work, ...)`, then `return
//   Dataset.from_tensors(x)`, tensorflow#44274) holds the process's one interpreter lock,
//   so its calls take turns: a sequential map, pulled by whichever thread takes the next
//   element. Python in the made dataset's own ops (`.map(lambda y: tf.py_function(...))`) is
//   theirs, not this.
// - TensorFlow ops that read the files the element names and decode them before making a
//   dataset of what they computed (tensorflow#28130's crops of a decoded image pair) run side
//   by side: a map as parallel as the op (SetFunctionMapParallelism).
// Returns the name of the second kind's map; empty where none.
std::string ReadFunctionWork(PythonReader& r, Pipeline& p, const CallArgs& a, const std::string& op,
                             const Value& fn, const Pipeline& made) {
  for (const spec::Op& o : made.ops) {
    if (o.has_map() && o.map().fn().has_python()) return {};
  }
  const StageWork work = ReadWork(r, fn, op + "_function");
  const bool python = work.fn.has_python();
  if (!python && !(work.fn.has_cpu_work() && work.files_read > 0)) return {};
  spec::Op map = Named(work.name);
  map.set_name(p.FreshName(map.name()));
  *map.mutable_map()->mutable_fn() = work.fn;
  map.mutable_map()->set_call_overhead(TfDataCallOverhead());
  if (work.random) map.mutable_map()->set_random(true);
  p.op_at[map.name()] = a.node.start();
  if (python) {
    p.Note(a.node.start(),
           op + "'s function `" + work.name +
               "` runs Python beside the dataset it makes: tf.data calls it for each input "
               "element, one call at a time, so it is read as a sequential map '" +
               map.name() + "' before " + op +
               " (to run it in parallel, move it into a map of its own before the " + op +
               ", with num_parallel_calls); each call also pays TensorFlow's dispatch of the "
               "function, " +
               TfDataCallOverhead() + " standing in: --set " + map.name() +
               ".call_overhead=DURATION");
  } else {
    p.file_reads[map.name()] = {p.remote_store, work.files_read};
    p.Note(a.node.start(),
           op + "'s function `" + work.name +
               "` reads the files its element names and runs TensorFlow ops before making its "
               "dataset: tf.data runs it on " +
               op + "'s threads as each input element's dataset is made, so it is read as a map '" +
               map.name() + "' before " + op + ", as parallel as " + op);
  }
  NoteWork(p, a.node.start(), map.name(), work);
  const std::string name = map.name();
  p.ops.push_back(std::move(map));
  return python ? std::string() : name;
}

// Synthetic files read as from a remote store: requests of the reader's buffer, each
// waiting the store's latency (engine/runtime/storage_requests.h), stand-in figures until
// the job's are set. The note that says so.
std::string ReadFromRemoteStore(spec::SyntheticFile& f, const std::string& op,
                                const std::string& store, int64_t buffer_bytes) {
  using StandIn = RemoteStoreStandIn;
  const int64_t request = buffer_bytes >= 0 ? buffer_bytes : StandIn::kRequestBytes;
  f.set_open_latency(StandIn::kOpenLatency);
  f.set_read_latency(StandIn::kRequestLatency);
  f.set_read_latency_cv(StandIn::kLatencyCv);
  f.set_read_request_bytes(request);
  f.set_storage_is_stand_in(true);
  const std::string requests =
      request == 0 ? "a request per record (buffer_size=0)"
                   : "requests of " + SizeText(request) +
                         (buffer_bytes >= 0 ? " (its buffer_size)" : " (TFRecordDataset's buffer)");
  std::ostringstream cv;
  cv << StandIn::kLatencyCv;
  return op + " reads files on " + store + ", " + std::to_string(kStandInRecordsPerFile) +
         " synthetic records each standing in: remote storage answers in " + requests +
         ", each waiting " + StandIn::kRequestLatency + " on average with a long tail (cv " +
         cv.str() + "), a file opening in " + StandIn::kOpenLatency +
         "; stand-ins, not measured: --set " + op + ".read_latency=DURATION, " + op +
         ".read_latency_cv=CV, " + op + ".read_request_bytes=N, " + op +
         ".open_latency=DURATION, " + op + ".record_bytes=N";
}

// The dataset interleave's or flat_map's function makes of one element. Returns the name of
// the map its function's own work is read as, where it reads files (ReadFunctionWork).
std::string ReadPerElement(PythonReader& r, Pipeline& p, const CallArgs& a, const std::string& op,
                           spec::ElementSource& per_element,
                           google::protobuf::RepeatedPtrField<spec::Op>& ops) {
  const Value* fn = a.Get(0, "map_func");
  Value made;
  if (fn && fn->Is(Value::Kind::kSymbol)) {
    if (const auto* f = r.FindFunction(fn->s)) {
      CallArgs element;
      element.node = a.node;
      element.positional.emplace_back();
      made = (*f)(r, element);
    }
  } else if (fn) {
    made = r.Apply(*fn, {Value{}});
  }
  if (!made.Is(Value::Kind::kPipeline) || !made.pipeline) {
    per_element.mutable_from_element();
    p.Note(a.node.start(), op + "'s function is not read (`" + (fn ? fn->Spelling() : "?") +
                               "`): each element stands for itself (Dataset.from_tensors)");
    return {};
  }
  const Pipeline& sub = *made.pipeline;
  std::string function_map = ReadFunctionWork(r, p, a, op, *fn, sub);
  // Files on a remote store stand in even where their names are known: they are not here.
  const std::string store = !p.remote_store.empty() ? p.remote_store : sub.remote_store;
  const bool names_known =
      store.empty() && !p.stand_in &&
      (p.source.has_list_files() || p.source.from_tensor_slices().strings_size() > 0);
  const auto& g = sub.source.from_generator();
  if (sub.source.has_from_generator() && !g.cost_is_stand_in() &&
      (!g.wait().empty() || !g.first_wait().empty())) {
    // A generator that only sleeps and yields, as the guide's ArtificialDataset stands for a
    // file that opens in 30 ms and reads a sample in 15: that file, as its sleeps say. How
    // many it yields may come from the element (`interleave(ArtificialDataset)`, whose
    // range(num_samples) is the element's): known when the code runs.
    auto* f = per_element.mutable_synthetic_file();
    const bool counted = g.records() >= 0;
    f->set_records_per_file(counted ? g.records() : kStandInRecordsPerFile);
    if (!counted) f->set_size_is_stand_in(true);
    f->set_record_bytes(8);  // what it yields: a number
    if (!g.first_wait().empty()) f->set_open_latency(g.first_wait());
    if (!g.wait().empty()) f->set_read_latency(g.wait());
    const std::string count =
        counted ? " of " + std::to_string(g.records()) + " records"
                : " of as many records as the element makes it yield, known only when the "
                  "code runs (" +
                      std::to_string(kStandInRecordsPerFile) + " stand in: --set " + op +
                      ".records_per_file=N)";
    p.Note(a.node.start(),
           op +
               " makes a Python generator's dataset of each element, which only sleeps and "
               "yields: read as a file" +
               (g.first_wait().empty() ? "" : " that opens in " + g.first_wait()) +
               (g.wait().empty() ? "" : ", each record read in " + g.wait()) +
               ", as its sleeps say," + count + "; --set " + op + ".open_latency=DURATION, " + op +
               ".read_latency=DURATION");
  } else if (sub.source.has_from_generator()) {
    // A Python generator per element, run by the interleave's thread that reads it, its
    // Python under the process's one interpreter lock: more threads take turns for it
    // (tensorflow#44274: a generator's pure Python is no faster on more cores).
    spec::FromGeneratorSource& run = *per_element.mutable_from_generator();
    run = g;
    const bool counted = g.records() >= 0;
    if (!counted) run.set_records(kStandInRecordsPerFile);
    const std::string yields =
        counted
            ? "it yields " + std::to_string(g.records()) + " each, as its loops say"
            : "it yields as many as the element makes it, known only when the code runs: " +
                  std::to_string(kStandInRecordsPerFile) + " stand in (--set " + op + ".records=N)";
    const std::string cost =
        g.cost_is_stand_in()
            ? "the cost of a yield's Python is not in the code: " + g.duration() +
                  " stands in (--set " + op + ".cost=DURATION)"
            : "a yield's Python is " + g.duration() + " (--set " + op + ".cost=DURATION)";
    p.Note(a.node.start(), op + " runs the Python generator '" + sub.source.name() +
                               "' per element: each of its threads runs one, and their Python "
                               "takes turns under the process's one interpreter lock; " +
                               yields + "; " + cost);
  } else if (!sub.reader && sub.source.name() == "from_tensor_slices") {
    // The rows of what the function computed, each an element (64 crops of one image).
    const int64_t rows =
        sub.stand_in ? kStandInRecordsPerFile : engine::SourceElements(sub.source).value_or(1);
    per_element.mutable_from_element()->set_slices(rows);
    p.Note(a.node.start(),
           op +
               " makes a dataset of the rows of what its function computes "
               "(Dataset.from_tensor_slices): " +
               (sub.stand_in ? std::to_string(rows) +
                                   " elements of each input element stand in, their count known "
                                   "only when the code runs"
                             : std::to_string(rows) + " elements of each input element") +
               ": --set " + op + ".slices=N");
  } else if (!sub.reader) {
    per_element.mutable_from_element();
    p.Note(a.node.start(), op + " makes a dataset that reads no files: each element stands for "
                                "itself (Dataset.from_tensors)");
  } else if (names_known) {
    per_element = *sub.reader;
  } else {
    auto* f = per_element.mutable_synthetic_file();
    f->set_records_per_file(kStandInRecordsPerFile);
    f->set_record_bytes(StandInRecordBytes(*sub.reader));
    f->set_stands_for(StandsForReads(ReadsOf(*sub.reader)));
    p.stand_in_readers[op] = *sub.reader;
    if (!store.empty()) {
      p.Note(a.node.start(), ReadFromRemoteStore(*f, op, store, sub.read_buffer_bytes));
    } else if (!p.stand_in) {
      p.Note(a.node.start(), op + " reads files named by elements the code computes: " +
                                 std::to_string(kStandInRecordsPerFile) +
                                 " synthetic records per file stand in");
    }
    // The stand-in's records are plain: a compressed file's decompression is CPU per record
    // that only real files (--set NAME.files=PATTERN) or a read's cost carry.
    if (const std::string& compression = engine::CompressionOfReader(*sub.reader);
        !compression.empty()) {
      p.Note(a.node.start(), CompressedStandInNote(op + "'s", compression, op));
    }
  }
  // A generator per element is no source of the spec: its notes' knobs (`--set
  // _generator.wait=`) are the interleave's, said above.
  const std::string generator = "'" + sub.source.name() + "'";
  for (const CodeNote& n : sub.notes) {
    if (sub.source.has_from_generator() && n.message.find(generator) != std::string::npos) {
      continue;
    }
    p.notes.push_back(n);
  }
  for (const spec::Op& o : sub.ops) {
    // The inner pipeline named its ops on its own: a name the outer one has gets a suffix.
    spec::Op& added = *ops.Add();
    added = o;
    added.set_name(p.FreshName(o.name()));
    for (const auto& [key, site] : sub.sites) {
      if (key.rfind(o.name() + ".", 0) == 0) {
        p.sites[added.name() + key.substr(o.name().size())] = site;
      }
    }
  }
  return function_map;
}

// The map an interleave's function's own work is read as (ReadFunctionWork), run on the
// interleave's threads: as many calls at once as it has.
void SetFunctionMapParallelism(Pipeline& p, const std::string& map, const spec::Op& interleave) {
  for (spec::Op& o : p.ops) {
    if (o.name() == map && o.has_map()) {
      o.mutable_map()->set_num_parallel_calls(interleave.interleave().num_parallel_calls());
    }
  }
}

// An interleave's function and its cycle: what interleave and parallel_interleave share.
// Returns the cycle_length as the code gives it, and in `function_map` the map its
// function's own work is read as (empty: none).
std::optional<int64_t> ReadCycle(PythonReader& r, Pipeline& p, const CallArgs& a, spec::Op& op,
                                 std::string& function_map) {
  auto* il = op.mutable_interleave();
  function_map = ReadPerElement(r, p, a, op.name(), *il->mutable_per_element(), *il->mutable_ops());
  const auto cycle = ReadKnob(p, a, 1, "cycle_length", op.name(), "AUTOTUNE (tf.data's default)");
  if (cycle && *cycle > 0) il->set_cycle_length(*cycle);
  if (const auto block = ReadKnob(p, a, 2, "block_length", op.name(), "1")) {
    il->set_block_length(*block);
  }
  return cycle;
}

Value Interleave(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  return Append(r, in, a, Named("interleave"), [&](Pipeline& p, spec::Op& op) {
    std::string function_map;
    ReadCycle(r, p, a, op, function_map);
    auto* il = op.mutable_interleave();
    il->set_num_parallel_calls(
        ReadKnob(p, a, 3, "num_parallel_calls", op.name(), "sequential (tf.data's default)")
            .value_or(0));
    if (const auto d = ReadFlag(p, a, 4, "deterministic", op.name())) {
      il->set_deterministic(*d);
    } else if (p.options_not_deterministic) {
      il->set_deterministic(false);
    }
    SetFunctionMapParallelism(p, function_map, op);
  });
}

Value ParallelInterleave(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  return Append(r, in, a, Named("interleave"), [&](Pipeline& p, spec::Op& op) {
    std::string function_map;
    const auto cycle = ReadCycle(r, p, a, op, function_map);
    // parallel_interleave opens cycle_length files at once, each on a thread of its own.
    op.mutable_interleave()->set_num_parallel_calls(cycle.value_or(-1));
    if (const auto sloppy = ReadFlag(p, a, 3, "sloppy", op.name()); sloppy && *sloppy) {
      op.mutable_interleave()->set_deterministic(false);
    }
    SetFunctionMapParallelism(p, function_map, op);
  });
}

Value FlatMap(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  return Append(r, in, a, Named("flat_map"), [&](Pipeline& p, spec::Op& op) {
    auto* fm = op.mutable_flat_map();
    ReadPerElement(r, p, a, op.name(), *fm->mutable_per_element(), *fm->mutable_ops());
  });
}

// What a filter's predicate keeps, said where the code says it, else how to set it.
void NotePredicate(Pipeline& p, const SyntaxNode& at, const spec::Op& filter) {
  const spec::Predicate& kept = filter.filter().predicate();
  const std::string name = "'" + filter.name() + "'";
  if (kept.has_mod_equals()) {
    const int64_t m = kept.mod_equals().modulus();
    p.Note(at.start(), name + " keeps the elements whose value is " +
                           std::to_string(kept.mod_equals().remainder()) + " modulo " +
                           std::to_string(m) + ": 1 in " + std::to_string(m) +
                           " of a range's, as its code says");
  } else if (kept.keep_fraction().uniform_draw()) {
    const double share = kept.keep_fraction().fraction();
    char kept_text[96];
    std::snprintf(kept_text, sizeof kept_text, "%g of the elements, as its uniform draw says: %.3g",
                  share, 1 / share);
    p.Note(at.start(),
           name + " keeps a random " + kept_text + " are made before it for each one it keeps");
  } else {
    p.Note(at.start(), name + " keeps every element until the share it keeps is set: --set " +
                           filter.name() + ".fraction=F");
  }
}

Value Filter(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  const Value* fn = a.Get(0, "predicate");
  std::string name = fn && fn->Is(Value::Kind::kFunction) && !fn->s.empty() ? fn->s
                     : fn && !fn->SymbolTail().empty()                      ? fn->SymbolTail()
                                                                            : "filter";
  const PredicateRead kept = ReadPredicate(r, fn);
  return Append(r, in, a, Named(name), [&](Pipeline& p, spec::Op& op) {
    *op.mutable_filter()->mutable_predicate() = kept.predicate;
    // The predicate is a traced function too: its dispatch on every element looked at, kept
    // or not (tensorflow#23179: a filter keeping 1% calls it 100 times an element it gives).
    op.mutable_filter()->set_call_overhead(TfDataCallOverhead());
    NotePredicate(p, a.node, op);
  });
}

Value Shuffle(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  return Append(r, in, a, Named("shuffle"), [&](Pipeline& p, spec::Op& op) {
    auto* s = op.mutable_shuffle();
    s->set_buffer_size(ReadKnob(p, a, 0, "buffer_size", op.name(), "1000").value_or(1000));
    if (const Value* seed = a.Get(1, "seed"); seed && seed->AsInt()) s->set_seed(*seed->AsInt());
    if (const auto re = ReadFlag(p, a, 2, "reshuffle_each_iteration", op.name())) {
      s->set_reshuffle_each_iteration(*re);
    }
  });
}

Value Batch(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  return Append(r, in, a, Named("batch"), [&](Pipeline& p, spec::Op& op) {
    auto* b = op.mutable_batch();
    b->set_batch_size(ReadKnob(p, a, 0, "batch_size", op.name(), "32").value_or(32));
    if (const auto d = ReadFlag(p, a, 1, "drop_remainder", op.name())) b->set_drop_remainder(*d);
    if (a.Get(2, "num_parallel_calls")) {
      p.Note(a.node.start(),
             "batch's num_parallel_calls is not modelled: the spec's batch "
             "copies on one thread");
    }
  });
}

// TensorFlow 1.5 to 1.9's `.apply(tf.contrib.data.batch_and_drop_remainder(n))`: batch(n,
// drop_remainder=True), which took its place.
Value BatchAndDropRemainder(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  CallArgs b = a;
  b.positional.resize(std::min<size_t>(b.positional.size(), 1));
  b.keyword["drop_remainder"] = Value{.kind = Value::Kind::kBool, .b = true};
  return Batch(r, in, b);
}

Value PaddedBatch(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  return Append(r, in, a, Named("padded_batch"), [&](Pipeline& p, spec::Op& op) {
    auto* b = op.mutable_padded_batch();
    b->set_batch_size(ReadKnob(p, a, 0, "batch_size", op.name(), "32").value_or(32));
    const Value* shapes = a.Get(1, "padded_shapes");
    // A tuple of the components' shapes (([-1], []) for text and label): the spec's one
    // shape is the first component's that has dimensions (a scalar's [] pads nothing).
    if (shapes && shapes->Is(Value::Kind::kList) && !shapes->items.empty() &&
        shapes->items[0].Is(Value::Kind::kList)) {
      const Value* first = nullptr;
      for (const Value& component : shapes->items) {
        if (component.Is(Value::Kind::kList) && !component.items.empty()) {
          first = &component;
          break;
        }
      }
      shapes = first;
    }
    if (shapes && shapes->Is(Value::Kind::kList)) {
      for (const Value& d : shapes->items) {
        const auto n = d.AsInt();
        b->add_padded_shapes(n ? *n : -1);
      }
    }
    if (const Value* pad = a.Get(2, "padding_values"); pad && pad->AsNumber()) {
      b->set_padding_values(*pad->AsNumber());
    }
    if (const auto d = ReadFlag(p, a, 3, "drop_remainder", op.name())) b->set_drop_remainder(*d);
  });
}

Value Prefetch(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  return Append(r, in, a, Named("prefetch"), [&](Pipeline& p, spec::Op& op) {
    op.mutable_prefetch()->set_buffer_size(
        ReadKnob(p, a, 0, "buffer_size", op.name(), "AUTOTUNE").value_or(-1));
  });
}

Value Shard(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  return Append(r, in, a, Named("shard"), [&](Pipeline& p, spec::Op& op) {
    auto* s = op.mutable_shard();
    s->set_num_shards(ReadKnob(p, a, 0, "num_shards", op.name(), "1 (no sharding)").value_or(1));
    s->set_index(ReadKnob(p, a, 1, "index", op.name(), "0").value_or(0));
  });
}

Value Cache(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  return Append(r, in, a, Named("cache"), [&](Pipeline& p, spec::Op& op) {
    op.mutable_cache();
    if (const Value* f = a.Get(0, "filename")) {
      if (f->Is(Value::Kind::kString) && !f->s.empty()) {
        // The engine caches in memory only: a cache file's first epoch writes what later
        // epochs read, which a cache in memory does the same but for the file's cost.
        p.Note(f->node.start(), "cache's file '" + f->s +
                                    "' is read as a cache in memory "
                                    "(Pipescope's cache keeps elements in memory)");
      } else if (!f->Is(Value::Kind::kString)) {
        p.Note(f->node.start(), "cache's file is `" + f->Spelling() +
                                    "`, known only when the code runs: cached in memory");
      }
    }
  });
}

Value Repeat(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  return Append(r, in, a, Named("repeat"), [&](Pipeline& p, spec::Op& op) {
    auto* rep = op.mutable_repeat();
    if (const auto count = ReadKnob(p, a, 0, "count", op.name(), "forever")) {
      rep->set_count(*count);
    }
  });
}

Value Take(PythonReader& r, const Pipeline& in, const CallArgs& a, const std::string& kind) {
  return Append(r, in, a, Named(kind), [&](Pipeline& p, spec::Op& op) {
    // Unknown counts keep every element: take all, skip none.
    const bool take = kind == "take";
    const int64_t n =
        ReadKnob(p, a, 0, "count", op.name(), take ? "all" : "none").value_or(take ? -1 : 0);
    if (take) {
      op.mutable_take()->set_count(n);
    } else {
      op.mutable_skip()->set_count(n);
    }
  });
}

// batch(n), a map that keeps some of each batch's rows, then unbatch: the elements a filter
// of the same predicate keeps, its one call a batch shared by the batch's n elements (a
// filter vectorised, as tensorflow#67330's answer and the sampling tensorflow#23179's advice
// write it). Read as that filter, so that it simulates as the advice did; its calls are the
// code's own three, so no move of it is written back.
std::optional<Value> MaskedRowsAsFilter(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  const size_t n = in.ops.size();
  if (n < 2 || !in.ops[n - 1].has_map() || !in.ops[n - 2].has_batch()) return std::nullopt;
  const auto masked = in.masked_rows.find(in.ops[n - 1].name());
  const int64_t rows = in.ops[n - 2].batch().batch_size();
  const auto overhead = engine::ParseDurationNs(TfDataCallOverhead());
  if (masked == in.masked_rows.end() || rows <= 0 || !overhead.ok()) return std::nullopt;
  auto p = r.Extend(in, a.node.start());
  // The map's notes (its function's cost and call, read as a map's) are no filter's.
  const std::string map_name = "'" + in.ops[n - 1].name() + "'";
  std::erase_if(p->notes, [&map_name](const CodeNote& note) {
    return note.message.find(map_name) != std::string::npos;
  });
  p->ops.resize(n - 2);
  spec::Op filter = masked->second;
  filter.set_name(p->FreshName(filter.name()));
  filter.mutable_filter()->set_call_overhead(engine::CallOverheadSharedBy(overhead.value(), rows));
  p->Note(a.node.start(), "batch(" + std::to_string(rows) + "), a map keeping some of each " +
                              "batch's rows (tf.boolean_mask) and unbatch: read as a filter '" +
                              filter.name() + "', its one call a batch shared by " +
                              std::to_string(rows) + " elements");
  NotePredicate(*p, a.node, filter);
  p->ops.push_back(std::move(filter));
  return PipelineValue(std::move(p), a);
}

Value Unbatch(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  if (std::optional<Value> masked = MaskedRowsAsFilter(r, in, a)) return *std::move(masked);
  return Append(r, in, a, Named("unbatch"), [](Pipeline&, spec::Op& op) { op.mutable_unbatch(); });
}

// map_and_batch(map_func, batch_size, num_parallel_batches, drop_remainder,
// num_parallel_calls): a map and a batch fused in one kernel. Its calls in flight are
// num_parallel_calls where given, else batch_size x num_parallel_batches (batch_size where
// neither is: tf.data's batching.py). They run on TensorFlow's pool of one thread a core, so
// a map here with that many threads would take turns on the cores, which TensorFlow's calls
// do not: one thread a core is num_parallel_calls=AUTOTUNE.
Value MapAndBatch(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  CallArgs map_args;
  map_args.node = a.node;
  if (const Value* f = a.Get(0, "map_func")) map_args.positional.push_back(*f);
  const Value* npc = a.Get(4, "num_parallel_calls");
  const Value* batches = a.Get(2, "num_parallel_batches");
  if (batches && batches->Is(Value::Kind::kNone)) batches = nullptr;
  const Value* batch_size = a.Get(1, "batch_size");
  // 0 where the code leaves it to run time.
  const int64_t size = batch_size ? batch_size->AsInt().value_or(0) : 0;
  const int64_t in_flight = batches ? batches->AsInt().value_or(0) : 1;
  std::string said;
  if (npc) {
    map_args.keyword["num_parallel_calls"] = *npc;
  } else {
    map_args.keyword["num_parallel_calls"] = Value{.kind = Value::Kind::kSymbol, .s = "AUTOTUNE"};
    said = size > 0 && in_flight > 0
               ? "batch_size x num_parallel_batches = " + std::to_string(size) + " x " +
                     std::to_string(in_flight) + " = " + std::to_string(size * in_flight) +
                     " calls in flight"
               : "batch_size x num_parallel_batches calls in flight";
    said +=
        " on TensorFlow's pool of one thread a core: read as num_parallel_calls=AUTOTUNE "
        "(one a core here too). It holds ";
    said += in_flight > 0 ? std::to_string(in_flight) + (in_flight == 1 ? " batch" : " batches")
                          : "num_parallel_batches batches";
    said +=
        " in flight, the next one's calls starting only as one is taken, which the spec's map "
        "and batch do not hold back";
  }
  const Value mapped = Map(r, in, map_args, 1);
  auto p = std::const_pointer_cast<Pipeline>(mapped.pipeline);
  const std::string name = p->ops.back().name();
  if (!said.empty()) {
    p->Note(a.node.start(), "map_and_batch runs " + said + "; '" + name + "' is its map: --set " +
                                name + ".num_parallel_calls=N");
  }
  // The knob written back takes the place of num_parallel_batches, which the call cannot be
  // given beside num_parallel_calls: the argument as the call's text passes it.
  const auto site = p->sites.find(name + ".num_parallel_calls");
  const SyntaxNode list = a.node.field("arguments");
  if (batches && site != p->sites.end() && list.Is("argument_list") && list.file().empty()) {
    size_t position = 0;
    for (const SyntaxNode& arg : list.code_children()) {
      const bool keyword = arg.Is("keyword_argument");
      if (keyword ? arg.field("name").text() == "num_parallel_batches" : position++ == 2) {
        site->second.excludes_begin = arg.start_byte();
        site->second.excludes_end = arg.end_byte();
        site->second.excludes_positional = !keyword;
        site->second.excludes = std::string(arg.text());
        break;
      }
    }
  }
  CallArgs batch_args;
  batch_args.node = a.node;
  if (batch_size) batch_args.positional.push_back(*batch_size);
  if (const Value* d = a.Get(3, "drop_remainder")) batch_args.keyword["drop_remainder"] = *d;
  return Batch(r, *p, batch_args);
}

Value ShuffleAndRepeat(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  CallArgs shuffle_args;
  shuffle_args.node = a.node;
  if (const Value* b = a.Get(0, "buffer_size")) shuffle_args.positional.push_back(*b);
  if (const Value* s = a.Get(2, "seed")) shuffle_args.keyword["seed"] = *s;
  const Value shuffled = Shuffle(r, in, shuffle_args);
  CallArgs repeat_args;
  repeat_args.node = a.node;
  if (const Value* c = a.Get(1, "count")) repeat_args.positional.push_back(*c);
  return Repeat(r, *shuffled.pipeline, repeat_args);
}

Value Same(PythonReader&, const Pipeline& in, const CallArgs& a) {
  return PipelineValue(std::make_shared<Pipeline>(in), a);
}

// make_one_shot_iterator(), make_initializable_iterator(): the dataset as it is, in code
// that is TensorFlow 1's (Pipeline::tensorflow_1).
Value Tf1Iterator(PythonReader&, const Pipeline& in, const CallArgs& a) {
  auto p = std::make_shared<Pipeline>(in);
  p->tensorflow_1 = true;
  return PipelineValue(std::move(p), a);
}

Value LeftOut(PythonReader& r, const Pipeline& in, const CallArgs& a, const std::string& what) {
  auto p = r.Extend(in, a.node.start());
  p->Note(a.node.start(), what);
  return PipelineValue(std::move(p), a);
}

// A map's or an interleave's own deterministic argument, where it has none: false.
void NotDeterministicUnlessSaid(spec::Op& op) {
  if (op.has_map() && !op.map().has_deterministic()) op.mutable_map()->set_deterministic(false);
  if (op.has_interleave()) {
    if (!op.interleave().has_deterministic()) op.mutable_interleave()->set_deterministic(false);
    for (spec::Op& inner : *op.mutable_interleave()->mutable_ops()) {
      NotDeterministicUnlessSaid(inner);
    }
  }
}

// Dataset.with_options(options): options.deterministic = False (experimental_deterministic
// before TensorFlow 2.6, models#7127's fix) is read: "if not specified, the
// tf.data.Options.deterministic option controls the behavior" (the deterministic argument's
// docstring), for the whole pipeline. Its other options are left out, and one that seems to
// change what runs, experimental_optimization.filter_with_random_uniform_fusion, is said to
// change nothing: TensorFlow leaves the rewrite it asks for unregistered (b/131229793), so a
// filter of a uniform draw still calls its predicate for every element.
Value WithOptions(PythonReader& r, const Pipeline& in, const CallArgs& a) {
  SyntaxNode given;
  for (const SyntaxNode& arg : a.node.field("arguments").code_children()) {
    given = arg.Is("keyword_argument") ? arg.field("value") : arg;
    break;
  }
  const auto option = [&](const std::string& name) -> const Value* {
    return given.null() || !given.Is("identifier")
               ? nullptr
               : r.Assigned(std::string(given.text()) + "." + name);
  };
  const Value* deterministic = option("deterministic");
  if (!deterministic) deterministic = option("experimental_deterministic");
  if (deterministic && deterministic->Is(Value::Kind::kBool) && !deterministic->b) {
    auto p = r.Extend(in, a.node.start());
    p->options_not_deterministic = true;
    for (spec::Op& op : p->ops) NotDeterministicUnlessSaid(op);
    p->Note(a.node.start(),
            "with_options(...): its deterministic=False is read, for every map and interleave "
            "of the pipeline that does not pass deterministic itself (elements may come out of "
            "order, the first ready first); tf.data's other options are left out");
    return PipelineValue(std::move(p), a);
  }
  const Value* fusion = option("experimental_optimization.filter_with_random_uniform_fusion");
  if (!fusion || !fusion->Is(Value::Kind::kBool) || !fusion->b) {
    return LeftOut(r, in, a, "with_options(...) is not read: tf.data's options are left out");
  }
  return LeftOut(r, in, a,
                 "with_options(...) is not read: tf.data's options are left out; "
                 "filter_with_random_uniform_fusion changes nothing, for TensorFlow leaves its "
                 "rewrite unregistered (b/131229793): a filter of a uniform draw still calls its "
                 "predicate for every element");
}

// What Dataset.apply takes: the transformation's name and arguments, applied as a method.
Dialect::Function Transform(const std::string& name) {
  return [name](PythonReader&, const CallArgs& a) {
    Value v;
    v.kind = Value::Kind::kTransform;
    v.s = name;
    v.call = std::make_shared<CallArgs>(a);
    v.node = a.node;
    return v;
  };
}

Value FeatureOf(const CallArgs& a, bool var_len) {
  Value v;
  v.kind = Value::Kind::kFeature;
  v.node = a.node;
  auto feature = std::make_shared<spec::FeatureSpec>();
  feature->set_var_len(var_len);
  const Value* shape = var_len ? nullptr : a.Get(0, "shape");
  const Value* dtype = a.Get(var_len ? 0 : 1, "dtype");
  if (dtype) feature->set_dtype(FeatureDtype(*dtype));
  if (shape && shape->Is(Value::Kind::kList)) {
    for (const Value& d : shape->items) {
      if (const auto n = d.AsInt()) feature->add_shape(*n);
    }
  } else if (shape && shape->AsInt()) {
    feature->add_shape(*shape->AsInt());
  }
  v.feature = std::move(feature);
  return v;
}

Dialect MakeTfData() {
  Dialect d;
  d.framework = "tfdata";
  d.functions = {
      {"TFRecordDataset",
       [](PythonReader& r, const CallArgs& a) { return FileSource(r, a, {.reads = "tfrecord"}); }},
      {"TextLineDataset",
       [](PythonReader& r, const CallArgs& a) { return FileSource(r, a, {.reads = "text_line"}); }},
      {"FixedLengthRecordDataset", FixedLengthRecords},
      {"?.train", EstimatorTrain},
      {"Dataset.list_files", ListFiles},
      {"Dataset.range", Range},
      {"Dataset.from_tensor_slices", FromTensorSlices},
      {"Dataset.from_tensors", FromTensors},
      {"Dataset.from_generator", FromGenerator},
      {"Dataset.zip", Zip},
      {"CsvDataset", CsvDataset},
      {"make_csv_dataset", MakeCsvDataset},
      {"image_dataset_from_directory", ImagesFromDirectory},
      {"tfds.load", DatasetsLoad},
      {"Dataset.load", SavedDatasetLoad},
      {"experimental.load", SavedDatasetLoad},
      {"experimental.save", ExperimentalSave},
      {"tensorflow_datasets.load", DatasetsLoad},
      {"FixedLenFeature", [](PythonReader&, const CallArgs& a) { return FeatureOf(a, false); }},
      {"VarLenFeature", [](PythonReader&, const CallArgs& a) { return FeatureOf(a, true); }},
      {"FixedLenSequenceFeature",
       [](PythonReader&, const CallArgs& a) { return FeatureOf(a, true); }},
      {"map_and_batch", Transform("map_and_batch")},
      {"batch_and_drop_remainder", Transform("batch_and_drop_remainder")},
      {"parallel_interleave", Transform("parallel_interleave")},
      {"shuffle_and_repeat", Transform("shuffle_and_repeat")},
      {"ignore_errors", Transform("ignore_errors")},
      {"prefetch_to_device", Transform("prefetch_to_device")},
      {"copy_to_device", Transform("copy_to_device")},
      {"make_one_shot_iterator",
       [](PythonReader&, const CallArgs& a) {
         return a.positional.empty() ? Value{} : a.positional[0];
       }},
      {"make_initializable_iterator",
       [](PythonReader&, const CallArgs& a) {
         return a.positional.empty() ? Value{} : a.positional[0];
       }},
  };
  d.methods = {
      {"map",
       [](PythonReader& r, const Pipeline& in, const CallArgs& a) { return Map(r, in, a, 1); }},
      {"interleave", Interleave},
      {"parallel_interleave", ParallelInterleave},
      {"flat_map", FlatMap},
      {"filter", Filter},
      {"shuffle", Shuffle},
      {"batch", Batch},
      {"padded_batch", PaddedBatch},
      {"unbatch", Unbatch},
      {"prefetch", Prefetch},
      {"shard", Shard},
      {"cache", Cache},
      {"save", Save},
      {"repeat", Repeat},
      {"take", [](PythonReader& r, const Pipeline& in,
                  const CallArgs& a) { return Take(r, in, a, "take"); }},
      {"skip", [](PythonReader& r, const Pipeline& in,
                  const CallArgs& a) { return Take(r, in, a, "skip"); }},
      {"map_and_batch", MapAndBatch},
      {"batch_and_drop_remainder", BatchAndDropRemainder},
      {"shuffle_and_repeat", ShuffleAndRepeat},
      {"make_one_shot_iterator", Tf1Iterator},
      {"make_initializable_iterator", Tf1Iterator},
      {"as_numpy_iterator", Same},
      {"get_next", Same},
      {"__iter__", Same},
      {"ignore_errors",
       [](PythonReader& r, const Pipeline& in, const CallArgs& a) {
         return LeftOut(r, in, a, "ignore_errors is not read: errors stop the spec's run");
       }},
      {"with_options", WithOptions},
      {"prefetch_to_device",
       [](PythonReader& r, const Pipeline& in, const CallArgs& a) {
         CallArgs b;
         b.node = a.node;
         if (const Value* n = a.Get(1, "buffer_size")) b.positional.push_back(*n);
         Value v = Prefetch(r, in, b);
         std::const_pointer_cast<Pipeline>(v.pipeline)
             ->Note(a.node.start(), "prefetch_to_device read as a prefetch on the host");
         return v;
       }},
      {"copy_to_device",
       [](PythonReader& r, const Pipeline& in, const CallArgs& a) {
         return LeftOut(r, in, a, "copy_to_device is not read: the copy is the step's");
       }},
  };
  // Dataset.apply(transformation): the transformation's own method, with its arguments.
  d.methods["apply"] = [methods = d.methods](PythonReader& r, const Pipeline& in,
                                             const CallArgs& a) {
    const Value* t = a.Get(0, "transformation_func");
    if (t && t->Is(Value::Kind::kTransform)) {
      if (const auto it = methods.find(t->s); it != methods.end())
        return it->second(r, in, *t->call);
    }
    const std::string code = ".apply(" + (t ? t->Spelling() : std::string("?")) + ")";
    auto p = r.Extend(in, a.node.start());
    p->LeaveOut(
        a.node.start(), code,
        code.substr(1) + " is not read: left out of the spec, and of what advice simulates");
    return PipelineValue(std::move(p), a);
  };
  return d;
}

}  // namespace

const Dialect& TfDataDialect() {
  static const Dialect d = MakeTfData();
  return d;
}

}  // namespace pipescope::code
