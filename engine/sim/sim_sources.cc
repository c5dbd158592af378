// Simulated sources: range, synthetic, TFRecord and list_files at the top level, and the
// per-file sources of an interleave's sub-pipeline. One record per GetNext, costing the
// stage's CPU and storage wait; a file's open latency on its first read.
#include <algorithm>
#include <numeric>
#include <utility>

#include "engine/runtime/counting_rules.h"
#include "engine/runtime/shuffle_rules.h"
#include "engine/runtime/storage_device.h"
#include "engine/sim/sim_ops.h"
#include "engine/spec/op_values.h"

namespace pipescope::sim {
namespace {

class SourceDataset : public SimDataset {
 public:
  SourceDataset(SimStage& stage, int64_t records, SimValues values, bool shuffle,
                std::optional<uint64_t> seed)
      : SimDataset(stage),
        records_(records),
        values_(std::move(values)),
        shuffle_(shuffle),
        seed_(seed) {}

  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx,
                                            const SimElement* parent) const override {
    std::vector<int64_t> order;
    if (shuffle_ && records_ > 0) {  // list_files(shuffle=True): a new order per pass
      order.resize(static_cast<size_t>(records_));
      std::iota(order.begin(), order.end(), 0);
      const uint64_t seed = seed_ ? *seed_ : RecordKey(ctx.seed, stage_.id);
      engine::ShuffleInPlace(order, engine::ShufflePassSeed(seed, stage_.passes, true));
    }
    ++stage_.passes;
    return std::make_unique<It>(ctx, stage_, RecordsOf(parent), values_, parent ? parent->key : 0,
                                std::move(order));
  }

 private:
  class It : public SimIterator {
   public:
    It(SimContext& ctx, SimStage& stage, int64_t records, SimValues values, uint64_t parent_key,
       std::vector<int64_t> order)
        : SimIterator(ctx, stage),
          records_(records),
          values_(std::move(values)),
          parent_key_(parent_key),
          order_(std::move(order)) {}

   protected:
    Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
      co_await OpenOnce();
      if (records_ >= 0 && next_ >= records_) co_return false;
      co_await Charge(thread, CpuCost(1), WaitCost() + RequestWaitOf(next_, 1));
      co_await ReadFromTheDisk(1);
      out = NextRecord();
      co_return true;
    }

    Task<int64_t> GetNextRunInternal(SimThread& thread, int64_t max_rows,
                                     std::vector<SimElement>& out) override {
      co_await OpenOnce();
      const int64_t n = RunLength(max_rows);
      if (n == 0) co_return 0;
      co_await ChargeRun(thread, n);
      co_await ReadFromTheDisk(n);
      // Written in place, in one pass: a run of a fast source can be a thousand records.
      const size_t first = out.size();
      out.resize(first + static_cast<size_t>(n));
      SimElement* e = out.data() + first;
      const uint64_t id = ctx_.NewElementIds(n);
      const int64_t bytes = RecordBytes();
      for (int64_t i = 0; i < n; ++i) {
        e[i] =
            SimElement{id + static_cast<uint64_t>(i), bytes, KeyOf(next_ + i), ValueOf(next_ + i)};
      }
      next_ += n;
      co_return n;
    }

    // The same run as its totals: consecutive ids, and only the last record's key.
    Task<int64_t> GetNextRunTotalsInternal(SimThread& thread, int64_t max_rows,
                                           SimRunTotals& totals, std::vector<SimElement>&,
                                           uint64_t& first_id) override {
      co_await OpenOnce();
      const int64_t n = RunLength(max_rows);
      if (n == 0) co_return 0;
      co_await ChargeRun(thread, n);
      co_await ReadFromTheDisk(n);
      first_id = ctx_.NewElementIds(n);
      totals.rows += n;
      totals.bytes += n * RecordBytes();
      totals.last_key = KeyOf(next_ + n - 1);
      next_ += n;
      co_return n;
    }

   private:
    // How many records a run asked for `max_rows` has (at least one); 0 at the end.
    int64_t RunLength(int64_t max_rows) const {
      const int64_t n = std::max<int64_t>(1, max_rows);
      return std::max<int64_t>(0, records_ >= 0 ? std::min(n, records_ - next_) : n);
    }
    // Records cost the same each, so a run of n is one draw of their sum.
    Scheduler::ComputeAwaiter ChargeRun(SimThread& thread, int64_t n) {
      return Charge(thread, CpuCostOfRun(n, n), WaitCostOfRun(n) + RequestWaitOf(next_, n));
    }
    // The reader's buffers the next n records need from the spec's disk
    // (OpCost::records_from_disk), in one read that goes on in this file: the file's first
    // opens it; no wait where they are not on it or are in a buffer read already.
    Scheduler::SleepAwaiter ReadFromTheDisk(int64_t n) {
      if (!ctx_.storage || !stage_.cost->records_from_disk) return scheduler().Sleep(0);
      const engine::RecordsRead read = engine::DiskReadOfRecords(next_, n, RecordBytes());
      if (read.bytes == 0) return scheduler().Sleep(0);
      if (file_ == 0) file_ = ++ctx_.files_read;
      const int64_t done = ctx_.storage->Serve(now(), read.bytes, read.files, file_);
      return scheduler().Sleep(done - now());
    }
    Scheduler::SleepAwaiter OpenOnce() {
      const int64_t wait = opened_ ? 0 : stage_.cost->open_wait.Sample(stage_.rng);
      opened_ = true;
      return scheduler().Sleep(wait);
    }
    // The n-th record this pass hands out (in `order_` when shuffled), its content key and
    // its value.
    int64_t RecordAt(int64_t n) const {
      return order_.empty() ? n : order_[static_cast<size_t>(n)];
    }
    uint64_t KeyOf(int64_t n) const { return RecordKey(parent_key_, RecordAt(n)); }
    int64_t ValueOf(int64_t n) const { return values_.At(RecordAt(n)); }
    int64_t RecordBytes() const { return std::max<int64_t>(1, stage_.cost->out_bytes); }
    SimElement NextRecord() {
      const int64_t n = next_++;
      return SimElement{ctx_.NewElementId(), RecordBytes(), KeyOf(n), ValueOf(n)};
    }

    const int64_t records_;
    const SimValues values_;
    const uint64_t parent_key_;
    const std::vector<int64_t> order_;
    int64_t next_ = 0;
    bool opened_ = false;
    uint64_t file_ = 0;  // its number on the spec's disk, once it reads from it
  };

  // The records of the file an interleave opened this source for: its own count, where the
  // cost model has each file's (the element holds the file's index in the list), else the
  // source's.
  int64_t RecordsOf(const SimElement* parent) const {
    const std::vector<int64_t>& by_file = stage_.cost->records_by_file;
    if (!parent || parent->value < 0 || parent->value >= static_cast<int64_t>(by_file.size())) {
      return records_;
    }
    return by_file[static_cast<size_t>(parent->value)];
  }

  const int64_t records_;
  const SimValues values_;
  const bool shuffle_;
  const std::optional<uint64_t> seed_;
};

// Dataset.from_tensors(x) inside an interleave: the element it was opened for, once, x
// times for from_tensors(x).repeat(x), or once a row of its slices (the engine's rule:
// ElementsFromElement).
class FromElementDataset : public SimDataset {
 public:
  FromElementDataset(SimStage& stage, bool repeat_by_value, int64_t slices)
      : SimDataset(stage), repeat_by_value_(repeat_by_value), slices_(slices) {}
  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx,
                                            const SimElement* parent) const override {
    const SimElement element = parent ? *parent : SimElement{};
    const engine::Countdown copies =
        engine::ElementsFromElement(repeat_by_value_, slices_, element.value);
    return std::make_unique<It>(ctx, stage_, element, copies);
  }

 private:
  class It : public SimIterator {
   public:
    It(SimContext& ctx, SimStage& stage, SimElement element, engine::Countdown copies)
        : SimIterator(ctx, stage), element_(element), copies_(copies) {}

   protected:
    Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
      if (copies_.Done()) co_return false;
      copies_.Count();
      co_await Charge(thread, CpuCost(1), 0);
      out = element_;
      co_return true;
    }

   private:
    const SimElement element_;
    engine::Countdown copies_;
  };

  const bool repeat_by_value_;
  const int64_t slices_;
};

}  // namespace

SimDatasetPtr MakeSimSource(SimStage& stage, int64_t records, SimValues values) {
  return std::make_shared<SourceDataset>(stage, records, std::move(values), false, std::nullopt);
}

SimDatasetPtr MakeSimListFiles(SimStage& stage, int64_t files, bool shuffle,
                               std::optional<uint64_t> seed) {
  return std::make_shared<SourceDataset>(stage, files, SimValues{}, shuffle, seed);
}

namespace {

// from_generator: each next() is Python, under the interpreter lock for its share.
class FromGeneratorDataset : public SimDataset {
 public:
  FromGeneratorDataset(SimStage& stage, int64_t records, int64_t rows_per_yield)
      : SimDataset(stage), records_(records), rows_per_yield_(rows_per_yield) {}
  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx, const SimElement*) const override {
    ++stage_.passes;
    return std::make_unique<It>(ctx, stage_, records_, rows_per_yield_);
  }

 private:
  class It : public SimIterator {
   public:
    It(SimContext& ctx, SimStage& stage, int64_t records, int64_t rows_per_yield)
        : SimIterator(ctx, stage), records_(records), rows_per_yield_(rows_per_yield) {}

   protected:
    Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
      if (records_ >= 0 && next_ >= records_) co_return false;
      if (next_ == 0 && !started_) {  // the generator's code before its first yield
        started_ = true;
        co_await scheduler().Sleep(stage_.cost->open_wait.Sample(stage_.rng));
      }
      const int64_t n = next_;
      const int64_t rows = engine::GeneratorRowsOfYield(next_, records_, rows_per_yield_);
      const int64_t cpu = CpuCost(rows);
      co_await ChargeHoldingLock(thread, LockedShare(cpu), cpu - LockedShare(cpu), WaitCost());
      next_ += rows;
      out = SimElement{ctx_.NewElementId(), std::max<int64_t>(1, stage_.cost->out_bytes) * rows,
                       RecordKey(0, n), n};
      if (rows_per_yield_ > 1) {  // a batch the generator made
        out.row_length = 1;
        out.rows = static_cast<int32_t>(rows);
        out.length = static_cast<int32_t>(rows);
      }
      co_return true;
    }

   private:
    const int64_t records_;
    const int64_t rows_per_yield_;
    int64_t next_ = 0;
    bool started_ = false;
  };

  const int64_t records_;
  const int64_t rows_per_yield_;
};

}  // namespace

SimDatasetPtr MakeSimFromGenerator(SimStage& stage, int64_t records, int64_t rows_per_yield) {
  return std::make_shared<FromGeneratorDataset>(stage, records, rows_per_yield);
}

SimDatasetPtr MakeSimFromElement(SimStage& stage, bool repeat_by_value, int64_t slices) {
  return std::make_shared<FromElementDataset>(stage, repeat_by_value, slices);
}

}  // namespace pipescope::sim
