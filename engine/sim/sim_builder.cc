#include "engine/sim/sim_builder.h"

#include <algorithm>
#include <cmath>

#include "engine/runtime/stage_registry.h"
#include "engine/runtime/stage_traits.h"
#include "engine/sim/sim_ops.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "engine/spec/pipeline_plan.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_validator.h"
#include "engine/work/work_registry.h"

namespace pipescope::sim {
namespace {

class Builder {
 public:
  explicit Builder(SimContext& ctx) : ctx_(ctx) {}

  engine::Result<SimBuild> Build(const engine::PipelinePlan& plan) {
    ASSIGN_OR_RETURN(SimDatasetPtr d, Source(plan.spec->source()));
    ASSIGN_OR_RETURN(d, Ops(plan.ops, std::move(d)));
    SimBuild b;
    b.root = std::move(d);
    b.batched = plan.output_batched;
    std::vector<int> depths;
    for (const auto& s : ctx_.stages) depths.push_back(s->depth);
    const std::vector<int> inputs = engine::StageInputIndices(depths);
    for (size_t i = 0; i < ctx_.stages.size(); ++i) {
      record::StageDef def = defs_[i];
      def.position = static_cast<int>(i);
      if (inputs[i] >= 0) def.input = static_cast<int>(inputs[i]);
      b.stages.push_back(def);
    }
    return b;
  }

 private:
  // A source's stage, or the source of an interleave's sub-pipeline (depth 1).
  SimStage& SourceStage(const std::string& name, const std::string& kind, int depth) {
    SimStage& s = Stage(name, kind, depth);
    Def(s).traits = engine::kSourceStageTraits;
    return s;
  }

  SimStage& Stage(const std::string& name, const std::string& kind, int depth) {
    auto s = std::make_unique<SimStage>();
    s->id = static_cast<uint16_t>(ctx_.stages.size());
    s->name = name;
    s->kind = kind;
    s->depth = depth;
    s->cost = &ctx_.model->Of(name);
    s->cpu = DistSampler(s->cost->cpu);
    s->cpu_per_row = DistSampler(s->cost->cpu_per_row);
    s->wait = DistSampler(s->cost->wait);
    s->rng = Rng(RecordKey(ctx_.seed, s->id));
    record::StageDef def;
    def.id = s->id;
    def.name = name;
    def.kind = kind;
    def.depth = depth;
    defs_.push_back(def);
    ctx_.stages.push_back(std::move(s));
    return *ctx_.stages.back();
  }
  record::StageDef& Def(const SimStage& s) { return defs_[s.id]; }
  int64_t Records(const SimStage& s, int64_t from_spec) const {
    return s.cost->records >= 0 ? s.cost->records : from_spec;
  }

  engine::Result<SimDatasetPtr> Source(const spec::Source& s) {
    switch (s.kind_case()) {
      case spec::Source::kRange: {
        SimStage& st = SourceStage(s.name(), "range", 0);
        values_ = true;
        return MakeSimSource(st, Records(st, -1),
                             SimValues{s.range().start(), engine::RangeStep(s.range())});
      }
      case spec::Source::kListFiles: {
        SimStage& st = SourceStage(s.name(), "list_files", 0);
        if (Records(st, 0) == 0) {
          return engine::NotFound("list_files: no files match '" + s.list_files().pattern() + "'");
        }
        return MakeSimListFiles(st, Records(st, 0), engine::ListFilesShuffles(s.list_files()),
                                engine::ListFilesSeed(s.list_files()));
      }
      case spec::Source::kSynthetic: {
        SimStage& st = SourceStage(s.name(), "synthetic", 0);
        return MakeSimSource(st, Records(st, s.synthetic().records()));
      }
      case spec::Source::kTfrecord: {
        SimStage& st = SourceStage(s.name(), "tfrecord", 0);
        return MakeSimSource(st, Records(st, 0));
      }
      case spec::Source::kTextLine: {
        SimStage& st = SourceStage(s.name(), "text_line", 0);
        return MakeSimSource(st, Records(st, 0));
      }
      case spec::Source::kFromTensorSlices: {
        const auto& f = s.from_tensor_slices();
        SimStage& st = SourceStage(s.name(), "from_tensor_slices", 0);
        SimValues values;  // a count's elements are 0 .. count - 1
        if (f.values_size() > 0) {
          values.listed =
              std::make_shared<const std::vector<int64_t>>(f.values().begin(), f.values().end());
        }
        values_ = f.strings_size() == 0;  // strings are not numbers a filter could read
        return MakeSimSource(st, Records(st, engine::SliceCount(f)), values);
      }
      case spec::Source::KIND_NOT_SET:
        break;
    }
    return engine::InvalidArgument("the pipeline has no source");
  }

  engine::Result<SimDatasetPtr> ElementSource(const spec::ElementSource& es,
                                              const std::string& op) {
    if (!es.has_from_element()) values_ = false;  // a file's records
    switch (es.kind_case()) {
      case spec::ElementSource::kFromElement:
        return MakeSimFromElement(SourceStage(op + ".from_element", "from_element", 1),
                                  es.from_element().repeat_by_value());
      case spec::ElementSource::kSyntheticFile: {
        SimStage& st = SourceStage(op + ".read", "synthetic_file", 1);
        return MakeSimSource(st, Records(st, es.synthetic_file().records_per_file()));
      }
      case spec::ElementSource::kTfrecordFile: {
        SimStage& st = SourceStage(op + ".read", "tfrecord", 1);
        return MakeSimSource(st, Records(st, 100));
      }
      case spec::ElementSource::kTextLineFile: {
        SimStage& st = SourceStage(op + ".read", "text_line", 1);
        return MakeSimSource(st, Records(st, 100));
      }
      case spec::ElementSource::KIND_NOT_SET:
        break;
    }
    return engine::InvalidArgument("interleave '" + op + "' needs per_element");
  }

  engine::Result<SimDatasetPtr> Ops(const std::vector<engine::PlannedOp>& ops, SimDatasetPtr d) {
    for (const engine::PlannedOp& p : ops) {
      SimStage& st = Stage(p.op->name(), std::string(p.kind->kind), p.depth);
      ASSIGN_OR_RETURN(d, Op(p, std::move(d), st));
      Def(st).traits = engine::StageTraitsOf(*p.kind);
    }
    return d;
  }

  engine::Result<SimDatasetPtr> Op(const engine::PlannedOp& p, SimDatasetPtr in, SimStage& st) {
    const spec::Op& op = *p.op;
    const std::string& n = op.name();
    record::StageDef& def = Def(st);  // not valid across the interleave's sub-stages
    switch (op.kind_case()) {
      case spec::Op::kInterleave: {
        const auto& il = op.interleave();
        ASSIGN_OR_RETURN(SimDatasetPtr sub, ElementSource(il.per_element(), n));
        ASSIGN_OR_RETURN(sub, Ops(p.sub, std::move(sub)));
        const int64_t cycle = p.Knob("cycle_length").start;
        const int64_t parallel = p.Knob("num_parallel_calls").start;
        record::StageDef& il_def = Def(st);  // defs_ grew with the sub-pipeline's stages
        il_def.asynchronous = parallel != 0;
        il_def.parallelism = parallel != 0 ? parallel : 1;
        return MakeSimInterleave(st, std::move(in), std::move(sub), cycle,
                                 p.Knob("block_length").start, parallel,
                                 !il.has_deterministic() || il.deterministic());
      }
      case spec::Op::kFlatMap: {  // interleave(cycle_length=1)
        ASSIGN_OR_RETURN(SimDatasetPtr sub, ElementSource(op.flat_map().per_element(), n));
        ASSIGN_OR_RETURN(sub, Ops(p.sub, std::move(sub)));
        return MakeSimInterleave(st, std::move(in), std::move(sub), 1, 1, 0, true);
      }
      case spec::Op::kMap: {
        values_ = values_ && engine::WorkFunctionKeepsValue(op.map().fn());
        const int64_t parallel = p.Knob("num_parallel_calls").start;
        def.asynchronous = parallel != 0;
        def.parallelism = parallel != 0 ? parallel : 1;
        return MakeSimMap(st, std::move(in), parallel,
                          !op.map().has_deterministic() || op.map().deterministic());
      }
      case spec::Op::kFilter: {
        std::optional<SimModEquals> mod_equals;
        if (values_ && op.filter().predicate().has_mod_equals()) {
          const auto& m = op.filter().predicate().mod_equals();
          mod_equals = SimModEquals{m.modulus(), m.remainder()};
        }
        return MakeSimFilter(st, std::move(in), mod_equals);
      }
      case spec::Op::kShuffle: {
        const auto& s = op.shuffle();
        const int64_t buffer = p.Knob("buffer_size").start;
        def.buffer_size = buffer;
        return MakeSimShuffle(st, std::move(in), buffer, engine::ShuffleSeed(s),
                              !s.has_reshuffle_each_iteration() || s.reshuffle_each_iteration());
      }
      case spec::Op::kBatch:
        values_ = false;  // a batch's rows are not kept as values
        return MakeSimBatch(st, std::move(in), p.Knob("batch_size").start,
                            op.batch().drop_remainder());
      case spec::Op::kUnbatch:
        return MakeSimUnbatch(st, std::move(in));
      case spec::Op::kPrefetch: {
        const int64_t buffer = p.Knob("buffer_size").start;
        def.asynchronous = true;
        def.buffer_size = buffer;
        return MakeSimPrefetch(st, std::move(in), buffer);
      }
      case spec::Op::kShard:
        return MakeSimShard(st, std::move(in), op.shard().num_shards(), op.shard().index());
      case spec::Op::kCache:
        return MakeSimCache(st, std::move(in));
      case spec::Op::kRepeat:
        return MakeSimRepeat(st, std::move(in), p.Knob("count").start);
      case spec::Op::kTake:
        return MakeSimTake(st, std::move(in), op.take().count());
      case spec::Op::kSkip:
        return MakeSimSkip(st, std::move(in), op.skip().count());
      case spec::Op::KIND_NOT_SET:
        break;
    }
    return engine::Internal("op '" + n + "' has no kind: the plan lets no such op through");
  }

  SimContext& ctx_;
  std::vector<record::StageDef> defs_;
  // Whether the elements at this point carry the range's numbers as the engine's do (for a
  // mod_equals filter and from_element's repeat_by_value).
  bool values_ = false;
};

}  // namespace

engine::Result<SimBuild> BuildSimPipeline(const spec::PipelineSpec& spec, SimContext& ctx) {
  const int cores = static_cast<int>(std::max<int64_t>(1, std::llround(ctx.model->cores)));
  ASSIGN_OR_RETURN(engine::PipelinePlan plan, engine::PlanPipeline(spec, cores));
  return Builder(ctx).Build(plan);
}

}  // namespace pipescope::sim
