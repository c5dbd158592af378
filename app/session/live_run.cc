#include "app/session/live_run.h"

#include <future>

#include "engine/spec/spec_overrides.h"

namespace pipescope::session {

engine::Result<std::unique_ptr<LiveRun>> LiveRun::Start(const spec::PipelineSpec& spec,
                                                        Options options) {
  std::unique_ptr<LiveRun> run(new LiveRun);
  run->model_ = std::make_shared<trace::Model>();
  // The pipeline is built on the run's thread; its construction errors come back here.
  std::promise<engine::Status> built;
  std::future<engine::Status> built_future = built.get_future();
  LiveRun* self = run.get();
  run->thread_ = std::thread([self, spec, options, built = std::move(built)]() mutable {
    RecordedRunOptions recorded;
    recorded.spec_path = options.spec_path;
    recorded.trace_path = options.trace_path;
    recorded.run.duration_ns = options.duration_ns;
    recorded.run.paused = &self->paused_;
    recorded.model = self->model_;
    recorded.model_mutex = &self->model_mutex_;
    bool announced = false;
    recorded.on_pipeline = [&](engine::Pipeline* p) {
      std::lock_guard<std::mutex> lock(self->pipeline_mu_);
      self->pipeline_ = p;
      if (p && self->stop_requested_.load()) p->Cancel();
      if (p && !announced) {
        announced = true;
        built.set_value(engine::Status::Ok());
      }
    };
    auto result = RunRecorded(spec, recorded);
    {
      std::lock_guard<std::mutex> lock(self->result_mu_);
      if (!result.ok()) {
        self->outcome_ = result.status();
      } else {
        self->outcome_ = result->run_status;
        self->summary_ = result->summary;
      }
    }
    if (!announced) built.set_value(result.ok() ? engine::Status::Ok() : result.status());
    self->finished_.store(true, std::memory_order_release);
  });
  engine::Status status = built_future.get();
  if (!status.ok()) return status;  // the destructor joins the finished thread
  return run;
}

LiveRun::~LiveRun() {
  Stop();
  if (thread_.joinable()) thread_.join();
}

void LiveRun::Stop() {
  stop_requested_.store(true);
  paused_.store(false);
  std::lock_guard<std::mutex> lock(pipeline_mu_);
  if (pipeline_) pipeline_->Cancel();
}

engine::Status LiveRun::outcome() const {
  std::lock_guard<std::mutex> lock(result_mu_);
  return outcome_;
}

engine::RunSummary LiveRun::summary() const {
  std::lock_guard<std::mutex> lock(result_mu_);
  return summary_;
}

std::vector<engine::KnobInfo> LiveRun::Knobs() const {
  std::lock_guard<std::mutex> lock(pipeline_mu_);
  return pipeline_ ? pipeline_->Knobs() : std::vector<engine::KnobInfo>{};
}

engine::Status LiveRun::SetKnob(const std::string& op, const std::string& knob, int64_t value,
                                const std::string& who) {
  std::lock_guard<std::mutex> lock(pipeline_mu_);
  if (!pipeline_) {
    return engine::Status(engine::StatusCode::kInvalidArgument,
                          "the run is over: start it again to change " + op + "." + knob);
  }
  return pipeline_->SetKnob(op, knob, value, who);
}

int64_t LiveRun::BufferMemoryBytes() const {
  std::lock_guard<std::mutex> lock(pipeline_mu_);
  return pipeline_ ? pipeline_->BufferMemoryBytes() : 0;
}

std::map<std::string, int64_t> LiveRun::ElementBytes() const {
  std::lock_guard<std::mutex> lock(pipeline_mu_);
  return pipeline_ ? pipeline_->ElementBytes() : std::map<std::string, int64_t>{};
}

spec::PipelineSpec LiveRun::CurrentSpec() const {
  std::lock_guard<std::mutex> lock(pipeline_mu_);
  if (!pipeline_) return {};
  spec::PipelineSpec spec = pipeline_->spec();
  for (const auto& k : pipeline_->Knobs()) {
    if (k.autotune) continue;
    // Every live knob is a field of its op, so this cannot fail on the pipeline's own spec.
    (void)engine::ApplyOverride(spec, k.op + "." + k.knob + "=" + std::to_string(k.value));
  }
  return spec;
}

engine::Status LiveRun::Reorder(const spec::PipelineSpec& spec, const std::string& description) {
  std::lock_guard<std::mutex> lock(pipeline_mu_);
  if (!pipeline_) {
    return engine::Status(engine::StatusCode::kInvalidArgument,
                          "the run is over: start it again to change its ops");
  }
  return pipeline_->Reorder(spec, description);
}

}  // namespace pipescope::session
