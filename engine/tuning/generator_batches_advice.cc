#include "engine/tuning/generator_batches_advice.h"

#include "engine/core/duration.h"

namespace pipescope::engine {

std::optional<GeneratorBatchesChange> GeneratorBatches(const spec::PipelineSpec& spec) {
  if (!spec.source().has_from_generator() || spec.ops_size() == 0 || !spec.ops(0).has_batch()) {
    return std::nullopt;
  }
  const spec::FromGeneratorSource& g = spec.source().from_generator();
  const int64_t rows = spec.ops(0).batch().batch_size();
  auto per_row = ParseDurationNs(g.duration());
  if (g.rows_per_yield() > 1 || rows <= 1 || !per_row.ok()) return std::nullopt;
  GeneratorBatchesChange c;
  c.spec = spec;
  auto* batched = c.spec.mutable_source()->mutable_from_generator();
  batched->set_rows_per_yield(rows);
  batched->set_duration(std::to_string(*per_row * rows) + "ns");
  c.spec.mutable_ops()->DeleteSubrange(0, 1);
  const std::string& name = spec.source().name();
  const std::string size = std::to_string(rows);
  c.change =
      "'" + name + "' yields batches of " + size + "; '" + spec.ops(0).name() + "' taken out";
  c.action = "make " + name + " yield whole batches of " + size + " (arrays of " + size +
             " rows a next()) and take out the batch(" + size +
             ") after it: tf.data's work around each next() is then paid once a batch, with "
             "the generator's Python counted row by row as now (NumPy over the whole batch "
             "saves more)";
  return c;
}

}  // namespace pipescope::engine
