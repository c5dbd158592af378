#include "engine/sim/sim_builder.h"

#include <algorithm>
#include <cmath>

#include "engine/runtime/stage_registry.h"
#include "engine/runtime/stage_traits.h"
#include "engine/sim/sim_op_factories.h"
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
    ASSIGN_OR_RETURN(SimDatasetPtr d, Source(plan.spec->source(), plan.spec->source().name(), 0));
    ASSIGN_OR_RETURN(d, Ops(plan.ops, std::move(d)));
    SimBuild b;
    b.root = std::move(d);
    b.batched = plan.output_batched;
    std::vector<int> depths;
    std::vector<uint32_t> traits;
    for (const auto& s : ctx_.stages) {
      depths.push_back(s->depth);
      traits.push_back(defs_[s->id].traits);
    }
    const std::vector<int> inputs = engine::StageInputIndices(depths, traits);
    for (size_t i = 0; i < ctx_.stages.size(); ++i) {
      record::StageDef def = defs_[i];
      def.position = static_cast<int>(i);
      if (inputs[i] >= 0) def.input = static_cast<int>(inputs[i]);
      b.stages.push_back(def);
    }
    return b;
  }

 private:
  // A source's stage, or the source of a sub-pipeline (depth 1: an interleave's, a zip's).
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
    s->request_wait = DistSampler(s->cost->request_wait);
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

  // The pipeline's source (depth 0), or a zip's second source (named "<zip>.<source>").
  engine::Result<SimDatasetPtr> Source(const spec::Source& s, const std::string& name, int depth) {
    switch (s.kind_case()) {
      case spec::Source::kRange: {
        SimStage& st = SourceStage(name, "range", depth);
        values_ = true;
        return MakeSimSource(st, Records(st, -1),
                             SimValues{s.range().start(), engine::RangeStep(s.range()), nullptr});
      }
      case spec::Source::kListFiles: {
        SimStage& st = SourceStage(name, "list_files", depth);
        if (Records(st, 0) == 0) {
          return engine::NotFound("list_files: no files match '" + s.list_files().pattern() + "'");
        }
        return MakeSimListFiles(st, Records(st, 0), engine::ListFilesShuffles(s.list_files()),
                                engine::ListFilesSeed(s.list_files()));
      }
      case spec::Source::kSynthetic: {
        SimStage& st = SourceStage(name, "synthetic", depth);
        return MakeSimSource(st, Records(st, s.synthetic().records()));
      }
      case spec::Source::kTfrecord: {
        SimStage& st = SourceStage(name, "tfrecord", depth);
        return MakeSimSource(st, Records(st, 0));
      }
      case spec::Source::kTextLine: {
        SimStage& st = SourceStage(name, "text_line", depth);
        return MakeSimSource(st, Records(st, 0));
      }
      case spec::Source::kFixedLengthRecord: {
        SimStage& st = SourceStage(name, "fixed_length_record", depth);
        return MakeSimSource(st, Records(st, 0));
      }
      case spec::Source::kFromGenerator: {
        SimStage& st = SourceStage(name, "from_generator", depth);
        Def(st).traits = engine::SourceStageTraits(s);
        values_ = true;  // 0, 1, ... (engine::SourceValue, a batch of them where it yields batches)
        return MakeSimFromGenerator(st, Records(st, s.from_generator().records()),
                                    s.from_generator().rows_per_yield());
      }
      case spec::Source::kFromTensorSlices: {
        const auto& f = s.from_tensor_slices();
        SimStage& st = SourceStage(name, "from_tensor_slices", depth);
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
    // A file's records have no values the simulator knows; a generator's are 0, 1, ...
    if (!es.has_from_element() && !es.has_from_generator()) values_ = false;
    switch (es.kind_case()) {
      case spec::ElementSource::kFromGenerator: {
        SimStage& st = SourceStage(op + ".generator", "from_generator", 1);
        Def(st).traits = engine::GeneratorStageTraits(es.from_generator());
        return MakeSimFromGenerator(st, Records(st, es.from_generator().records()),
                                    es.from_generator().rows_per_yield());
      }
      case spec::ElementSource::kFromElement:
        return MakeSimFromElement(SourceStage(op + ".from_element", "from_element", 1),
                                  es.from_element().repeat_by_value(), es.from_element().slices());
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
      case spec::ElementSource::kFixedLengthRecordFile: {
        SimStage& st = SourceStage(op + ".read", "fixed_length_record", 1);
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
      // The dataset it opens per element first: its stages follow the op's in the trace.
      SimDatasetPtr per_element;
      if (const spec::ElementSource* es = engine::PerElementSourceOf(*p.op)) {
        ASSIGN_OR_RETURN(per_element, ElementSource(*es, p.op->name()));
        ASSIGN_OR_RETURN(per_element, Ops(p.sub, std::move(per_element)));
      }
      SimDatasetPtr second;
      if (const spec::Source* source = engine::SecondSourceOf(*p.op)) {
        // What the second pipeline's elements carry is its own; the op's input keeps its own.
        const bool input_values = values_;
        ASSIGN_OR_RETURN(second, Source(*source, p.op->name() + "." + source->name(), p.depth + 1));
        ASSIGN_OR_RETURN(second, Ops(p.sub, std::move(second)));
        values_ = input_values;
      }
      const SimOpFactory factory = SimOpFactoryOf(p.kind->kind_case);
      if (!factory) {
        return engine::Internal("op kind '" + std::string(p.kind->kind) +
                                "' has no simulator factory");
      }
      OpBuild build(*this, p, st, std::move(d), std::move(per_element), std::move(second));
      ASSIGN_OR_RETURN(d, factory(build));
      Def(st).traits = engine::StageTraitsOf(*p.op, *p.kind, ctx_.storage != nullptr);
      // A batch's rows, and what a function made, are not the source's numbers.
      if (engine::ChangesValues(*p.op) || p.kind->ratio == engine::OutputRatio::kOneOverBatch) {
        values_ = false;
      }
    }
    return d;
  }

  class OpBuild final : public SimOpBuild {
   public:
    OpBuild(Builder& builder, const engine::PlannedOp& p, SimStage& st, SimDatasetPtr in,
            SimDatasetPtr sub, SimDatasetPtr beside)
        : SimOpBuild(p, st, std::move(in), std::move(sub), std::move(beside), builder.values_),
          builder_(builder) {}
    // Looked up each time: defs_ grows while a sub-pipeline is built.
    record::StageDef& Def() override { return builder_.Def(stage); }

   private:
    Builder& builder_;
  };

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
