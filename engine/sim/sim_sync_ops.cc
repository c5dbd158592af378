// The simulator's synchronous ops: they run on the thread that calls them, like the
// engine's, and follow tf.data's semantics for what they pass on.
#include <algorithm>
#include <deque>
#include <optional>
#include <tuple>

#include "engine/runtime/batch_rules.h"
#include "engine/runtime/cache_rules.h"
#include "engine/runtime/counting_rules.h"
#include "engine/runtime/filter_rules.h"
#include "engine/runtime/shuffle_rules.h"
#include "engine/sim/sim_ops.h"
#include "engine/sim/sim_unary.h"

namespace pipescope::sim {
namespace {

// map with num_parallel_calls 0: the function runs in the caller's thread.
class SequentialMapIt : public SimUnaryIterator {
 public:
  using SimUnaryIterator::SimUnaryIterator;

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    const bool got = co_await PullInput(thread, out);
    if (!got) co_return false;
    const int64_t cpu = CpuCost(out.rows);
    const bool under_lock = stage_.cost->gil_share > 0;
    const int64_t locked = under_lock ? LockedShare(cpu) : 0;
    co_await ChargeCalls(thread, 1, under_lock, locked, cpu - locked, WaitCost());
    if (stage_.cost->out_bytes > 0) out.bytes = stage_.cost->out_bytes * out.rows;
    if (stage_.shape_output) stage_.shape_output(out);
    co_return true;
  }

  // The input's run, and the function on each of its elements as one draw of their sum.
  Task<int64_t> GetNextRunInternal(SimThread& thread, int64_t max_rows,
                                   std::vector<SimElement>& out) override {
    const size_t first = out.size();
    const int64_t n = co_await PullInputRun(thread, max_rows, out);
    if (n == 0) co_return 0;
    int64_t rows = 0;
    for (size_t i = first; i < out.size(); ++i) rows += out[i].rows;
    const int64_t cpu = CpuCostOfRun(n, rows);
    const bool under_lock = stage_.cost->gil_share > 0;
    const int64_t locked = under_lock ? LockedShare(cpu) : 0;
    co_await ChargeCalls(thread, n, under_lock, locked, cpu - locked, WaitCostOfRun(n));
    if (stage_.cost->out_bytes > 0) {
      for (size_t i = first; i < out.size(); ++i)
        out[i].bytes = stage_.cost->out_bytes * out[i].rows;
    }
    if (stage_.shape_output) {
      for (size_t i = first; i < out.size(); ++i) stage_.shape_output(out[i]);
    }
    co_return n;
  }
};

// filter: mod_equals on the values where the elements carry a range's (the engine's rule),
// otherwise an element is kept or not by its content (the same every epoch), with the
// stage's keep_fraction.
class FilterIt : public SimUnaryIterator {
 public:
  FilterIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input,
           std::optional<SimModEquals> mod_equals)
      : SimUnaryIterator(ctx, stage, std::move(input)), mod_equals_(mod_equals) {}

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    for (int64_t dropped = 1;; ++dropped) {
      const bool pulled = co_await PullInput(thread, out);
      if (!pulled) break;
      co_await Charge(thread, CpuCost(out.rows), 0);
      if (Keeps(out)) co_return true;
      // A filter that keeps nothing of an endless input would never give the scheduler
      // back its thread when costs are zero: let virtual time move now and then, so the
      // simulation's stall guard sees it.
      if (dropped % 4096 == 0) co_await scheduler().Sleep(1);
    }
    co_return false;
  }

 private:
  bool Keeps(const SimElement& e) const {
    if (mod_equals_)
      return engine::ModEqualsKeeps(e.value, mod_equals_->modulus, mod_equals_->remainder);
    const uint64_t salt = RecordKey(stage_.id + 1, 0);
    const double draw = static_cast<double>(RecordKey(e.key ^ salt, 0) >> 11) * 0x1.0p-53;
    return draw < stage_.cost->keep_fraction;
  }

  const std::optional<SimModEquals> mod_equals_;
};

// shuffle: fills a buffer of buffer_size, then hands out a random element of it and puts
// the next input element in its place (tf.data's algorithm); fused with the repeat after
// it, makes its input's passes itself and fills across their ends (ShuffleBuffer).
class ShuffleDataset : public SimDataset {
 public:
  ShuffleDataset(SimStage& stage, SimDatasetPtr input, int64_t buffer_size,
                 std::optional<uint64_t> seed, bool reshuffle, int64_t passes)
      : SimDataset(stage),
        input_(std::move(input)),
        buffer_size_(buffer_size),
        seed_(seed),
        reshuffle_(reshuffle),
        passes_(passes) {}
  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx,
                                            const SimElement* parent) const override {
    // No seed: a fresh one per run (here: from the simulation's seed, so runs repeat).
    const uint64_t seed = seed_ ? *seed_ : RecordKey(ctx.seed, stage_.id);
    return std::make_unique<It>(ctx, stage_, *this, parent ? *parent : SimElement{},
                                parent != nullptr,
                                engine::ShufflePassSeed(seed, stage_.passes++, reshuffle_));
  }

 private:
  class It : public SimIterator {
   public:
    It(SimContext& ctx, SimStage& stage, const ShuffleDataset& d, SimElement parent,
       bool has_parent, uint64_t pass_seed)
        : SimIterator(ctx, stage),
          d_(d),
          parent_(parent),
          has_parent_(has_parent),
          capacity_(std::max<int64_t>(1, d.buffer_size_)),
          pick_(pass_seed),
          input_end_(!passes_.Another()) {
      if (!input_end_) input_ = d_.input_->MakeIterator(ctx_, has_parent_ ? &parent_ : nullptr);
    }
    void Cancel() override {
      SimIterator::Cancel();
      if (input_) input_->Cancel();
    }

   protected:
    Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
      while (!input_end_ && static_cast<int64_t>(buffer_.size()) < capacity_) {
        SimElement e;
        if (co_await Pull(*input_, thread, e)) {
          passes_.Produced();
          buffer_.Add(e);
        } else {
          passes_.PassEnded();
          ctx_.Retire(std::move(input_));
          input_end_ = !passes_.Another();
          if (!input_end_) {
            input_ = d_.input_->MakeIterator(ctx_, has_parent_ ? &parent_ : nullptr);
            buffer_.StartEpoch();
          }
        }
        if (!buffer_.TakesMore()) break;
      }
      if (buffer_.empty()) co_return false;
      co_await Charge(thread, CpuCost(1), 0);
      out = buffer_.Take(pick_);
      co_return true;
    }
    // What its buffer holds, as the engine's shuffle records it: filling before its first
    // element, then full.
    int64_t BufferLevel() const override { return static_cast<int64_t>(buffer_.size()); }

   private:
    const ShuffleDataset& d_;
    const SimElement parent_;
    const bool has_parent_;
    const int64_t capacity_;
    engine::ShufflePick pick_;
    engine::ShuffleBuffer<SimElement> buffer_;
    engine::RepeatPasses passes_{d_.passes_};
    bool input_end_;
    std::unique_ptr<SimIterator> input_;
  };

  SimDatasetPtr input_;
  const int64_t buffer_size_;
  const std::optional<uint64_t> seed_;
  const bool reshuffle_;
  const int64_t passes_;
};

class BatchIt : public SimUnaryIterator {
 public:
  BatchIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input, int64_t batch_size,
          bool drop_remainder)
      : SimUnaryIterator(ctx, stage, std::move(input)),
        batch_size_(std::max<int64_t>(1, batch_size)),
        drop_remainder_(drop_remainder) {}

 protected:
  // The input's elements in runs (one call for many cheap ones), until the batch is full;
  // only their totals (a batch of a source's records makes none of them).
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    // batch_size counts elements; an element may hold several rows (a batch of batches). A
    // run asked for k rows brings at most k elements, so the batch never overfills.
    SimRunTotals in;
    int64_t elements = 0;
    bool input_ended = false;
    while (elements < batch_size_ && !input_ended) {
      const int64_t n = co_await PullInputRunTotals(thread, batch_size_ - elements, in);
      elements += n;
      input_ended = n == 0;
    }
    if (!engine::IsBatch(elements, batch_size_, input_ended, drop_remainder_)) co_return false;
    co_await Charge(thread, CpuCost(in.rows), 0);
    out = SimElement{ctx_.NewElementId(), in.bytes, RecordKey(in.last_key, in.rows)};
    out.row_length = in.longest;
    out.rows = static_cast<int32_t>(in.rows);
    out.length = static_cast<int32_t>(elements);
    co_return true;
  }

 private:
  const int64_t batch_size_;
  const bool drop_remainder_;
};

class UnbatchIt : public SimUnaryIterator {
 public:
  using SimUnaryIterator::SimUnaryIterator;

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    while (left_ == 0) {
      const bool pulled = co_await PullInput(thread, batch_);
      if (!pulled) co_return false;
      left_ = batch_.length;
    }
    co_await Charge(thread, CpuCost(1), 0);
    const int64_t length = std::max<int32_t>(1, batch_.length);
    out = SimElement{ctx_.NewElementId(), batch_.bytes / length, RecordKey(batch_.key, left_)};
    out.rows = static_cast<int32_t>(std::max<int64_t>(1, batch_.rows / length));
    // Its own rows' length is not kept: a row of a batch of batches holds records.
    out.length = static_cast<int32_t>(std::clamp<int64_t>(batch_.row_length, 0, INT32_MAX));
    out.row_length = 1;
    --left_;
    co_return true;
  }

 private:
  SimElement batch_;
  int64_t left_ = 0;
};

class ShardIt : public SimUnaryIterator {
 public:
  ShardIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input, int64_t num_shards,
          int64_t index)
      : SimUnaryIterator(ctx, stage, std::move(input)),
        shard_(std::max<int64_t>(1, num_shards), index) {}

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    while (true) {
      const bool pulled = co_await PullInput(thread, out);
      if (!pulled) break;
      const bool mine = shard_.KeepNext();
      co_await Charge(thread, CpuCost(1), 0);
      if (mine) co_return true;
    }
    co_return false;
  }

 private:
  engine::ShardSelector shard_;
};

// cache (memory or file): see engine/runtime/cache_rules.h. A replaying pass charges the
// op's per-element cost only; a reading pass pulls its input and keeps what passed.
class CacheIt : public SimUnaryIterator {
 public:
  CacheIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input,
          engine::PassCache<SimElement>& cache)
      : SimUnaryIterator(ctx, stage, std::move(input)), recording_(cache) {
    if (auto kept = cache.Complete()) replay_.emplace(std::move(kept));
  }

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    if (replay_) {
      const SimElement* kept = replay_->Next();
      if (!kept) co_return false;
      co_await Charge(thread, CpuCost(1), 0);
      out = *kept;
      out.id = ctx_.NewElementId();
      co_return true;
    }
    const bool pulled = co_await PullInput(thread, out);
    if (!pulled) {
      recording_.Finish();
      co_return false;
    }
    co_await Charge(thread, CpuCost(1), 0);
    recording_.Keep(out);
    co_return true;
  }

 private:
  engine::PassCache<SimElement>::Recording recording_;
  std::optional<engine::CacheReplay<SimElement>> replay_;
};

class CacheDataset : public SimDataset {
 public:
  CacheDataset(SimStage& stage, SimDatasetPtr input)
      : SimDataset(stage), input_(std::move(input)) {}
  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx,
                                            const SimElement* parent) const override {
    // A replaying pass does not read its input, but owns an iterator of it all the same
    // (it does nothing until pulled).
    return std::make_unique<CacheIt>(ctx, stage_, input_->MakeIterator(ctx, parent), stage_.cache);
  }

 private:
  SimDatasetPtr input_;
};

// repeat(count): passes over its input again; -1 forever, 0 not at all.
class RepeatDataset : public SimDataset {
 public:
  RepeatDataset(SimStage& stage, SimDatasetPtr input, int64_t count)
      : SimDataset(stage), input_(std::move(input)), count_(count) {}
  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx,
                                            const SimElement* parent) const override {
    return std::make_unique<It>(ctx, stage_, *this, parent ? *parent : SimElement{},
                                parent != nullptr);
  }

 private:
  class It : public SimIterator {
   public:
    It(SimContext& ctx, SimStage& stage, const RepeatDataset& d, SimElement parent, bool has_parent)
        : SimIterator(ctx, stage), d_(d), parent_(parent), has_parent_(has_parent) {}
    void Cancel() override {
      SimIterator::Cancel();
      if (input_) input_->Cancel();
    }

   protected:
    Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
      while (input_ || passes_.Another()) {
        if (!input_) input_ = d_.input_->MakeIterator(ctx_, has_parent_ ? &parent_ : nullptr);
        const bool pulled = co_await Pull(*input_, thread, out);
        if (pulled) {
          passes_.Produced();
          co_await Charge(thread, CpuCost(1), 0);
          co_return true;
        }
        passes_.PassEnded();
        ctx_.Retire(std::move(input_));
      }
      co_return false;
    }

   private:
    const RepeatDataset& d_;
    const SimElement parent_;
    const bool has_parent_;
    std::unique_ptr<SimIterator> input_;
    engine::RepeatPasses passes_{d_.count_};
  };

  SimDatasetPtr input_;
  const int64_t count_;
};

// take(count) / skip(count); -1: all.
class TakeIt : public SimUnaryIterator {
 public:
  TakeIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input, int64_t count)
      : SimUnaryIterator(ctx, stage, std::move(input)), take_(count) {}

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    if (take_.Done()) {
      // Upstream work past the count would only be thrown away: stop it, as the engine does.
      if (input_) input_->Cancel();
      co_return false;
    }
    const bool pulled = co_await PullInput(thread, out);
    if (!pulled) co_return false;
    take_.Count();
    co_await Charge(thread, CpuCost(1), 0);
    co_return true;
  }

 private:
  engine::Countdown take_;
};

class SkipIt : public SimUnaryIterator {
 public:
  SkipIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input, int64_t count)
      : SimUnaryIterator(ctx, stage, std::move(input)), skip_(count) {}

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    while (!skip_.Done()) {
      const bool pulled = co_await PullInput(thread, out);
      if (!pulled) co_return false;
      skip_.Count();
    }
    const bool pulled = co_await PullInput(thread, out);
    if (!pulled) co_return false;
    co_await Charge(thread, CpuCost(1), 0);
    co_return true;
  }

 private:
  engine::Countdown skip_;
};

// zip((input, second)): the input's element, then the second pipeline's, paired under the
// input's id; ends at the first to end, without pulling the other again (as the engine).
class ZipIt : public SimUnaryIterator {
 public:
  ZipIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input,
        std::unique_ptr<SimIterator> second)
      : SimUnaryIterator(ctx, stage, std::move(input)), second_(std::move(second)) {}
  void Cancel() override {
    SimUnaryIterator::Cancel();
    second_->Cancel();
  }

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    const bool pulled = co_await PullInput(thread, out);
    if (!pulled) co_return false;
    SimElement partner;
    const bool paired = co_await Pull(*second_, thread, partner);
    if (!paired) co_return false;
    out.bytes += partner.bytes;
    co_await Charge(thread, CpuCost(1), 0);
    co_return true;
  }

 private:
  std::unique_ptr<SimIterator> second_;
};

class ZipDataset : public SimDataset {
 public:
  ZipDataset(SimStage& stage, SimDatasetPtr input, SimDatasetPtr second)
      : SimDataset(stage), input_(std::move(input)), second_(std::move(second)) {}
  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx,
                                            const SimElement* parent) const override {
    // The second pipeline is its own: no element opened it.
    return std::make_unique<ZipIt>(ctx, stage_, input_->MakeIterator(ctx, parent),
                                   second_->MakeIterator(ctx, nullptr));
  }

 private:
  SimDatasetPtr input_, second_;
};

}  // namespace

SimDatasetPtr MakeSimZip(SimStage& stage, SimDatasetPtr input, SimDatasetPtr second) {
  return std::make_shared<ZipDataset>(stage, std::move(input), std::move(second));
}

SimDatasetPtr MakeSimSequentialMap(SimStage& stage, SimDatasetPtr input) {
  return std::make_shared<SimUnaryDataset<SequentialMapIt>>(stage, std::move(input));
}
SimDatasetPtr MakeSimFilter(SimStage& stage, SimDatasetPtr input,
                            std::optional<SimModEquals> mod_equals) {
  return std::make_shared<SimUnaryDataset<FilterIt, std::optional<SimModEquals>>>(
      stage, std::move(input), mod_equals);
}
SimDatasetPtr MakeSimShuffle(SimStage& stage, SimDatasetPtr input, int64_t buffer_size,
                             std::optional<uint64_t> seed, bool reshuffle_each_iteration,
                             int64_t passes) {
  return std::make_shared<ShuffleDataset>(stage, std::move(input), buffer_size, seed,
                                          reshuffle_each_iteration, passes);
}
SimDatasetPtr MakeSimBatch(SimStage& stage, SimDatasetPtr input, int64_t batch_size,
                           bool drop_remainder) {
  return std::make_shared<SimUnaryDataset<BatchIt, int64_t, bool>>(stage, std::move(input),
                                                                   batch_size, drop_remainder);
}
SimDatasetPtr MakeSimUnbatch(SimStage& stage, SimDatasetPtr input) {
  return std::make_shared<SimUnaryDataset<UnbatchIt>>(stage, std::move(input));
}
SimDatasetPtr MakeSimShard(SimStage& stage, SimDatasetPtr input, int64_t num_shards,
                           int64_t index) {
  return std::make_shared<SimUnaryDataset<ShardIt, int64_t, int64_t>>(stage, std::move(input),
                                                                      num_shards, index);
}
SimDatasetPtr MakeSimCache(SimStage& stage, SimDatasetPtr input) {
  return std::make_shared<CacheDataset>(stage, std::move(input));
}
SimDatasetPtr MakeSimRepeat(SimStage& stage, SimDatasetPtr input, int64_t count) {
  return std::make_shared<RepeatDataset>(stage, std::move(input), count);
}
SimDatasetPtr MakeSimTake(SimStage& stage, SimDatasetPtr input, int64_t count) {
  return std::make_shared<SimUnaryDataset<TakeIt, int64_t>>(stage, std::move(input), count);
}
SimDatasetPtr MakeSimSkip(SimStage& stage, SimDatasetPtr input, int64_t count) {
  return std::make_shared<SimUnaryDataset<SkipIt, int64_t>>(stage, std::move(input), count);
}

}  // namespace pipescope::sim
