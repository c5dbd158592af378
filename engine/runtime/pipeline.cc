#include "engine/runtime/pipeline.h"

#include <thread>

#include "engine/runtime/allocator_tuning.h"
#include "engine/spec/spec_validator.h"

namespace pipescope::engine {

int CpuCoresFor(const spec::PipelineSpec& spec, int requested) {
  if (requested > 0) return requested;
  if (spec.budget().cpu_cores() > 0) return static_cast<int>(spec.budget().cpu_cores());
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

Result<std::unique_ptr<Pipeline>> Pipeline::Create(const spec::PipelineSpec& spec,
                                                   Options options) {
  TuneAllocatorForPipelines();
  std::unique_ptr<Pipeline> p(new Pipeline());
  p->settings_.recorder = options.recorder;
  p->settings_.cpu_cores = CpuCoresFor(spec, options.cpu_cores);
  Pipeline* raw = p.get();
  p->registry_.SetChangeObserver([raw](const KnobChange& change) { raw->OnKnobChanged(change); });
  RETURN_IF_ERROR(p->Install(spec));
  if (auto* recorder = p->settings_.recorder) {
    recorder->SetSampler([raw](record::Recorder& r) { raw->SampleCounters(r); });
  }
  return p;
}

void Pipeline::OnKnobChanged(const KnobChange& change) {
  const int64_t now = record::NowNs();
  if (auto* recorder = settings_.recorder) {
    uint16_t op = record::kNoOp;
    for (const auto& info : registry_.Stages()) {
      if (info.stats->name == change.op) op = info.stats->id;
    }
    recorder->KnobChanged({now, op, change.knob, change.from, change.to, change.who});
  }
  std::lock_guard lock(mu_);
  changes_.push_back({now, change});
}

void Pipeline::SampleCounters(record::Recorder& recorder) {
  StorageDevicePtr storage;
  {
    std::lock_guard lock(mu_);
    storage = storage_;
  }
  std::lock_guard lock(buffered_mu_);
  for (const auto& stats : buffered_stages_) stats->RecordLevelIfChanged(recorder);
  if (!storage) return;
  const double busy = storage->BusyNs();
  if (storage != sampled_storage_) {
    sampled_storage_ = storage;
    sampled_storage_busy_ns_ = 0;
  }
  const double since = std::max(0.0, busy - sampled_storage_busy_ns_);
  sampled_storage_busy_ns_ = busy;
  recorder.RecordCounter(record::EventKind::kStorageBusy, record::kNoOp,
                         record::SaturateU32(static_cast<uint64_t>(since)));
}

// Stage definitions for the trace: ids, order and who pulls from whom. An op's input is the
// previous op at its depth; an interleave pulls from the last op of its sub-pipeline.
void Pipeline::DescribeStages(record::Recorder& recorder) {
  const auto stages = registry_.Stages();
  {
    // The sampler records levels left out as the collector wakes: it gets the buffered ops
    // once per build.
    std::lock_guard lock(buffered_mu_);
    buffered_stages_.clear();
    memory_stages_.clear();
    for (const auto& info : stages) {
      if (info.stats->asynchronous) buffered_stages_.push_back(info.stats);
      if (info.stats->asynchronous || info.stats->buffer_size) memory_stages_.push_back(info.stats);
    }
  }
  std::vector<int> depths;
  std::vector<uint32_t> traits;
  depths.reserve(stages.size());
  traits.reserve(stages.size());
  for (const auto& info : stages) {
    depths.push_back(info.depth);
    traits.push_back(info.stats->traits);
  }
  const std::vector<int> inputs = StageInputIndices(depths, traits);
  for (size_t i = 0; i < stages.size(); ++i) {
    const StageStats& s = *stages[i].stats;
    record::StageDef def;
    def.id = s.id;
    def.name = s.name;
    def.kind = s.kind;
    def.depth = stages[i].depth;
    def.position = static_cast<int>(i);
    def.asynchronous = s.asynchronous;
    def.parallelism = s.parallelism ? s.parallelism->value() : 1;
    def.buffer_size = s.buffer_size ? s.buffer_size->value() : 0;
    def.traits = s.traits;
    if (inputs[i] >= 0) def.input = stages[static_cast<size_t>(inputs[i])].stats->id;
    recorder.DefineStage(def);
  }
}

Pipeline::~Pipeline() {
  if (auto* recorder = settings_.recorder) {
    recorder->SetSampler(nullptr);
    // The last stretch since the collector's previous sample: the disk's busy time to the end.
    SampleCounters(*recorder);
  }
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

Status Pipeline::Install(const spec::PipelineSpec& spec, const std::string& description) {
  ASSIGN_OR_RETURN(BuiltPipeline built, BuildPipeline(spec, registry_, settings_.cpu_cores));
  auto context = std::make_unique<PipelineContext>();
  context->recorder = settings_.recorder;
  context->cpu_cores = settings_.cpu_cores;
  context->element_ids = settings_.element_ids;
  ASSIGN_OR_RETURN(auto iterator,
                   built.dataset->MakeIterator(IteratorArgs{context.get(), nullptr}));
  Live replaced;  // a pending build that no consumer used yet
  bool rebuilt = false;
  {
    std::lock_guard lock(mu_);
    spec_ = spec;
    output_batched_ = built.output_batched;
    storage_ = built.storage;
    Live live{std::move(context), std::move(built.dataset), std::move(iterator)};
    if (!current_.iterator) {
      current_ = std::move(live);
    } else {
      replaced = std::exchange(pending_, std::move(live));
      current_.Cancel();  // wakes a consumer blocked in the old pipeline, and its workers
      rebuilds_.push_back(record::NowNs());
      rebuilt = true;
    }
  }
  replaced.Cancel();
  replaced.iterator.reset();
  if (auto* recorder = settings_.recorder) {
    DescribeStages(*recorder);
    if (rebuilt) {
      recorder->Mark(record::NowNs(),
                     description.empty() ? "pipeline rebuilt" : "pipeline rebuilt: " + description);
    }
  }
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
      if (pending_.iterator)
        continue;  // a reorder interrupted this call: read from the new pipeline
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
    return NotFound("no live knob '" + op + "." + knob +
                    "' in this pipeline (live knobs: " + (known.empty() ? "none" : known) + ")");
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

Status Pipeline::Reorder(const spec::PipelineSpec& new_spec, const std::string& description) {
  spec::PipelineSpec named = new_spec;
  AssignDefaultOpNames(named);
  if (cancelled_.load()) return Cancelled("pipeline stopped");
  return Install(named, description);  // its plan validates: an invalid order is refused there
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

int64_t Pipeline::BufferMemoryBytes() const {
  int64_t bytes = 0;
  std::lock_guard lock(buffered_mu_);
  for (const auto& stats : memory_stages_) {
    const Tunable* capacity = stats->buffer_size ? stats->buffer_size : stats->parallelism;
    if (!capacity) continue;
    bytes += std::max<int64_t>(capacity->value(), 0) *
             stats->element_bytes.load(std::memory_order_relaxed);
  }
  return bytes;
}

std::map<std::string, int64_t> Pipeline::ElementBytes() const {
  std::map<std::string, int64_t> bytes;
  std::lock_guard lock(buffered_mu_);
  for (const auto& stats : memory_stages_) {
    bytes[stats->name] = stats->element_bytes.load(std::memory_order_relaxed);
  }
  return bytes;
}

std::vector<int64_t> Pipeline::RebuildTimes() const {
  std::lock_guard lock(mu_);
  return rebuilds_;
}

int64_t Pipeline::StorageReads() const {
  std::lock_guard lock(mu_);
  return storage_ ? storage_->Reads() : 0;
}

std::optional<double> Pipeline::StorageBusyFraction() const {
  std::lock_guard lock(mu_);
  if (!storage_) return std::nullopt;
  return storage_->BusyFraction();
}

}  // namespace pipescope::engine
