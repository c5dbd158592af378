#include "app/cli/printed_order.h"

namespace pipescope::cli {

std::vector<std::string> OrderNotPrinted(const spec::PipelineSpec& spec) {
  std::vector<std::string> notes;
  for (const spec::Op& op : spec.ops()) {
    if (!op.has_dataloader() || !op.dataloader().shuffle()) continue;
    notes.push_back(op.name() +
                    "'s shuffle=True is not applied to the order printed: its sampler's "
                    "permutation costs nothing the run counts, so the indices are read in "
                    "order (each epoch's own order is PyTorch's RandomSampler's)");
  }
  return notes;
}

}  // namespace pipescope::cli
