#include "engine/tuning/order_advice.h"

#include <cstdio>
#include <map>

#include "engine/core/duration.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/spec_validator.h"
#include "engine/tuning/move_rules.h"
#include "engine/work/call_overhead.h"
#include "engine/work/work_registry.h"

namespace pipescope::engine {
namespace {

std::string Micros(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ns < 10'000 ? "%.2f µs" : "%.0f µs", ns / 1e3);
  return buf;
}

SpecEdit MoveEdit(const std::string& move, const std::string& before) {
  SpecEdit e;
  e.move = move;
  e.before = before;
  return e;
}

}  // namespace

std::vector<OrderAdvice> AdviseOrder(const spec::PipelineSpec& spec,
                                     const trace::RangeAnalysis& analysis) {
  std::map<std::string, const trace::StageFigures*> figures;
  for (const auto& s : analysis.stages) figures[s.name] = &s;
  auto self_of = [&](const std::string& name) {
    const auto it = figures.find(name);
    return it == figures.end() ? 0.0 : it->second->self_ns_per_element;
  };
  std::vector<OrderAdvice> advice;
  const int n = spec.ops_size();
  // Filters and counting ops as early as the output allows, when they would skip maps'
  // work: the earliest position every move to which keeps the output.
  for (int i = 0; i < n; ++i) {
    const auto& op = spec.ops(i);
    if (!Filters(op) && !IsCounting(op)) continue;
    int to = i;
    while (to > 0 && AssessMove(spec, i, to - 1).keeps_output) --to;
    double skipped_work = 0;
    std::string across;
    for (int j = to; j < i; ++j) {
      if (!RunsFunction(spec.ops(j))) continue;
      skipped_work += self_of(spec.ops(j).name());
      across += (across.empty() ? "'" : ", '") + spec.ops(j).name() + "'";
    }
    if (to == i || skipped_work <= 0) continue;
    const auto it = figures.find(op.name());
    std::string share;
    if (it != figures.end() && i > 0) {
      const auto in = figures.find(spec.ops(i - 1).name());
      if (in != figures.end() && in->second->elements_per_s > 0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " (it passes %.0f%% of its input)",
                      100 * it->second->elements_per_s / in->second->elements_per_s);
        share = buf;
      }
    }
    advice.push_back({Splits(op) ? "shard_earlier" : "move_filter", op.name(),
                      "move " + OpKindName(op) + " '" + op.name() + "' before " + across,
                      "The elements it drops would no longer cost " + Micros(skipped_work) +
                          " of map work each" + share + "; the output is the same.",
                      MoveOp(spec, i, to), MoveEdit(op.name(), spec.ops(to).name())});
  }
  // Vectorise: a map with a batched form right before a batch runs once per batch after it.
  for (int i = 0; i + 1 < n; ++i) {
    const auto& map = spec.ops(i);
    const auto& batch = spec.ops(i + 1);
    const spec::WorkFunction* fn = FunctionOf(map);
    // A batch of the pipeline's own (a DataLoader's batches are made in its workers).
    const bool own_batch =
        Batches(batch) && DescribeOp(batch)->parallel_work == ParallelWork::kNone;
    if (!fn || !own_batch || !WorkFunctionHasBatchedForm(*fn)) continue;
    if (!AssessMove(spec, i, i + 1).keeps_output) continue;
    // A function that draws (tensorflow#32454's tf.random.uniform(shape=())) draws once a
    // call: on a batch, one draw for every row unless its shapes are the batch's.
    const std::string draws = WorkFunctionIsRandom(*fn) || (map.has_map() && map.map().random())
                                  ? " Its random draws are then one a call: give them the "
                                    "batch's leading dimension, or every row of a batch gets "
                                    "the same."
                                  : "";
    // A Python function's cost is per call, whatever it is given: what it would cost on a
    // whole batch is the user's rewrite, which no simulation can know. What is known is its
    // call (py_function's bridge, call_overhead), paid once a batch instead of once a row:
    // tried with the function's own Python as much per row as before.
    if (fn->has_python()) {
      const auto overhead = map.has_map() ? MapCallOverheadNs(map.map()) : Result<int64_t>(0);
      const auto duration = ParseDurationNs(fn->python().duration());
      if (!overhead.ok() || !duration.ok() || overhead.value() <= kDefaultPythonCallNs) continue;
      const int64_t rows = BatchSizeOf(batch);
      spec::PipelineSpec moved = MoveOp(spec, i, i + 1);
      SpecEdit edit = MoveEdit(batch.name(), map.name());
      for (auto& op : *moved.mutable_ops()) {
        if (op.name() == map.name()) {
          op.mutable_map()->mutable_fn()->mutable_python()->set_duration(
              FormatDuration(duration.value() * rows));
          edit.replace.push_back(op);
        }
      }
      advice.push_back({"vectorise", map.name(),
                        "batch before map '" + map.name() + "' and call it once per batch",
                        "'" + map.name() + "' pays its call (" + Micros(overhead.value()) +
                            ") on every element; called once per batch of " + std::to_string(rows) +
                            " it pays it once (its own Python taken as the same per row)." + draws,
                        moved, edit});
      continue;
    }
    // Ops the code does not show (a stand-in cost) may not take a batch at all
    // (tensorflow#42917's string_split of one string): the batched form is the user's to check.
    const std::string unknown_ops =
        fn->cost_is_stand_in()
            ? " Whether its ops take a whole batch is not known here (its cost is a stand-in): "
              "check each takes a leading batch dimension."
            : "";
    advice.push_back({"vectorise", map.name(),
                      "batch before map '" + map.name() + "' (vectorise it)",
                      "'" + map.name() + "' costs " + Micros(self_of(map.name())) +
                          " per element; its batched form runs once per batch of " +
                          std::to_string(BatchSizeOf(batch)) + "." + unknown_ops + draws,
                      MoveOp(spec, i, i + 1), MoveEdit(batch.name(), map.name())});
  }
  // Prefetch last: without it the training step and the pipeline take turns. Not after an
  // op whose workers fetch ahead already (a DataLoader: its prefetch_factor and num_workers
  // are PyTorch's words for it, Keras's max_queue_size its; a tf.data prefetch is none of
  // their code).
  // Before the training loop's epochs at the end (`for epoch in range(N):`, fit's, a
  // DataLoader's): no call the code can put a prefetch after; one before them starts again
  // each epoch. A pipeline whose last op before them buffers has its prefetch already.
  int last_index = n - 1;  // the op the epochs at the end repeat
  while (last_index >= 0 && spec.ops(last_index).has_repeat()) --last_index;
  const OpKindDescription* last = last_index >= 0 ? DescribeOp(spec.ops(last_index)) : nullptr;
  const bool fetches_ahead = last && (last->parallel_work == ParallelWork::kWorkerProcesses ||
                                      last->parallel_work == ParallelWork::kEnqueuerWorkers);
  int at = n - 1;  // the op a prefetch goes after
  while (at >= 0 && spec.ops(at).has_repeat() && spec.ops(at).repeat().training_loop()) --at;
  if (!fetches_ahead && (at < 0 || !OnlyBuffers(spec.ops(at)))) {
    spec::Op prefetch;
    prefetch.set_name("prefetch_last");
    prefetch.mutable_prefetch()->set_buffer_size(2);
    SpecEdit edit;
    edit.add = prefetch;
    const bool before_epochs = at + 1 < n;
    if (before_epochs) edit.add_before = spec.ops(at + 1).name();
    auto with = ApplyEdit(spec, edit);
    if (with.ok()) {
      advice.push_back({"prefetch", "prefetch_last",
                        before_epochs
                            ? "add prefetch(2) at the end of the dataset, before the training loop"
                            : "add prefetch(2) at the end",
                        "The pipeline would prepare the next batch while the device runs a step.",
                        *std::move(with), edit});
    }
  }
  return advice;
}

}  // namespace pipescope::engine
