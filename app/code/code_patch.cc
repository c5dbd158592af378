#include "app/code/code_patch.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/spec/file_readers.h"
#include "engine/spec/pipeline_plan.h"
#include "engine/work/call_overhead.h"

namespace pipescope::code {

namespace {

// Arguments code written back adds that older versions of the framework refuse, and what
// those versions take instead: map's and interleave's deterministic came in TensorFlow 2.2
// (a TypeError before), where tf.data.Options' experimental_deterministic (1.14 on) did it.
std::string_view ArgumentSince(std::string_view keyword) {
  if (keyword == "deterministic") {
    return " (TensorFlow 2.2 and later; on 1.14 to 2.1, set experimental_deterministic = False "
           "on a tf.data.Options() and apply it with dataset.with_options(options))";
  }
  return {};
}

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

const spec::Op* FindOp(const google::protobuf::RepeatedPtrField<spec::Op>& ops,
                       const std::string& name) {
  for (const spec::Op& op : ops) {
    if (op.name() == name) return &op;
    if (op.has_interleave()) {
      if (const spec::Op* sub = FindOp(op.interleave().ops(), name)) return sub;
    }
    if (op.has_flat_map()) {
      if (const spec::Op* sub = FindOp(op.flat_map().ops(), name)) return sub;
    }
  }
  return nullptr;
}

// The op's kind message (MapOp, DataLoaderOp, ...).
const Message* KindOf(const spec::Op& op) {
  const auto* oneof = op.GetDescriptor()->FindOneofByName("kind");
  const FieldDescriptor* f = op.GetReflection()->GetOneofFieldDescriptor(op, oneof);
  return f ? &op.GetReflection()->GetMessage(op, f) : nullptr;
}

// A knob as the code would write it; nullopt when the spec leaves it at the code's default.
// `autotune`: how the code spells AUTOTUNE, in a tf.data file; empty elsewhere.
std::optional<std::string> KnobCode(const Message& m, const std::string& knob,
                                    const std::string& autotune) {
  const FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(knob);
  if (!f || f->is_repeated()) return std::nullopt;
  const auto* r = m.GetReflection();
  if (f->has_presence() && !r->HasField(m, f)) return std::nullopt;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64: {
      const int64_t v = r->GetInt64(m, f);
      return v == -1 && !autotune.empty() ? autotune : std::to_string(v);
    }
    case FieldDescriptor::CPPTYPE_BOOL:
      return std::string(r->GetBool(m, f) ? "True" : "False");
    default:
      return std::nullopt;
  }
}

struct Edit {
  size_t begin, end;
  std::string text;
};

// Whether `e` falls in the call `slot`. A call added right after another (`.cache()` after
// `.skip(n)`) is an insertion where that call ends, which is also where the next call of a
// chain begins: it belongs to the call it follows, and goes wherever that one goes (in both,
// it was written twice).
bool Inside(const Edit& e, const TextSpan& slot) {
  const bool insertion = e.begin == e.end;
  return e.begin >= slot.begin && e.end <= slot.end && !(insertion && e.begin == slot.begin);
}

// Whether `name` is a name the text uses (a whole word of it).
bool UsesName(const std::string& text, const std::string& name) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    if ((at == 0 || !word(text[at - 1])) && (end >= text.size() || !word(text[end]))) return true;
  }
  return false;
}

// Whether the site's value is a keyword argument's (`dataset=Tabular()`): an `=` before it.
bool IsKeywordValue(const std::string& text, const KnobSite& site) {
  size_t i = site.value_begin;
  while (i > 0 && std::isspace(static_cast<unsigned char>(text[i - 1]))) --i;
  return i >= 2 && text[i - 1] == '=' && text[i - 2] != '=' && text[i - 2] != '!' &&
         text[i - 2] != '<' && text[i - 2] != '>';
}

// Keyword arguments (`name=value`, or several joined by ", ") as written in at the site:
// after the arguments there are, or after a trailing comma, keeping it last.
std::string ArgumentsAt(const KnobSite& site, const std::string& keywords) {
  if (site.trailing_comma) return " " + keywords + ",";
  return (site.call_has_arguments ? ", " : "") + keywords;
}

std::vector<std::string> Names(const spec::PipelineSpec& spec) {
  std::vector<std::string> names;
  for (const spec::Op& op : spec.ops()) names.push_back(op.name());
  return names;
}

// The line before which an import goes: the file's first import that is not a __future__
// one (those must come first), else its start.
size_t ImportLine(const std::string& source) {
  size_t at = 0;
  while (at < source.size()) {
    const size_t end = source.find('\n', at);
    const std::string_view line(source.data() + at,
                                (end == std::string::npos ? source.size() : end) - at);
    if ((line.starts_with("import ") || line.starts_with("from ")) &&
        !line.starts_with("from __future__")) {
      return at;
    }
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return 0;
}

// A DataLoader made to fetch whole batches (batch_at_source): batch_size=None and the batch
// drawn by a BatchSampler around the loader's order, PyTorch's own spelling (its
// documentation's "Disable automatic batching"); shuffle=False, as a sampler excludes it, and
// the loader's drop_last=False, as batch_size=None does (DataLoader raises "batch_size=None
// option disables auto-batching and is mutually exclusive with drop_last"): the
// BatchSampler's drop_last keeps the loader's.
// The knobs it writes, so that nothing else writes them; empty when it cannot.
std::set<std::string> WriteFetchBatches(const ImportedCode& original, const spec::Op& after,
                                        std::vector<Edit>& edits, EmittedCode& out) {
  const std::string& op = after.name();
  const auto site = [&](const std::string& knob) -> const KnobSite* {
    const auto it = original.sites.find(op + "." + knob);
    return it == original.sites.end() ? nullptr : &it->second;
  };
  const KnobSite* batch = site("batch_size");
  const KnobSite* shuffle = site("shuffle");
  const KnobSite* drop_last = site("drop_last");
  const KnobSite* dataset = site("dataset");
  if (!batch || !dataset || dataset->value_end == 0 || batch->in_splat ||
      (shuffle && shuffle->in_splat) || (drop_last && drop_last->in_splat) ||
      !batch->unknown_splat.empty()) {
    out.notes.push_back(op +
                        ".fetch_batches = True: not written, as the call's arguments are "
                        "not all in it; give it sampler=BatchSampler(..., batch_size=N) "
                        "and batch_size=None");
    return {};
  }
  const auto& dl = after.dataloader();
  const spec::Op* before = FindOp(original.spec.ops(), op);
  const std::string text = original.source_text;
  const auto written = [&](const KnobSite* s) {
    return s ? text.substr(s->value_begin, s->value_end - s->value_begin) : std::string();
  };
  // The code's own expression where it gives the knob and tuning keeps its value
  // (`batch_size=cfg.batch_size`), so that what sets it still does; else the tuned value.
  const auto kept = [&](const KnobSite* s, const std::string& knob) {
    const auto now = KnobCode(dl, knob, "");
    if (s && s->value_end > 0 && before && KnobCode(*KindOf(*before), knob, "") == now) {
      return written(s);
    }
    return now.value_or("None");
  };
  // A dataset the call makes (`DataLoader(Tabular(), ...)`) is made once, named where the
  // loader is given it (Python 3.8's `:=`), for the sampler to draw its indices from.
  std::string ds = written(dataset);
  const bool made_here = std::any_of(ds.begin(), ds.end(), [](char c) { return c == '('; });
  if (made_here) {
    std::string name = "dataset";
    for (const std::string& free : {"dataset", "loader_dataset", "batched_dataset"}) {
      name = free;
      if (!UsesName(text, free)) break;
    }
    // A keyword's value takes its `:=` in parentheses, as Python's grammar asks.
    const bool keyword = IsKeywordValue(text, *dataset);
    edits.push_back({dataset->value_begin, dataset->value_end,
                     std::string(keyword ? "(" : "") + name + " := " + ds + (keyword ? ")" : "")});
    ds = name;
  }
  // Shuffled as the code says where it says it by a name (`shuffle=cfg.shuffle`).
  const bool shuffle_by_name = shuffle && shuffle->value_end > 0 && shuffle->value_is_name &&
                               kept(shuffle, "shuffle") == written(shuffle);
  const std::string order = shuffle_by_name ? "RandomSampler(" + ds + ") if " + written(shuffle) +
                                                  " else SequentialSampler(" + ds + ")"
                            : dl.shuffle() ? "RandomSampler(" + ds + ")"
                                           : "SequentialSampler(" + ds + ")";
  const std::string sampler = "BatchSampler(" + order +
                              ", batch_size=" + kept(batch, "batch_size") +
                              ", drop_last=" + kept(drop_last, "drop_last") + ")";
  if (batch->value_end > 0) {
    edits.push_back({batch->value_begin, batch->value_end, "None"});
    edits.push_back(
        {batch->insert_at, batch->insert_at, ArgumentsAt(*batch, "sampler=" + sampler)});
  } else {
    edits.push_back({batch->insert_at, batch->insert_at,
                     ArgumentsAt(*batch, "batch_size=None, sampler=" + sampler)});
  }
  if (shuffle && shuffle->value_end > 0) {
    edits.push_back({shuffle->value_begin, shuffle->value_end, "False"});
  }
  if (drop_last && drop_last->value_end > 0) {
    edits.push_back({drop_last->value_begin, drop_last->value_end, "False"});
  }
  const size_t import_at = ImportLine(text);
  edits.push_back({import_at, import_at,
                   std::string("from torch.utils.data import BatchSampler, ") +
                       (shuffle_by_name ? "RandomSampler, SequentialSampler"
                        : dl.shuffle()  ? "RandomSampler"
                                        : "SequentialSampler") +
                       "\n"});
  out.notes.push_back(op +
                      " fetches whole batches: batch_size=None, the batch drawn by "
                      "sampler=" +
                      sampler);
  return {op + ".batch_size", op + ".shuffle", op + ".drop_last", op + ".fetch_batches"};
}

// The tuned pipeline's order and added ops written into a tf.data chain: the ops' method
// calls (ImportedCode::op_spans) trade places, keeping the knob edits inside each, an added
// op's call goes after the call of the op before it (or after the source's), and a map that
// comes to take batches calls its parsers' batched forms (parse_example). False, with
// nothing written, where the code does not let it: an op made by no call of its own (a fused
// map_and_batch, a Keras helper), or an added op tf.data has no spelling for.
bool WriteOrder(const ImportedCode& original, const spec::PipelineSpec& tuned,
                std::vector<Edit>& edits, EmittedCode& out) {
  auto a = Names(original.spec), b = Names(tuned);
  // The training loop's epochs (`for epoch in range(N):`, read as a repeat) are no call of
  // the chain: last in both, they stay where the loop is.
  while (!a.empty() && !b.empty() && a.back() == b.back() &&
         !original.op_spans.contains(a.back())) {
    a.pop_back();
    b.pop_back();
  }
  const auto in = [](const std::vector<std::string>& v, const std::string& n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  std::vector<std::string> common_a, common_b, added;
  for (const auto& n : a) {
    if (in(b, n)) common_a.push_back(n);
  }
  for (const auto& n : b) (in(a, n) ? common_b : added).push_back(n);
  if (common_a == common_b && added.empty()) return true;
  // Every op's call, one each, in the text's order.
  std::vector<TextSpan> slots;
  for (const auto& n : common_a) {
    const auto it = original.op_spans.find(n);
    if (it == original.op_spans.end()) return false;
    if (!slots.empty() && it->second.begin < slots.back().end) return false;
    slots.push_back(it->second);
  }
  // Where each call ends its line (`ds = ds.map(f)  # parse`), its line's comment goes with
  // it, so that comments stay beside the calls they speak of: for every slot or for none (a
  // chain on one line has only its last call at a line's end).
  const std::string& text = original.source_text;
  const auto line_end = [&](size_t at) -> size_t {
    size_t i = at;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < text.size() && text[i] == '#') i = text.find('\n', i);
    if (i == std::string::npos) i = text.size();
    return i == text.size() || text[i] == '\n' ? i : std::string::npos;
  };
  const bool whole_lines = std::all_of(slots.begin(), slots.end(), [&](const TextSpan& t) {
    return line_end(t.end) != std::string::npos;
  });
  if (whole_lines) {
    for (TextSpan& t : slots) t.end = line_end(t.end);
  }
  const auto span_of = [&](const std::string& n) {
    TextSpan t = original.op_spans.at(n);
    if (whole_lines) t.end = line_end(t.end);
    return t;
  };
  // Where each added op goes: after the slot of the common op before it, or the source.
  std::map<size_t, std::string> inserts;   // at byte -> calls, in order
  size_t slot_before = std::string::npos;  // index into slots of the last common op seen
  for (const spec::Op& op : tuned.ops()) {
    if (!in(b, op.name())) break;  // the loop's epochs
    if (in(a, op.name())) {
      slot_before = std::find(common_b.begin(), common_b.end(), op.name()) - common_b.begin();
      continue;
    }
    const std::string method = TfDataMethod(op);
    if (method.empty()) return false;
    // Right after the call of the op before it, inside that op's text, so that it moves
    // with it.
    const size_t at = slot_before == std::string::npos
                          ? original.source_end
                          : original.op_spans.at(common_b[slot_before]).end;
    if (at == 0) return false;
    inserts[at] += method;
  }
  // A map moved past a batch now takes batches.
  const spec::PipelineSpec& before = original.spec;
  const auto index = [](const std::vector<std::string>& v, const std::string& n) {
    return std::find(v.begin(), v.end(), n) - v.begin();
  };
  std::vector<Edit> renames;
  for (const spec::Op& op : tuned.ops()) {
    if (!op.has_map() || !in(a, op.name())) continue;
    bool now_batched = false;
    for (const spec::Op& other : before.ops()) {
      if (!other.has_batch() && !other.has_padded_batch()) continue;
      if (!in(common_b, other.name())) continue;
      now_batched |= index(common_a, op.name()) < index(common_a, other.name()) &&
                     index(common_b, op.name()) > index(common_b, other.name());
    }
    if (!now_batched) continue;
    const auto it = original.batched_renames.find(op.name());
    std::string renamed;
    if (it != original.batched_renames.end()) {
      for (const Rename& r : it->second) {
        renames.push_back({r.at.begin, r.at.end, r.to});
        renamed = original.source_text.substr(r.at.begin, r.at.end - r.at.begin) + " becomes " +
                  r.to + ", which parses a whole batch, ";
      }
    }
    out.notes.push_back("'" + op.name() + "' now runs on batches: " + renamed +
                        "check that its other ops take a leading batch dimension "
                        "(TensorFlow's vectorised mapping)");
  }
  edits.insert(edits.end(), renames.begin(), renames.end());
  for (const auto& [at, calls] : inserts) edits.push_back({at, at, calls});
  // Each slot gets its op's call as the tuned order has it there, with the edits inside it.
  std::vector<Edit> kept;
  std::vector<std::string> slot_text(slots.size());
  for (size_t k = 0; k < slots.size(); ++k) {
    const TextSpan from = span_of(common_b[k]);
    std::string slot = original.source_text.substr(from.begin, from.end - from.begin);
    std::vector<Edit> inside;
    for (const Edit& e : edits) {
      if (Inside(e, from)) inside.push_back(e);
    }
    std::sort(inside.begin(), inside.end(),
              [](const Edit& x, const Edit& y) { return x.begin > y.begin; });
    for (const Edit& e : inside) slot.replace(e.begin - from.begin, e.end - e.begin, e.text);
    slot_text[k] = std::move(slot);
  }
  for (const Edit& e : edits) {
    const bool in_a_slot =
        std::any_of(slots.begin(), slots.end(), [&](const TextSpan& t) { return Inside(e, t); });
    if (!in_a_slot) kept.push_back(e);
  }
  edits = std::move(kept);
  for (size_t k = 0; k < slots.size(); ++k) {
    edits.push_back({slots[k].begin, slots[k].end, slot_text[k]});
  }
  if (common_a != common_b) {
    std::string order;
    for (const auto& n : common_b) order += (order.empty() ? "" : ", ") + n;
    out.notes.push_back("the ops now come in the tuned order: " + order);
  }
  for (const auto& [at, calls] : inserts) out.notes.push_back("added: " + calls);
  return true;
}

// The training loop's epochs made the dataset's repeat, right after the op before them in
// `tuned` (the advice epochs_in_dataset: tf.data fuses a shuffle and the repeat after it,
// whose buffer then fills once, not each epoch): `.repeat()` after that op's call and fit's
// steps_per_epoch, an epoch's batches, so that Keras takes the epochs from one iterator.
// Written only over Keras's fit, whose epochs are its own argument; a `for` loop over the
// epochs is the author's to change. Returns `tuned` with the loop's epochs back at its end,
// as the code still has them, for the rest to be written as usual.
spec::PipelineSpec WriteEpochsIntoTheDataset(const ImportedCode& original,
                                             const spec::PipelineSpec& tuned,
                                             std::vector<Edit>& edits, EmittedCode& out) {
  const int n = original.spec.ops_size();
  if (n == 0) return tuned;
  const spec::Op& loop = original.spec.ops(n - 1);
  if (!loop.has_repeat() || !loop.repeat().training_loop()) return tuned;
  int at = -1;
  for (int i = 1; i < tuned.ops_size(); ++i) {
    const spec::Op& op = tuned.ops(i);
    if (op.name() == loop.name() && op.has_repeat() && !op.repeat().training_loop()) at = i;
  }
  if (at < 0) return tuned;
  const std::string& before = tuned.ops(at - 1).name();
  const auto call = original.op_spans.find(before);
  const auto fit = original.sites.find(loop.name() + ".steps_per_epoch");
  auto plan = engine::PlanPipeline(original.spec, 1);
  if (call == original.op_spans.end() || fit == original.sites.end() || !plan.ok() ||
      !plan->ops.back().input_elements) {
    out.notes.push_back(
        "the epochs as the dataset's repeat, right after '" + before +
        "': not written into the file (the loop over the epochs is the code's own); write "
        ".repeat(EPOCHS) after it and iterate the dataset once");
    return tuned;
  }
  const std::string steps = std::to_string(*plan->ops.back().input_elements);
  // The loop's count: a repeat forever would go on filling the shuffle buffer past the last
  // epoch with elements no step takes.
  const int64_t count = loop.repeat().has_count() ? loop.repeat().count() : -1;
  const std::string repeat_call =
      count < 0 ? ".repeat()" : ".repeat(" + std::to_string(count) + ")";
  edits.push_back({call->second.end, call->second.end, repeat_call});
  edits.push_back({fit->second.insert_at, fit->second.insert_at,
                   ArgumentsAt(fit->second, "steps_per_epoch=" + steps)});
  out.notes.push_back("added: " + repeat_call + " after '" + before +
                      "', and steps_per_epoch=" + steps +
                      " to fit: its epochs now come from one iterator over the dataset, "
                      "which tf.data runs with the shuffle as one op");
  spec::PipelineSpec rest = tuned;
  rest.mutable_ops()->DeleteSubrange(at, 1);
  *rest.add_ops() = loop;
  return rest;
}

// A tuned setting tf.data takes as an option of the whole pipeline, not as an argument of
// the op's call: the option's line (after `options.`) and what the notes say of it.
struct PipelineOption {
  std::string line;
  std::string note;
};

// deterministic=False for an op whose call has no such argument (TFRecordDataset's
// num_parallel_reads interleave). nullopt for any other change.
std::optional<PipelineOption> OptionFor(const std::string& knob,
                                        const std::optional<std::string>& code, bool tensorflow_1) {
  if (knob == "deterministic" && code == "False" && tensorflow_1) {
    return PipelineOption{
        "experimental_deterministic = False",
        "deterministic=False: written as a tf.data.Options() with experimental_deterministic = "
        "False, TensorFlow 1's (1.14 on; the code makes a TensorFlow 1 iterator, and the "
        "deterministic argument came in 2.2), applied to the source with with_options: it lets "
        "every op of the pipeline give elements out of order, not only the one advised"};
  }
  if (knob == "deterministic" && code == "False") {
    return PipelineOption{
        "deterministic = False  # experimental_deterministic before TensorFlow 2.7",
        "deterministic=False: written as a tf.data.Options() with deterministic = False "
        "(TensorFlow 2.7 and later; experimental_deterministic from 1.14), applied to the "
        "source with with_options: it lets every op of the pipeline give elements out of order, "
        "not only the one advised"};
  }
  return std::nullopt;
}

// The indentation of the statement that makes the source, where a tf.data.Options can be
// made before it; nullopt where the code does not show the source made on a line of its own.
std::optional<std::string> OptionsIndent(const ImportedCode& original) {
  const std::string& text = original.source_text;
  const size_t statement = original.source_statement;
  if (original.source_end == 0 || statement >= original.source_end) return std::nullopt;
  const size_t line = text.rfind('\n', statement == 0 ? 0 : statement - 1);
  const size_t line_begin = line == std::string::npos || statement == 0 ? 0 : line + 1;
  const std::string indent = text.substr(line_begin, statement - line_begin);
  if (indent.find_first_not_of(" \t") != std::string::npos) return std::nullopt;
  return indent;
}

// tf.data's way for the whole pipeline: one tf.data.Options with `options` set, made before
// the source's statement and applied right after the source's call.
void WriteOptions(const ImportedCode& original, const std::string& indent,
                  const std::vector<PipelineOption>& options, std::vector<Edit>& edits) {
  const std::string name = UsesName(original.source_text, "options") ? "data_options" : "options";
  std::string made = name + " = tf.data.Options()\n" + indent;
  for (const PipelineOption& option : options) {
    made += name + "." + option.line + "\n" + indent;
  }
  edits.push_back({original.source_statement, original.source_statement, made});
  edits.push_back({original.source_end, original.source_end, ".with_options(" + name + ")"});
}

}  // namespace

// A reader of the code's files (TFRecordDataset(files), ...) that the tuned pipeline reads
// several at once: its source made the file names and an interleave of the same reader,
// named as the source was (advice kind interleave_files). Written as the reader's own
// num_parallel_reads=K; returns the tuned spec as the code's source then reads it (the
// source back, no interleave), so that the rest compares op by op.
spec::PipelineSpec WriteParallelReads(const ImportedCode& original, const spec::PipelineSpec& tuned,
                                      std::vector<Edit>& edits, EmittedCode& out) {
  const spec::Source& was = original.spec.source();
  std::vector<std::string> files;
  spec::ElementSource per_file;
  if (!engine::FilesAndReaderOf(was, files, per_file) || tuned.ops_size() == 0) return tuned;
  const spec::Op& read = tuned.ops(0);
  const auto site = original.sites.find(was.name() + ".num_parallel_reads");
  if (read.name() != was.name() || !read.has_interleave() || site == original.sites.end() ||
      read.interleave().per_element().SerializeAsString() != per_file.SerializeAsString() ||
      tuned.source().from_tensor_slices().strings_size() != static_cast<int>(files.size())) {
    return tuned;
  }
  const std::string k = std::to_string(read.interleave().num_parallel_calls());
  const KnobSite& at = site->second;
  if (at.value_end > 0) {
    edits.push_back({at.value_begin, at.value_end, k});
  } else {
    edits.push_back({at.insert_at, at.insert_at, ArgumentsAt(at, "num_parallel_reads=" + k)});
  }
  out.knobs_written.push_back(site->first);
  out.notes.push_back(was.name() + ": num_parallel_reads=" + k + " (its files read " + k +
                      " at a time)");
  spec::PipelineSpec as_read = tuned;
  *as_read.mutable_source() = was;
  as_read.mutable_ops()->DeleteSubrange(0, 1);
  return as_read;
}

engine::Result<EmittedCode> PatchCode(const ImportedCode& original,
                                      const spec::PipelineSpec& advised) {
  EmittedCode out;
  const bool tfdata = original.framework == "tfdata";
  const std::string autotune =
      !tfdata ? std::string()
              : (original.autotune_spelling.empty() ? std::string("tf.data.AUTOTUNE")
                                                    : original.autotune_spelling);
  std::vector<Edit> edits;
  // Settings that are options of the whole pipeline, written once in one tf.data.Options.
  const std::optional<std::string> options_indent = tfdata ? OptionsIndent(original) : std::nullopt;
  std::vector<PipelineOption> option_lines;
  const auto add_option = [&](const PipelineOption& option, const std::string& key) {
    if (std::none_of(option_lines.begin(), option_lines.end(),
                     [&](const PipelineOption& o) { return o.line == option.line; })) {
      option_lines.push_back(option);
      out.notes.push_back(option.note);
    }
    out.knobs_written.push_back(key);
  };
  const spec::PipelineSpec tuned =
      tfdata ? WriteParallelReads(
                   original, WriteEpochsIntoTheDataset(original, advised, edits, out), edits, out)
             : advised;
  std::set<std::string> written;  // knobs a rewrite of their call wrote
  for (const spec::Op& op : tuned.ops()) {
    const spec::Op* before = FindOp(original.spec.ops(), op.name());
    if (before && before->has_dataloader() && op.has_dataloader() &&
        !before->dataloader().fetch_batches() && op.dataloader().fetch_batches()) {
      written.merge(WriteFetchBatches(original, op, edits, out));
    }
  }
  // One argument may carry two knobs (make_csv_dataset's num_parallel_reads is its
  // interleave's parallelism and cycle length): what each call's argument got, by where the
  // call's arguments end and the argument's name.
  std::map<std::pair<size_t, std::string>, std::pair<std::string, std::string>> arguments;
  std::map<size_t, std::string> defaults_written;  // a flag's default, by where: what it became
  std::vector<std::pair<std::string, KnobSite>> sites(original.sites.begin(), original.sites.end());
  std::stable_sort(sites.begin(), sites.end(),
                   [](const auto& x, const auto& y) { return x.second.order < y.second.order; });
  // A knob's code before and after; both nullopt where its op is not in both pipelines.
  const auto codes = [&](const std::string& key, const KnobSite& site) {
    const size_t dot = key.rfind('.');
    const std::string op_name = key.substr(0, dot), knob = key.substr(dot + 1);
    const spec::Op* before = FindOp(original.spec.ops(), op_name);
    const spec::Op* after = FindOp(tuned.ops(), op_name);
    std::pair<std::optional<std::string>, std::optional<std::string>> code;
    if (!before || !after || before->kind_case() != after->kind_case()) return code;
    code = {KnobCode(*KindOf(*before), knob, autotune), KnobCode(*KindOf(*after), knob, autotune)};
    if (site.inverted) {  // the argument says the opposite (sloppy for deterministic)
      for (auto* c : {&code.first, &code.second}) {
        if (*c) *c = **c == "True" ? "False" : "True";
      }
    }
    return code;
  };
  // A literal that names carry to the knobs (`NUM_WORKERS = 4`) is written where every knob
  // it sets takes one value after tuning: where one stays and another changes (deeplab's
  // NUM_READERS, both its readers and its parallel reads), the call takes the value instead.
  std::map<size_t, std::optional<std::string>> literal_after;  // by where: the one value, if any
  for (const auto& [key, site] : sites) {
    if (site.written_end == 0 || written.count(key)) continue;
    const auto [was, now] = codes(key, site);
    const std::optional<std::string> value = now ? now : was;
    const auto [at, fresh] = literal_after.try_emplace(site.written_begin, value);
    if (!fresh && at->second != value) at->second.reset();
  }
  for (const auto& [key, site] : sites) {
    if (written.count(key)) continue;
    const size_t dot = key.rfind('.');
    const std::string op_name = key.substr(0, dot), knob = key.substr(dot + 1);
    const auto [old_code, new_code] = codes(key, site);
    if (old_code == new_code || !new_code) continue;
    const std::string keyword = site.keyword.empty() ? knob : site.keyword;
    const auto [given, first] = arguments.try_emplace({site.insert_at, keyword}, *new_code, key);
    if (!first) {
      if (given->second.first != *new_code) {
        out.notes.push_back(key + " = " + *new_code + ": not written, as `" + keyword +
                            "` carries " + given->second.second + " = " + given->second.first);
      }
      continue;
    }
    if (site.default_end > 0) {
      // A flag's value (`num_workers=args.workers`): its default changes, and the flag still
      // sets the knob (pytorch/examples' `-j`). Every use of the flag takes the new default.
      // By the flag's own name where the call reads it through another (`self.n_workers`).
      const std::string flag =
          !site.flag.empty()
              ? site.flag
              : original.source_text.substr(site.value_begin, site.value_end - site.value_begin);
      const std::string was =
          original.source_text.substr(site.default_begin, site.default_end - site.default_begin);
      const auto [earlier, fresh] = defaults_written.try_emplace(site.default_begin, *new_code);
      if (!fresh) {
        if (earlier->second != *new_code) {
          out.notes.push_back(key + " = " + *new_code + ": not written, as the default of `" +
                              flag + "` is already written as " + earlier->second);
        }
        continue;
      }
      edits.push_back({site.default_begin, site.default_end, *new_code});
      out.knobs_written.push_back(key);
      const auto line = 1 + std::count(original.source_text.begin(),
                                       original.source_text.begin() +
                                           static_cast<std::ptrdiff_t>(site.default_begin),
                                       '\n');
      out.notes.push_back(op_name + "." + knob + ": `" + flag + "`'s default (line " +
                          std::to_string(line) + ") `" + was + "` becomes " + *new_code +
                          ", so the flag still sets it; whatever else takes `" + flag +
                          "` takes it too");
    } else if (site.written_end > 0 && literal_after[site.written_begin] == new_code) {
      // The name's own literal changes (a config's `workers = 4`), so the name still sets the
      // knob; a second knob it sets, given the same value, is written with it.
      const std::string name =
          original.source_text.substr(site.value_begin, site.value_end - site.value_begin);
      const std::string was =
          original.source_text.substr(site.written_begin, site.written_end - site.written_begin);
      out.knobs_written.push_back(key);
      if (!defaults_written.try_emplace(site.written_begin, *new_code).second) continue;
      edits.push_back({site.written_begin, site.written_end, *new_code});
      const auto line = 1 + std::count(original.source_text.begin(),
                                       original.source_text.begin() +
                                           static_cast<std::ptrdiff_t>(site.written_begin),
                                       '\n');
      out.notes.push_back(op_name + "." + knob + ": `" + name + "` is `" + was + "` as line " +
                          std::to_string(line) + " writes it, which becomes " + *new_code +
                          ", so `" + name + "` still sets it; whatever else reads it takes " +
                          *new_code + " too");
    } else if (site.value_end > 0) {
      // A knob the code leaves to run time (a flag) keeps its name in a comment.
      const std::string was =
          original.source_text.substr(site.value_begin, site.value_end - site.value_begin);
      edits.push_back({site.value_begin, site.value_end, *new_code});
      out.knobs_written.push_back(key);
      // Each value written is said; a flag or an expression the code computes gives way to
      // the tuned value, as the job may run with another.
      // A name (deeplab's `NUM_READERS`, also its num_parallel_reads) changes in this call only.
      out.notes.push_back(
          op_name + "." + knob + ": `" + was + "` becomes " + *new_code +
          (site.value_is_name ? " in this call (`" + was + "` itself stays as it is)" : ""));
      if (site.in_splat) {
        out.notes.push_back(op_name + "." + knob + ": written into the dict the call spreads, `" +
                            was + "` becomes " + *new_code +
                            " (other calls given that dict get it too)");
      }
    } else if (!site.unknown_splat.empty()) {
      // A keyword written beside `**kwargs` that holds it would raise a TypeError.
      out.notes.push_back(op_name + "." + knob + " = " + *new_code +
                          ": not written, as the call passes `" + site.unknown_splat +
                          "`, which may hold it; set it there");
    } else if (site.excludes_end > 0 && !site.excludes_positional) {
      edits.push_back({site.excludes_begin, site.excludes_end, keyword + "=" + *new_code});
      out.knobs_written.push_back(key);
      out.notes.push_back(op_name + "." + knob + ": " + keyword + "=" + *new_code +
                          " takes the place of `" + site.excludes +
                          "`, which the call cannot be given beside it");
    } else if (const auto option = options_indent && original.tensorflow_1
                                       ? OptionFor(knob, new_code, true)
                                       : std::nullopt;
               option && keyword == knob) {
      // TensorFlow 1 takes no such argument (deterministic came in 2.2): its option does it.
      add_option(*option, key);
    } else {
      edits.push_back(
          {site.insert_at, site.insert_at, ArgumentsAt(site, keyword + "=" + *new_code)});
      out.knobs_written.push_back(key);
      out.notes.push_back(op_name + "." + knob + ": " + keyword + "=" + *new_code + " added" +
                          std::string(ArgumentSince(keyword)));
      if (site.excludes_end > 0) {
        edits.push_back({site.excludes_begin, site.excludes_end, "None"});
        out.notes.push_back(op_name + "." + knob + ": `" + site.excludes +
                            "` becomes None, as the call cannot be given both");
      }
    }
  }
  // A loader whose workers the tuned spec takes away: PyTorch's DataLoader raises a
  // ValueError where num_workers=0 is given prefetch_factor, persistent_workers=True or a
  // multiprocessing_context (pytorch#12831's spawn context, written with num_workers=0, did
  // not run). Each that the call gives becomes its no-workers value.
  for (const spec::Op& op : tuned.ops()) {
    const spec::Op* before = FindOp(original.spec.ops(), op.name());
    if (!op.has_dataloader() || !before || !before->has_dataloader() ||
        op.dataloader().num_workers() != 0 || before->dataloader().num_workers() == 0) {
      continue;
    }
    for (const auto& [argument, none] :
         {std::pair<const char*, const char*>{"prefetch_factor", "None"},
          {"persistent_workers", "False"},
          {"multiprocessing_context", "None"}}) {
      const std::string key = op.name() + "." + argument;
      const auto site = original.sites.find(key);
      const bool edited = written.count(key) > 0 ||
                          std::find(out.knobs_written.begin(), out.knobs_written.end(), key) !=
                              out.knobs_written.end();
      if (site == original.sites.end() || site->second.value_end == 0 || edited) continue;
      const std::string was = original.source_text.substr(
          site->second.value_begin, site->second.value_end - site->second.value_begin);
      if (was == none) continue;
      edits.push_back({site->second.value_begin, site->second.value_end, none});
      out.notes.push_back(key + ": `" + was + "` becomes " + none +
                          ", as PyTorch's DataLoader refuses it without workers");
    }
  }
  // A loader given more workers than it had, whose Dataset holds what workers cannot share.
  for (const auto& [op_name, change] : original.before_more_workers) {
    const spec::Op* before = FindOp(original.spec.ops(), op_name);
    const spec::Op* after = FindOp(tuned.ops(), op_name);
    if (before && after && before->has_dataloader() && after->has_dataloader() &&
        after->dataloader().num_workers() > before->dataloader().num_workers()) {
      const std::string before_running = "before running it with " +
                                         std::to_string(after->dataloader().num_workers()) +
                                         " workers: " + change;
      out.notes.push_back(before_running);
      // Said in the copy too, above the line that sets the workers (a comment is Python
      // inside a call's parentheses as well), so the file does not read as ready to run.
      if (const auto site = original.sites.find(op_name + ".num_workers");
          site != original.sites.end()) {
        const size_t at =
            site->second.value_end > 0 ? site->second.value_begin : site->second.insert_at;
        const std::string& text = original.source_text;
        // (npos + 1: the file's first line.)
        const size_t line = at == 0 ? 0 : text.rfind('\n', at - 1) + 1;
        const size_t indent_end = text.find_first_not_of(" \t", line);
        const std::string indent =
            text.substr(line, (indent_end == std::string::npos ? text.size() : indent_end) - line);
        // Not "# pipescope:", the prefix of the pragmas import-code reads back.
        edits.push_back({line, line, indent + "# Pipescope's advice: " + before_running + "\n"});
      }
    }
  }
  // What arguments cannot say: ops moved and added, written where the code makes each op
  // (tf.data's method calls), else named in the notes.
  const auto a = Names(original.spec), b = Names(tuned);
  for (const std::string& n : a) {
    if (std::find(b.begin(), b.end(), n) == b.end()) {
      out.notes.push_back("the tuned pipeline has no op '" + n + "': not written into the file");
    }
  }
  // A source read otherwise (one file split into many and an interleave over them) is not
  // the code's own source with ops around it: nothing of the order is written.
  const bool same_source = original.spec.source().name() == tuned.source().name() &&
                           original.spec.source().kind_case() == tuned.source().kind_case();
  if (!same_source) {
    out.notes.push_back("the tuned pipeline reads its source otherwise (source '" +
                        tuned.source().name() +
                        "'): not written into the file (--emit gives the whole pipeline as "
                        "code)");
  }
  if (!tfdata || !same_source || !WriteOrder(original, tuned, edits, out)) {
    for (const spec::Op& op : tuned.ops()) {
      if (std::find(a.begin(), a.end(), op.name()) != a.end()) continue;
      const std::string method = tfdata ? TfDataMethod(op) : std::string();
      out.notes.push_back("the tuned pipeline adds op '" + op.name() + "'" +
                          (method.empty() ? std::string() : " (" + method + ")") +
                          ": not written into the file; add it where the tuned spec has it");
    }
    std::vector<std::string> common_a, common_b;
    for (const auto& n : a) {
      if (std::find(b.begin(), b.end(), n) != b.end()) common_a.push_back(n);
    }
    for (const auto& n : b) {
      if (std::find(a.begin(), a.end(), n) != a.end()) common_b.push_back(n);
    }
    if (common_a != common_b) {
      out.notes.push_back(
          "the tuned pipeline orders its ops otherwise: not written into the file "
          "(--emit gives the whole pipeline as code)");
    }
  }
  for (const spec::Op& op : tuned.ops()) {
    const spec::Op* before = FindOp(original.spec.ops(), op.name());
    if (!before) continue;
    const Message* m = KindOf(op);
    const Message* o = KindOf(*before);
    if (!m || !o || before->kind_case() != op.kind_case()) continue;
    for (int k = 0; k < m->GetDescriptor()->field_count(); ++k) {
      const std::string knob = m->GetDescriptor()->field(k)->name();
      if (original.sites.count(op.name() + "." + knob) || written.count(op.name() + "." + knob)) {
        continue;
      }
      const auto x = KnobCode(*o, knob, autotune), y = KnobCode(*m, knob, autotune);
      const auto option = tfdata ? OptionFor(knob, y, original.tensorflow_1) : std::nullopt;
      if (option && x != y) {
        if (options_indent) {
          add_option(*option, op.name() + "." + knob);
        } else {
          out.notes.push_back(op.name() + "." + knob +
                              ": not written, as the code does not make its source on a line of "
                              "its own, where a tf.data.Options() would go: set options." +
                              option->line + " and apply it with with_options");
        }
        continue;
      }
      if (x != y && y) {
        const auto inside = original.made_inside.find(op.name());
        out.notes.push_back(op.name() + "." + knob + " = " + *y +
                            ": the code has no argument for it to write into" +
                            (inside != original.made_inside.end() ? "; " + inside->second : ""));
      }
    }
  }
  if (!option_lines.empty()) WriteOptions(original, *options_indent, option_lines, edits);
  // Back to front; at one place a replacement before an insertion, so that the insertion
  // lands in front of the replaced text rather than inside what it replaces. Insertions at
  // one place are applied last-made first, so that the text reads them in the order made.
  std::reverse(edits.begin(), edits.end());
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& x, const Edit& y) {
    return x.begin != y.begin ? x.begin > y.begin : x.end > y.end;
  });
  out.text = original.source_text;
  for (const Edit& e : edits) out.text.replace(e.begin, e.end - e.begin, e.text);
  return out;
}

}  // namespace pipescope::code
