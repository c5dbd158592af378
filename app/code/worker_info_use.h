#pragma once
// What a DataLoader worker's code does with torch.utils.data.get_worker_info(): split the
// dataset's items among the workers, or only seed each worker's random numbers. PyTorch
// replicates an IterableDataset in every worker process; only a replica that configures
// itself by the worker's id or count (in __iter__, a method it calls, or worker_init_fn)
// yields a share of the items. A replica that asks only to seed itself yields all of them.

#include <string_view>

#include "app/code/python_tree.h"

namespace pipescope::code {

enum class WorkerInfoUse {
  kNone,       // no value derived from the worker's id or info reaches anything
  kSeedsOnly,  // every derived value goes to a seed (random.seed, default_rng, seed=...)
  kSplits,     // some derived value reaches anything else: read as configuring the replica
};

// The use in `scope` (a def or lambda) of get_worker_info()'s result, and of the parameter
// named `parameter` where not empty (worker_init_fn's worker_id).
WorkerInfoUse UseOfWorkerInfo(const SyntaxNode& scope, std::string_view parameter = {});

// Whether `scope`'s split gives each worker every n-th item (itertools.islice(it, id, None,
// n), items[id::n]) rather than a contiguous chunk, as PyTorch's documentation's example
// does: an islice call, a slice with a step, or a remainder by the workers' count.
bool SharesEveryNth(const SyntaxNode& scope);

// The stronger of two uses: a split anywhere splits.
WorkerInfoUse Stronger(WorkerInfoUse a, WorkerInfoUse b);

// The first parameter's name of a def or lambda, or "".
std::string_view FirstParameter(const SyntaxNode& function);

}  // namespace pipescope::code
