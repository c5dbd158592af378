#include "engine/spec/spec_overrides.h"

#include <charconv>
#include <functional>

#include "engine/core/duration.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/work_overrides.h"

namespace pipescope::engine {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

spec::Op* FindOp(google::protobuf::RepeatedPtrField<spec::Op>& ops, const std::string& name) {
  for (auto& op : ops) {
    if (op.name() == name) return &op;
    if (auto* sub = MutableSubPipelineOf(op)) {
      if (auto* inner = FindOp(*sub, name)) return inner;
    }
    // The ops of a zip's second pipeline.
    if (op.has_zip()) {
      if (auto* inner = FindOp(*op.mutable_zip()->mutable_ops(), name)) return inner;
    }
  }
  return nullptr;
}

Result<int64_t> ParseInt(const std::string& text) {
  if (text == "AUTOTUNE") return kAutotune;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    return InvalidArgument("expected an integer or AUTOTUNE, got '" + text + "'");
  }
  return v;
}

// A field --set takes: one value, not a message (a list of strings is the spec's to write).
bool IsKnobField(const FieldDescriptor* field) {
  return field && !field->is_repeated() && field->type() != FieldDescriptor::TYPE_MESSAGE;
}

std::string FieldList(const google::protobuf::Descriptor* d) {
  std::string names;
  for (int i = 0; i < d->field_count(); ++i) {
    if (!IsKnobField(d->field(i))) continue;
    names += (names.empty() ? "" : ", ") + d->field(i)->name();
  }
  return names;
}

Status SetField(Message& msg, const std::string& field_name, const std::string& value,
                const std::string& where) {
  const auto* field = msg.GetDescriptor()->FindFieldByName(field_name);
  if (!IsKnobField(field)) {
    return InvalidArgument(where + " has no knob '" + field_name +
                           "' (knobs: " + FieldList(msg.GetDescriptor()) + ")");
  }
  const auto* r = msg.GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64: {
      auto v = ParseInt(value);
      // A size (record_bytes, ...) also in the units a spec's sizes take: 200B, 3KB, 1MiB.
      if (!v.ok() && field_name.ends_with("_bytes")) v = ParseBytes(value);
      if (!v.ok()) return v.status().WithContext(where + "." + field_name);
      r->SetInt64(&msg, field, *v);
      return Status::Ok();
    }
    case FieldDescriptor::CPPTYPE_BOOL:
      if (value != "true" && value != "false") {
        return InvalidArgument(where + "." + field_name + ": expected true or false, got '" +
                               value + "'");
      }
      r->SetBool(&msg, field, value == "true");
      return Status::Ok();
    case FieldDescriptor::CPPTYPE_STRING:
      r->SetString(&msg, field, value);
      return Status::Ok();
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT: {
      char* end = nullptr;
      const double d = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0') {
        return InvalidArgument(where + "." + field_name + ": expected a number, got '" + value +
                               "'");
      }
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE)
        r->SetDouble(&msg, field, d);
      else
        r->SetFloat(&msg, field, static_cast<float>(d));
      return Status::Ok();
    }
    case FieldDescriptor::CPPTYPE_ENUM: {  // by its value's name: train_step.device=cpu
      // An enum's 0 named no_* (StorageKind's no_kind) only says the field is unset: it is
      // neither listed nor taken.
      const auto placeholder = [](const google::protobuf::EnumValueDescriptor* v) {
        return v->number() == 0 && v->name().starts_with("no_");
      };
      const auto* named = field->enum_type()->FindValueByName(value);
      if (!named || placeholder(named)) {
        std::string names;
        for (int i = 0; i < field->enum_type()->value_count(); ++i) {
          if (placeholder(field->enum_type()->value(i))) continue;
          names += (names.empty() ? "" : ", ") + field->enum_type()->value(i)->name();
        }
        return InvalidArgument(where + "." + field_name + ": expected one of " + names + ", got '" +
                               value + "'");
      }
      r->SetEnum(&msg, field, named);
      return Status::Ok();
    }
    default:
      return InvalidArgument(where + "." + field_name + " cannot be set from the command line");
  }
}

}  // namespace

spec::Op* FindOpNamed(spec::PipelineSpec& spec, const std::string& name) {
  return FindOp(*spec.mutable_ops(), name);
}

spec::Source* FindSourceNamed(spec::PipelineSpec& spec, const std::string& name) {
  if (spec.source().name() == name) return spec.mutable_source();
  // A zip's second pipeline reads a source of its own, set by its name as the first one is.
  for (auto& op : *spec.mutable_ops()) {
    if (op.has_zip() && op.zip().source().name() == name) return op.mutable_zip()->mutable_source();
  }
  return nullptr;
}

Status ApplyOverride(spec::PipelineSpec& spec, const std::string& assignment) {
  const auto eq = assignment.find('=');
  const auto dot = assignment.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq) {
    return InvalidArgument("--set expects OP.KNOB=VALUE (e.g. decode.num_parallel_calls=4), got '" +
                           assignment + "'");
  }
  const std::string op_name = assignment.substr(0, dot);
  const std::string knob = assignment.substr(dot + 1, eq - dot - 1);
  const std::string value = assignment.substr(eq + 1);
  if (op_name == "train_step")
    return SetField(*spec.mutable_train_step(), knob, value, "train_step");
  if (op_name == "budget") return SetField(*spec.mutable_budget(), knob, value, "budget");
  // The disk the files are read from: storage.kind=hdd, storage.access_time=12ms.
  if (op_name == "storage") return SetField(*spec.mutable_storage(), knob, value, "storage");
  // What an op's function costs (work_overrides.h): the same names import-code's notes give.
  if (std::optional<Status> set = ApplyWorkOverride(spec, op_name, knob, value)) return *set;
  if (spec::Source* source = FindSourceNamed(spec, op_name)) {
    const auto* oneof = source->GetDescriptor()->FindOneofByName("kind");
    const auto* kind = source->GetReflection()->GetOneofFieldDescriptor(*source, oneof);
    if (!kind) return InvalidArgument("source '" + op_name + "' has no kind");
    Message* params = source->GetReflection()->MutableMessage(source, kind);
    // How fixed-length records are cut (record_bytes, header_bytes, ...) is set on the source.
    if (source->has_fixed_length_record() &&
        spec::FixedLengthRecordFile::descriptor()->FindFieldByName(knob)) {
      params = source->mutable_fixed_length_record()->mutable_format();
    }
    RETURN_IF_ERROR(SetField(*params, knob, value, "source '" + op_name + "'"));
    // A count given: the data's size is the user's, no longer a stand-in; so is a
    // generator's cost.
    if (knob == "records" || knob == "stop" || knob == "count") source->clear_size_is_stand_in();
    if (knob == "duration" && source->has_from_generator())
      source->mutable_from_generator()->clear_cost_is_stand_in();
    return Status::Ok();
  }
  spec::Op* op = FindOp(*spec.mutable_ops(), op_name);
  if (!op) {
    // Every name --set takes: the source's, the ops' at every depth, train_step, budget and
    // storage.
    std::string names = spec.source().name();
    const std::function<void(const google::protobuf::RepeatedPtrField<spec::Op>&)> add =
        [&](const google::protobuf::RepeatedPtrField<spec::Op>& ops) {
          for (const spec::Op& o : ops) {
            names += (names.empty() ? "" : ", ") + o.name();
            if (const auto* inner = SubPipelineOf(o)) add(*inner);
            if (o.has_zip()) {
              names += ", " + o.zip().source().name();
              add(o.zip().ops());
            }
          }
        };
    add(spec.ops());
    return NotFound("--set: no op or source named '" + op_name + "' (the spec's: " + names +
                    ", train_step, budget, storage)");
  }
  const auto* oneof = op->GetDescriptor()->FindOneofByName("kind");
  const auto* kind = op->GetReflection()->GetOneofFieldDescriptor(*op, oneof);
  if (!kind) return InvalidArgument("op '" + op_name + "' has no kind");
  Message& params = *op->GetReflection()->MutableMessage(op, kind);
  // The storage of the synthetic files an interleave or flat_map reads (open_latency,
  // read_latency, bandwidth, records_per_file, record_bytes), or the Python generator it runs
  // per element, is set on the op that reads them.
  spec::ElementSource* per = op->has_interleave() ? op->mutable_interleave()->mutable_per_element()
                             : op->has_flat_map() ? op->mutable_flat_map()->mutable_per_element()
                                                  : nullptr;
  // A knob the op has not and the source it reads per element has.
  const auto per_element_knob = [&](const Message& source) {
    return !params.GetDescriptor()->FindFieldByName(knob) &&
           source.GetDescriptor()->FindFieldByName(knob) != nullptr;
  };
  if (per && per->has_synthetic_file() && per_element_knob(per->synthetic_file())) {
    RETURN_IF_ERROR(SetField(*per->mutable_synthetic_file(), knob, value,
                             "op '" + op_name + "' (its synthetic files)"));
    if (knob == "records_per_file") per->mutable_synthetic_file()->clear_size_is_stand_in();
    // The store's own latency given: the figures rest on it, not on import-code's.
    if (knob == "read_latency") per->mutable_synthetic_file()->clear_storage_is_stand_in();
    return Status::Ok();
  }
  // How the fixed-length record files it reads are cut: record_bytes, header_bytes, ...
  if (per && per->has_fixed_length_record_file() &&
      per_element_knob(per->fixed_length_record_file())) {
    return SetField(*per->mutable_fixed_length_record_file(), knob, value,
                    "op '" + op_name + "' (its fixed-length record files)");
  }
  // The rows of what its function makes (from_tensor_slices): slices.
  if (per && per->has_from_element() && per_element_knob(per->from_element())) {
    return SetField(*per->mutable_from_element(), knob, value,
                    "op '" + op_name + "' (the dataset its function makes)");
  }
  // A Python generator per element: its yields (records), duration, wait, first_wait.
  if (per && per->has_from_generator() && per_element_knob(per->from_generator())) {
    RETURN_IF_ERROR(SetField(*per->mutable_from_generator(), knob, value,
                             "op '" + op_name + "' (its Python generator per element)"));
    if (knob == "duration") per->mutable_from_generator()->clear_cost_is_stand_in();
    return Status::Ok();
  }
  Status set = SetField(params, knob, value, "op '" + op_name + "'");
  if (set.ok()) return set;
  return Status(set.code(), set.message() + WorkKnobsOf(op));
}

std::optional<int64_t> ReadIntKnob(const spec::PipelineSpec& spec, const std::string& op,
                                   const std::string& knob) {
  spec::PipelineSpec copy = spec;  // FindOp walks mutable ops; specs are small
  const spec::Op* found = FindOp(*copy.mutable_ops(), op);
  if (!found) return std::nullopt;
  const auto* oneof = found->GetDescriptor()->FindOneofByName("kind");
  const auto* kind = found->GetReflection()->GetOneofFieldDescriptor(*found, oneof);
  if (!kind) return std::nullopt;
  const Message& params = found->GetReflection()->GetMessage(*found, kind);
  const auto* field = params.GetDescriptor()->FindFieldByName(knob);
  if (!field || field->is_repeated() || field->cpp_type() != FieldDescriptor::CPPTYPE_INT64) {
    return std::nullopt;
  }
  return IntFieldValue(params, *field);
}

}  // namespace pipescope::engine
