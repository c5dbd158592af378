// Dataset.prefetch(buffer_size): a background thread keeps up to buffer_size elements
// ready so the producer's work overlaps the consumer's. buffer_size 0 is a pass-through:
// the thread fetches only while the consumer is waiting, so nothing is read ahead.
// buffer_size is live (growing wakes the producer, shrinking stops it refilling).
//
// Hand-off cost matters (a prefetch sits between every training step and its data): the
// consumer spins briefly on an atomic count before it sleeps, and each side signals the
// other only when the other is actually asleep.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "engine/ops/ops.h"
#include "engine/runtime/spin_wait.h"

namespace pipescope::engine {
namespace {

class PrefetchDataset : public Dataset {
 public:
  PrefetchDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size)
      : Dataset(std::move(stats)), input_(std::move(input)), buffer_size_(std::move(buffer_size)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return MakeUnaryIterator<It>(*this, *input_, args);
  }

 private:
  class It : public Iterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in, const PrefetchDataset& d)
        : Iterator(ctx, stats), d_(d), input_(std::move(in)),
          subscription_(d.buffer_size_.get(), [this] { producer_cv_.notify_all(); }) {}

    ~It() override {
      Cancel();
      if (producer_.joinable()) producer_.join();
    }

    void Cancel() override {
      {
        std::lock_guard lock(mu_);
        cancelled_ = true;
      }
      producer_cv_.notify_all();
      consumer_cv_.notify_all();
      input_->Cancel();
    }

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (!producer_.joinable()) producer_ = std::thread([this] { ProducerLoop(); });
      // Spin for a few microseconds: a busy producer usually delivers within that time,
      // and a futex sleep plus wake-up would cost more than the element itself.
      if (d_.buffer_size_->value() > 0) {
        for (int i = 0; i < 2000 && count_.load(std::memory_order_acquire) == 0; ++i) {
          if (cancelled()) break;
          CpuRelax();
        }
      }
      std::unique_lock lock(mu_);
      if (buffer_.empty()) {
        ++consumers_waiting_;
        producer_cv_.notify_one();  // a pass-through producer fetches only on demand
        consumer_cv_.wait(lock, [&] { return cancelled_ || !buffer_.empty(); });
        --consumers_waiting_;
      }
      if (cancelled_) return Cancelled();
      Entry entry = std::move(buffer_.front());
      buffer_.pop_front();
      count_.store(static_cast<int64_t>(buffer_.size()), std::memory_order_release);
      stats_->buffered.store(static_cast<int64_t>(buffer_.size()), std::memory_order_relaxed);
      // Hysteresis: a producer asleep on a full buffer is woken once half of it is free.
      const bool wake_producer =
          producer_waiting_ &&
          static_cast<int64_t>(buffer_.size()) <= d_.buffer_size_->value() / 2;
      lock.unlock();
      if (wake_producer) producer_cv_.notify_one();
      if (entry.end) {
        end = true;  // the base class repeats the end from now on; the producer has stopped
        return Status::Ok();
      }
      out = std::move(entry.element);
      return std::move(entry.status);
    }

   private:
    struct Entry {
      Element element;
      Status status;
      bool end = false;
    };

    bool WantsMoreLocked() const {
      const auto limit = static_cast<size_t>(
          std::max<int64_t>(d_.buffer_size_->value(), consumers_waiting_ > 0 ? 1 : 0));
      return buffer_.size() < limit;
    }

    void ProducerLoop() {
      const bool timed = ctx_.collect_stats;
      while (true) {
        {
          std::unique_lock lock(mu_);
          if (!WantsMoreLocked() && !cancelled_) {
            const int64_t t0 = timed ? record::NowNs() : 0;
            producer_waiting_ = true;
            producer_cv_.wait(lock, [&] { return cancelled_ || WantsMoreLocked(); });
            producer_waiting_ = false;
            // With a buffer, waiting means it is full: blocked on output. A pass-through
            // waits for demand, which is idleness, not blockage.
            if (timed && d_.buffer_size_->value() > 0) {
              stats_->Add(stats_->blocked_output_ns, record::NowNs() - t0);
            }
          }
          if (cancelled_) return;
        }
        Entry entry;
        Status s = input_->GetNext(entry.element, entry.end);
        if (timed) stats_->Add(stats_->waiting_input_ns, input_->last_call_ns());
        const bool stop = entry.end || !s.ok();
        entry.status = std::move(s);
        bool wake_consumer;
        {
          std::lock_guard lock(mu_);
          buffer_.push_back(std::move(entry));
          count_.store(static_cast<int64_t>(buffer_.size()), std::memory_order_release);
          stats_->buffered.store(static_cast<int64_t>(buffer_.size()), std::memory_order_relaxed);
          wake_consumer = consumers_waiting_ > 0;
        }
        if (wake_consumer) consumer_cv_.notify_one();
        if (stop) return;  // errors and the end are delivered in order, then nothing more
      }
    }

    const PrefetchDataset& d_;
    std::unique_ptr<Iterator> input_;  // used only by the producer thread
    std::mutex mu_;
    std::condition_variable producer_cv_;
    std::condition_variable consumer_cv_;
    std::deque<Entry> buffer_;
    std::atomic<int64_t> count_{0};
    int consumers_waiting_ = 0;
    bool producer_waiting_ = false;
    bool cancelled_ = false;
    std::thread producer_;
    TunableSubscription subscription_;
  };

  DatasetPtr input_;
  TunablePtr buffer_size_;
};

}  // namespace

DatasetPtr MakePrefetchDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size) {
  stats->asynchronous = true;
  return std::make_shared<PrefetchDataset>(std::move(stats), std::move(input), std::move(buffer_size));
}

}  // namespace pipescope::engine
