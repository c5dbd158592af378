#include "engine/spec/op_kinds.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "engine/spec/op_values.h"
#include "engine/spec/spec_loader.h"

namespace pipescope::engine {
namespace {

// Registered at start-up, before main; sorted at the first read and read-only afterwards.
std::vector<const OpKindDescription*>& Registered() {
  static std::vector<const OpKindDescription*> kinds;
  return kinds;
}

// The index of the kind's field in the Op oneof, as the proto declares them.
int ProtoPosition(const OpKindDescription& kind) {
  const auto* field = spec::Op::descriptor()->FindFieldByNumber(static_cast<int>(kind.kind_case));
  return field ? field->index() : INT32_MAX;
}

}  // namespace

// Only appends: the proto's descriptors are not read while other files' static
// initializers may still be running.
void RegisterOpKindDescription(const OpKindDescription& kind) { Registered().push_back(&kind); }

const std::vector<const OpKindDescription*>& AllOpKinds() {
  static std::once_flag sorted;
  std::call_once(sorted, [] {
    std::stable_sort(Registered().begin(), Registered().end(),
                     [](const OpKindDescription* a, const OpKindDescription* b) {
                       return ProtoPosition(*a) < ProtoPosition(*b);
                     });
  });
  const auto& kinds = Registered();
  if (kinds.empty()) {
    std::fprintf(stderr,
                 "pipescope: no op kinds are registered: link pipescope_ops (engine/kinds, "
                 "as a whole archive) into this program\n");
    std::abort();
  }
  return kinds;
}

const OpKindDescription* DescribeOpKind(std::string_view kind) {
  for (const OpKindDescription* d : AllOpKinds()) {
    if (d->kind == kind) return d;
  }
  return nullptr;
}

bool IsRunsAheadKnob(std::string_view knob) {
  for (const OpKindDescription* d : AllOpKinds()) {
    for (const KnobDescription& k : d->knobs) {
      if (k.name == knob && k.runs_ahead_unless_zero) return true;
    }
  }
  return false;
}

const OpKindDescription* DescribeOp(const spec::Op& op) {
  for (const OpKindDescription* d : AllOpKinds()) {
    if (d->kind_case == op.kind_case()) return d;
  }
  return nullptr;
}

const KnobDescription* DescribeKnob(std::string_view kind, std::string_view name) {
  const OpKindDescription* d = DescribeOpKind(kind);
  if (!d) return nullptr;
  for (const KnobDescription& k : d->knobs) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

int64_t KnobStart(const KnobDescription& knob, int64_t value, int64_t cpu_budget) {
  if (value != kAutotune) return value;
  return knob.starts_at_cpu_budget ? cpu_budget : knob.autotune_start;
}

bool OutputBatched(const OpKindDescription& kind, bool input_batched, bool sub_batched) {
  switch (kind.ratio) {
    case OutputRatio::kOneOverBatch:
      return true;
    case OutputRatio::kRowsPerElement:
      return false;
    case OutputRatio::kPerSubDataset:
      return sub_batched;
    default:
      return input_batched;
  }
}

const google::protobuf::Message* KindMessageOf(const spec::Op& op) {
  const auto* oneof = spec::Op::descriptor()->FindOneofByName("kind");
  const auto* field = op.GetReflection()->GetOneofFieldDescriptor(op, oneof);
  return field ? &op.GetReflection()->GetMessage(op, field) : nullptr;
}

const spec::ElementSource* PerElementSourceOf(const spec::Op& op) {
  const OpKindDescription* kind = DescribeOp(op);
  return kind && kind->per_element ? kind->per_element(op) : nullptr;
}

const spec::Source* SecondSourceOf(const spec::Op& op) {
  const OpKindDescription* kind = DescribeOp(op);
  return kind && kind->second_source ? kind->second_source(op) : nullptr;
}

const spec::WorkFunction* FunctionOf(const spec::Op& op) {
  const OpKindDescription* kind = DescribeOp(op);
  return kind && kind->function ? kind->function(op) : nullptr;
}

const google::protobuf::RepeatedPtrField<spec::Op>* SubPipelineOf(const spec::Op& op) {
  const OpKindDescription* kind = DescribeOp(op);
  return kind && kind->sub_pipeline ? kind->sub_pipeline(op) : nullptr;
}

google::protobuf::RepeatedPtrField<spec::Op>* MutableSubPipelineOf(spec::Op& op) {
  const OpKindDescription* kind = DescribeOp(op);
  return kind && kind->mutable_sub_pipeline ? kind->mutable_sub_pipeline(op) : nullptr;
}

bool ChangesValues(const spec::Op& op) {
  const OpKindDescription* kind = DescribeOp(op);
  return kind && kind->changes_values && kind->changes_values(op);
}

int64_t BatchSizeOf(const spec::Op& op) {
  const OpKindDescription* kind = DescribeOp(op);
  if (!kind || kind->ratio != OutputRatio::kOneOverBatch) return 0;
  const google::protobuf::Message& params = *KindMessageOf(op);
  const auto* field = params.GetDescriptor()->FindFieldByName("batch_size");
  return field ? std::max<int64_t>(1, IntFieldValue(params, *field)) : 1;
}

std::string DescribeForPeople(const OpKindDescription& d) {
  std::string text(d.kind);
  switch (d.order) {
    case ElementOrder::kKept:
      text += " keeps order";
      break;
    case ElementOrder::kKeptIfDeterministic:
      text += " keeps order (unless deterministic: false)";
      break;
    case ElementOrder::kRandom:
      text += " reorders at random";
      break;
  }
  switch (d.ratio) {
    case OutputRatio::kOne:
      text += "; one element per element in";
      break;
    case OutputRatio::kAtMostOne:
      text += "; at most one element per element in";
      break;
    case OutputRatio::kOneOverBatch:
      text += "; one element per batch_size in";
      break;
    case OutputRatio::kRowsPerElement:
      text += "; one element per row of each element in";
      break;
    case OutputRatio::kCounted:
      text += "; a counted part of its input";
      break;
    case OutputRatio::kTimesCount:
      text += "; its input, count times";
      break;
    case OutputRatio::kPerSubDataset:
      text += "; the elements of the dataset it opens per element in";
      break;
    case OutputRatio::kPaired:
      text +=
          "; one element per element in, paired with the next of its second pipeline, until "
          "either ends";
      break;
  }
  return text;
}

}  // namespace pipescope::engine
