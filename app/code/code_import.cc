#include "app/code/code_import.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "app/code/dialects.h"
#include "app/code/example_size.h"
#include "app/code/path_values.h"
#include "app/code/python_reader.h"
#include "app/code/python_tree.h"
#include "app/code/work_after_pipeline.h"
#include "app/code/work_functions.h"
#include "engine/core/duration.h"
#include "engine/core/file_glob.h"
#include "engine/core/text_file.h"
#include "engine/sim/cost_model.h"
#include "engine/spec/file_readers.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/spec_overrides.h"
#include "engine/spec/spec_validator.h"
#include "engine/spec/work_bytes.h"
#include "engine/work/call_overhead.h"
#include "engine/work/work_registry.h"

namespace pipescope::code {

namespace {

constexpr const char* kStandInStep = "10ms";
// An eager loop's next() on a tf.data iterator, per component of the element (each made an
// EagerTensor for Python): tensorflow#59744 timed `for _ in ds: pass` over 10,000 elements
// of 10 strings at 1.42 s (TensorFlow 2.11), against 0.018 s for the generator that made
// them: 14 µs a component.
constexpr int64_t kEagerNextNsPerComponent = 14'000;

// The loop iterates a tf.data dataset element by element in eager Python: its next() is the
// loop's own Python (train_step.loop_python), paid per element whatever the step.
void EagerLoopNext(ImportedCode& code, const PipelineUse& loop) {
  // The element's tensors where the code shows them (a dict unpacked as one name is still
  // all of its tensors), else as many as the loop unpacks it into.
  const int64_t shown = loop.pipeline ? loop.pipeline->components : 0;
  const int64_t n = std::max<int64_t>(1, shown > 0 ? shown : loop.eager_components);
  const int64_t ns = kEagerNextNsPerComponent * n;
  code.spec.mutable_train_step()->set_loop_python(engine::SpecDuration(ns));
  const std::string components =
      shown > 0 ? std::to_string(n) + (n == 1 ? " component" : " components") +
                      ", as the code makes the element"
      : n == 1 ? "one component, the element taken whole"
               : std::to_string(n) + " components, as the loop unpacks them";
  code.notes.push_back(
      {loop.at,
       "the loop takes the dataset's elements one at a time in eager Python: each "
       "next() runs tf.data's iterator from Python (the op's dispatch, a tensor made "
       "for Python per component), " +
           engine::SpecDuration(ns) + " an element (" + components +
           ": 14us a component, as tensorflow#59744 measured) of the loop's own "
           "time, holding the interpreter lock, until set: --set "
           "train_step.loop_python=DURATION"});
}

// The pipeline the file trains on (the last one handed to fit or a loop that trains), else
// the last one named for training, else the one it ends with: the last one bound, returned or
// handed to a call; of the variable asked for when one is.
// Whether `trained` is `named` as a training consumes it: the pipeline itself, or fit's
// epochs added to it (the training loop's repeat, or its take of epochs × steps), not a
// pipeline the code built on it with ops of its own.
bool TrainedAs(const PythonReader& reader, const Pipeline& trained, const Pipeline& named) {
  if (trained.id == named.id) return true;
  if (trained.ops.size() != named.ops.size() + 1 || !reader.DerivesFrom(trained.id, named.id)) {
    return false;
  }
  const spec::Op& added = trained.ops.back();
  return (added.has_repeat() && added.repeat().training_loop()) ||
         (added.has_take() && added.name().starts_with(kFitSteps));
}

const PipelineUse* Chosen(const PythonReader& reader, const std::string& variable) {
  const std::vector<PipelineUse>& uses = reader.uses();
  if (variable.empty()) {
    for (auto it = uses.rbegin(); it != uses.rend(); ++it) {
      if (it->trains) return &*it;
    }
    // No loop that trains shows which: of a training and an evaluation pipeline (a
    // test_loader built after train_loader), the one its name says trains.
    const auto training = [](const std::string& name) {
      return name.find("train") != std::string::npos;
    };
    if (!uses.empty() && !training(uses.back().variable)) {
      for (auto it = uses.rbegin(); it != uses.rend(); ++it) {
        if (training(it->variable)) return &*it;
      }
    }
    // Nor its name: the last one a loop takes, a benchmark's (`x = x.cuda()`) or a model's.
    for (auto it = uses.rbegin(); it != uses.rend(); ++it) {
      if (it->consumed) return &*it;
    }
  }
  const PipelineUse* named = nullptr;
  for (auto it = uses.rbegin(); it != uses.rend() && !named; ++it) {
    if (variable.empty() || it->variable == variable) named = &*it;
  }
  // The pipeline a name binds is read as its training consumes it, where a loop trains on
  // it (`train(train_loader2)`: its step, its epochs) or fit does (its epochs added), as the
  // one read by default is.
  if (named && !variable.empty()) {
    for (auto it = uses.rbegin(); it != uses.rend(); ++it) {
      if (it->trains && it->pipeline && TrainedAs(reader, *it->pipeline, *named->pipeline)) {
        return &*it;
      }
    }
  }
  return named;
}

// TensorFlow work the file does on the chosen tf.data pipeline's elements after the pipeline
// hands them over: on what `iterator.get_next()` gives (a TF 1 graph), or in a loop over the
// dataset by one of its names (TF 2).
void NoteWorkAfterPipeline(const PythonTree& tree, const PythonReader& reader,
                           const PipelineUse& chosen, ImportedCode& code) {
  if (chosen.pipeline->framework != "tfdata") return;
  // TensorFlow 1: the work on what get_next() gives, in the statements after it.
  if (tree.source().find("get_next") != std::string::npos) {
    AnyNodeWithin(tree.root(), [&](const SyntaxNode& name) {
      // The name first, the cheapest test of a node: `get_next` in `iterator.get_next()`.
      if (name.text() != "get_next" || !name.Is("identifier")) return false;
      const SyntaxNode n = name.parent().parent();
      if (!name.parent().Is("attribute") || !n.Is("call")) return false;
      SyntaxNode statement = n;
      while (!statement.parent().null() && !statement.parent().Is("block") &&
             !statement.parent().Is("module")) {
        statement = statement.parent();
      }
      const std::vector<SyntaxNode> parts = statement.code_children();
      if (parts.empty() || !parts[0].Is("assignment")) return false;
      if (const auto work =
              TensorFlowWorkOn(StatementsAfter(statement), NamesBound(parts[0].field("left")))) {
        SyntaxNode def = statement;
        while (!def.null() && !def.Is("function_definition")) def = def.parent();
        const std::string where =
            def.null() ? "after get_next()"
                       : "in `" + std::string(def.field("name").text()) + "`, after get_next()";
        code.notes.push_back({work->at, WorkAfterPipelineNote(*work, where)});
      }
      return false;
    });
  }
  // TensorFlow 2: a loop over the dataset by one of its names, its statements looked into.
  std::set<std::string> variables;
  for (const PipelineUse& u : reader.uses()) {
    if (!u.variable.empty() && u.pipeline->id == chosen.pipeline->id) variables.insert(u.variable);
  }
  if (variables.empty()) return;
  std::function<void(const SyntaxNode&, int)> statements = [&](const SyntaxNode& node, int depth) {
    if (depth > 32) return;
    for (const SyntaxNode& s : node.code_children()) {
      if (s.Is("for_statement") && s.field("right").Is("identifier") &&
          variables.count(std::string(s.field("right").text()))) {
        if (const auto work =
                TensorFlowWorkOn(s.field("body").code_children(), NamesBound(s.field("left")))) {
          code.notes.push_back(
              {work->at,
               WorkAfterPipelineNote(
                   *work, "in the loop over `" + std::string(s.field("right").text()) + "`")});
        }
      }
      // Into compound statements' blocks and clauses; expressions hold no loops.
      if (s.Is("block") || s.Is("function_definition") || s.Is("class_definition") ||
          s.Is("decorated_definition") || s.Is("if_statement") || s.Is("elif_clause") ||
          s.Is("else_clause") || s.Is("for_statement") || s.Is("while_statement") ||
          s.Is("with_statement") || s.Is("try_statement") || s.Is("except_clause") ||
          s.Is("finally_clause")) {
        statements(s, depth + 1);
      }
    }
  };
  statements(tree.root(), 0);
}

// Where a pipeline's last op is made (its source where it has no op).
SourcePoint MadeAt(const Pipeline& p) {
  if (p.ops.empty()) return p.source_at;
  const auto at = p.op_at.find(p.ops.back().name());
  return at != p.op_at.end() ? at->second : p.source_at;
}

// Pipelines the file builds that the chosen one is not built on, and no later one either:
// a validation set, a second variant. Named in a note so the user can ask for one.
void NoteOthers(const PythonReader& reader, const PipelineUse& chosen, ImportedCode& code) {
  const auto& uses = reader.uses();
  std::vector<const PipelineUse*> others;
  for (size_t k = 0; k < uses.size(); ++k) {
    const PipelineUse& u = uses[k];
    if (u.variable.empty() || &u == &chosen ||
        PythonReader::SameBuild(*u.pipeline, *chosen.pipeline)) {
      continue;
    }
    // Another name for a pipeline already said (its iterator, its next element, a part of
    // that: `it = ds.make_one_shot_iterator()`, `x = it.get_next()[0]`) is no other pipeline.
    const bool alias = std::any_of(others.begin(), others.end(), [&](const PipelineUse* w) {
      return w->pipeline->id == u.pipeline->id;
    });
    if (alias) continue;
    bool extended = false;
    for (size_t j = 0; j < uses.size() && !extended; ++j) {
      extended = j != k && uses[j].pipeline->id != u.pipeline->id &&
                 reader.DerivesFrom(uses[j].pipeline->id, u.pipeline->id);
    }
    // A def's statement is read where the def is and again for each call given arguments:
    // where another reading of it built what is read, it is that pipeline, not another.
    const bool read_again = std::any_of(uses.begin(), uses.end(), [&](const PipelineUse& w) {
      return &w != &u && w.at.file_name() == u.at.file_name() && w.at.line == u.at.line &&
             w.at.column == u.at.column && reader.DerivesFrom(chosen.pipeline->id, w.pipeline->id);
    });
    if (!extended && !read_again && !reader.DerivesFrom(chosen.pipeline->id, u.pipeline->id)) {
      others.push_back(&u);
    }
  }
  // The one read, by its name where it has one, and what makes it the one.
  std::string read = "the one at line " + std::to_string(chosen.at.line);
  for (const PipelineUse& u : uses) {
    if (!u.variable.empty() && PythonReader::SameBuild(*u.pipeline, *chosen.pipeline)) {
      read = "'" + u.variable + "'";
      if (chosen.trains)
        read += ", which the training at line " + std::to_string(chosen.at.line) + " consumes";
      if (chosen.consumed)
        read += ", which the loop at line " + std::to_string(chosen.at.line) + " goes over";
      break;
    }
  }
  // Pipelines handed straight to a call that trains on them (the tf.data guide's
  // `benchmark(ArtificialDataset().prefetch(...))`, one a variant): no name to ask for one by,
  // so said once, where the one read is, each by the line of its last op.
  std::vector<int> unnamed_ids;
  std::vector<int> unnamed_lines;
  // A use at the chosen one's statement of a pipeline made where the chosen one was is that
  // def read again (where it is defined, and for a call given arguments), not another
  // pipeline; one handed in from elsewhere is (benchmark(ds) called on three).
  const auto at_chosen = [&chosen](const PipelineUse& u) {
    const auto same = [](SourcePoint a, SourcePoint b) {
      return a.file_name() == b.file_name() && a.line == b.line && a.column == b.column;
    };
    return same(u.at, chosen.at) && same(MadeAt(*u.pipeline), MadeAt(*chosen.pipeline));
  };
  // One the code binds to a name (`for x in l2:` over `l2 = DataLoader(...)`) is said by
  // that name where it is built, not here.
  const auto named = [&uses](const PipelineUse& u) {
    return std::any_of(uses.begin(), uses.end(), [&u](const PipelineUse& w) {
      return !w.variable.empty() && PythonReader::SameBuild(*w.pipeline, *u.pipeline);
    });
  };
  for (const PipelineUse& u : uses) {
    if (!u.variable.empty() || !u.trains || &u == &chosen || at_chosen(u) || named(u) ||
        PythonReader::SameBuild(*u.pipeline, *chosen.pipeline) ||
        reader.DerivesFrom(chosen.pipeline->id, u.pipeline->id) ||
        reader.DerivesFrom(u.pipeline->id, chosen.pipeline->id) ||
        std::find(unnamed_ids.begin(), unnamed_ids.end(), u.pipeline->id) != unnamed_ids.end()) {
      continue;
    }
    unnamed_ids.push_back(u.pipeline->id);
    const int line = MadeAt(*u.pipeline).line;
    if (std::find(unnamed_lines.begin(), unnamed_lines.end(), line) == unnamed_lines.end()) {
      unnamed_lines.push_back(line);
    }
  }
  if (!unnamed_ids.empty()) {
    std::sort(unnamed_lines.begin(), unnamed_lines.end());
    std::string lines;
    for (size_t i = 0; i < unnamed_lines.size(); ++i) {
      lines += (i == 0                          ? ""
                : i + 1 == unnamed_lines.size() ? " and "
                                                : ", ") +
               std::to_string(unnamed_lines[i]);
    }
    code.notes.push_back(
        {chosen.at, "the file also trains on " + std::to_string(unnamed_ids.size()) +
                        (unnamed_ids.size() == 1 ? " other pipeline" : " other pipelines") +
                        " handed straight to a call (made at line" +
                        (unnamed_lines.size() == 1 ? " " : "s ") + lines + "); import-code reads " +
                        read + " (bind another to a name to read it with --pipeline NAME)"});
  }
  // A pipeline bound again where it was made (`train, valid = wrapper.loaders()` unpacking
  // what a method built) is said once.
  std::set<std::tuple<std::string, int, int>> said;
  for (const PipelineUse* o : others) {
    if (!said.emplace(o->variable, o->at.line, o->at.column).second) continue;
    // A name the code binds twice (a function's `dataset` and the file's) says nothing
    // between the two: the line does.
    const std::string which = read.starts_with("'" + o->variable + "'")
                                  ? "the one at line " + std::to_string(chosen.at.line)
                                  : read;
    code.notes.push_back({o->at, "another pipeline, '" + o->variable +
                                     "', is built here; import-code reads " + which +
                                     " (--pipeline " + o->variable + " reads this one)"});
  }
}

// A loop over the pipeline inside `for epoch in range(N):` goes over it N times: a
// DataLoader's endless epochs (each iteration of the loader an epoch) count N, and a tf.data
// pipeline that ends is repeated N times, each epoch iterating it afresh (as fit's epochs).
void CountLoopEpochs(ImportedCode& code, const std::optional<PythonReader::LoopEpochs>& loop) {
  if (!loop || loop->epochs < 1) return;
  auto& ops = *code.spec.mutable_ops();
  const std::string n = std::to_string(loop->epochs);
  if (!ops.empty() && ops.rbegin()->name() == "epochs" && ops.rbegin()->has_repeat() &&
      !ops.rbegin()->repeat().has_count()) {
    ops.rbegin()->mutable_repeat()->set_count(loop->epochs);
    code.notes.push_back(
        {loop->at, loop->counted_by.empty()
                       ? "the loop goes over the loader " + n +
                             " times (one epoch each): its epochs' repeat counts " + n
                       : loop->counted_by + ": its epochs' repeat counts " + n});
    // persistent_workers keeps one loader's workers across its iterators; a loader made
    // again each epoch is a new one, whose workers start again.
    spec::Op* loader = ops.size() > 1 ? &ops[ops.size() - 2] : nullptr;
    if (loop->made_each_turn && loader && loader->has_dataloader()) {
      loader->mutable_dataloader()->set_made_each_epoch(true);
    }
    if (loop->made_each_turn && loader && loader->has_dataloader() &&
        loader->dataloader().persistent_workers() && loader->dataloader().num_workers() > 0) {
      code.notes.push_back(
          {loop->at, "the loader is made anew each epoch, in the loop: its " +
                         std::to_string(loader->dataloader().num_workers()) +
                         " worker processes start again every epoch, whatever "
                         "persistent_workers says (it keeps one loader's workers across its "
                         "epochs); make the loader once, before the loop, for them to persist"});
    }
    return;
  }
  const bool repeats =
      std::any_of(ops.begin(), ops.end(), [](const spec::Op& op) { return op.has_repeat(); });
  if (repeats || loop->epochs < 2 || code.framework != "tfdata") return;
  // As `.repeat(N)` at the end is the same: every epoch iterates the whole pipeline afresh.
  spec::Op* epochs = code.spec.add_ops();
  epochs->set_name("repeat");
  epochs->mutable_repeat()->set_count(loop->epochs);
  epochs->mutable_repeat()->set_training_loop(true);
  code.notes.push_back({loop->at, "the loop goes over the dataset " + n +
                                      " times, each epoch iterating it afresh: a repeat of " + n +
                                      " after it"});
}

// A loop of the file's top level goes over a DataLoader once: its epochs count 1, not the
// endless epochs a training loop's loader is read with (transformers#14428 timed one pass
// with `for batch in tqdm(loader): continue`; read as endless, persistent_workers gained
// from epoch starts that never come).
void CountOnePass(ImportedCode& code, SourcePoint at) {
  auto& ops = *code.spec.mutable_ops();
  if (ops.empty() || ops.rbegin()->name() != "epochs" || !ops.rbegin()->has_repeat() ||
      ops.rbegin()->repeat().has_count()) {
    return;
  }
  ops.rbegin()->mutable_repeat()->set_count(1);
  code.notes.push_back({at,
                        "the loop goes over the loader once, at the file's top level: one "
                        "epoch (--set epochs.count=N for more)"});
}

void RemoveAnsweredNotes(ImportedCode& code, const std::string& target) {
  std::erase_if(code.notes, [&](const CodeNote& n) {
    return n.message.find("--set " + target + "=") != std::string::npos;
  });
}

spec::Op* FindOp(spec::PipelineSpec& spec, const std::string& name) {
  for (auto& op : *spec.mutable_ops()) {
    if (op.name() == name) return &op;
    if (op.has_interleave()) {
      for (auto& sub : *op.mutable_interleave()->mutable_ops()) {
        if (sub.name() == name) return &sub;
      }
    }
  }
  return nullptr;
}

// The dataset an interleave or flat_map makes of each element; null for other ops.
spec::ElementSource* PerElementOf(spec::Op* op) {
  if (op && op->has_interleave()) return op->mutable_interleave()->mutable_per_element();
  if (op && op->has_flat_map()) return op->mutable_flat_map()->mutable_per_element();
  return nullptr;
}

// Files the code names that are not here (beside the .py, or where Pipescope runs): synthetic
// ones stand in, so that the spec runs, with a note naming the first missing and the --set
// that names real ones, at `at` (where the code makes the source). A relative name found
// How the records that stand in for `op`'s files are read, where the files cannot come: their
// size and the storage's rate decide whether reading is the bottleneck (seed 000: 204 GB in
// 2 million records, each read by 10 workers), and code does not say. A note of its own, so
// that setting the count or naming the files leaves it standing, and setting either figure
// answers it.
constexpr char kStandInRecordIs[] = "each stand-in record of '";
std::string StandInRecordDescription(const std::string& op, int64_t record_bytes) {
  return kStandInRecordIs + op + "' is " + std::to_string(record_bytes) +
         " bytes, read as fast as memory gives them unless the disk is named: describe the real "
         "ones with --set " +
         op +
         ".record_bytes=N, and where they are with --set storage.kind=hdd (or ssd, nvme: the "
         "local disk every reader shares) or --set " +
         op + ".bandwidth=RATE (e.g. 200MB/s: storage of their own)";
}

// beside the .py is made absolute.
void StandInMissingFiles(ImportedCode& code, const std::filesystem::path& base, SourcePoint at) {
  namespace fs = std::filesystem;
  auto here = [&](std::string& f) {
    std::error_code ec;
    if (fs::exists(f, ec)) return true;
    if (fs::path(f).is_relative() && fs::exists(base / f, ec)) {
      f = (base / f).string();
      return true;
    }
    return false;
  };
  auto first_missing = [&](google::protobuf::RepeatedPtrField<std::string>& files) {
    for (auto& f : files) {
      if (!here(f)) return f;
    }
    return std::string();
  };
  spec::Source& s = *code.spec.mutable_source();

  auto describe = [&](const std::string& op, int64_t record_bytes) {
    code.notes.push_back({at, StandInRecordDescription(op, record_bytes)});
  };

  // The readers over the names: synthetic files stand in for each.
  auto stand_in_readers = [&]() {
    for (auto& op : *code.spec.mutable_ops()) {
      spec::ElementSource* per = PerElementOf(&op);
      if (!per || !engine::ReadsANamedFile(*per)) continue;
      code.written_per_element[op.name()] = *per;
      code.stand_in_readers[op.name()] = *per;
      const spec::StandsFor stands_for = StandsForReads(ReadsOf(*per));
      const int64_t record_bytes = StandInRecordBytes(*per);
      per->mutable_synthetic_file()->set_records_per_file(kStandInRecordsPerFile);
      per->mutable_synthetic_file()->set_record_bytes(record_bytes);
      per->mutable_synthetic_file()->set_stands_for(stands_for);
    }
  };
  std::vector<std::string> listed;
  spec::ElementSource per_file;
  if (engine::FilesAndReaderOf(s, listed, per_file)) {
    const spec::Source written = s;
    const std::string missing = first_missing(*engine::MutableRecordFilesOf(s));
    if (missing.empty()) return;
    code.written_source = written;
    code.source_reader = per_file;
    if (const std::string& compression = engine::CompressionOfReader(per_file);
        !compression.empty()) {
      code.notes.push_back({at, CompressedStandInNote("the", compression, s.name())});
    }
    code.source_stand_in = true;
    const int64_t record_bytes = StandInRecordBytes(per_file);
    s.clear_kind();
    s.mutable_synthetic()->set_records(kStandInRecords);
    s.mutable_synthetic()->set_record_bytes(record_bytes);
    s.mutable_synthetic()->set_stands_for(StandsForReads(ReadsOf(per_file)));
    // The files' note and the count's apart, so that giving the count answers its own and
    // leaves the files' (a note naming a setting goes once it is set).
    code.notes.push_back({at, "'" + missing +
                                  "' is not here (nor beside the code): synthetic records stand "
                                  "in; --set " +
                                  s.name() + ".files=PATTERN reads real files"});
    code.notes.push_back({at, std::to_string(kStandInRecords) +
                                  " synthetic records stand in for the files' records: --set " +
                                  s.name() + ".records=N gives their count"});
    describe(s.name(), record_bytes);
  } else if (s.has_list_files()) {
    const std::string pattern = s.list_files().pattern();
    if (!engine::GlobFiles(pattern).empty()) return;
    const std::string beside = (base / pattern).string();
    if (fs::path(pattern).is_relative() && !engine::GlobFiles(beside).empty()) {
      s.mutable_list_files()->set_pattern(beside);
      return;
    }
    code.written_source = s;
    code.source_stand_in = true;
    s.clear_list_files();
    // A name without a wildcard lists that one file (list_files of "train.tfrecords"): one
    // stands in, so that a shard of it is as empty as tf.data's (seed 000).
    const bool one_file = pattern.find_first_of("*?[") == std::string::npos;
    s.mutable_range()->set_stop(one_file ? 1 : kStandInFiles);
    stand_in_readers();
    code.notes.push_back(
        {at, one_file ? "'" + pattern +
                            "' names one file (no wildcard), which is not here (nor beside the "
                            "code): one file of synthetic records stands in; --set " +
                            s.name() + ".pattern=PATTERN lists real files"
                      : "no file matches '" + pattern +
                            "' here (nor beside the code): " + std::to_string(kStandInFiles) +
                            " files of synthetic records stand in; --set " + s.name() +
                            ".pattern=PATTERN lists real files"});
    if (!code.stand_in_readers.empty()) {  // described at the first reader over the files
      const auto& [op, reader] = *code.stand_in_readers.begin();
      describe(op, StandInRecordBytes(reader));
    }
  } else if (s.from_tensor_slices().strings_size() > 0) {
    bool read = false;
    for (const auto& op : code.spec.ops()) {
      read = read || engine::ReadsANamedFile(op.interleave().per_element()) ||
             engine::ReadsANamedFile(op.flat_map().per_element());
    }
    if (!read) return;
    const spec::Source written = s;
    const std::string missing = first_missing(*s.mutable_from_tensor_slices()->mutable_strings());
    if (missing.empty()) return;
    code.written_source = written;
    stand_in_readers();
    code.notes.push_back({at, "'" + missing +
                                  "' is not here (nor beside the code): synthetic "
                                  "files stand in for the files the names read"});
  }
}

// Whether the pipeline reads real TFRecord files: the records parse_example is for.
bool ReadsRealRecords(const spec::PipelineSpec& spec) {
  const spec::Source& s = spec.source();
  if (s.has_tfrecord()) return s.tfrecord().files_size() > 0;
  if (!s.has_list_files() && s.from_tensor_slices().strings_size() == 0) return false;
  for (const spec::Op& op : spec.ops()) {
    if (op.has_interleave()) return op.interleave().per_element().has_tfrecord_file();
    if (op.has_flat_map()) return op.flat_map().per_element().has_tfrecord_file();
  }
  return false;
}

// What real files give the pipeline's native work, for a note where that work cannot run on
// it; empty where the records are stand-ins.
std::string RealData(const spec::PipelineSpec& spec) {
  if (ReadsRealRecords(spec)) return "(images the code reads itself or takes from a feature)";
  const spec::Source& s = spec.source();
  const spec::ElementSource* per = nullptr;
  for (const spec::Op& op : spec.ops()) {
    if ((per = engine::PerElementSourceOf(op))) break;
  }
  const bool names = s.has_list_files() || s.from_tensor_slices().strings_size() > 0;
  const bool fixed_length =
      (s.has_fixed_length_record() && s.fixed_length_record().files_size() > 0) ||
      (names && per && per->has_fixed_length_record_file());
  if (fixed_length) {
    return "(the raw bytes of fixed-length records, which only the code's own decoding, "
           "tf.io.decode_raw, makes numbers of)";
  }
  const bool lines = (s.has_text_line() && s.text_line().files_size() > 0) ||
                     (names && per && per->has_text_line_file());
  return lines ? "(lines of text, which only the code's own parsing makes numbers of)" : "";
}

spec::WorkFunction* NativeWorkOf(spec::Op& op) {
  if (!op.has_map()) return nullptr;
  spec::WorkFunction* fn = op.mutable_map()->mutable_fn();
  return fn->has_cpu_work() || fn->has_python() || fn->has_io_wait() ? nullptr : fn;
}

std::string NativeWorkName(const spec::WorkFunction& fn) {
  return fn.has_parse_example() ? "parse_example"
         : fn.has_decode_csv()  ? "decode_csv"
         : fn.has_decode_jpeg() ? "decode_jpeg"
         : fn.has_resize()      ? "resize"
         : fn.has_random_crop() ? "random_crop"
         : fn.has_random_flip() ? "random_flip_left_right"
                                : "its work";
}

// What the elements hold on their way, as far as native work cares.
enum class Data { kInts, kRecords, kLines, kParsed, kImages, kOther };

Data SourceData(const spec::PipelineSpec& spec) {
  const spec::Source& s = spec.source();
  if (ReadsRealRecords(spec)) return Data::kRecords;
  if (s.has_text_line() && s.text_line().files_size() > 0) return Data::kLines;
  if (s.has_range() || s.from_tensor_slices().values_size() > 0) return Data::kInts;
  return Data::kOther;
}

// What an interleave's or flat_map's dataset of each element holds: the lines of real text
// files (their names are real: not a stand-in's), else nothing native work is written for.
Data PerElementData(const spec::PipelineSpec& spec, const spec::ElementSource& per) {
  const spec::Source& s = spec.source();
  const bool names = s.has_list_files() || s.from_tensor_slices().strings_size() > 0;
  if (names && per.has_text_line_file()) return Data::kLines;
  if (names && per.has_tfrecord_file()) return Data::kRecords;
  return Data::kOther;
}

// Whether `fn` can run on `data`, and what its elements hold after it.
bool RunsOn(const spec::WorkFunction& fn, Data& data) {
  switch (fn.kind_case()) {
    case spec::WorkFunction::kParseExample:
      if (data != Data::kRecords) return false;
      data = Data::kParsed;
      return true;
    case spec::WorkFunction::kDecodeJpeg:
      if (data != Data::kParsed || fn.decode_jpeg().feature().empty()) return false;
      data = Data::kImages;
      return true;
    case spec::WorkFunction::kResize:
    case spec::WorkFunction::kRandomCrop:
    case spec::WorkFunction::kRandomFlip:
      return data == Data::kImages;
    case spec::WorkFunction::kNormalize:
      return data == Data::kImages || data == Data::kInts;
    case spec::WorkFunction::kFill:
      if (data != Data::kInts) return false;
      data = Data::kOther;
      return true;
    case spec::WorkFunction::kUnpackBits:
      return data == Data::kRecords || data == Data::kParsed;
    case spec::WorkFunction::kDecodeCsv:
      if (data != Data::kLines) return false;
      data = Data::kOther;
      return true;
    default:
      return true;
  }
}

// Native work runs on the data it is written for (RunsOn). Anything else (stand-in records,
// images the code reads itself with tf.io.read_file) would fail on the engine, so its
// typical cost stands in for it, with a note; it comes back when real files are set
// (RestoreNativeWork).
// Returns what the elements hold after `ops`.
// `real_data`: what real files give that the work cannot run on, in parentheses; empty where
// the records are stand-ins.
Data StandInNativeWorkOf(ImportedCode& code, google::protobuf::RepeatedPtrField<spec::Op>& ops,
                         Data data, const std::string& real_data,
                         const engine::Result<sim::CostModel>& costs) {
  const bool real = !real_data.empty();
  // The rows of the batches a map after a batch takes: its work runs once a row.
  int64_t rows = 1;
  for (auto& op : ops) {
    if (op.has_batch()) rows = std::max<int64_t>(1, op.batch().batch_size());
    if (op.has_padded_batch()) rows = std::max<int64_t>(1, op.padded_batch().batch_size());
    if (op.has_unbatch()) rows = 1;
    // The ops over each element's dataset (CsvDataset's decode_csv inside
    // make_csv_dataset's interleave) run on what that dataset holds, and it is what follows.
    if (spec::ElementSource* per = PerElementOf(&op)) {
      auto* inner = engine::MutableSubPipelineOf(op);
      const Data each = PerElementData(code.spec, *per);
      const Data made = StandInNativeWorkOf(code, *inner, each, real_data, costs);
      if (each != Data::kOther) data = made;
      continue;
    }
    spec::WorkFunction* fn = NativeWorkOf(op);
    // Native work runs where its data is: parse_example on real records, decode_jpeg on the
    // feature of a parsed record it names, image work on decoded images, fill on numbers.
    if (!fn || RunsOn(*fn, data)) continue;
    data = Data::kOther;
    int64_t ns = kDecodeJpegNs;
    if (costs.ok() && !fn->has_decode_jpeg()) {
      // The work's own cost: the map's dispatch per call stays the map's (call_overhead).
      const sim::OpCost& c = costs->Of(op.name());
      auto overhead = engine::MapCallOverheadNs(op.map());
      const int64_t dispatch = overhead.ok() ? *overhead : 0;
      ns = std::max<int64_t>(1000,
                             static_cast<int64_t>(c.cpu.mean_ns - static_cast<double>(dispatch) +
                                                  c.cpu_per_row.mean_ns));
    }
    // Three significant digits, in a unit the spec and a `# pipescope:` comment both read.
    int64_t digits = 1;
    while (ns / digits >= 1000) digits *= 10;
    ns = ns / digits * digits;
    const std::string duration = std::to_string(ns) + "ns";
    code.native_work[op.name()] = {*fn, duration};
    const std::string what = NativeWorkName(*fn);
    // A random function's cost keeps its randomness (a cache after it freezes its draws).
    if (op.has_map() && engine::WorkFunctionIsRandom(*fn)) op.mutable_map()->set_random(true);
    // So is decode_jpeg's want of a batched form (it takes one image's bytes): its cost
    // cannot follow batch either. (TensorFlow's resize and flips take batches.)
    const bool one_element = fn->has_decode_jpeg();
    // The size of what it makes stays known where the work fixed it (a resize's float32
    // image), for the memory advice and the copies after it.
    const std::optional<int64_t> made = engine::BytesAfterWork(*fn, std::nullopt);
    fn->Clear();
    fn->mutable_cpu_work()->set_duration(duration);
    if (made) fn->set_output_bytes(*made);
    if (one_element) fn->mutable_cpu_work()->set_one_element_call(what);
    const auto at = code.op_at.find(op.name());
    code.notes.push_back({at != code.op_at.end() ? at->second : SourcePoint{},
                          "'" + op.name() + "' runs " + what + " on data the spec does not have " +
                              (real ? real_data : "(stand-in records)") + ": its typical cost, " +
                              engine::FormatDuration(ns) +
                              (rows > 1 ? " a row (it maps batches of " + std::to_string(rows) +
                                              " rows, and costs that on each)"
                                        : std::string(" a call")) +
                              ", stands in; --set " + op.name() + ".cost=DURATION sets " +
                              (rows > 1 ? "a row's" : "it") +
                              (real ? "" : ", real files bring the work back")});
  }
  return data;
}

void StandInNativeWork(ImportedCode& code) {
  const auto costs = sim::DefaultCostModel(code.spec, 1);
  StandInNativeWorkOf(code, *code.spec.mutable_ops(), SourceData(code.spec), RealData(code.spec),
                      costs);
}

// A map that reads each file its element names (tf.io.read_file) from a remote store blocks
// on the store for every file, using no core: a request's stand-in latency beside its work,
// said, until set (tensorflow#20068's audio files on Cloud Storage, 5 to 10 times slower
// than from disk: more num_parallel_calls than cores then pay). From local files, it reads
// each from the disk a spec names (from memory until one is named), a stand-in size until
// set (keras#6503's and tensorflow#28130's images on a hard disk or an SSD). A function that
// reads several (tensorflow#28130's image and its pair) reads each, one after another.
void ReadTheNamedFiles(ImportedCode& code) {
  for (const auto& [name, reads] : code.file_reads) {
    spec::Op* op = FindOp(code.spec, name);
    if (!op || !op->has_map()) continue;
    spec::WorkFunction& fn = *op->mutable_map()->mutable_fn();
    const auto at = code.op_at.find(name);
    const SourcePoint where = at != code.op_at.end() ? at->second : SourcePoint{};
    const std::string what =
        "'" + name + "' reads " +
        (reads.files > 1 ? std::to_string(reads.files) + " files" : std::string("the file")) +
        " each element names (tf.io.read_file)";
    if (reads.store.empty()) {
      // A stand-in cost reads a stand-in file; native work is left as it is.
      if (!fn.has_cpu_work() || fn.cpu_work().read_bytes() > 0) continue;
      fn.mutable_cpu_work()->set_read_bytes(kStandInFileBytes * reads.files);
      if (reads.files > 1) fn.mutable_cpu_work()->set_read_files(reads.files);
      code.notes.push_back(
          {where, what + ", " + engine::FormatBytes(kStandInFileBytes) +
                      (reads.files > 1 ? " each" : "") +
                      " standing in, from memory until the disk is named: --set storage.kind=hdd "
                      "(or ssd, nvme) for files on a disk the page cache does not hold, --set " +
                      name + ".read_bytes=SIZE for " +
                      (reads.files > 1 ? "a call's files together" : "their size")});
      continue;
    }
    std::string* wait = fn.has_cpu_work() ? fn.mutable_cpu_work()->mutable_wait()
                        : fn.has_python() ? fn.mutable_python()->mutable_wait()
                                          : nullptr;
    if (!wait || !wait->empty()) continue;
    // One request after another.
    engine::Result<int64_t> request = engine::ParseDurationNs(RemoteStoreStandIn::kRequestLatency);
    *wait = engine::SpecDuration((request.ok() ? *request : 0) * reads.files);
    code.notes.push_back(
        {where, what + " from " + reads.store + ": each read waits on the store, using no core, " +
                    RemoteStoreStandIn::kRequestLatency + " standing in (a request's, not " +
                    "measured): --set " + name + ".wait=DURATION" +
                    (reads.files > 1 ? " for a call's " + std::to_string(reads.files) + " reads"
                                     : std::string())});
  }
}

// The spec says which counts are stand-ins, so that advice resting on the data's size is
// held back (SetCodeKnob clears them as counts or files are set).
void MarkStandInSizes(ImportedCode& code) {
  spec::PipelineSpec& spec = code.spec;
  if (code.source_stand_in) spec.mutable_source()->set_size_is_stand_in(true);
  for (const auto& [name, reader] : code.stand_in_readers) {
    spec::ElementSource* per = PerElementOf(FindOp(spec, name));
    if (per && per->has_synthetic_file()) per->mutable_synthetic_file()->set_size_is_stand_in(true);
  }
}

// A stand-in count that the code's own skips would empty (tensorflow#40502's skip(10000) of
// 10,000 stand-in records left no step to simulate): the stand-in holds what they skip and
// kStandInRecords more. Says why where it grew; "" otherwise.
std::string SizeStandInPastItsSkips(ImportedCode& code) {
  spec::Source& source = *code.spec.mutable_source();
  if (!code.source_stand_in || !source.has_synthetic()) return "";
  int64_t skipped = 0;
  for (const spec::Op& op : code.spec.ops()) {
    if (op.has_skip()) skipped += std::max<int64_t>(0, op.skip().count());
    // Past a repeat or a filter, a skip's count is no longer of the source's records.
    if (op.has_repeat() || op.has_filter() || op.has_batch()) break;
  }
  const int64_t records = source.synthetic().records();
  if (records < 0 || skipped < records) return "";
  source.mutable_synthetic()->set_records(skipped + kStandInRecords);
  return "past the " + std::to_string(skipped) + " the code skips";
}

// A map's native work back in place of the cost that stood in for it; a random one says its
// randomness itself again. The size a call returns is the function's, kept where it was set
// on the stand-in (--set OP.sample_bytes, a `# pipescope:` line).
void PutBackNativeWork(spec::Op& op, const spec::WorkFunction& fn) {
  const int64_t made = op.map().fn().output_bytes();
  *op.mutable_map()->mutable_fn() = fn;
  if (made > 0 && engine::BytesAfterWork(fn, std::nullopt) != made) {
    op.mutable_map()->mutable_fn()->set_output_bytes(made);
  }
  if (engine::WorkFunctionIsRandom(fn)) op.mutable_map()->clear_random();
}

// Every op, and those over each element's dataset inside interleaves and flat_maps.
void ForEachOp(google::protobuf::RepeatedPtrField<spec::Op>& ops,
               const std::function<void(spec::Op&)>& visit) {
  for (auto& op : ops) {
    visit(op);
    if (auto* sub = engine::MutableSubPipelineOf(op)) ForEachOp(*sub, visit);
  }
}

// Real files are set: the native work the stand-ins replaced comes back where it can run.
void RestoreNativeWork(ImportedCode& code) {
  ForEachOp(*code.spec.mutable_ops(), [&](spec::Op& op) {
    const auto it = code.native_work.find(op.name());
    if (it == code.native_work.end()) return;
    if (op.has_map() && op.map().fn().cpu_work().duration() == it->second.second) {
      PutBackNativeWork(op, it->second.first);
    }
    RemoveAnsweredNotes(code, op.name() + ".cost");  // its stand-in's note
  });
  code.native_work.clear();
  StandInNativeWork(code);
}

}  // namespace

spec::PipelineSpec AsWritten(const ImportedCode& code) {
  spec::PipelineSpec spec = code.spec;
  if (code.written_source) *spec.mutable_source() = *code.written_source;
  for (auto& op : *spec.mutable_ops()) {
    const auto it = code.written_per_element.find(op.name());
    if (it == code.written_per_element.end()) continue;
    if (op.has_interleave()) *op.mutable_interleave()->mutable_per_element() = it->second;
    if (op.has_flat_map()) *op.mutable_flat_map()->mutable_per_element() = it->second;
  }
  ForEachOp(*spec.mutable_ops(), [&](spec::Op& op) {
    const auto it = code.native_work.find(op.name());
    if (it != code.native_work.end()) PutBackNativeWork(op, it->second.first);
  });
  return spec;
}

std::string FormatNote(const std::string& origin, const CodeNote& note) {
  const std::string file =
      note.at.file == nullptr
          ? origin
          : (std::filesystem::path(origin).parent_path() / note.at.file).generic_string();
  return file + ":" + std::to_string(note.at.line) + ":" + std::to_string(note.at.column) + ": " +
         note.message;
}

engine::Result<ImportedCode> ImportCode(const std::string& source, const std::string& origin,
                                        const ImportOptions& options) {
  const PythonTree tree(source);
  PythonReader reader(
      tree, {&TfDataDialect(), &TorchDialect(), &KerasDialect(), &FlagsDialect(), &PathsDialect()});
  const std::filesystem::path folder = std::filesystem::path(origin).parent_path();
  reader.ReadModulesFrom(folder.empty() ? std::filesystem::path(".") : folder);
  reader.Read();
  const PipelineUse* chosen = Chosen(reader, options.pipeline);
  if (!chosen) {
    std::string why = options.pipeline.empty()
                          ? origin +
                                ": no input pipeline to simulate: no tf.data pipeline, no "
                                "DataLoader, no fit(...) over a generator, Sequence or dataset"
                          : origin + ": no pipeline is bound to '" + options.pipeline + "'";
    std::set<std::string> bound;
    for (const PipelineUse& u : reader.uses()) {
      if (!u.variable.empty()) bound.insert(u.variable);
    }
    if (!options.pipeline.empty() && !bound.empty()) {
      std::string names;
      for (const std::string& b : bound) names += (names.empty() ? "" : ", ") + b;
      why += " (the file binds " + names + ")";
    }
    for (const CodeNote& n : reader.notes()) why += "\n  " + FormatNote(origin, n);
    return engine::InvalidArgument(why);
  }
  const Pipeline& p = *chosen->pipeline;
  ImportedCode code;
  code.framework = p.framework;
  code.notes = reader.notes();
  for (const CodeNote& n : p.notes) code.notes.push_back(n);
  if (!p.stand_in_note.empty()) code.notes.push_back({p.source_at, p.stand_in_note});
  NoteOthers(reader, *chosen, code);
  NoteWorkAfterPipeline(tree, reader, *chosen, code);
  code.source_stand_in = p.stand_in;
  code.source_reader = p.reader;
  // A compressed file's stand-in records are plain (minigo#520's ZLIB files filled a shuffle
  // buffer ten times slower than the stand-in).
  if (const std::string& compression =
          p.reader ? engine::CompressionOfReader(*p.reader) : std::string();
      p.stand_in && !compression.empty()) {
    code.notes.push_back({p.source_at, CompressedStandInNote("the", compression, p.source.name())});
  }
  code.stand_in_readers = p.stand_in_readers;
  code.sites = p.sites;
  code.before_more_workers = p.before_more_workers;
  code.autotune_spelling = p.autotune_spelling;
  code.tensorflow_1 = p.tensorflow_1 || p.autotune_spelling.starts_with("tf.contrib.");
  code.op_at = p.op_at;
  code.op_spans = p.op_spans;
  code.source_end = p.source_end;
  code.source_statement = p.source_statement;
  code.file_reads = p.file_reads;
  code.batched_renames = p.batched_renames;
  code.made_inside = p.made_inside;
  if (!chosen->taken_by_hand.empty() && !p.ops.empty()) {
    code.made_inside[p.ops.back().name()] = chosen->taken_by_hand;
  }
  code.source_text = source;

  spec::PipelineSpec& spec = code.spec;
  spec.set_name(std::filesystem::path(origin).stem().string());
  spec.set_description("imported from " + std::filesystem::path(origin).filename().string() + " (" +
                       p.framework + ") by pipescope-cli import-code");
  *spec.mutable_source() = p.source;
  for (const spec::Op& op : p.ops) *spec.add_ops() = op;
  for (const spec::LeftOutCode& c : p.left_out) *spec.add_left_out() = c;
  spec.mutable_train_step()->set_device(spec::simulated);
  if (chosen->step_free) {
    spec.mutable_train_step()->set_step_time("0ms");
    code.notes.push_back({chosen->at,
                          "the loop does nothing with what it is given: the step "
                          "takes no time, and what is timed is the input alone "
                          "(--set train_step.step_time=DURATION for a training "
                          "step)"});
  } else if (chosen->step_sleep_ns > 0) {
    // A sleep holds no core: the step of a device the loop waits for.
    spec.mutable_train_step()->set_step_time(engine::SpecDuration(chosen->step_sleep_ns));
    code.notes.push_back({chosen->at, "the loop sleeps " +
                                          engine::SpecDuration(chosen->step_sleep_ns) +
                                          " for each element it is given: read as the training "
                                          "step, on a simulated device, no core used"});
  } else if (chosen->trains_on_cpu) {
    spec.mutable_train_step()->set_step_time(kStandInStep);
    spec.mutable_train_step()->set_device(spec::cpu);
    code.notes.push_back({chosen->at, chosen->cpu_because + ", a step of " + kStandInStep +
                                          " of CPU work sharing the cores with the input "
                                          "pipeline until set: --set "
                                          "train_step.step_time=DURATION "
                                          "(train_step.device=simulated for a GPU)"});
  } else {
    spec.mutable_train_step()->set_step_time(kStandInStep);
    code.notes.push_back({chosen->at, std::string("the training step is not in the input "
                                                  "pipeline's code: ") +
                                          kStandInStep +
                                          " a step on a simulated device until set: --set "
                                          "train_step.step_time=DURATION"});
  }
  if (chosen->eager_components > 0) EagerLoopNext(code, *chosen);
  CountLoopEpochs(code, reader.EpochsOf(p.id));
  if (chosen && chosen->single_pass) CountOnePass(code, chosen->at);
  StandInMissingFiles(code, std::filesystem::path(origin).parent_path(), p.source_at);
  MarkStandInSizes(code);
  const std::string past_skips = SizeStandInPastItsSkips(code);
  std::string sized_by = SizeStandInRecordsByTheirParse(code);
  if (!sized_by.empty()) {  // the records' description says the size they were given
    const spec::Source& s = code.spec.source();
    for (CodeNote& n : code.notes) {
      if (n.message.starts_with(kStandInRecordIs + s.name() + "' is ")) {
        n.message = StandInRecordDescription(s.name(), s.synthetic().record_bytes());
      }
    }
  }
  if (!past_skips.empty()) sized_by = sized_by.empty() ? past_skips : sized_by + ", " + past_skips;
  if (p.stand_in_records && code.spec.source().has_synthetic()) {
    const spec::Source& s = code.spec.source();
    code.notes.push_back({p.source_at, StandInRecordsNote(s.name(), s.synthetic().records(),
                                                          s.synthetic().record_bytes(), sized_by)});
  }
  StandInNativeWork(code);
  ReadTheNamedFiles(code);
  // The file's notes first, then each module's, each by place.
  std::stable_sort(code.notes.begin(), code.notes.end(), [](const CodeNote& a, const CodeNote& b) {
    return std::tuple(a.at.file_name(), a.at.line, a.at.column) <
           std::tuple(b.at.file_name(), b.at.line, b.at.column);
  });
  // Settings the file carries for itself (`# pipescope: parse.cost=40us`).
  for (const auto& [at, text] : reader.pragmas()) {
    std::istringstream words(text);
    for (std::string assignment; words >> assignment;) {
      if (const engine::Status s = SetCodeKnob(code, assignment); !s.ok()) {
        code.notes.push_back(
            {at, "'# pipescope: " + assignment + "' is not applied: " + s.message()});
      }
    }
  }
  // Values the framework itself refuses (a shuffle buffer of AUTOTUNE, a batch of 0).
  if (const engine::Status valid = engine::ValidateSpec(spec, origin); !valid.ok()) {
    return engine::InvalidArgument(origin + ": the pipeline it builds is not one " + p.framework +
                                   " runs: " + valid.message());
  }
  return code;
}

engine::Result<ImportedCode> ImportCodeFile(const std::string& path, const ImportOptions& options) {
  ASSIGN_OR_RETURN(const std::string text, engine::ReadWholeFile(path, "Python file"));
  return ImportCode(text, path, options);
}

engine::Status SetCodeKnob(ImportedCode& code, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  const size_t dot = assignment.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq) {
    return engine::InvalidArgument("expected OP.KNOB=VALUE, got '" + assignment + "'");
  }
  const std::string target = assignment.substr(0, eq);
  const std::string name = assignment.substr(0, dot);
  const std::string knob = assignment.substr(dot + 1, eq - dot - 1);
  const std::string value = assignment.substr(eq + 1);
  spec::PipelineSpec& spec = code.spec;
  spec::Source& source = *spec.mutable_source();

  if (knob == "files" && name == source.name() && code.source_reader) {
    const std::vector<std::string> files = engine::GlobFiles(value);
    if (files.empty()) return engine::NotFound("no file matches '" + value + "'");
    // The files are compressed (and cut) as the code says, which the stand-in's records were
    // not.
    source = engine::SourceOfFiles(source.name(), files, *code.source_reader);
    code.source_stand_in = false;
    RestoreNativeWork(code);
  } else if (spec::Source* second = engine::FindSourceNamed(spec, name);
             knob == "files" && second && second != &source && second->has_synthetic()) {
    // A zip's second pipeline over files the code computes: the reader its stand-in stands
    // for, over the files given.
    const std::vector<std::string> files = engine::GlobFiles(value);
    if (files.empty()) return engine::NotFound("no file matches '" + value + "'");
    const bool text = second->synthetic().stands_for() == spec::text_line_files;
    *second = engine::SourceOfFiles(second->name(), files,
                                    FileReaderOf(text ? "text_line" : "tfrecord", "", {}));
  } else if (knob == "size_is_stand_in" && name == source.name()) {
    // Written by --emit where the code it writes states a stand-in's count.
    if (value != "true" && value != "false") {
      return engine::InvalidArgument(assignment + ": true or false");
    }
    source.set_size_is_stand_in(value == "true");
  } else if (knob == "pattern" && name == source.name() && code.source_stand_in) {
    source.clear_range();
    source.mutable_list_files()->set_pattern(value);
    source.clear_size_is_stand_in();
    code.source_stand_in = false;
    // The interleaves over these names now read the files the code reads.
    for (const auto& [op_name, reader] : code.stand_in_readers) {
      if (spec::ElementSource* per = PerElementOf(FindOp(spec, op_name))) *per = reader;
    }
    RestoreNativeWork(code);
  } else {
    RETURN_IF_ERROR(engine::ApplyOverride(spec, assignment));
  }
  RemoveAnsweredNotes(code, target);
  // Real files read: no stand-in record is left to describe.
  if (knob == "files" || knob == "pattern") {
    std::erase_if(code.notes, [](const CodeNote& n) {
      return n.message.starts_with(kStandInRecordIs) || n.message.starts_with("the stand-in is ");
    });
  }
  return engine::Status::Ok();
}

}  // namespace pipescope::code
