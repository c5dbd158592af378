#include "app/cli/simulated_elements.h"

#include "engine/sim/sim_values.h"
#include "instrumentation/trace/lineage.h"

namespace pipescope::cli {
namespace {

// An element as the records it was made of: which record of which pass, or a batch as a
// list of its rows, nested as deep as batches of batches go.
std::string RecordsJson(const trace::Lineage& lineage, uint64_t element) {
  if (const auto* rows = lineage.Rows(element)) {
    std::string out = "[";
    for (uint64_t row : *rows) {
      if (out.size() > 1) out += ',';
      out += RecordsJson(lineage, row);
    }
    return out + "]";
  }
  const trace::RecordRef* r = lineage.Record(element);
  if (!r) return "null";
  return "{\"record\":" + std::to_string(r->index) + ",\"pass\":" + std::to_string(r->pass) + "}";
}

}  // namespace

std::vector<std::string> SimulatedElementLines(const spec::PipelineSpec& spec,
                                               const trace::Model& model, int64_t limit) {
  std::vector<std::string> lines;
  // The engine's values, replayed over the run's lineage, where they can be known without a
  // run; else the records each element was made of.
  auto values = sim::ConsumedValues(spec, model, limit);
  if (values.ok()) {
    for (const engine::Element& e : *values) lines.push_back(engine::ElementToJson(e));
    return lines;
  }
  // Values a run would fail to make (a function refusing its input) are worth saying.
  if (values.status().code() != engine::StatusCode::kUnimplemented) {
    lines.push_back("values: " + values.status().ToString() + "; the records instead:");
  }
  const trace::Lineage lineage(model);
  bool unknown = false;
  for (uint64_t id : lineage.ConsumedIds()) {
    if (static_cast<int64_t>(lines.size()) >= limit) break;
    const std::string json = RecordsJson(lineage, id);
    unknown |= json.find("null") != std::string::npos;
    lines.push_back(lineage.Rows(id) ? "{\"records\":" + json + "}" : json);
  }
  // Where the records say nothing either (an interleave's elements come from its
  // sub-pipelines' sources), why, rather than a column of nulls.
  if (unknown && values.status().code() == engine::StatusCode::kUnimplemented) {
    lines.insert(lines.begin(), "values: " + values.status().message() +
                                    "; the records instead (null: a record of a sub-pipeline):");
  }
  return lines;
}

}  // namespace pipescope::cli
