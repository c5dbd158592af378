#include "app/cli/simulated_elements.h"

#include "instrumentation/trace/lineage.h"

namespace pipescope::cli {
namespace {

// Whether the training step receives batches: the last batch or unbatch at the top
// level decides (an interleave's output is its sub-pipeline's, unbatched here).
bool OutputBatched(const spec::PipelineSpec& spec) {
  bool batched = false;
  for (const auto& op : spec.ops()) {
    if (op.has_batch()) batched = true;
    if (op.has_unbatch() || op.has_interleave()) batched = false;
  }
  return batched;
}

std::string Json(const spec::PipelineSpec& spec, const trace::RecordRef& r) {
  if (spec.source().has_range()) {
    const auto& range = spec.source().range();
    const int64_t step = range.step() == 0 ? 1 : range.step();
    return std::to_string(range.start() + r.index * step);
  }
  return "{\"record\":" + std::to_string(r.index) + ",\"pass\":" + std::to_string(r.pass) + "}";
}

}  // namespace

std::vector<std::string> SimulatedElementLines(const spec::PipelineSpec& spec,
                                               const trace::Model& model, int64_t limit) {
  std::vector<std::string> lines;
  const trace::Lineage lineage(model);
  const bool values = spec.source().has_range();
  const std::string key = values ? "value" : "records";
  if (OutputBatched(spec)) {
    for (const auto& batch : lineage.ConsumedBatches()) {
      if (static_cast<int64_t>(lines.size()) >= limit) break;
      std::string rows;
      for (const auto& r : batch) {
        if (!rows.empty()) rows += ',';
        rows += Json(spec, r);
      }
      lines.push_back("{\"" + key + "\":[" + rows + "]}");
    }
    return lines;
  }
  for (const auto& r : lineage.Consumed()) {
    if (static_cast<int64_t>(lines.size()) >= limit) break;
    lines.push_back(values ? "{\"value\":" + Json(spec, r) + "}" : Json(spec, r));
  }
  return lines;
}

}  // namespace pipescope::cli
