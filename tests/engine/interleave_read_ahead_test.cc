// Parallel interleave reads as tf.data's does (interleave_rules.h, InterleaveReadAhead): the
// cycle's inputs are all open and read at once, and the next inputs are opened and read
// ahead of the cycle. Each case's files only give a record once enough of them are open at
// the same time (a rendezvous, not a clock), so an interleave that opened inputs one at a
// time, on the consumer's turn, never gets past the first record and the case fails.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "engine/ops/ops.h"
#include "engine/runtime/stage_registry.h"

namespace pipescope::engine {
namespace {

// How many files have started their first read; a file waits until `needed` have.
struct Rendezvous {
  std::mutex mu;
  std::condition_variable cv;
  int opened = 0;
  int needed = 0;
  // Generous where the files must meet: only an interleave that never opens the others
  // waits this long.
  std::chrono::milliseconds patience{10'000};

  bool Arrive() {
    std::unique_lock lock(mu);
    ++opened;
    cv.notify_all();
    return cv.wait_for(lock, patience, [&] { return opened >= needed; });
  }
};

// A file of `records` int64 records whose first read waits at the rendezvous.
class RendezvousFile : public Dataset {
 public:
  RendezvousFile(std::shared_ptr<StageStats> stats, Rendezvous& r, int64_t records)
      : Dataset(std::move(stats)), r_(r), records_(records) {}
  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return std::unique_ptr<Iterator>(std::make_unique<It>(*args.ctx, stats(), *this));
  }

 private:
  class It : public SourceIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, const RendezvousFile& d)
        : SourceIterator(ctx, stats), d_(d) {}
    void Cancel() override {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (next_ == 0 && !d_.r_.Arrive()) {
        return Internal("fewer than " + std::to_string(d_.r_.needed) + " files were open at once");
      }
      if (next_ >= d_.records_) {
        end = true;
        return Status::Ok();
      }
      out.id = ctx_.NewElementId();
      out.value = Tensor::Int64(next_++);
      return Status::Ok();
    }

   private:
    const RendezvousFile& d_;
    int64_t next_ = 0;
  };

  Rendezvous& r_;
  const int64_t records_;
};

// Reads every element of range(files) interleaved over rendezvous files; the error, if any.
Status Drain(int64_t files, int64_t cycle, int64_t parallel, int needed, int64_t& elements,
             std::chrono::milliseconds patience = std::chrono::seconds(10)) {
  Rendezvous r;
  r.needed = needed;
  r.patience = patience;
  StageRegistry registry;
  auto knob = [&](const char* name, int64_t v) {
    return registry.Knob("read", name, v, 1, 64, false);
  };
  auto interleave = MakeInterleaveDataset(
      registry.Stage("read", "interleave", 0),
      MakeRangeDataset(registry.Stage("files", "range", 0), 0, files, 1),
      std::make_shared<RendezvousFile>(registry.Stage("read.file", "test_file", 1), r, 3),
      knob("cycle_length", cycle), knob("block_length", 1), knob("num_parallel_calls", parallel),
      true);
  PipelineContext ctx;
  auto it = interleave->MakeIterator(IteratorArgs{&ctx, nullptr});
  if (!it.ok()) return it.status();
  elements = 0;
  while (true) {
    Element e;
    bool end = false;
    Status s = (*it)->GetNext(e, end);
    if (!s.ok()) {
      (*it)->Cancel();
      return s;
    }
    if (end) return Status::Ok();
    ++elements;
  }
}

TEST(InterleaveReadAheadTest, EveryInputOfTheCycleIsOpenAndReadAtOnce) {
  int64_t elements = 0;
  // Two workers, a cycle of two: the second file is read while the first waits for it.
  Status s = Drain(/*files=*/2, /*cycle=*/2, /*parallel=*/2, /*needed=*/2, elements);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(elements, 6);
}

TEST(InterleaveReadAheadTest, TheNextInputsAreOpenedAndReadAheadOfTheCycle) {
  int64_t elements = 0;
  // A cycle of one read by one worker: the second file can only be open at the same time as
  // the first if it is opened ahead of the cycle, and the third with them, 2 × cycle_length
  // ahead.
  Status s = Drain(/*files=*/3, /*cycle=*/1, /*parallel=*/1, /*needed=*/3, elements);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(elements, 9);
}

TEST(InterleaveReadAheadTest, NoMoreThanTwiceTheCycleIsOpenedAhead) {
  int64_t elements = 0;
  // A cycle of one and 2 ahead: a fourth file is not opened while the first waits.
  Status s = Drain(/*files=*/4, /*cycle=*/1, /*parallel=*/1, /*needed=*/4, elements,
                   std::chrono::milliseconds(500));
  EXPECT_FALSE(s.ok()) << "opened more than 2 × cycle_length ahead";
}

}  // namespace
}  // namespace pipescope::engine
