#include "engine/runtime/pipeline.h"

#include <thread>

#include "engine/spec/spec_validator.h"

namespace pipescope::engine {

Result<std::unique_ptr<Pipeline>> Pipeline::Create(const spec::PipelineSpec& spec, Options options) {
  RETURN_IF_ERROR(ValidateSpec(spec, spec.name().empty() ? "pipeline" : spec.name()));
  std::unique_ptr<Pipeline> p(new Pipeline());
  p->settings_.collect_stats = options.collect_stats;
  int cores = options.cpu_cores;
  if (cores <= 0) cores = static_cast<int>(spec.budget().cpu_cores());
  if (cores <= 0) cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  p->settings_.cpu_cores = cores;
  Pipeline* raw = p.get();
  p->registry_.SetChangeObserver([raw](const KnobChange& change) {
    std::lock_guard lock(raw->mu_);
    raw->changes_.push_back({record::NowNs(), change});
  });
  RETURN_IF_ERROR(p->Install(spec));
  return p;
}

Pipeline::~Pipeline() {
  Cancel();
  // Iterators reference datasets and the context: destroy them first, in this order.
  Live current, pending;
  {
    std::lock_guard lock(mu_);
    current = std::move(current_);
    pending = std::move(pending_);
  }
  current.iterator.reset();
  pending.iterator.reset();
}

Status Pipeline::Install(const spec::PipelineSpec& spec) {
  ASSIGN_OR_RETURN(BuiltPipeline built, BuildPipeline(spec, registry_, settings_.cpu_cores));
  auto context = std::make_unique<PipelineContext>();
  context->collect_stats = settings_.collect_stats;
  context->cpu_cores = settings_.cpu_cores;
  context->element_ids = settings_.element_ids;
  ASSIGN_OR_RETURN(auto iterator, built.dataset->MakeIterator(IteratorArgs{context.get(), nullptr}));
  Live replaced;  // a pending build that no consumer used yet
  {
    std::lock_guard lock(mu_);
    spec_ = spec;
    output_batched_ = built.output_batched;
    Live live{std::move(context), std::move(built.dataset), std::move(iterator)};
    if (!current_.iterator) {
      current_ = std::move(live);
    } else {
      replaced = std::exchange(pending_, std::move(live));
      current_.Cancel();  // wakes a consumer blocked in the old pipeline, and its workers
      rebuilds_.push_back(record::NowNs());
    }
  }
  replaced.Cancel();
  replaced.iterator.reset();
  return Status::Ok();
}

Status Pipeline::GetNext(Element& out, bool& end_of_sequence) {
  while (true) {
    Iterator* it;
    Live old;
    {
      std::lock_guard lock(mu_);
      if (pending_.iterator) {
        old = std::exchange(current_, std::move(pending_));
        pending_ = Live{};
      }
      it = current_.iterator.get();
    }
    old.iterator.reset();  // joins the old pipeline's threads, outside the lock
    if (cancelled_.load()) return Cancelled("pipeline stopped");
    Status s = it->GetNext(out, end_of_sequence);
    if (s.code() == StatusCode::kCancelled && !cancelled_.load()) {
      std::lock_guard lock(mu_);
      if (pending_.iterator) continue;  // a reorder interrupted this call: read from the new pipeline
    }
    return s;
  }
}

Status Pipeline::SetKnob(const std::string& op, const std::string& knob, int64_t value,
                         const std::string& who) {
  auto tunable = registry_.FindKnob(op, knob);
  if (!tunable) {
    std::string known;
    for (const auto& k : Knobs()) known += (known.empty() ? "" : ", ") + k.op + "." + k.knob;
    return NotFound("no live knob '" + op + "." + knob + "' in this pipeline (live knobs: " +
                    (known.empty() ? "none" : known) + ")");
  }
  if (value < tunable->min() || value > tunable->max()) {
    return InvalidArgument(op + "." + knob + " must be in [" + std::to_string(tunable->min()) +
                           ", " + std::to_string(tunable->max()) + "], got " +
                           std::to_string(value));
  }
  tunable->Set(value, who);
  return Status::Ok();
}

std::vector<KnobInfo> Pipeline::Knobs() const {
  std::vector<KnobInfo> out;
  for (const auto& stage : registry_.Stages()) {
    for (const auto& [name, t] : stage.knobs) {
      out.push_back({t->op(), name, t->value(), t->min(), t->max(), t->autotune()});
    }
  }
  return out;
}

Status Pipeline::Reorder(const spec::PipelineSpec& new_spec) {
  spec::PipelineSpec named = new_spec;
  AssignDefaultOpNames(named);
  RETURN_IF_ERROR(ValidateSpec(named, named.name().empty() ? "pipeline" : named.name()));
  if (cancelled_.load()) return Cancelled("pipeline stopped");
  return Install(named);
}

void Pipeline::Cancel() {
  cancelled_.store(true);
  std::lock_guard lock(mu_);
  current_.Cancel();
  pending_.Cancel();
}

spec::PipelineSpec Pipeline::spec() const {
  std::lock_guard lock(mu_);
  return spec_;
}

bool Pipeline::output_batched() const {
  std::lock_guard lock(mu_);
  return output_batched_;
}

std::vector<TimedKnobChange> Pipeline::KnobChanges() const {
  std::lock_guard lock(mu_);
  return changes_;
}

std::vector<int64_t> Pipeline::RebuildTimes() const {
  std::lock_guard lock(mu_);
  return rebuilds_;
}

}  // namespace pipescope::engine
