// Dataset.prefetch(buffer_size): a background thread keeps up to buffer_size elements
// ready so the producer's work overlaps the consumer's. buffer_size 0 is a pass-through:
// the thread fetches only while the consumer is waiting, so nothing is read ahead.
// buffer_size is live (growing wakes the producer, shrinking stops it refilling).
//
// Hand-off cost matters (a prefetch sits between every training step and its data), so
// the two sides rarely share a cache line: the producer appends to `buffer_` under the
// mutex, and the consumer swaps the whole buffer out in one acquisition and then serves
// from its private `local_` without synchronisation. The two vectors trade places and keep
// their capacity, so a steady run allocates nothing: a queue that allocates on one thread
// and frees on the other serialises both on the allocator's lock. The producer learns how much the
// consumer still holds from `local_held_`, which it re-reads only when the buffer looks
// full. Each side signals the other only when the other is asleep.
//
// The producer batches too: it collects fetched entries in `pending_` and publishes them
// under the mutex when a chunk is full or when holding them longer would delay the first
// one by more than kMaxBatchDelayNs (judged from the measured fetch time). A fast input
// costs one lock per chunk; a slow one delivers each element the moment it exists; and
// pending entries count against buffer_size, so a pass-through never holds one back.
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/ops/ops.h"
#include "engine/runtime/spin_wait.h"
#include "engine/work/python_work.h"

namespace pipescope::engine {
namespace {

class PrefetchDataset : public UnaryDataset {
 public:
  PrefetchDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size)
      : UnaryDataset(std::move(stats), std::move(input)), buffer_size_(std::move(buffer_size)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return MakeIteratorOver<It>(*this, args);
  }

 private:
  class It : public UnaryIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
       const PrefetchDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)),
          d_(d),
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
      UnaryIterator::Cancel();
    }

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (finished_) {  // the producer has stopped: nothing more will come
        end = true;
        return Status::Ok();
      }
      if (local_next_ == local_.size()) RETURN_IF_ERROR(Refill());
      Entry& entry = local_[local_next_++];
      local_held_.store(static_cast<int64_t>(local_.size() - local_next_),
                        std::memory_order_relaxed);
      if (entry.end) {
        finished_ = true;
        end = true;
        return Status::Ok();
      }
      out = std::move(entry.element);
      Status status = std::move(entry.status);
      entry.status = Status::Ok();
      return status;
    }

   private:
    struct Entry {
      Element element;
      Status status;
      bool end = false;
    };
    bool finished_ = false;  // the end was handed out

    // Blocks until the producer has something, then takes all of it.
    Status Refill() {
      if (!producer_.joinable())
        producer_ = std::thread([this, process = &CurrentPythonProcess()] {
          record::SetThreadName(stats_->name + "/producer");
          const PythonProcessScope in_process(*process);  // the starting thread's
          ProducerLoop();
        });
      // A busy producer usually delivers within microseconds; sleeping and being woken
      // would cost more than that (spin_wait.h: unless this producer has been slower).
      // A pass-through producer fetches only on demand: nothing to spin for.
      const bool spun_in_vain = d_.buffer_size_->value() > 0 && !consumer_spin_.SpinUntil([&] {
        return published_.load(std::memory_order_acquire) != 0 || cancelled();
      });
      std::unique_lock lock(mu_);
      if (buffer_.empty() && !cancelled_) {
        ++consumers_waiting_;
        producer_cv_.notify_one();  // a pass-through producer fetches only on demand
        consumer_cv_.wait(lock, [&] { return cancelled_ || !buffer_.empty(); });
        --consumers_waiting_;
      }
      if (spun_in_vain) consumer_spin_.WaitEnded();
      if (cancelled_) return Cancelled();
      local_.clear();
      local_next_ = 0;
      local_.swap(buffer_);
      published_.store(0, std::memory_order_release);
      local_held_.store(static_cast<int64_t>(local_.size()), std::memory_order_relaxed);
      const bool wake_producer = producer_waiting_;
      lock.unlock();
      if (wake_producer) producer_cv_.notify_one();
      return Status::Ok();
    }

    // Producer side, under mu_: room for one more? The consumer's share is re-read only
    // when the cached value says the buffer is full.
    bool WantsMoreLocked() {
      const int64_t limit =
          std::max<int64_t>(d_.buffer_size_->value(), consumers_waiting_ > 0 ? 1 : 0);
      const auto queued = static_cast<int64_t>(buffer_.size() + pending_.size());
      if (queued + cached_local_held_ < limit) return true;
      cached_local_held_ = local_held_.load(std::memory_order_relaxed);
      return queued + cached_local_held_ < limit;
    }

    // Producer side, without the lock: room by the producer's last view of the buffer.
    // Stale views only err towards "full", which then checks under the lock.
    bool HasRoomByLastView() const {
      return static_cast<int64_t>(known_buffered_ + pending_.size()) + cached_local_held_ <
             d_.buffer_size_->value();
    }

    void Publish() {
      if (pending_.empty()) return;
      bool wake_consumer;
      {
        std::lock_guard lock(mu_);
        if (buffer_.empty()) {
          buffer_.swap(pending_);
        } else {
          for (auto& e : pending_) buffer_.push_back(std::move(e));
        }
        pending_.clear();
        known_buffered_ = buffer_.size();
        published_.store(static_cast<int64_t>(buffer_.size()), std::memory_order_release);
        SetBufferLevel(static_cast<int64_t>(buffer_.size()) + cached_local_held_);
        wake_consumer = consumers_waiting_ > 0;
      }
      if (wake_consumer) consumer_cv_.notify_one();
    }

    // Waits for room; false when cancelled.
    bool WaitForRoom() {
      Publish();
      std::unique_lock lock(mu_);
      if (!WantsMoreLocked() && !cancelled_) {
        EndFetchRun();
        const uint64_t t0 = TicksIfRecording();
        producer_waiting_ = true;
        producer_cv_.wait(lock, [&] { return cancelled_ || WantsMoreLocked(); });
        producer_waiting_ = false;
        // With a buffer, waiting means it is full: blocked on output. A pass-through
        // waits for demand, which is idleness, not blockage.
        RecordSpan(
            d_.buffer_size_->value() > 0 ? record::EventKind::kBlocked : record::EventKind::kIdle,
            t0, TicksIfRecording());
      }
      known_buffered_ = buffer_.size();
      return !cancelled_;
    }

    void ProducerLoop() {
      constexpr size_t kChunk = 32;
      constexpr int64_t kMaxBatchDelayNs = 5'000;
      int64_t fetch_ema_ns = kMaxBatchDelayNs;  // assume slow until measured
      uint64_t fetches = 0;
      while (true) {
        if (!HasRoomByLastView() && !WaitForRoom()) return;
        // The fetch time steers chunking; measuring every 64th fetch is enough for that.
        const bool measure = (fetches++ % 64) == 0;
        const int64_t t0 = measure ? record::NowNs() : 0;
        // While recording, the producer's time in its input is one kWaitInput span per run
        // of fetches between waits (the input's own spans detail it per element).
        if (ctx_.recorder && fetch_run_start_ == 0) fetch_run_start_ = record::Ticks();
        Entry entry;
        Status s = input_->GetNext(entry.element, entry.end);
        if (measure) fetch_ema_ns = (fetch_ema_ns * 7 + record::NowNs() - t0) / 8;
        const bool stop = entry.end || !s.ok();
        entry.status = std::move(s);
        pending_.push_back(std::move(entry));
        if (stop || pending_.size() >= kChunk ||
            fetch_ema_ns * static_cast<int64_t>(pending_.size()) >= kMaxBatchDelayNs) {
          Publish();
        }
        if (stop) {  // errors and the end are delivered in order, then nothing more
          EndFetchRun();
          return;
        }
      }
    }

    void EndFetchRun() {
      if (fetch_run_start_ == 0) return;
      RecordSpan(record::EventKind::kWaitInput, fetch_run_start_, record::Ticks());
      fetch_run_start_ = 0;
    }

    const PrefetchDataset& d_;
    uint64_t fetch_run_start_ = 0;  // producer only: Ticks() when the current run began
    // Producer side and the mutex, on their own cache lines: the consumer touches them only
    // when it swaps the buffer out.
    alignas(64) std::mutex mu_;
    std::condition_variable producer_cv_;
    std::condition_variable consumer_cv_;
    std::vector<Entry> buffer_;  // guarded by mu_; filled by the producer
    // What the consumer spins on, alone on its line.
    alignas(64) std::atomic<int64_t> published_{0};  // buffer_.size() as last published
    alignas(64) int consumers_waiting_ = 0;
    bool producer_waiting_ = false;
    bool cancelled_ = false;
    // Producer-only state.
    int64_t cached_local_held_ = 0;  // last view of local_held_
    size_t known_buffered_ = 0;      // buffer_.size() when the producer last looked
    std::vector<Entry> pending_;     // fetched, not yet published
    std::thread producer_;
    // Consumer side: entries taken from buffer_ in one swap, served without locking.
    alignas(64) std::vector<Entry> local_;
    size_t local_next_ = 0;
    AdaptiveSpin consumer_spin_;
    alignas(64) std::atomic<int64_t> local_held_{0};
    TunableSubscription subscription_;
  };

  TunablePtr buffer_size_;
};

}  // namespace

DatasetPtr MakePrefetchDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size) {
  stats->asynchronous = true;
  return std::make_shared<PrefetchDataset>(std::move(stats), std::move(input),
                                           std::move(buffer_size));
}

}  // namespace pipescope::engine
