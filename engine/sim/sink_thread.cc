#include "engine/sim/sink_thread.h"

#include <pthread.h>

namespace pipescope::sim {
namespace {

void Clear(record::TraceBatch& b) {
  b.stages.clear();
  b.threads.clear();
  b.knob_changes.clear();
  b.markers.clear();
  b.annotations.clear();
  b.events.clear();
}

}  // namespace

SinkThread::SinkThread(std::vector<record::TraceSink*> sinks)
    : sinks_(std::move(sinks)), thread_([this] { Deliver(); }) {}

SinkThread::~SinkThread() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void SinkThread::Hand(record::TraceBatch& batch, bool final) {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return waiting_.size() < kMaxWaiting; });
  record::TraceBatch next;
  if (!spare_.empty()) {
    next = std::move(spare_.back());
    spare_.pop_back();
  }
  waiting_.emplace_back(std::move(batch), final);
  batch = std::move(next);
  changed_.notify_all();
  if (final) changed_.wait(lock, [&] { return waiting_.empty() && !delivering_; });
}

void SinkThread::Deliver() {
  pthread_setname_np(pthread_self(), "sim-sink");
  std::unique_lock lock(mu_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
    if (waiting_.empty()) return;  // stopping, and everything handed over was delivered
    auto [batch, final] = std::move(waiting_.front());
    waiting_.pop_front();
    delivering_ = true;
    lock.unlock();
    for (auto* sink : sinks_) sink->Consume(batch, final);
    Clear(batch);
    lock.lock();
    delivering_ = false;
    spare_.push_back(std::move(batch));
    changed_.notify_all();
  }
}

}  // namespace pipescope::sim
