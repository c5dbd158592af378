#include "engine/spec/spec_validator.h"

#include <map>
#include <set>
#include <vector>

#include "engine/core/duration.h"
#include "engine/io/byte_source.h"
#include "engine/spec/field_checker.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "engine/spec/spec_loader.h"
#include "engine/work/work_registry.h"

namespace pipescope::engine {
namespace {

using google::protobuf::Message;
using google::protobuf::TextFormat;

using Checker = FieldChecker;

void CheckSyntheticShape(Checker& c, const Message& m, const Where& w, int64_t records,
                         int64_t record_bytes, const char* records_field) {
  if (records == 0 || records < -1) c.Fail(m, w, records_field, "must be ≥ 1 (or -1: endless)");
  if (record_bytes < 0) c.Fail(m, w, "record_bytes", "must be ≥ 0");
}

// A from_generator's, as the pipeline's source or per element of an interleave.
void CheckGenerator(Checker& c, const spec::FromGeneratorSource& g, const Where& gw) {
  if (g.records() == 0 || g.records() < -1) {
    c.Fail(g, gw, "records", "must be ≥ 1 (or -1: endless)");
  }
  c.Duration(g, gw, "duration", g.duration(), true);
  if (!g.call_overhead().empty()) c.Duration(g, gw, "call_overhead", g.call_overhead(), true);
  if (!g.wait().empty()) c.Duration(g, gw, "wait", g.wait(), true);
  if (!g.first_wait().empty()) c.Duration(g, gw, "first_wait", g.first_wait(), true);
  if (g.rows_per_yield() < 0)
    c.Fail(g, gw, "rows_per_yield", "must be ≥ 0 (0 or 1: a row a yield)");
  c.GilShare(g, gw, PythonGilShare(g));
}

// How FixedLengthRecordDataset cuts a file (spec::FixedLengthRecordFile), written at `w`.
void CheckFixedLengthFormat(Checker& c, const spec::FixedLengthRecordFile& f, const Where& w) {
  if (f.record_bytes() < 1) c.Fail(f, w, "record_bytes", "must be ≥ 1: each record's size");
  if (f.header_bytes() < 0) c.Fail(f, w, "header_bytes", "must be ≥ 0");
  if (f.footer_bytes() < 0) c.Fail(f, w, "footer_bytes", "must be ≥ 0");
  if (!ParseCompression(f.compression()).ok()) {
    c.Fail(f, w, "compression", "must be \"\", \"GZIP\" or \"ZLIB\"");
  }
}

void CheckSource(Checker& c, const spec::Source& s, const Where& w) {
  switch (s.kind_case()) {
    case spec::Source::kRange:
      break;
    case spec::Source::kFromGenerator:
      CheckGenerator(c, s.from_generator(), c.Nested(s, w, "from_generator", w.what));
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
    case spec::Source::kFixedLengthRecord: {
      const auto& f = s.fixed_length_record();
      Where fw = c.Nested(s, w, "fixed_length_record", w.what);
      if (f.files().empty()) {
        c.Fail(f, fw, "files",
               "needs at least one file (or use list_files + interleave over "
               "fixed_length_record_file)");
      }
      CheckFixedLengthFormat(c, f.format(), c.Nested(f, fw, "format", fw.what));
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
      c.AtLeast(f, c.Nested(s, w, "from_tensor_slices", w.what), "element_bytes", f.element_bytes(),
                0);
      if (f.element_bytes() > 0 && f.count() == 0) {
        c.Fail(f, c.Nested(s, w, "from_tensor_slices", w.what), "element_bytes",
               "sizes the elements of a count; values and strings are their own");
      }
      break;
    }
    case spec::Source::KIND_NOT_SET:
      c.Fail(s, w, "",
             "needs a kind: range, from_tensor_slices, list_files, tfrecord, text_line, "
             "fixed_length_record, from_generator or synthetic");
      break;
  }
}

// What the validator knows of the elements at a point of the pipeline: whether they are
// batches, and where it knows for sure, that they are scalars or strings (false: not known,
// or not so).
struct Elements {
  bool batched = false;
  bool scalars = false;
  bool strings = false;
};

// What a source's elements are: every source gives scalars; strings unless numbers.
Elements ElementsOf(const spec::Source& s) {
  const bool numbers = s.has_range() || s.has_from_generator() ||
                       (s.has_from_tensor_slices() && s.from_tensor_slices().strings_size() == 0);
  return {.batched = false, .scalars = true, .strings = !numbers};
}

// Checks `ops` (at `depth`: 1 inside an interleave) and returns what they give.
Elements CheckOps(Checker& c, const Message& parent, const Where& parent_where,
                  const google::protobuf::RepeatedPtrField<spec::Op>& ops, const char* field,
                  Elements in, int depth);

void CheckElementSource(Checker& c, const spec::ElementSource& es, const Where& w) {
  switch (es.kind_case()) {
    case spec::ElementSource::kFromElement:
      if (es.from_element().slices() < 0 ||
          (es.from_element().slices() > 0 && es.from_element().repeat_by_value())) {
        c.Fail(es.from_element(), c.Nested(es, w, "from_element", w.what), "slices",
               "is the rows of what the function makes, each an element: 0 (one element) or "
               "more, and not with repeat_by_value");
      }
      break;
    case spec::ElementSource::kSyntheticFile: {
      const auto& f = es.synthetic_file();
      Where fw = c.Nested(es, w, "synthetic_file", w.what);
      CheckSyntheticShape(c, f, fw, f.records_per_file(), f.record_bytes(), "records_per_file");
      c.Duration(f, fw, "open_latency", f.open_latency(), false);
      c.Duration(f, fw, "read_latency", f.read_latency(), false);
      c.Rate(f, fw, "bandwidth", f.bandwidth());
      if (f.read_request_bytes() < 0) c.Fail(f, fw, "read_request_bytes", "must be ≥ 0");
      // A cv of 10 is a latency whose median is a tenth of its mean: longer tails than any
      // store's are typos.
      if (!(f.read_latency_cv() >= 0 && f.read_latency_cv() <= 10)) {
        c.Fail(f, fw, "read_latency_cv", "must be between 0 and 10");
      }
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
    case spec::ElementSource::kFixedLengthRecordFile:
      CheckFixedLengthFormat(c, es.fixed_length_record_file(),
                             c.Nested(es, w, "fixed_length_record_file", w.what));
      break;
    case spec::ElementSource::kFromGenerator:
      CheckGenerator(c, es.from_generator(), c.Nested(es, w, "from_generator", w.what));
      break;
    case spec::ElementSource::KIND_NOT_SET:
      c.Fail(es, w, "",
             "needs a kind: from_element, synthetic_file, tfrecord_file, text_line_file, "
             "fixed_length_record_file or from_generator");
      break;
  }
}

// An op with a sub-pipeline (its kind's message `m`, written at `mw`): the source it
// starts from, per input element (interleave, flat_map: per_element) or once (zip: a
// second pipeline's source), and its ops; what that pipeline gives.
Elements CheckSubPipeline(Checker& c, const spec::Op& op, const Message& m, const Where& mw,
                          bool batched, int depth) {
  const std::string kind = OpKindName(op);
  if (const spec::Source* second = SecondSourceOf(op)) {
    if (!m.GetReflection()->HasField(m, m.GetDescriptor()->FindFieldByName("source"))) {
      c.Fail(m, mw, "source", "is required: the second pipeline's source");
      return {};
    }
    const Where sw = c.Nested(m, mw, "source", mw.what);
    if (second->name().empty()) {
      c.Fail(*second, sw, "name",
             "is required: the pair's component the second's values become "
             "(\"labels\")");
    }
    CheckSource(c, *second, sw);
    return CheckOps(c, m, mw, *SubPipelineOf(op), "ops", ElementsOf(*second), depth + 1);
  }
  const auto* per_element_field = m.GetDescriptor()->FindFieldByName("per_element");
  if (!m.GetReflection()->HasField(m, per_element_field)) {
    c.Fail(m, mw, "per_element",
           "is required (from_element, synthetic_file, tfrecord_file, text_line_file, "
           "fixed_length_record_file, from_generator)");
  } else {
    const spec::ElementSource& per_element = *PerElementSourceOf(op);
    CheckElementSource(c, per_element, c.Nested(m, mw, "per_element", mw.what));
    if (batched && per_element.from_element().repeat_by_value()) {
      c.Fail(m, mw, "per_element",
             "from_element.repeat_by_value repeats each element by its int64 value, and the " +
                 kind + "'s input is batched; move the " + kind + " before the batch");
    }
  }
  return CheckOps(c, m, mw, *SubPipelineOf(op), "ops", Elements{}, depth + 1);
}

// What an op gives of `in`, as far as the validator knows.
Elements ElementsOut(const OpKindDescription& kind, const spec::Op& op, Elements in, Elements sub) {
  Elements out = in;
  out.batched = OutputBatched(kind, in.batched, sub.batched);
  if (ChangesValues(op)) out.scalars = out.strings = false;
  switch (kind.ratio) {
    case OutputRatio::kOneOverBatch:
    case OutputRatio::kRowsPerElement:
      out.scalars = false;  // rows of one more, or one less, dimension
      break;
    case OutputRatio::kPerSubDataset:
      out.scalars = out.strings = false;
      break;
    case OutputRatio::kPaired:  // the input's value, and the second's beside it
      out.scalars = in.scalars && sub.scalars;
      break;
    default:
      break;
  }
  return out;
}

// An op: its kind's own field checks, its knobs' ranges and its sub-pipeline; `elements`
// becomes what it gives.
void CheckOp(Checker& c, const spec::Op& op, const Where& w, Elements& elements, int depth) {
  const OpKindDescription* kind = DescribeOp(op);
  if (!kind) {
    c.Fail(op, w, "", "needs a kind (map, batch, prefetch, ...)");
    return;
  }
  const Message& params = *KindMessageOf(op);
  OpFieldCheck check{.checker = c,
                     .params = params,
                     .where = c.Nested(op, w, std::string(kind->kind).c_str(), w.what),
                     .input_batched = elements.batched,
                     .input_scalars = elements.scalars,
                     .input_strings = elements.strings,
                     .depth = depth};
  if (kind->check_fields) kind->check_fields(check);
  for (const KnobDescription& knob : kind->knobs) {
    if (c.Failed(params, knob.name)) continue;  // the kind said it better
    const auto* field = params.GetDescriptor()->FindFieldByName(std::string(knob.name));
    const int64_t value = IntFieldValue(params, *field);
    c.Knob(params, check.where, kind->kind, field->name().c_str(), value);
    if (knob.at_most.empty() || value == kAutotune || c.Failed(params, knob.name)) continue;
    // A written value above the written value of the knob it may not exceed.
    const auto* bound = params.GetDescriptor()->FindFieldByName(std::string(knob.at_most));
    const int64_t most = IntFieldValue(params, *bound);
    if (most != kAutotune && most > 0 && value > most) {
      c.Fail(params, check.where, field->name().c_str(),
             "must be ≤ " + std::string(knob.at_most) + " (" + std::to_string(most) + "), got " +
                 std::to_string(value) + ": each worker reads one input of the cycle at a time");
    }
  }
  Elements sub;
  if (SubPipelineOf(op))
    sub = CheckSubPipeline(c, op, params, check.where, elements.batched, depth);
  elements = ElementsOut(*kind, op, elements, sub);
}

Elements CheckOps(Checker& c, const Message& parent, const Where& parent_where,
                  const google::protobuf::RepeatedPtrField<spec::Op>& ops, const char* field,
                  Elements in, int depth) {
  Elements elements = in;
  for (int i = 0; i < ops.size(); ++i) {
    const auto& op = ops[i];
    Where w =
        c.Nested(parent, parent_where, field, "op '" + op.name() + "' (" + OpKindName(op) + ")", i);
    CheckOp(c, op, w, elements, depth);
  }
  return elements;
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
  CheckOps(c, spec, root, spec.ops(), "ops", ElementsOf(spec.source()), 0);
  if (spec.has_train_step()) {
    const auto& ts = spec.train_step();
    Where tw = c.Nested(spec, root, "train_step", "train_step");
    c.Duration(ts, tw, "step_time", ts.step_time(), false);
    c.Duration(ts, tw, "loop_python", ts.loop_python(), false);
    c.AtLeast(ts, tw, "max_in_flight", ts.max_in_flight(), 0);
  }
  c.AtLeast(spec.budget(), c.Nested(spec, root, "budget", "budget"), "cpu_cores",
            spec.budget().cpu_cores(), 0);
  if (spec.has_storage()) {
    const auto& st = spec.storage();
    Where sw = c.Nested(spec, root, "storage", "storage");
    c.Duration(st, sw, "access_time", st.access_time(), false);
    c.Rate(st, sw, "bandwidth", st.bandwidth());
    c.AtLeast(st, sw, "queue_depth", st.queue_depth(), 0);
    if (st.kind() == spec::no_kind && st.access_time().empty() && st.bandwidth().empty()) {
      c.Fail(st, sw, "kind", "names the disk (hdd, ssd, nvme), or access_time and bandwidth do");
    }
  }
  return c.Finish();
}

}  // namespace pipescope::engine
