#include "app/cli/simulated_elements.h"

#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "instrumentation/trace/export/export_lanes.h"
#include "instrumentation/trace/lineage.h"

namespace pipescope::cli {
namespace {

// Sources whose records are values run --print shows (a range's numbers, the entries of
// from_tensor_slices); others' records are shown by their index and pass.
bool SourceHasValues(const spec::Source& s) { return s.has_range() || s.has_from_tensor_slices(); }

// Whether an op makes values of its own (a map whose function changes them, fill or
// normalize), which the lineage cannot show: then records are printed, not source values
// that the run would not print.
bool AnyOpChangesValues(const google::protobuf::RepeatedPtrField<spec::Op>& ops) {
  for (const spec::Op& op : ops) {
    if (engine::ChangesValues(op)) return true;
    if (const auto* sub = engine::SubPipelineOf(op); sub && AnyOpChangesValues(*sub)) return true;
  }
  return false;
}

// A record as its source's value, or (`values` false) as which record of which pass.
std::string RecordJson(const spec::PipelineSpec& spec, const trace::RecordRef& r, bool values) {
  if (!values) {
    return "{\"record\":" + std::to_string(r.index) + ",\"pass\":" + std::to_string(r.pass) + "}";
  }
  if (spec.source().has_range()) {
    const auto& range = spec.source().range();
    const int64_t step = engine::RangeStep(range);
    return std::to_string(range.start() + r.index * step);
  }
  if (spec.source().has_from_tensor_slices()) {
    const auto& f = spec.source().from_tensor_slices();
    const auto i = static_cast<int>(r.index);
    if (f.values_size() > 0) return std::to_string(f.values(i));
    if (f.strings_size() > 0) {
      std::string out = "\"";
      trace::AppendJsonEscaped(out, f.strings(i));
      return out + "\"";
    }
    return std::to_string(r.index);
  }
  return RecordJson(spec, r, false);
}

// An element as run --print shows its value: a record, or a batch as a list of its rows,
// nested as deep as batches of batches go.
std::string ElementJson(const spec::PipelineSpec& spec, const trace::Lineage& lineage,
                        uint64_t element, bool values) {
  if (const auto* rows = lineage.Rows(element)) {
    std::string out = "[";
    for (uint64_t row : *rows) {
      if (out.size() > 1) out += ',';
      out += ElementJson(spec, lineage, row, values);
    }
    return out + "]";
  }
  const trace::RecordRef* r = lineage.Record(element);
  return r ? RecordJson(spec, *r, values) : "null";
}

}  // namespace

std::vector<std::string> SimulatedElementLines(const spec::PipelineSpec& spec,
                                               const trace::Model& model, int64_t limit) {
  std::vector<std::string> lines;
  const trace::Lineage lineage(model);
  const bool values = SourceHasValues(spec.source()) && !AnyOpChangesValues(spec.ops());
  for (uint64_t id : lineage.ConsumedIds()) {
    if (static_cast<int64_t>(lines.size()) >= limit) break;
    const std::string json = ElementJson(spec, lineage, id, values);
    if (values) {
      lines.push_back("{\"value\":" + json + "}");
    } else {
      lines.push_back(lineage.Rows(id) ? "{\"records\":" + json + "}" : json);
    }
  }
  return lines;
}

}  // namespace pipescope::cli
