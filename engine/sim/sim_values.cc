#include "engine/sim/sim_values.h"

#include <memory>

#include "engine/runtime/pipeline_builder.h"
#include "engine/runtime/value_rules.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/pipeline_plan.h"
#include "instrumentation/trace/lineage.h"

namespace pipescope::sim {
namespace {

using engine::Element;
using engine::Result;
using engine::Status;

// Whether any op of a sub-pipeline, at any depth, makes values of its own.
bool AnyChangesValues(const std::vector<engine::PlannedOp>& ops) {
  for (const engine::PlannedOp& p : ops) {
    if (engine::ChangesValues(*p.op) || AnyChangesValues(p.sub)) return true;
  }
  return false;
}

// Values after the first k ops of a pipeline (the top level, or a zip's second pipeline),
// worked backwards from an element: each op's rule applied to the values of the elements it
// was made of.
class Replay {
 public:
  Replay(const spec::Source& source, const std::vector<engine::PlannedOp>& ops,
         const trace::Lineage& lineage)
      : source_(source), ops_(ops), lineage_(lineage) {}

  Status Prepare() {
    if (!engine::SourceValue(source_, 0)) {
      return engine::Unimplemented("the source '" + source_.name() +
                                   "' reads records whose content only a run reads");
    }
    for (const engine::PlannedOp& p : ops_) {
      const spec::ElementSource* per_element = engine::PerElementSourceOf(*p.op);
      if (per_element && per_element->has_from_generator()) {
        return engine::Unimplemented("'" + p.op->name() +
                                     "' runs a Python generator per element, and the simulator "
                                     "follows the records of the top-level source only");
      }
      if (per_element && !per_element->has_from_element()) {
        return engine::Unimplemented("'" + p.op->name() +
                                     "' reads records of files, whose content only a run reads");
      }
      if (per_element && AnyChangesValues(p.sub)) {
        return engine::Unimplemented("'" + p.op->name() +
                                     "' opens sub-pipelines that make values of their own");
      }
      std::unique_ptr<Replay> second;
      if (const spec::Source* source = engine::SecondSourceOf(*p.op)) {
        second = std::make_unique<Replay>(*source, p.sub, lineage_);
        RETURN_IF_ERROR(second->Prepare());
      }
      seconds_.push_back(std::move(second));
      engine::ValueRule rule;
      if (const engine::ValueRuleFactory factory = engine::ValueRules::Of(p.kind->kind_case)) {
        ASSIGN_OR_RETURN(rule, factory(p));
      }
      rules_.push_back(std::move(rule));
    }
    return Status::Ok();
  }

  Result<Element> After(uint64_t id, size_t ops) const {
    if (ops == 0) return SourceElement(id);
    const engine::PlannedOp& p = ops_[ops - 1];
    const engine::ValueRule& rule = rules_[ops - 1];
    switch (p.kind->ratio) {
      case engine::OutputRatio::kOneOverBatch: {
        const std::vector<uint64_t>* rows = lineage_.Rows(id);
        if (!rows || rows->empty()) return Lost(id, p);
        std::vector<Element> values;
        values.reserve(rows->size());
        for (uint64_t row : *rows) {
          ASSIGN_OR_RETURN(Element v, After(row, ops - 1));
          values.push_back(std::move(v));
        }
        return engine::CombineRows(values, id, rule.combine ? rule.combine : engine::Tensor::Stack);
      }
      case engine::OutputRatio::kRowsPerElement: {
        const trace::RowRef* from = lineage_.UnbatchedFrom(id);
        if (!from) return Lost(id, p);
        ASSIGN_OR_RETURN(const Element batch, After(from->batch, ops - 1));
        const engine::Tensor& lead = engine::LeadComponent(batch);
        if (lead.shape().rank() == 0 || static_cast<int64_t>(from->row) >= lead.shape().dim(0)) {
          return Lost(id, p);
        }
        return engine::RowOf(batch, static_cast<int64_t>(from->row), id);
      }
      case engine::OutputRatio::kPaired: {
        const uint64_t* partner = lineage_.PairedWith(id);
        if (!partner || !seconds_[ops - 1] || !rule.pair) return Lost(id, p);
        ASSIGN_OR_RETURN(Element first, After(id, ops - 1));
        ASSIGN_OR_RETURN(const Element second, seconds_[ops - 1]->After(*partner, p.sub.size()));
        return rule.pair(std::move(first), second);
      }
      default: {
        const uint64_t made_of = p.kind->replays ? lineage_.ReplayOf(id) : id;
        ASSIGN_OR_RETURN(Element e, After(made_of, ops - 1));
        e.id = id;
        if (rule.apply) RETURN_IF_ERROR(rule.apply(e));
        return e;
      }
    }
  }

 private:
  Result<Element> SourceElement(uint64_t id) const {
    const trace::RecordRef* record = lineage_.Record(id);
    if (!record) return engine::Internal("element " + std::to_string(id) + " has no record");
    std::optional<engine::Tensor> value = engine::SourceValue(source_, record->index);
    if (!value) {
      return engine::Internal("record " + std::to_string(record->index) + " of '" + source_.name() +
                              "' has no value");
    }
    return Element{id, std::move(*value), {}};
  }

  static Status Lost(uint64_t id, const engine::PlannedOp& p) {
    return engine::Internal("the trace does not say what '" + p.op->name() + "' made element " +
                            std::to_string(id) + " of");
  }

  const spec::Source& source_;
  const std::vector<engine::PlannedOp>& ops_;
  const trace::Lineage& lineage_;
  std::vector<engine::ValueRule> rules_;          // one per op
  std::vector<std::unique_ptr<Replay>> seconds_;  // one per op: a zip's second pipeline
};

}  // namespace

Result<std::vector<Element>> ConsumedValues(const spec::PipelineSpec& spec,
                                            const trace::Model& model, int64_t limit) {
  ASSIGN_OR_RETURN(const engine::PipelinePlan plan, engine::PlanPipeline(spec, 1));
  const trace::Lineage lineage(model);
  Replay replay(spec.source(), plan.ops, lineage);
  RETURN_IF_ERROR(replay.Prepare());
  std::vector<Element> out;
  for (uint64_t id : lineage.ConsumedIds()) {
    if (static_cast<int64_t>(out.size()) >= limit) break;
    ASSIGN_OR_RETURN(Element e, replay.After(id, plan.ops.size()));
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace pipescope::sim
