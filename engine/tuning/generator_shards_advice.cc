#include "engine/tuning/generator_shards_advice.h"

#include <algorithm>
#include <cmath>

#include "engine/core/duration.h"

namespace pipescope::engine {
namespace {

// More copies than this read more files at once than one host's storage is asked to (an
// interleave's threads are tf.data's own, one each).
constexpr int64_t kMostCopies = 16;

int64_t DurationOr0(const std::string& text) {
  if (text.empty()) return 0;
  Result<int64_t> ns = ParseDurationNs(text);
  return ns.ok() ? *ns : 0;
}

}  // namespace

std::optional<GeneratorShardsChange> GeneratorShards(const spec::PipelineSpec& spec) {
  if (!spec.source().has_from_generator()) return std::nullopt;
  const spec::FromGeneratorSource& g = spec.source().from_generator();
  const auto python = static_cast<double>(DurationOr0(g.duration()));
  const double locked = python * (g.has_gil_share() ? std::clamp(g.gil_share(), 0.0, 1.0) : 1.0);
  const double whole = python + static_cast<double>(DurationOr0(g.wait()));
  // Copies that keep the lock busy: a next()'s whole time over its time under the lock.
  const int64_t lock_busy =
      locked > 0 ? std::min<int64_t>(kMostCopies, static_cast<int64_t>(std::ceil(whole / locked)))
                 : kMostCopies;
  // No more copies than items, and over few items as many as divide them: every copy yields
  // as many, and together they yield the items there are (over many, the last copy's few
  // missing ones are under a percent of them).
  int64_t copies = g.records() > 0 ? std::min(lock_busy, g.records()) : lock_busy;
  if (g.records() > 0 && g.records() < 100 * copies) {
    while (copies > 1 && g.records() % copies != 0) --copies;
  }
  if (whole <= 0 || copies < 2) return std::nullopt;

  GeneratorShardsChange c;
  c.spec = spec;
  const std::string& name = spec.source().name();
  spec::FromGeneratorSource each = g;
  if (g.records() > 0) each.set_records((g.records() + copies - 1) / copies);
  spec::Source& shards = *c.spec.mutable_source();
  shards.Clear();
  shards.set_name(name + "_copies");
  shards.mutable_range()->set_stop(copies);
  spec::Op interleave;
  // A name of its own: the run's costs of the source named `name` are no interleave's.
  interleave.set_name(name + "_interleave");
  auto* op = interleave.mutable_interleave();
  *op->mutable_per_element()->mutable_from_generator() = each;
  op->set_cycle_length(copies);
  op->set_num_parallel_calls(copies);
  c.spec.mutable_ops()->Add(std::move(interleave));
  auto* ops = c.spec.mutable_ops();
  std::rotate(ops->begin(), ops->end() - 1, ops->end());  // the interleave first

  const std::string k = std::to_string(copies);
  c.change = "'" + name + "' run as " + k + " copies at once, interleaved";
  c.action = "run " + k + " copies of " + name + " at once, each yielding one item in " + k +
             ": tf.data.Dataset.range(" + k +
             ").interleave(lambda i: tf.data.Dataset.from_generator(" + name + ", args=(i, " + k +
             "), output_signature=...), cycle_length=" + k + ", num_parallel_calls=" + k +
             "), its generator taking (i, " + k + ") and yielding items i, i+" + k +
             ", ...: their waits overlap, while their Python still runs one copy at a time (the "
             "process's one interpreter lock)";
  return c;
}

}  // namespace pipescope::engine
