#include "engine/spec/spec_validator.h"

#include <map>
#include <set>
#include <vector>

#include "engine/core/duration.h"
#include "engine/io/byte_source.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "engine/spec/spec_loader.h"
#include "engine/work/work_registry.h"

namespace pipescope::engine {
namespace {

using google::protobuf::Message;
using google::protobuf::TextFormat;

// Where in the user's file a message lives: its parse subtree and the line it starts on.
struct Where {
  const TextFormat::ParseInfoTree* tree = nullptr;
  int line = -1;     // 0-based, -1 when unknown
  std::string what;  // "op 'decode' (map)"
};

class Checker {
 public:
  Checker(std::string source) : source_(std::move(source)) {}

  // Location of `field` of `msg` (the field's own line when it was written, else the
  // enclosing message's line).
  int LineOf(const Message& msg, const Where& where, const char* field, int index = -1) const {
    if (!where.tree) return where.line;
    const auto* fd = msg.GetDescriptor()->FindFieldByName(field);
    if (!fd) return where.line;
    if (fd->is_repeated() && index < 0) index = 0;  // the first occurrence
    auto loc = where.tree->GetLocation(fd, index);
    return loc.line >= 0 ? loc.line : where.line;
  }

  Where Nested(const Message& msg, const Where& where, const char* field, std::string what,
               int index = -1) const {
    Where w{nullptr, LineOf(msg, where, field, index), std::move(what)};
    if (where.tree) {
      if (const auto* fd = msg.GetDescriptor()->FindFieldByName(field)) {
        w.tree = where.tree->GetTreeForNested(fd, index);
      }
    }
    return w;
  }

  void Fail(const Message& msg, const Where& where, const char* field, const std::string& text) {
    const int line = LineOf(msg, where, field);
    std::string prefix = source_;
    if (line >= 0) prefix += ":" + std::to_string(line + 1);
    prefix += ": ";
    if (!where.what.empty()) prefix += where.what + ": ";
    errors_.push_back(prefix + (field[0] ? std::string(field) + " " : std::string()) + text);
  }

  // A number that is not an op's knob (the training step's, the budget's).
  void AtLeast(const Message& msg, const Where& where, const char* field, int64_t value,
               int64_t min) {
    if (value < min) {
      Fail(msg, where, field,
           "must be ≥ " + std::to_string(min) + ", got " + std::to_string(value));
    }
  }

  // A numeric knob of an op of `kind`: within its description's range, or AUTOTUNE where
  // the description allows it.
  void Knob(const Message& msg, const Where& where, std::string_view kind, const char* field,
            int64_t value) {
    const KnobDescription& knob = *DescribeKnob(kind, field);
    if (value == kAutotune && (knob.autotune || knob.min > kAutotune)) {
      if (!knob.autotune) {
        Fail(msg, where, field,
             std::string("cannot be AUTOTUNE") +
                 (knob.fixed_because.empty() ? "" : ": " + std::string(knob.fixed_because)));
      }
      return;
    }
    if (value < knob.min || value > knob.max) {
      Fail(msg, where, field,
           (value < knob.min ? "must be ≥ " + std::to_string(knob.min)
                             : "must be ≤ " + std::to_string(knob.max)) +
               (knob.autotune ? " or AUTOTUNE" : "") + ", got " + std::to_string(value));
    }
  }

  void Duration(const Message& msg, const Where& where, const char* field, const std::string& text,
                bool required) {
    if (text.empty()) {
      if (required) Fail(msg, where, field, "is required (e.g. \"2ms\")");
      return;
    }
    auto parsed = ParseDurationNs(text);
    if (!parsed.ok()) Fail(msg, where, field, parsed.status().message());
  }

  void Rate(const Message& msg, const Where& where, const char* field, const std::string& text) {
    if (text.empty()) return;
    auto parsed = ParseBytesPerSecond(text);
    if (!parsed.ok()) Fail(msg, where, field, parsed.status().message());
  }

  Status Finish() const {
    if (errors_.empty()) return Status::Ok();
    std::string text;
    for (const auto& e : errors_) text += (text.empty() ? "" : "\n") + e;
    return InvalidArgument(text);
  }

 private:
  std::string source_;
  std::vector<std::string> errors_;
};

void CheckSyntheticShape(Checker& c, const Message& m, const Where& w, int64_t records,
                         int64_t record_bytes, const char* records_field) {
  if (records == 0 || records < -1) c.Fail(m, w, records_field, "must be ≥ 1 (or -1: endless)");
  if (record_bytes < 0) c.Fail(m, w, "record_bytes", "must be ≥ 0");
}

void CheckSource(Checker& c, const spec::Source& s, const Where& w) {
  switch (s.kind_case()) {
    case spec::Source::kRange:
      break;
    case spec::Source::kListFiles:
      if (s.list_files().pattern().empty()) {
        c.Fail(s, w, "list_files", "needs a pattern (a glob such as \"data/train-*.tfrecord\")");
      }
      break;
    case spec::Source::kTfrecord: {
      Where tw = c.Nested(s, w, "tfrecord", w.what);
      if (s.tfrecord().files().empty()) {
        c.Fail(s.tfrecord(), tw, "files",
               "needs at least one file (or use list_files + interleave)");
      }
      if (!ParseCompression(s.tfrecord().compression()).ok()) {
        c.Fail(s.tfrecord(), tw, "compression", "must be \"\", \"GZIP\" or \"ZLIB\"");
      }
      break;
    }
    case spec::Source::kSynthetic: {
      const auto& syn = s.synthetic();
      Where sw = c.Nested(s, w, "synthetic", w.what);
      CheckSyntheticShape(c, syn, sw, syn.records(), syn.record_bytes(), "records");
      c.Duration(syn, sw, "read_latency", syn.read_latency(), false);
      c.Rate(syn, sw, "bandwidth", syn.bandwidth());
      break;
    }
    case spec::Source::kTextLine: {
      Where tw = c.Nested(s, w, "text_line", w.what);
      if (s.text_line().files().empty()) {
        c.Fail(s.text_line(), tw, "files",
               "needs at least one file (or use list_files + interleave over text_line_file)");
      }
      if (!ParseCompression(s.text_line().compression()).ok()) {
        c.Fail(s.text_line(), tw, "compression", "must be \"\", \"GZIP\" or \"ZLIB\"");
      }
      break;
    }
    case spec::Source::kFromTensorSlices: {
      const auto& f = s.from_tensor_slices();
      const int given = (f.values_size() > 0) + (f.strings_size() > 0) + (f.count() != 0);
      if (given != 1 || f.count() < 0) {
        c.Fail(s, w, "from_tensor_slices",
               "needs one of values, strings (the entries) or count ≥ 1 (that many elements, "
               "0 .. count - 1)");
      }
      break;
    }
    case spec::Source::KIND_NOT_SET:
      c.Fail(s, w, "",
             "needs a kind: range, from_tensor_slices, list_files, tfrecord, text_line or "
             "synthetic");
      break;
  }
}

// Checks `ops` (at `depth`: 1 inside an interleave) and returns whether they give batches.
bool CheckOps(Checker& c, const Message& parent, const Where& parent_where,
              const google::protobuf::RepeatedPtrField<spec::Op>& ops, const char* field,
              bool input_batched, int depth);

void CheckElementSource(Checker& c, const spec::ElementSource& es, const Where& w) {
  switch (es.kind_case()) {
    case spec::ElementSource::kFromElement:
      break;
    case spec::ElementSource::kSyntheticFile: {
      const auto& f = es.synthetic_file();
      Where fw = c.Nested(es, w, "synthetic_file", w.what);
      CheckSyntheticShape(c, f, fw, f.records_per_file(), f.record_bytes(), "records_per_file");
      c.Duration(f, fw, "open_latency", f.open_latency(), false);
      c.Duration(f, fw, "read_latency", f.read_latency(), false);
      c.Rate(f, fw, "bandwidth", f.bandwidth());
      break;
    }
    case spec::ElementSource::kTfrecordFile:
      if (!ParseCompression(es.tfrecord_file().compression()).ok()) {
        c.Fail(es, w, "tfrecord_file", "compression must be \"\", \"GZIP\" or \"ZLIB\"");
      }
      break;
    case spec::ElementSource::kTextLineFile:
      if (!ParseCompression(es.text_line_file().compression()).ok()) {
        c.Fail(es, w, "text_line_file", "compression must be \"\", \"GZIP\" or \"ZLIB\"");
      }
      break;
    case spec::ElementSource::KIND_NOT_SET:
      c.Fail(es, w, "",
             "needs a kind: from_element, synthetic_file, tfrecord_file or text_line_file");
      break;
  }
}

void CheckWorkFunction(Checker& c, const spec::MapOp& map, const Where& w, bool input_batched) {
  const auto& fn = map.fn();
  Where fw = c.Nested(map, w, "fn", w.what);
  switch (fn.kind_case()) {
    case spec::WorkFunction::kCpuWork:
      c.Duration(fn.cpu_work(), c.Nested(fn, fw, "cpu_work", w.what), "duration",
                 fn.cpu_work().duration(), true);
      break;
    case spec::WorkFunction::kIoWait:
      c.Duration(fn.io_wait(), c.Nested(fn, fw, "io_wait", w.what), "duration",
                 fn.io_wait().duration(), true);
      break;
    case spec::WorkFunction::KIND_NOT_SET:
      c.Fail(map, w, "fn", "is required (cpu_work, io_wait, unpack_bits, normalize, identity)");
      return;
    default:
      break;
  }
  if (input_batched && !WorkFunctionHasBatchedForm(fn)) {
    c.Fail(map, w, "fn",
           fn.has_parse_example()
               ? std::string("'parse_example' after batch is tf.io.parse_example, whose var_len "
                             "features are SparseTensors, which elements here do not hold; "
                             "make them fixed-length or move the map before the batch")
               : "'" + WorkFunctionName(fn) +
                     "' has no batched form, so it cannot follow batch; move the map before "
                     "the batch");
  }
}

// An op that opens a dataset per input element (interleave, flat_map, whose message is
// `m`, written at `mw`): its per_element source and its sub-pipeline; whether that gives
// batches.
template <class SubPipelineOp>
bool CheckSubPipeline(Checker& c, const SubPipelineOp& m, const Where& mw, std::string_view kind,
                      bool batched, int depth) {
  if (!m.has_per_element()) {
    c.Fail(m, mw, "per_element", "is required (from_element, synthetic_file, tfrecord_file)");
  } else {
    CheckElementSource(c, m.per_element(), c.Nested(m, mw, "per_element", mw.what));
    if (batched && m.per_element().from_element().repeat_by_value()) {
      c.Fail(m, mw, "per_element",
             "from_element.repeat_by_value repeats each element by its int64 value, and the " +
                 std::string(kind) + "'s input is batched; move the " + std::string(kind) +
                 " before the batch");
    }
  }
  return CheckOps(c, m, mw, m.ops(), "ops", false, depth + 1);
}

void CheckOp(Checker& c, const spec::Op& op, const Where& w, bool& batched, int depth) {
  bool sub_batched = false;
  switch (op.kind_case()) {
    case spec::Op::kFlatMap:
      sub_batched = CheckSubPipeline(c, op.flat_map(), c.Nested(op, w, "flat_map", w.what),
                                     "flat_map", batched, depth);
      break;
    case spec::Op::kInterleave: {
      const auto& il = op.interleave();
      Where iw = c.Nested(op, w, "interleave", w.what);
      sub_batched = CheckSubPipeline(c, il, iw, "interleave", batched, depth);
      // tf.data refuses a written 0 for both; absent means AUTOTUNE and 1 (op_values.h).
      if (il.has_cycle_length() && il.cycle_length() == 0) {
        c.Fail(il, iw, "cycle_length", "must be greater than zero (or AUTOTUNE), got 0");
      } else {
        c.Knob(il, iw, "interleave", "cycle_length", CycleLength(il));
      }
      if (il.has_block_length() && il.block_length() == 0) {
        c.Fail(il, iw, "block_length", "must be greater than zero, got 0");
      } else {
        c.Knob(il, iw, "interleave", "block_length", BlockLength(il));
      }
      c.Knob(il, iw, "interleave", "num_parallel_calls", il.num_parallel_calls());
      break;
    }
    case spec::Op::kMap: {
      const auto& m = op.map();
      Where mw = c.Nested(op, w, "map", w.what);
      c.Knob(m, mw, "map", "num_parallel_calls", m.num_parallel_calls());
      CheckWorkFunction(c, m, mw, batched);
      break;
    }
    case spec::Op::kFilter: {
      const auto& f = op.filter();
      Where fw = c.Nested(op, w, "filter", w.what);
      const auto& p = f.predicate();
      if (p.kind_case() == spec::Predicate::KIND_NOT_SET) {
        c.Fail(f, fw, "predicate", "is required (keep_fraction or mod_equals)");
      } else if (p.has_keep_fraction() &&
                 (p.keep_fraction().fraction() < 0 || p.keep_fraction().fraction() > 1)) {
        c.Fail(f, fw, "predicate", "keep_fraction.fraction must be in [0, 1]");
      } else if (p.has_mod_equals() && p.mod_equals().modulus() <= 0) {
        c.Fail(f, fw, "predicate", "mod_equals.modulus must be ≥ 1");
      }
      break;
    }
    case spec::Op::kShuffle: {
      Where sw = c.Nested(op, w, "shuffle", w.what);
      c.Knob(op.shuffle(), sw, "shuffle", "buffer_size", op.shuffle().buffer_size());
      break;
    }
    case spec::Op::kBatch: {
      Where bw = c.Nested(op, w, "batch", w.what);
      c.Knob(op.batch(), bw, "batch", "batch_size", op.batch().batch_size());
      break;
    }
    case spec::Op::kUnbatch:
      break;
    case spec::Op::kPrefetch: {
      Where pw = c.Nested(op, w, "prefetch", w.what);
      c.Knob(op.prefetch(), pw, "prefetch", "buffer_size", op.prefetch().buffer_size());
      break;
    }
    case spec::Op::kShard: {
      const auto& s = op.shard();
      Where sw = c.Nested(op, w, "shard", w.what);
      c.Knob(s, sw, "shard", "num_shards", s.num_shards());
      if (s.num_shards() >= 1 && (s.index() < 0 || s.index() >= s.num_shards())) {
        c.Fail(s, sw, "index",
               "must be in [0, num_shards), got " + std::to_string(s.index()) + " of " +
                   std::to_string(s.num_shards()));
      }
      break;
    }
    case spec::Op::kCache: {
      Where cw = c.Nested(op, w, "cache", w.what);
      if (depth > 0) {
        c.Fail(op, w, "cache",
               "inside an interleave's ops is not supported; put it after the interleave");
      }
      if (!op.cache().filename().empty()) {
        c.Fail(
            op.cache(), cw, "filename",
            "file caches are not supported by this build yet; leave it empty to cache in memory");
      }
      break;
    }
    case spec::Op::kRepeat:
      c.Knob(op.repeat(), c.Nested(op, w, "repeat", w.what), "repeat", "count",
             RepeatCount(op.repeat()));
      break;
    case spec::Op::kTake:
      c.Knob(op.take(), c.Nested(op, w, "take", w.what), "take", "count", op.take().count());
      break;
    case spec::Op::kSkip:
      c.Knob(op.skip(), c.Nested(op, w, "skip", w.what), "skip", "count", op.skip().count());
      break;
    case spec::Op::KIND_NOT_SET:
      c.Fail(op, w, "", "needs a kind (map, batch, prefetch, ...)");
      return;
  }
  batched = OutputBatched(*DescribeOp(op), batched, sub_batched);
}

bool CheckOps(Checker& c, const Message& parent, const Where& parent_where,
              const google::protobuf::RepeatedPtrField<spec::Op>& ops, const char* field,
              bool input_batched, int depth) {
  bool batched = input_batched;
  for (int i = 0; i < ops.size(); ++i) {
    const auto& op = ops[i];
    Where w =
        c.Nested(parent, parent_where, field, "op '" + op.name() + "' (" + OpKindName(op) + ")", i);
    CheckOp(c, op, w, batched, depth);
  }
  return batched;
}

void CollectNames(const google::protobuf::RepeatedPtrField<spec::Op>& ops,
                  std::map<std::string, int>& counts) {
  for (const auto& op : ops) {
    counts[op.name()]++;
    if (const auto* sub = SubPipelineOf(op)) CollectNames(*sub, counts);
  }
}

void AssignNames(google::protobuf::RepeatedPtrField<spec::Op>& ops, std::set<std::string>& used) {
  for (auto& op : ops) {
    if (op.name().empty()) {
      const std::string base = OpKindName(op);
      std::string name = base;
      for (int n = 2; used.count(name); ++n) name = base + "_" + std::to_string(n);
      op.set_name(name);
    }
    used.insert(op.name());
    if (auto* sub = MutableSubPipelineOf(op)) AssignNames(*sub, used);
  }
}

void CollectUsed(const google::protobuf::RepeatedPtrField<spec::Op>& ops,
                 std::set<std::string>& used) {
  for (const auto& op : ops) {
    if (!op.name().empty()) used.insert(op.name());
    if (const auto* sub = SubPipelineOf(op)) CollectUsed(*sub, used);
  }
}

}  // namespace

std::string OpKindName(const spec::Op& op) {
  const auto* oneof = op.GetDescriptor()->FindOneofByName("kind");
  const auto* field = op.GetReflection()->GetOneofFieldDescriptor(op, oneof);
  return field ? field->name() : "op";
}

void AssignDefaultOpNames(spec::PipelineSpec& spec) {
  std::set<std::string> used;
  if (!spec.source().name().empty()) used.insert(spec.source().name());
  CollectUsed(spec.ops(), used);
  if (spec.has_source() && spec.source().name().empty()) {
    std::string name = "source";
    for (int n = 2; used.count(name); ++n) name = "source_" + std::to_string(n);
    spec.mutable_source()->set_name(name);
    used.insert(name);
  }
  AssignNames(*spec.mutable_ops(), used);
}

Status ValidateSpec(const spec::PipelineSpec& spec, const std::string& source_name,
                    const TextFormat::ParseInfoTree* locations) {
  Checker c(source_name);
  Where root{locations, -1, ""};
  if (!spec.has_source()) {
    c.Fail(spec, root, "source",
           "is required (range, from_tensor_slices, list_files, tfrecord or synthetic)");
  } else {
    CheckSource(c, spec.source(),
                c.Nested(spec, root, "source", "source '" + spec.source().name() + "'"));
  }
  std::map<std::string, int> counts;
  if (spec.has_source()) counts[spec.source().name()]++;
  CollectNames(spec.ops(), counts);
  for (const auto& [name, n] : counts) {
    if (n > 1)
      c.Fail(spec, root, "ops",
             "name '" + name + "' is used by " + std::to_string(n) + " ops; names must be unique");
  }
  CheckOps(c, spec, root, spec.ops(), "ops", false, 0);
  if (spec.has_train_step()) {
    const auto& ts = spec.train_step();
    Where tw = c.Nested(spec, root, "train_step", "train_step");
    c.Duration(ts, tw, "step_time", ts.step_time(), false);
    c.AtLeast(ts, tw, "max_in_flight", ts.max_in_flight(), 0);
  }
  c.AtLeast(spec.budget(), c.Nested(spec, root, "budget", "budget"), "cpu_cores",
            spec.budget().cpu_cores(), 0);
  return c.Finish();
}

}  // namespace pipescope::engine
