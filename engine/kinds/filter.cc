// Dataset.filter(predicate): the elements the predicate keeps, in order.

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"
#include "engine/spec/field_checker.h"
#include "engine/work/call_overhead.h"
#include "engine/work/work_registry.h"

namespace pipescope::kinds {
namespace {

void CheckFields(engine::OpFieldCheck& check) {
  const auto& p = static_cast<const spec::FilterOp&>(check.params).predicate();
  if (p.kind_case() == spec::Predicate::KIND_NOT_SET) {
    check.Fail("predicate", "is required (keep_fraction or mod_equals)");
  } else if (p.has_keep_fraction() &&
             (p.keep_fraction().fraction() < 0 || p.keep_fraction().fraction() > 1)) {
    check.Fail("predicate", "keep_fraction.fraction must be in [0, 1]");
  } else if (p.has_mod_equals() && p.mod_equals().modulus() <= 0) {
    check.Fail("predicate", "mod_equals.modulus must be ≥ 1");
  } else if (p.has_mod_equals() && check.input_strings) {
    check.Fail("predicate",
               "mod_equals reads each element as an int64 number, and the elements here are "
               "strings (a file's records or lines, or listed strings); parse them first, or "
               "filter with keep_fraction");
  }
  const auto& filter = static_cast<const spec::FilterOp&>(check.params);
  if (auto overhead = engine::FilterCallOverheadNs(filter); !overhead.ok() || *overhead < 0) {
    check.Fail("call_overhead", "must be a duration with its unit (\"9us\"), at least 0");
  }
}

constexpr engine::OpKindDescription kFilter{.kind = "filter",
                                            .kind_case = spec::Op::kFilter,
                                            .ratio = engine::OutputRatio::kAtMostOne,
                                            .check_fields = CheckFields};

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  ASSIGN_OR_RETURN(auto predicate, engine::MakePredicate(b.op.filter().predicate()));
  ASSIGN_OR_RETURN(const int64_t overhead, engine::FilterCallOverheadNs(b.op.filter()));
  return engine::MakeFilterDataset(b.stats, std::move(b.input),
                                   std::shared_ptr<const engine::Predicate>(
                                       engine::WithCallOverhead(std::move(predicate), overhead)));
}

// With a mod_equals predicate over elements that carry the engine's numbers, the engine's
// rule on each; otherwise the cost model's keep_fraction of elements by content.
engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  std::optional<sim::SimModEquals> mod_equals;
  const auto& p = b.op.filter().predicate();
  if (b.values && p.has_mod_equals()) {
    mod_equals = sim::SimModEquals{p.mod_equals().modulus(), p.mod_equals().remainder()};
  }
  return sim::MakeSimFilter(b.stage, std::move(b.input), mod_equals);
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kFilter, Engine, Sim);

}  // namespace pipescope::kinds
