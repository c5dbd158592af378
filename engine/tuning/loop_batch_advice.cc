#include "engine/tuning/loop_batch_advice.h"

#include <optional>

#include "engine/core/duration.h"
#include "engine/spec/cardinality.h"
#include "engine/tuning/move_rules.h"

namespace pipescope::engine {

std::vector<LoopBatchChange> BatchesForTheLoop(const PipelinePlan& plan) {
  const spec::PipelineSpec& spec = *plan.spec;
  auto loop_python = ParseDurationNs(spec.train_step().loop_python());
  if (plan.output_batched || !loop_python.ok() || *loop_python <= 0) return {};
  int64_t step_ns = 0;
  if (!spec.train_step().step_time().empty()) {
    auto step = ParseDurationNs(spec.train_step().step_time());
    if (!step.ok()) return {};
    step_ns = *step;
  }
  // Before the prefetches the pipeline ends with, so that they fetch whole batches ahead.
  int at = spec.ops_size();
  while (at > 0 && spec.ops(at - 1).has_prefetch()) --at;
  const std::string name = UnusedName(spec, "batch");
  // The elements the loop takes in all, where the spec says: a batch is tried where they make
  // kLeastFullBatches of it, as a batch's step costs its rows' steps however few it holds
  // (the tf.data guide's six elements in two epochs, batched by 64, one step of 64's time).
  // A stand-in's size (import-code's 10,000 records) says nothing of the real data's.
  const std::optional<int64_t> taken =
      spec.source().size_is_stand_in() ? std::nullopt
      : at == 0                        ? SourceElements(spec.source())
      : plan.ops[static_cast<size_t>(at - 1)].input_elements
          ? ElementsOut(spec.ops(at - 1), *plan.ops[static_cast<size_t>(at - 1)].input_elements)
          : std::nullopt;
  std::vector<LoopBatchChange> out;
  for (const int64_t rows : kLoopBatchSizes) {
    if (taken && *taken < kLeastFullBatches * rows) continue;
    LoopBatchChange c;
    c.rows = rows;
    c.spec = spec;
    spec::Op batch;
    batch.set_name(name);
    batch.mutable_batch()->set_batch_size(rows);
    auto* ops = c.spec.mutable_ops();
    ops->Add(std::move(batch));
    for (int i = ops->size() - 1; i > at; --i) ops->SwapElements(i, i - 1);
    if (step_ns > 0) c.spec.mutable_train_step()->set_step_time(SpecDuration(step_ns * rows));
    const std::string size = std::to_string(rows);
    c.change = "batch(" + size + ") before the loop";
    c.action = "batch the dataset (.batch(" + size +
               ")) and have the loop take batches: its next() in eager Python (" +
               spec.train_step().loop_python() +
               " an element, train_step.loop_python) is then paid once a batch; rates count "
               "the loop's steps as now, an element each, and the step's own work stays per "
               "element (vectorised over the batch it saves more)";
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace pipescope::engine
