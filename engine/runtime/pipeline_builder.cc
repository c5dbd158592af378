#include "engine/runtime/pipeline_builder.h"

#include <algorithm>

#include "engine/core/duration.h"
#include "engine/ops/ops.h"
#include "engine/runtime/fixed_length_format.h"
#include "engine/runtime/op_factories.h"
#include "engine/runtime/stage_traits.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "engine/spec/pipeline_plan.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_validator.h"
#include "engine/work/call_overhead.h"
#include "engine/work/python_work.h"

namespace pipescope::engine {
namespace {

class Builder {
 public:
  explicit Builder(StageRegistry& registry) : registry_(registry) {}

  Result<BuiltPipeline> Build(const PipelinePlan& plan) {
    registry_.BeginBuild();
    if (plan.spec->has_storage()) {
      ASSIGN_OR_RETURN(StorageFigures figures, StorageFiguresOf(plan.spec->storage()));
      storage_ = std::make_shared<StorageDevice>(figures);
    }
    ASSIGN_OR_RETURN(DatasetPtr d, BuildSource(plan.spec->source(), plan.spec->source().name(), 0));
    ASSIGN_OR_RETURN(d, BuildOps(plan.ops, std::move(d)));
    return BuiltPipeline{std::move(d), plan.output_batched, storage_};
  }

 private:
  // The op's planned knob `name` as a Tunable, with its range from the kind's description:
  // from where tuners start (TuneMin), or lower where the spec starts it lower and the kind
  // allows it. A DataLoader's num_workers=0 (and Keras's workers=0) is the main process
  // fetching; clamped to the tuners' 1 it ran one worker process instead.
  TunablePtr Knob(const PlannedOp& p, std::string_view name) {
    const PlannedKnob& k = p.Knob(name);
    const int64_t min = std::max(k.description->min, std::min(TuneMin(*k.description), k.start));
    return registry_.Knob(p.op->name(), std::string(name), k.start, min, k.description->max,
                          k.autotune());
  }

  Result<SyntheticRecords> Synthetic(int64_t records, int64_t bytes, const std::string& open,
                                     const std::string& read, const std::string& bandwidth,
                                     int64_t seed) {
    SyntheticRecords r;
    r.records = records;
    r.record_bytes = bytes;
    r.seed = static_cast<uint64_t>(seed);
    if (!open.empty()) {
      ASSIGN_OR_RETURN(r.open_latency_ns, ParseDurationNs(open));
    }
    if (!read.empty()) {
      ASSIGN_OR_RETURN(r.read_latency_ns, ParseDurationNs(read));
    }
    if (!bandwidth.empty()) {
      ASSIGN_OR_RETURN(r.bandwidth_bytes_per_s, ParseBytesPerSecond(bandwidth));
    }
    return r;
  }

  // A source's stage, or the source of a sub-pipeline (depth 1: an interleave's, a zip's).
  StatsPtr SourceStage(const std::string& name, const std::string& kind, int depth) {
    auto stats = registry_.Stage(name, kind, depth);
    stats->traits = kSourceStageTraits;
    return stats;
  }

  // The pipeline's source (depth 0), or a zip's second source (named "<zip>.<source>").
  Result<DatasetPtr> BuildSource(const spec::Source& s, const std::string& name, int depth) {
    switch (s.kind_case()) {
      case spec::Source::kRange:
        return MakeRangeDataset(SourceStage(name, "range", depth), s.range().start(),
                                s.range().stop(), RangeStep(s.range()));
      case spec::Source::kListFiles:
        return MakeListFilesDataset(SourceStage(name, "list_files", depth),
                                    s.list_files().pattern(), ListFilesShuffles(s.list_files()),
                                    ListFilesSeed(s.list_files()));
      case spec::Source::kSynthetic: {
        const auto& y = s.synthetic();
        ASSIGN_OR_RETURN(auto config, Synthetic(y.records(), y.record_bytes(), "", y.read_latency(),
                                                y.bandwidth(), y.seed()));
        if (RecordsReadFromTheDisk(storage_ != nullptr, y.read_latency(), y.bandwidth())) {
          config.storage = storage_;
        }
        return MakeSyntheticDataset(SourceStage(name, "synthetic", depth), config);
      }
      case spec::Source::kTfrecord: {
        const auto& t = s.tfrecord();
        ASSIGN_OR_RETURN(Compression c, ParseCompression(t.compression()));
        return MakeTfRecordDataset(SourceStage(name, "tfrecord", depth),
                                   {t.files().begin(), t.files().end()}, c, t.skip_corrupt(),
                                   storage_);
      }
      case spec::Source::kTextLine: {
        const auto& t = s.text_line();
        ASSIGN_OR_RETURN(Compression c, ParseCompression(t.compression()));
        return MakeTextLineDataset(SourceStage(name, "text_line", depth),
                                   {t.files().begin(), t.files().end()}, c);
      }
      case spec::Source::kFixedLengthRecord: {
        const auto& f = s.fixed_length_record();
        ASSIGN_OR_RETURN(const FixedLengthRecordFormat format, FixedLengthFormatOf(f.format()));
        return MakeFixedLengthRecordDataset(SourceStage(name, "fixed_length_record", depth),
                                            {f.files().begin(), f.files().end()}, format, storage_);
      }
      case spec::Source::kFromGenerator:
        return BuildGenerator(s.from_generator(), SourceStage(name, "from_generator", depth));
      case spec::Source::kFromTensorSlices: {
        return MakeFromTensorSlicesDataset(SourceStage(name, "from_tensor_slices", depth),
                                           SliceTensors(s.from_tensor_slices()),
                                           s.from_tensor_slices().element_bytes());
      }
      case spec::Source::KIND_NOT_SET:
        break;
    }
    return InvalidArgument("the pipeline has no source");
  }

  // A Python generator's dataset (the source, or an interleave's per element) on `stage`.
  Result<DatasetPtr> BuildGenerator(const spec::FromGeneratorSource& g, StatsPtr stage) {
    ASSIGN_OR_RETURN(const int64_t ns, ParseDurationNs(g.duration()));
    ASSIGN_OR_RETURN(const int64_t overhead, GeneratorCallOverheadNs(g));
    int64_t wait = 0, first_wait = 0;
    if (!g.wait().empty()) {
      ASSIGN_OR_RETURN(wait, ParseDurationNs(g.wait()));
    }
    if (!g.first_wait().empty()) {
      ASSIGN_OR_RETURN(first_wait, ParseDurationNs(g.first_wait()));
    }
    stage->traits = GeneratorStageTraits(g);
    return MakeFromGeneratorDataset(
        std::move(stage), g.records(), g.rows_per_yield(), first_wait,
        WithCallOverhead(std::make_unique<PythonWork>(ns, PythonGilShare(g), wait), overhead));
  }

  Result<DatasetPtr> BuildElementSource(const spec::ElementSource& es, const std::string& op) {
    switch (es.kind_case()) {
      case spec::ElementSource::kFromGenerator:
        return BuildGenerator(es.from_generator(),
                              SourceStage(op + ".generator", "from_generator", 1));
      case spec::ElementSource::kFromElement:
        return MakeFromElementDataset(SourceStage(op + ".from_element", "from_element", 1),
                                      es.from_element().repeat_by_value(),
                                      es.from_element().slices());
      case spec::ElementSource::kSyntheticFile: {
        const auto& f = es.synthetic_file();
        ASSIGN_OR_RETURN(auto config,
                         Synthetic(f.records_per_file(), f.record_bytes(), f.open_latency(),
                                   f.read_latency(), f.bandwidth(), 0));
        config.read_request_bytes = f.read_request_bytes();
        config.read_latency_cv = f.read_latency_cv();
        if (RecordsReadFromTheDisk(storage_ != nullptr, f.read_latency(), f.bandwidth())) {
          config.storage = storage_;
        }
        return MakeSyntheticFileDataset(SourceStage(op + ".read", "synthetic_file", 1), config);
      }
      case spec::ElementSource::kTfrecordFile: {
        const auto& t = es.tfrecord_file();
        ASSIGN_OR_RETURN(Compression c, ParseCompression(t.compression()));
        return MakeTfRecordFileDataset(SourceStage(op + ".read", "tfrecord", 1), c,
                                       t.skip_corrupt(), storage_);
      }
      case spec::ElementSource::kTextLineFile: {
        ASSIGN_OR_RETURN(Compression c, ParseCompression(es.text_line_file().compression()));
        return MakeTextLineFileDataset(SourceStage(op + ".read", "text_line", 1), c);
      }
      case spec::ElementSource::kFixedLengthRecordFile: {
        ASSIGN_OR_RETURN(const FixedLengthRecordFormat format,
                         FixedLengthFormatOf(es.fixed_length_record_file()));
        return MakeFixedLengthRecordFileDataset(SourceStage(op + ".read", "fixed_length_record", 1),
                                                format, storage_);
      }
      case spec::ElementSource::KIND_NOT_SET:
        break;
    }
    return InvalidArgument("interleave '" + op + "' needs per_element");
  }

  Result<DatasetPtr> BuildOps(const std::vector<PlannedOp>& ops, DatasetPtr d) {
    for (const PlannedOp& p : ops) {
      // The dataset it opens per element first: its stages follow the op's in the trace.
      auto stats = registry_.Stage(p.op->name(), std::string(p.kind->kind), p.depth);
      DatasetPtr per_element;
      if (const spec::ElementSource* es = PerElementSourceOf(*p.op)) {
        ASSIGN_OR_RETURN(per_element, BuildElementSource(*es, p.op->name()));
        ASSIGN_OR_RETURN(per_element, BuildOps(p.sub, std::move(per_element)));
      }
      DatasetPtr second;
      if (const spec::Source* source = SecondSourceOf(*p.op)) {
        ASSIGN_OR_RETURN(second,
                         BuildSource(*source, p.op->name() + "." + source->name(), p.depth + 1));
        ASSIGN_OR_RETURN(second, BuildOps(p.sub, std::move(second)));
      }
      const EngineOpFactory factory = EngineOpFactoryOf(p.kind->kind_case);
      if (!factory) {
        return Internal("op kind '" + std::string(p.kind->kind) + "' has no engine factory");
      }
      OpBuild build(*this, p, stats, std::move(d), std::move(per_element), std::move(second));
      ASSIGN_OR_RETURN(d, factory(build));
      stats->traits = StageTraitsOf(*p.op, *p.kind, storage_ != nullptr);
    }
    return d;
  }

  class OpBuild final : public EngineOpBuild {
   public:
    OpBuild(Builder& builder, const PlannedOp& p, StatsPtr stage, DatasetPtr in, DatasetPtr sub,
            DatasetPtr beside)
        : EngineOpBuild(p, std::move(stage), std::move(in), std::move(sub), std::move(beside)),
          builder_(builder) {
      storage = builder.storage_;
    }
    TunablePtr Knob(std::string_view name) override { return builder_.Knob(planned, name); }

   private:
    Builder& builder_;
  };

  StageRegistry& registry_;
  StorageDevicePtr storage_;  // the spec's disk; null: none
};

}  // namespace

Result<BuiltPipeline> BuildPipeline(const spec::PipelineSpec& spec, StageRegistry& registry,
                                    int cpu_cores) {
  ASSIGN_OR_RETURN(PipelinePlan plan, PlanPipeline(spec, cpu_cores));
  return Builder(registry).Build(plan);
}

std::vector<Tensor> SliceTensors(const spec::FromTensorSlicesSource& f) {
  std::vector<Tensor> slices;
  slices.reserve(static_cast<size_t>(SliceCount(f)));
  for (int64_t v : f.values()) slices.push_back(Tensor::Int64(v));
  for (const std::string& v : f.strings()) slices.push_back(Tensor::String(v));
  if (slices.empty()) {
    for (int64_t i = 0; i < f.count(); ++i) slices.push_back(Tensor::Int64(i));
  }
  return slices;
}

std::optional<Tensor> SourceValue(const spec::Source& s, int64_t index) {
  if (s.has_range()) return Tensor::Int64(s.range().start() + index * RangeStep(s.range()));
  if (s.has_from_generator()) {  // it yields 0, 1, ... (or whole batches of them: yield `index`)
    const auto& g = s.from_generator();
    const int64_t records = g.records();
    const int64_t first = index * std::max<int64_t>(1, g.rows_per_yield());
    if (index < 0 || (records >= 0 && first >= records)) return std::nullopt;
    return GeneratorYield(first, records, g.rows_per_yield());
  }
  if (s.has_from_tensor_slices()) {
    const auto& f = s.from_tensor_slices();
    if (index < 0 || index >= SliceCount(f)) return std::nullopt;
    if (f.values_size() > 0) return Tensor::Int64(f.values(static_cast<int>(index)));
    if (f.strings_size() > 0) return Tensor::String(f.strings(static_cast<int>(index)));
    return Tensor::Int64(index);
  }
  return std::nullopt;
}

}  // namespace pipescope::engine
