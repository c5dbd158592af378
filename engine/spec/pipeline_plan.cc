#include "engine/spec/pipeline_plan.h"

#include <algorithm>
#include <cassert>
#include <filesystem>

#include "engine/spec/cardinality.h"
#include "engine/spec/file_readers.h"
#include "engine/spec/op_values.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_validator.h"

namespace pipescope::engine {
namespace {

void FuseShuffleAndRepeat(std::vector<PlannedOp>& ops) {
  for (size_t i = 0; i + 1 < ops.size(); ++i) {
    if (!ShuffleFusesWithRepeat(*ops[i].op, *ops[i + 1].op)) continue;
    const spec::Op& repeat = *ops[i + 1].op;
    ops[i].shuffle_passes = repeat.repeat().has_count() ? repeat.repeat().count() : -1;
    ops[i + 1].repeat_fused_into_shuffle = true;
  }
}

std::vector<PlannedOp> PlanOps(const google::protobuf::RepeatedPtrField<spec::Op>& ops, int depth,
                               bool batched, int cores, bool accelerator, bool& output_batched) {
  std::vector<PlannedOp> planned;
  planned.reserve(static_cast<size_t>(ops.size()));
  for (const spec::Op& op : ops) {
    PlannedOp p;
    p.op = &op;
    p.kind = DescribeOp(op);
    p.depth = depth;
    p.input_batched = batched;
    p.accelerator = accelerator;
    const auto& params = *KindMessageOf(op);
    for (const KnobDescription& knob : p.kind->knobs) {
      const auto* field = params.GetDescriptor()->FindFieldByName(std::string(knob.name));
      assert(field && "a knob is a field of its kind's message");
      const int64_t written = IntFieldValue(params, *field);
      // -1 is AUTOTUNE only for a knob that takes it: elsewhere it means what it says
      // (repeat forever, take all).
      p.knobs.push_back(
          {&knob, written, knob.autotune ? KnobStart(knob, written, cores) : written});
    }
    // An AUTOTUNE knob starts no higher than the knob it may not exceed.
    for (PlannedKnob& k : p.knobs) {
      if (k.description->at_most.empty() || k.written != kAutotune) continue;
      for (const PlannedKnob& bound : p.knobs) {
        if (bound.description->name == k.description->at_most && bound.start > 0) {
          k.start = std::min(k.start, bound.start);
        }
      }
    }
    bool sub_batched = false;
    if (const auto* sub = SubPipelineOf(op)) {
      p.sub = PlanOps(*sub, depth + 1, false, cores, accelerator, sub_batched);
    }
    p.output_batched = OutputBatched(*p.kind, batched, sub_batched);
    batched = p.output_batched;
    planned.push_back(std::move(p));
  }
  output_batched = batched;
  FuseShuffleAndRepeat(planned);
  return planned;
}

// The files a source lists must be there: refused before either clock runs (the engine
// would fail at its first read, the simulator would count no records and say nothing).
Status CheckListedFilesExist(const spec::Source& s) {
  const google::protobuf::RepeatedPtrField<std::string>* files = RecordFilesOf(s);
  if (!files) return Status::Ok();
  for (const std::string& f : *files) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(f, error)) {
      return NotFound("source '" + s.name() + "': cannot open \"" + f +
                      "\": " + (std::filesystem::exists(f, error) ? "not a file" : "no such file"));
    }
  }
  return Status::Ok();
}

// The same for the second pipelines that ops read beside their input (zip), at any depth.
Status CheckSecondSourcesExist(const google::protobuf::RepeatedPtrField<spec::Op>& ops) {
  for (const spec::Op& op : ops) {
    if (const spec::Source* second = SecondSourceOf(op)) {
      RETURN_IF_ERROR(CheckListedFilesExist(*second));
    }
    if (const auto* sub = SubPipelineOf(op)) RETURN_IF_ERROR(CheckSecondSourcesExist(*sub));
  }
  return Status::Ok();
}

}  // namespace

// shuffle(reshuffle_each_iteration=True).repeat(n) is tf.data.experimental's
// shuffle_and_repeat, documented as the same; the fusion pass rewrites the first into the
// second.
bool ShuffleFusesWithRepeat(const spec::Op& shuffle, const spec::Op& next) {
  return shuffle.has_shuffle() && ReshufflesEachIteration(shuffle.shuffle()) && next.has_repeat() &&
         !next.repeat().training_loop();
}

bool PlannedKnob::autotune() const { return description->autotune && written == kAutotune; }

const PlannedKnob& PlannedOp::Knob(std::string_view name) const {
  auto it = std::find_if(knobs.begin(), knobs.end(),
                         [&](const PlannedKnob& k) { return k.description->name == name; });
  assert(it != knobs.end() && "a knob of the op's kind");
  return *it;
}

Result<PipelinePlan> PlanPipeline(const spec::PipelineSpec& spec, int cpu_cores) {
  RETURN_IF_ERROR(ValidateSpec(spec, spec.name().empty() ? "pipeline" : spec.name()));
  RETURN_IF_ERROR(CheckListedFilesExist(spec.source()));
  RETURN_IF_ERROR(CheckSecondSourcesExist(spec.ops()));
  PipelinePlan plan;
  plan.spec = &spec;
  plan.cpu_cores = std::max(1, cpu_cores);
  plan.ops = PlanOps(spec.ops(), 0, false, plan.cpu_cores, !StepOnHost(spec.train_step()),
                     plan.output_batched);
  std::optional<int64_t> elements = SourceElements(spec.source());
  for (PlannedOp& p : plan.ops) {
    p.input_elements = elements;
    if (elements) elements = ElementsOut(*p.op, *elements);
  }
  return plan;
}

}  // namespace pipescope::engine
