// Dataset.map(f, num_parallel_calls, deterministic): f on every element, in the caller's
// thread or by num_parallel_calls workers (engine/runtime/parallel_map_order.h); after a
// batch, f's batched form on each batch.

#include <array>

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"
#include "engine/spec/field_checker.h"
#include "engine/spec/op_values.h"
#include "engine/work/call_overhead.h"
#include "engine/work/work_registry.h"
#include "instrumentation/record/trace_sink.h"

namespace pipescope::kinds {
namespace {

constexpr std::array kKnobs = {
    engine::kNumParallelCallsKnob,
};

void CheckFields(engine::OpFieldCheck& check) {
  const auto& map = static_cast<const spec::MapOp&>(check.params);
  const auto& fn = map.fn();
  if (auto overhead = engine::MapCallOverheadNs(map); !overhead.ok() || overhead.value() < 0) {
    check.Fail("call_overhead", "must be a duration with its unit (\"20us\"), at least 0");
    return;
  }
  engine::FieldChecker& c = check.checker;
  const engine::Where fw = check.Nested("fn");
  if (!c.WorkFunction(fn, fw)) {
    check.Fail("fn", "is required (cpu_work, io_wait, python, unpack_bits, normalize, identity)");
    return;
  }
  if (check.input_batched && !engine::WorkFunctionHasBatchedForm(fn)) {
    if (fn.has_parse_example()) {
      check.Fail("fn",
                 "'parse_example' after batch is tf.io.parse_example, whose var_len features "
                 "are SparseTensors, which elements here do not hold; make them fixed-length or "
                 "move the map before the batch");
      return;
    }
    if (fn.has_cpu_work()) {
      check.Fail("fn", "its work stands for " + fn.cpu_work().one_element_call() +
                           ", which takes one element at a time, so it cannot follow batch; "
                           "move the map before the batch");
      return;
    }
    std::string text = "'";  // appended: GCC 12 misreads "literal" + std::string
    text.append(engine::WorkFunctionName(fn))
        .append(
            "' has no batched form, so it cannot follow batch; move the map before the "
            "batch");
    check.Fail("fn", text);
  }
}

bool ChangesValues(const spec::Op& op) { return !engine::WorkFunctionKeepsValue(op.map().fn()); }

constexpr engine::OpKindDescription kMap{
    .kind = "map",
    .kind_case = spec::Op::kMap,
    .knobs = kKnobs,
    .order = engine::ElementOrder::kKeptIfDeterministic,
    .parallel_work = engine::ParallelWork::kFunction,
    .omissible = "deterministic: true",
    .check_fields = CheckFields,
    .changes_values = ChangesValues,
    .function = [](const spec::Op& op) { return &op.map().fn(); },
    .traits_of_fields =
        [](const spec::Op& op) {
          return engine::Deterministic(op.map()) ? 0u : uint32_t{record::kTraitFirstReady};
        }};

// A function that keeps values (cpu_work, io_wait) is not replayed: its work shows on the
// clock, not in the values.
engine::Result<engine::ValueRule> Values(const engine::PlannedOp& p) {
  if (!ChangesValues(*p.op)) return engine::ValueRule{};
  ASSIGN_OR_RETURN(auto made, engine::MakeWorkFunction(p.op->map().fn()));
  std::shared_ptr<const engine::WorkFunction> fn = std::move(made);
  engine::ValueRule rule;
  rule.apply = [fn, batched = p.input_batched, name = p.op->name()](engine::Element& e) {
    engine::CancellationToken never_cancelled;
    return engine::ApplyMapFunction(*fn, e, batched, never_cancelled, name);
  };
  return rule;
}

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  const auto& m = b.op.map();
  ASSIGN_OR_RETURN(auto made, engine::MakeWorkFunction(m.fn(), b.storage));
  ASSIGN_OR_RETURN(const int64_t overhead, engine::MapCallOverheadNs(m));
  auto fn = engine::WithCallOverhead(std::move(made), overhead);
  engine::TunablePtr parallel;
  if (m.num_parallel_calls() != 0) {
    parallel = b.Knob("num_parallel_calls");
    b.stats->parallelism = parallel.get();
  }
  return engine::MakeMapDataset(b.stats, std::move(b.input),
                                std::shared_ptr<const engine::WorkFunction>(std::move(fn)),
                                b.planned.input_batched, parallel, engine::Deterministic(m));
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  const int64_t parallel = b.planned.Knob("num_parallel_calls").start;
  b.SetParallelism(parallel);
  // Where the function's output shape depends on the number it reads (fill) and the
  // simulator knows that number, it asks the engine's function for the shape. Only there:
  // the engine's function does its work (a cpu_work's calibrated loop, 1.5 ms an element of
  // an augmentation with output_bytes), which on the simulator's clock is real time spent
  // for no shape (an advice run of regnety#4's pipeline took 13 min).
  if (b.values && b.op.map().fn().has_fill()) {
    ASSIGN_OR_RETURN(const engine::ValueRule rule, Values(b.planned));
    b.stage.shape_output = [apply = rule.apply](sim::SimElement& e) {
      engine::Element made{e.id, engine::Tensor::Int64(e.value), {}};
      if (!apply(made).ok()) return;  // the run fails there; the simulator's shape stays
      const engine::Shape& shape = made.value.shape();
      e.length = shape.rank() > 0 ? static_cast<int32_t>(shape.dim(0)) : 1;
      e.row_length = shape.rank() > 1 ? static_cast<int32_t>(shape.dim(1)) : 1;
    };
  }
  return sim::MakeSimMap(b.stage, std::move(b.input), parallel, engine::Deterministic(b.op.map()));
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kMap, Engine, Sim, Values);

}  // namespace pipescope::kinds
