#pragma once
// Shared shape of the simulator's one-input ops: a dataset that makes its input's iterator
// for each of its own, and an iterator that owns that input.

#include <memory>

#include "engine/sim/sim_iterator.h"

namespace pipescope::sim {

class SimUnaryIterator : public SimIterator {
 public:
  SimUnaryIterator(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input)
      : SimIterator(ctx, stage), input_(std::move(input)) {}
  void Cancel() override {
    SimIterator::Cancel();
    if (input_) input_->Cancel();
  }

 protected:
  Task<bool> PullInput(SimThread& thread, SimElement& out) { return Pull(*input_, thread, out); }
  Task<int64_t> PullInputRun(SimThread& thread, int64_t max_rows, std::vector<SimElement>& out) {
    return PullRun(*input_, thread, max_rows, out);
  }
  Task<int64_t> PullInputRunTotals(SimThread& thread, int64_t max_rows, SimRunTotals& totals) {
    return PullRunTotals(*input_, thread, max_rows, totals);
  }
  std::unique_ptr<SimIterator> input_;
};

// A dataset whose iterator is `It(ctx, stage, input iterator, args...)`.
template <typename It, typename... Args>
class SimUnaryDataset : public SimDataset {
 public:
  SimUnaryDataset(SimStage& stage, SimDatasetPtr input, Args... args)
      : SimDataset(stage), input_(std::move(input)), args_(args...) {}
  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx,
                                            const SimElement* parent) const override {
    auto input = input_->MakeIterator(ctx, parent);
    return std::apply(
        [&](auto... a) { return std::make_unique<It>(ctx, stage_, std::move(input), a...); },
        args_);
  }

 protected:
  SimDatasetPtr input_;
  std::tuple<Args...> args_;
};

}  // namespace pipescope::sim
