#pragma once
// How a DataLoader's worker processes start, as the code says: its multiprocessing_context (a
// start method's name, or multiprocessing.get_context(name)), else the method the file sets
// for the whole program (multiprocessing.set_start_method, torch.multiprocessing's). Workers
// that spawn (or start from a fork server) are each sent the dataset object pickled, so the
// size of what it keeps in memory is read too: the arrays its __init__ binds to self, a
// TensorDataset's tensors, a torchvision dataset's images (engine/runtime/dataloader_rules.h
// says what sending it costs).

#include <map>
#include <string>

#include "app/code/python_reader.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::code {

// get_context and set_start_method, for a dialect's function table. get_context(name) is the
// name itself: a DataLoader's multiprocessing_context takes either.
std::map<std::string, Dialect::Function> StartMethodFunctions();

// Sets `loader`'s start_method (and dataset_bytes, where workers are sent the dataset) from
// the DataLoader call `a` over `dataset`, of class `cls` where the file defines it, or over
// the TensorDataset of `tensors`; notes what was read and what the code does not show.
void ReadStartMethod(PythonReader& r, Pipeline& p, const CallArgs& a, const Value* dataset,
                     const ClassInfo* cls, const CallArgs* tensors, const std::string& op_name,
                     spec::DataLoaderOp& loader);

}  // namespace pipescope::code
