#include <algorithm>
#include <string>

#include "app/code/dialects.h"
#include "app/code/work_functions.h"
#include "engine/core/duration.h"

namespace pipescope::code {

void NoteRunTime(Pipeline& pipeline, const Value& v, const std::string& op, const std::string& name,
                 const std::string& value_text, const std::string& values) {
  pipeline.Note(v.node.start(), op + "'s " + name + " is " + v.run_time + ", " + value_text +
                                    ", until set: --set " + op + "." + name + "=" + values +
                                    " for the value the job runs with");
}

std::string MadeInModule(const SyntaxNode& at) {
  return "it is made in " + std::string(at.file()) + " (line " + std::to_string(at.start().line) +
         "), which code written back leaves as it is: set it there";
}

SyntaxNode KeywordExpression(const CallArgs& call, std::string_view name) {
  for (const SyntaxNode& a : call.node.field("arguments").code_children()) {
    if (a.Is("keyword_argument") && a.field("name").text() == name) return a.field("value");
  }
  return {};
}

void RecordSite(Pipeline& pipeline, const CallArgs& args, const Value* v, const std::string& op,
                const std::string& name, const std::string& knob, bool inverted) {
  const SyntaxNode list = args.node.field("arguments");
  if (!list.Is("argument_list")) return;
  // A site is bytes of the file: a call a module makes is not written into (code_patch says
  // where the op is made instead).
  if (!list.file().empty()) {
    // At the argument's own line where the call passes it, else the call's.
    const bool passed = v && !v->node.null() && v->node.file() == list.file() &&
                        v->node.start_byte() >= list.start_byte() &&
                        v->node.end_byte() <= list.end_byte();
    pipeline.made_inside[op] = MadeInModule(passed ? v->node : list);
    return;
  }
  KnobSite site;
  const bool in_splat =
      std::find(args.from_splat.begin(), args.from_splat.end(), name) != args.from_splat.end();
  if (v && !v->node.null() &&
      (in_splat ||
       (v->node.start_byte() >= list.start_byte() && v->node.end_byte() <= list.end_byte()))) {
    site.value_begin = v->node.start_byte();
    site.value_end = v->node.end_byte();
    site.value_is_name = v->node.Is("identifier") || v->node.Is("attribute");
  } else if (const SyntaxNode given = KeywordExpression(args, name); !given.null()) {
    // The keyword's value was followed elsewhere (`num_workers=self.num_workers` to the
    // constructor's parameter): the call's own expression is what a tuned value replaces, as
    // a keyword added beside it would repeat it (SyntaxError).
    site.value_begin = given.start_byte();
    site.value_end = given.end_byte();
    site.value_is_name = true;
  }
  if (site.value_end > 0 && v) {
    site.in_splat = in_splat;
    if (!v->flag_default.null()) {
      site.default_begin = v->flag_default.start_byte();
      site.default_end = v->flag_default.end_byte();
      site.flag = v->flag;
    } else if (const SyntaxNode written = v->WrittenAt();
               site.value_is_name && !written.null() &&
               (written.end_byte() <= list.start_byte() ||
                written.start_byte() >= list.end_byte())) {
      site.written_begin = written.start_byte();
      site.written_end = written.end_byte();
    }
  }
  site.unknown_splat = args.unknown_splat;
  site.insert_at = list.end_byte() - 1;  // before ')'
  const std::vector<SyntaxNode> arguments = list.code_children();
  site.call_has_arguments = !arguments.empty();
  if (site.call_has_arguments) {
    // After the last argument: a comma before the ')' (comments skipped) is a trailing one.
    const std::string_view text = list.text();
    for (size_t i = arguments.back().end_byte() - list.start_byte(); i + 1 < text.size(); ++i) {
      if (text[i] == '#') {
        i = text.find('\n', i);
        if (i == std::string_view::npos) break;
      } else if (text[i] == ',') {
        site.trailing_comma = true;
        site.insert_at = list.start_byte() + i + 1;
        break;
      }
    }
  }
  if (!knob.empty()) site.keyword = name;
  site.inverted = inverted;
  site.order = pipeline.sites.size();
  pipeline.sites[op + "." + (knob.empty() ? name : knob)] = site;
}

// Files an item's Python loads (np.load, h5py.File, open): each a read from storage beside
// its Python, blocking with no core, a stand-in's wait until set, said; the wait marked as
// the files' (Python::wait_loads_files), which a dataset held in memory does without
// (pytorch#6547, torchmd-net#235: a __getitem__ that reads its file again on every call).
// Each is also a file of the disk a spec names (read_bytes, read_files), which the wait then
// gives way to (engine::FileLoadsReadTheDisk).
void WaitForFileLoads(Pipeline& p, SourcePoint at, const std::string& op, StageWork& work) {
  if (work.file_loads <= 0 || !work.fn.has_python() || !work.fn.python().wait().empty()) return;
  std::string calls;
  for (const std::string& c : work.file_load_calls) calls += (calls.empty() ? "" : ", ") + c;
  auto* python = work.fn.mutable_python();
  python->set_wait(engine::SpecDuration(work.file_loads * kFileLoadStandInNs));
  python->set_wait_loads_files(true);
  // Beside an image the call decodes from its path (already read_bytes): its files and these.
  const int64_t files =
      (python->read_bytes() > 0 ? std::max<int64_t>(1, python->read_files()) : 0) + work.file_loads;
  python->set_read_bytes(python->read_bytes() + work.file_loads * kStandInFileBytes);
  if (files > 1) python->set_read_files(files);
  const std::string counted =
      std::to_string(work.file_loads) + " file" + (work.file_loads == 1 ? "" : "s");
  const std::string loads =
      work.files_opened_once == work.file_loads
          ? " reads each item from " + counted + " it opens once per worker (" + calls + ")"
      : work.files_opened_once > 0 ? " loads " + counted + " an item (" + calls + "; " +
                                         std::to_string(work.files_opened_once) +
                                         " opened once per worker, each item a read of it)"
                                   : " loads " + counted + " an item (" + calls + ")";
  p.Note(at, "'" + op + "'" + loads +
                 ", each a read from storage beside its Python, using no core: " +
                 engine::FormatDuration(kFileLoadStandInNs) +
                 " each stands in (an SSD's random read, not measured; from the page cache a "
                 "small file opens and reads in about 10 µs): --set " +
                 op +
                 ".wait=DURATION for an item's; or name the disk the files are on, --set "
                 "storage.kind=hdd (or ssd, nvme), and each is a read of it instead, " +
                 engine::FormatBytes(kStandInFileBytes) + " a file standing in (--set " + op +
                 ".read_bytes=SIZE for an item's)");
}

std::optional<int64_t> ReadKnob(Pipeline& pipeline, const CallArgs& args, size_t position,
                                const std::string& name, const std::string& op,
                                const std::string& stands_in) {
  const Value* v = args.Get(position, name);
  RecordSite(pipeline, args, v, op, name);
  if (!v || v->Is(Value::Kind::kNone)) return std::nullopt;
  if (v->Is(Value::Kind::kSymbol) && v->SymbolTail() == "AUTOTUNE") {
    // As the file spells it, for code written back (a TF 1 file's tf.contrib.data.AUTOTUNE).
    if (pipeline.autotune_spelling.empty() && !v->node.null() && v->node.file().empty()) {
      pipeline.autotune_spelling = std::string(v->node.text());
    }
    return -1;
  }
  if (const auto n = v->AsInt(); n && !v->Is(Value::Kind::kBool)) {
    if (!v->run_time.empty()) NoteRunTime(pipeline, *v, op, name, std::to_string(*n), "N");
    return n;
  }
  pipeline.Note(v->node.null() ? args.node.start() : v->node.start(),
                op + "'s " + name + " is `" + v->Spelling() + "`, known only when the code runs: " +
                    stands_in + " until set: --set " + op + "." + name + "=N");
  return std::nullopt;
}

std::optional<bool> ReadFlag(Pipeline& pipeline, const CallArgs& args, size_t position,
                             const std::string& name, const std::string& op) {
  const Value* v = args.Get(position, name);
  RecordSite(pipeline, args, v, op, name);
  if (!v || v->Is(Value::Kind::kNone)) return std::nullopt;
  if (v->Is(Value::Kind::kBool) || v->Is(Value::Kind::kInt)) {
    const bool on = v->Is(Value::Kind::kBool) ? v->b : v->i != 0;
    if (!v->run_time.empty()) {
      NoteRunTime(pipeline, *v, op, name, on ? "True" : "False", "true|false");
    }
    return on;
  }
  pipeline.Note(v->node.start(), op + "'s " + name + " is `" + v->Spelling() +
                                     "`, known only when the code runs: its default until set: "
                                     "--set " +
                                     op + "." + name + "=true|false");
  return std::nullopt;
}

namespace {

std::string DecodesImages(const StageWork& work) {
  return work.images > 1 ? "decodes " + std::to_string(work.images) + " images"
                         : std::string("decodes an image");
}

}  // namespace

void NoteWork(Pipeline& pipeline, SourcePoint at, const std::string& op, const StageWork& work,
              const std::string& cost_knob, bool tfdata_map, int64_t rows_per_call) {
  if (work.cost_is_parameter && work.repeats_uncounted) {
    pipeline.Note(at, "'" + op +
                          "' decodes or transforms images in a loop or comprehension whose "
                          "count only the run knows (a sample's list of files): counted once a "
                          "call; --set " +
                          op + "." + cost_knob + "=DURATION for the whole call's");
  }
  if (work.cost_is_parameter && !work.transforms.parts.empty()) {
    const std::string made =
        work.decodes_image.empty()
            ? "runs Python whose own cost the code does not show (" + DefaultStageCost() + ")"
            : DecodesImages(work) + " (" + work.decodes_image + ", " +
                  (work.images > 1 ? std::to_string(work.images) + " × " : std::string()) +
                  std::to_string(kDecodeJpegNs / 1000) +
                  "us, what the engine takes to decode a typical JPEG here)";
    pipeline.Note(at, "'" + op + "' " + made +
                          ", then applies its transforms: " + DescribeParts(work.transforms) +
                          (work.augments_arrays && work.decodes_image.empty()
                               ? std::string(" = ")
                               : std::string(" on a 500×375 photo standing in for its images = ")) +
                          work.fn.python().duration() + " a call (their costs measured by " +
                          (work.augments_arrays ? "scripts/measure-keras-augment-costs"
                                                : "scripts/measure-torchvision-costs") +
                          " on the project's 2-core machine); "
                          "--set " +
                          op + "." + cost_knob + "=DURATION (or calibrate from a trace)");
  } else if (work.cost_is_parameter && !work.decodes_image.empty()) {
    pipeline.Note(at, "'" + op + "' " + DecodesImages(work) + " (" + work.decodes_image +
                          "): " + work.fn.python().duration() +
                          " a call stands in, what the engine takes to decode a typical JPEG "
                          "here; a large photo and the transforms after it cost more: --set " +
                          op + "." + cost_knob + "=DURATION (or calibrate from a trace)");
  } else if (work.cost_is_parameter) {
    const bool python = work.fn.has_python();
    // TensorFlow ops on a batch work on every row (the engine's work after a batch runs once
    // a row); a Python function is one call whatever it is given.
    const bool per_row = !python && rows_per_call > 1;
    const std::string each =
        per_row ? " a row, " + std::to_string(rows_per_call) + " rows a call (it maps batches),"
                : " a call";
    const std::string one_element =
        work.one_element_call.empty() || python
            ? std::string()
            : " (it calls " + work.one_element_call +
                  ", which takes one element at a time, so batching before the map cannot "
                  "vectorise it)";
    // What the cost is, beside the call's dispatch: the split decides what batching first
    // saves (tensorflow#40502: the time of a tiny record's decode is mostly the dispatch).
    const std::string split =
        tfdata_map && !python
            ? ", the ops' own time on " + std::string(per_row ? "a row" : "an element") +
                  " (a map after batch pays it on every row; each call's dispatch is " + op +
                  ".call_overhead, paid once a batch where batching comes first), or "
                  "calibrate from a trace"
            : " (or calibrate from a trace)";
    pipeline.Note(at, "'" + op + "' runs " + (python ? "Python" : "TensorFlow ops") +
                          " whose cost the code does not show" + one_element + ": " +
                          DefaultStageCost() + each + " until set: --set " + op + "." + cost_knob +
                          "=DURATION" + split);
  }
  // Python counted as holding the interpreter lock all its time, where it calls native code
  // that releases it: threads of one process (tf.data's maps, generators, Keras's thread
  // workers) take turns for less than that, which decides whether more threads help
  // (tensorflow#14448: np.load and friends). A DataLoader's workers are processes, each its
  // own lock.
  if (work.fn.has_python() && !work.lock_releasing_calls.empty() && cost_knob == "cost" &&
      pipeline.framework != "pytorch" && !work.fn.python().has_gil_share()) {
    std::string calls;
    for (size_t i = 0; i < work.lock_releasing_calls.size() && i < 3; ++i) {
      calls += (i == 0 ? "" : ", ") + work.lock_releasing_calls[i];
    }
    pipeline.Note(at, "'" + op + "' calls " + calls +
                          ", native code that releases the interpreter lock while it works; "
                          "its Python is counted as holding the lock all its time until set: "
                          "--set " +
                          op +
                          ".gil_share=F, the share of a call that holds it (threads of one "
                          "process take turns for that share only)");
  }
  // The image files its decoder reads: free from the page cache, a seek each from a hard
  // disk, which only the user knows the files are on.
  // (Files np.load or h5py open are said where their wait is: WaitForFileLoads.)
  if (work.fn.has_python() && work.fn.python().read_bytes() > 0 && !work.decodes_image.empty() &&
      cost_knob == "cost") {
    pipeline.Note(at, "'" + op + "' reads " +
                          (work.images > 1 ? std::to_string(work.images) + " image files"
                                           : std::string("an image file")) +
                          " a call, " + engine::FormatBytes(kStandInFileBytes) +
                          " each standing in, from memory until the disk is named: --set "
                          "storage.kind=hdd (or ssd, nvme) where the files do not fit the page "
                          "cache, --set " +
                          op + ".read_bytes=SIZE for a call's");
  }
  // A sleep is a wait beside the Python's cost: the lock released, no core used, so more
  // workers than cores still help it.
  const std::string wait_knob = cost_knob == "cost" ? "wait" : "";
  // A wait that stands for the files it loads (wait_loads_files) is said with them.
  if (work.fn.has_python() && !work.fn.python().wait().empty() &&
      !work.fn.python().wait_loads_files()) {
    const std::string when =
        work.sleep_condition.empty() ? std::string()
        : work.sleep_one_in > 1
            ? " on average (its sleep runs one call in " + std::to_string(work.sleep_one_in) +
                  ", when `" + work.sleep_condition + "`)"
            : " (its sleep runs only when `" + work.sleep_condition +
                  "`, which the code does not say how often holds: counted on every call)";
    pipeline.Note(at, "'" + op + "' sleeps " + work.fn.python().wait() + " a call (time.sleep)" +
                          when +
                          ": a wait with the interpreter lock released and "
                          "no core used" +
                          (work.only_sleeps ? "; it does nothing else, so its Python is taken as "
                                              "nothing beside it"
                                            : ", beside its Python's cost") +
                          (wait_knob.empty() ? "" : "; --set " + op + ".wait=DURATION"));
  } else if (work.sleeps_unknown && !wait_knob.empty()) {
    pipeline.Note(at, "'" + op +
                          "' sleeps (time.sleep) for a time known only when the code runs: "
                          "no wait counted until set: --set " +
                          op + ".wait=DURATION");
  }
  if (tfdata_map && !work.accelerator_math.empty()) {
    std::string list;
    for (const std::string& c : work.accelerator_math) list += (list.empty() ? "" : ", ") + c;
    pipeline.Note(at, "'" + op + "' calls " + list +
                          ": tf.data runs a map's function on the CPU, whatever devices the "
                          "machine has" +
                          (work.asks_a_device ? " and whatever tf.device the function names" : "") +
                          ", where the same call in the training step (on the batch "
                          "the pipeline hands over) runs on the GPU: math like this belongs "
                          "in the step (tensorflow#40755)");
  }
  if (tfdata_map && !work.bridged_tf_function.empty()) {
    // A maintainer's answer in tensorflow#32454, where such a map deadlocked under
    // num_parallel_calls: the function is graph code already.
    pipeline.Note(at, "'" + op + "' runs `" + work.bridged_tf_function +
                          "`, a tf.function, through tf.py_function: it is TensorFlow's ops "
                          "already, so map(" +
                          work.bridged_tf_function +
                          ") runs it without Python or the interpreter lock (through "
                          "py_function, in a parallel map, it has deadlocked: tensorflow#32454)");
  }
  if (tfdata_map) {
    // py_function's bridge converts the tensors to NumPy and back on every call as well:
    // not measured here (no TensorFlow), so not in the stand-in, and said.
    pipeline.Note(
        at,
        "each call of '" + op + "' pays TensorFlow's dispatch of a map function " + "beside its " +
            (work.fn.has_python() ? "Python" : "ops") +
            ", which batching before the map pays once per batch: " + TfDataCallOverhead() +
            " a call stands in (from tensorflow#390's figures; not measured "
            "here" +
            (work.fn.has_python() ? "; py_function's conversion of the tensors to NumPy and back "
                                    "costs more, not counted"
                                  : "") +
            "): --set " + op + ".call_overhead=DURATION");
  }
  // What they do is in no figure until the whole call's cost is given: left out (the verdict
  // says so, and no advice is sure of itself), as code no dialect reads is.
  for (const std::string& unknown : work.transforms.not_costed) {
    pipeline.LeaveOut(at, unknown, NotCostedNote(op, unknown), op);
  }
  if (!work.also_calls.empty()) {
    std::string list;
    for (const std::string& c : work.also_calls) list += (list.empty() ? "" : ", ") + c;
    pipeline.Note(at, "'" + op + "' also calls " + list + ": modelled by its heaviest work only");
  }
  if (!work.uncosted_calls.empty()) {
    std::string list;
    for (const std::string& c : work.uncosted_calls) list += (list.empty() ? "" : ", ") + c;
    pipeline.Note(at, "'" + op + "' also calls " + list +
                          ", whose cost the code does not show: left out of its cost; --set " + op +
                          "." + cost_knob + "=DURATION for the whole function's");
  }
}

void MarkSourceCall(Pipeline& pipeline, const CallArgs& args) {
  if (pipeline.source_end != 0 || !args.node.file().empty()) return;
  pipeline.source_end = args.node.end_byte();
  for (SyntaxNode n = args.node; !n.null(); n = n.parent()) {
    if (n.type().ends_with("statement")) {
      pipeline.source_statement = n.start_byte();
      break;
    }
  }
}

Value PipelineValue(std::shared_ptr<Pipeline> pipeline, const CallArgs& args) {
  // The call that made the source: ops the tuned pipeline adds right after it go there.
  if (pipeline->ops.empty()) MarkSourceCall(*pipeline, args);
  Value v;
  v.kind = Value::Kind::kPipeline;
  v.pipeline = std::move(pipeline);
  v.node = args.node;
  return v;
}

}  // namespace pipescope::code
