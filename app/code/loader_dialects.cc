// PyTorch's DataLoader and Keras's fit as import-code reads them: the loader's or fit's
// arguments by keyword or position (torch/utils/data/dataloader.py's and Keras's
// signatures), over a Dataset or Sequence class the file defines, whose __getitem__ is the
// work and whose __len__ the epoch.

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "app/code/dialects.h"
#include "app/code/keras_image_generator.h"
#include "app/code/start_method.h"
#include "app/code/tensor_values.h"
#include "app/code/torchvision_work.h"
#include "app/code/work_functions.h"
#include "app/code/worker_info_use.h"
#include "engine/core/duration.h"
#include "engine/runtime/dataloader_rules.h"

namespace pipescope::code {

namespace {

constexpr int64_t kStandInItems = kStandInRecords;
// A Python function that calls nothing: its call alone (CPython's call of a small function
// is well under a microsecond; a microsecond stands in).
constexpr char kPythonCallOnly[] = "1us";
// The items of an endless IterableDataset (`while True: yield ...`): no run reaches the end.
constexpr int64_t kEndlessItems = 1'000'000'000'000'000;

// torch.utils.data.TensorDataset(*tensors): the tensors, kept for the loader that takes it.
constexpr char kTensorDataset[] = "torch.utils.data.TensorDataset";
Value TensorDataset(PythonReader&, const CallArgs& a) {
  Value v{.kind = Value::Kind::kInstance, .s = kTensorDataset, .node = a.node};
  v.call = std::make_shared<const CallArgs>(a);
  return v;
}
const CallArgs* TensorsOf(const Value* dataset) {
  return dataset && dataset->Is(Value::Kind::kInstance) && dataset->s == kTensorDataset
             ? dataset->call.get()
             : nullptr;
}

// TensorDataset's __getitem__ is `tuple(tensor[index] for tensor in tensors)`: a Python call
// and one tensor index per tensor, each costing PyTorch's per-op overhead of a few
// microseconds (a stand-in until set or calibrated).
constexpr int64_t kTensorIndexNs = 2000;
constexpr int64_t kTensorGetItemCallNs = 1000;

// A __getitem__ that indexes `rows` in-memory tensors (TensorDataset's, or a Dataset's own
// `return self.x[i], self.y[i]`): a Python call and a tensor index per tensor, a sample the
// sum of the rows in bytes where the code shows their shapes, and indexing by a list of
// indices works as well (tensor[indices]). `whose`: the __getitem__ for the notes.
void IndexedRowsWork(Pipeline& p, spec::Op& op, const std::vector<Value>& rows,
                     const std::string& whose, SourcePoint at) {
  op.mutable_dataloader()->set_indexes_batches(true);
  auto* python = op.mutable_dataloader()->mutable_getitem()->mutable_python();
  std::optional<int64_t> bytes = 0;
  for (const Value& row : rows) {
    const auto b = ArrayBytes(row);
    bytes = bytes && b ? std::optional(*bytes + *b) : std::nullopt;
  }
  const auto n = static_cast<int64_t>(rows.size());
  const std::string cost =
      std::to_string((kTensorGetItemCallNs + n * kTensorIndexNs) / 1000) + "us";
  python->set_duration(cost);
  p.Note(at, whose + " indexes " + std::to_string(n) + " in-memory tensors: " + cost +
                 " a sample stands in (a few microseconds of PyTorch's per-op overhead each); "
                 "--set " +
                 op.name() + ".cost=DURATION (or calibrate from a trace)");
  if (bytes && n > 0) {
    op.mutable_dataloader()->mutable_getitem()->set_output_bytes(*bytes);
  } else {
    p.Note(at,
           "a sample's size is not read from the code (a tensor's shape or dtype is "
           "computed): it counts a few bytes; --set " +
               op.name() + ".sample_bytes=SIZE gives its size");
  }
}

// A TensorDataset's items: as many as its first tensor's first dimension, each a row of
// every tensor, where the code shows their shapes (torch.randn(N, 3, 32, 32)).
void TensorItems(Pipeline& p, const Value& dataset, const CallArgs& tensors, spec::Op& op,
                 SourcePoint at) {
  p.source.set_name("dataset");
  std::optional<int64_t> items;
  std::vector<Value> rows;
  for (const Value& t : tensors.positional) {
    if (!items) items = FirstDimension(t);
    rows.push_back(t.Is(Value::Kind::kTensor) && !t.items.empty() ? TensorRow(t, t.node) : Value{});
  }
  p.source.mutable_range()->set_stop(items.value_or(kStandInItems));
  if (!items) {
    p.Note(at, "the length of `" + dataset.Spelling() + "` is known only when the code runs: " +
                   std::to_string(kStandInItems) + " items stand in; --set dataset.stop=N");
  }
  IndexedRowsWork(p, op, rows, "TensorDataset's __getitem__", at);
}

// The rows a Dataset's own __getitem__ returns, where it returns nothing but rows of arrays
// its __init__ holds: `self.x[i]`, a tuple or list of them, or a dict of them.
std::optional<std::vector<Value>> RowsReturned(const ClassInfo* cls) {
  if (!cls) return std::nullopt;
  const auto it = cls->returns.find("__getitem__");
  if (it == cls->returns.end()) return std::nullopt;
  const Value& v = it->second;
  const auto row = [](const Value& r) {
    return r.Is(Value::Kind::kTensor) && r.node.Is("subscript");
  };
  std::vector<Value> rows;
  if (v.Is(Value::Kind::kList)) {
    rows = v.items;
  } else if (v.Is(Value::Kind::kDict)) {
    for (size_t k = 1; k < v.items.size(); k += 2) rows.push_back(v.items[k]);
  } else {
    rows = {v};
  }
  if (rows.empty() || !std::all_of(rows.begin(), rows.end(), row)) return std::nullopt;
  return rows;
}

// An IterableDataset whose __iter__ yields in a `while True:` it never leaves: an endless
// stream (random samples drawn forever, pytorch#81412), which has no epoch and no length.
bool YieldsForever(const ClassInfo* cls) {
  if (!cls || !cls->methods.count("__iter__") || cls->methods.count("__getitem__")) return false;
  return YieldsInAnEndlessLoop(cls->methods.at("__iter__").field("body"));
}

// The methods a DataLoader calls of a map-style dataset's class: __getitem__ and __len__, or
// a torch_geometric Dataset's get and len (its __getitem__ calls self.get, its __len__
// self.len), where the class defines those and not the dunders. Empty where it has none.
std::string ItemMethod(const ClassInfo* cls) {
  if (!cls) return {};
  if (cls->methods.count("__getitem__")) return "__getitem__";
  if (cls->methods.count("get") && cls->methods.count("len")) return "get";
  return {};
}
std::string LengthMethod(const ClassInfo* cls) {
  if (!cls) return {};
  if (cls->methods.count("__len__")) return "__len__";
  return ItemMethod(cls) == "get" ? "len" : "";
}

// The source of a map-style dataset: its indices 0 .. len - 1, from __len__ when it returns
// a number; an endless stream's, more items than any run takes.
void IndexSource(PythonReader& r, Pipeline& p, const Value* dataset, const ClassInfo* cls,
                 const std::string& name) {
  p.source.set_name(name);
  auto* range = p.source.mutable_range();
  if (YieldsForever(cls)) {
    range->set_stop(kEndlessItems);
    return;
  }
  if (const std::string len = LengthMethod(cls); !len.empty()) {
    // __len__ on the instance as it was made (Rows(n=500), Rows(torch.randn(500, 4))).
    Value length;
    if (dataset && dataset->call) {
      r.CallsIn(cls->methods.at(len), r.InstanceAttributes(*cls, *dataset->call), &length);
    } else if (const auto it = cls->returns.find(len); it != cls->returns.end()) {
      length = it->second;
    }
    if (const auto n = length.AsInt()) {
      range->set_stop(*n);
      return;
    }
  }
  if (cls && cls->methods.count("__iter__") && !cls->methods.count("__getitem__")) {
    // An IterableDataset without __len__: what its __iter__ yields, where its loops say
    // (`for i in range(self.start, self.end): yield i` on the instance as it was made).
    const auto attributes =
        dataset && dataset->call ? r.InstanceAttributes(*cls, *dataset->call) : cls->attributes;
    if (const auto n = r.YieldsOfMethod(cls->methods.at("__iter__"), attributes); n && *n > 0) {
      range->set_stop(*n);
      return;
    }
  }
  if (!cls && dataset && dataset->Is(Value::Kind::kList) && !dataset->items.empty()) {
    range->set_stop(static_cast<int64_t>(dataset->items.size()));  // a list of samples
    return;
  }
  range->set_stop(kStandInItems);
  p.Note(dataset ? dataset->node.start() : p.at,
         "the length of `" + (dataset ? dataset->Spelling() : std::string("?")) +
             "` is known only when the code runs: " + std::to_string(kStandInItems) +
             " items stand in; --set " + name + ".stop=N");
}

// The first identifier `name` in `node`'s subtree (a bare name or an attribute's), or null.
SyntaxNode MentionOf(const SyntaxNode& node, std::string_view name) {
  if (node.Is("identifier") && node.text() == name) return node;
  for (const SyntaxNode& child : node.named_children()) {
    if (SyntaxNode found = MentionOf(child, name); !found.null()) return found;
  }
  return {};
}

// An IterableDataset is replicated in every worker process: each yields all of it unless the
// replica configures itself by torch.utils.data.get_worker_info() (PyTorch's docs: in
// __iter__, in a method it calls, or in the loader's worker_init_fn), read as the docs'
// split (worker_split: contiguous chunks, or every n-th item). Asked only to seed each worker's
// random numbers, it still yields all of it.
void ReplicasOfIterable(Pipeline& p, const ClassInfo& cls, const CallArgs& loader,
                        spec::DataLoaderOp& dl, SourcePoint at) {
  if (YieldsForever(&cls)) {
    // Each worker's replica is a stream of its own (PyTorch seeds each worker's torch, random
    // and, since 1.9, NumPy generators apart): nothing repeats, and there is no epoch.
    p.Note(at, cls.name + ".__iter__ yields forever (`while True`): an endless stream" +
                   (dl.num_workers() > 1 ? ", each of the " + std::to_string(dl.num_workers()) +
                                               " workers running its own, their batches handed "
                                               "out in turn"
                                         : std::string()) +
                   "; no epoch ends, so no worker starts again");
    return;
  }
  std::string seeds;  // where the worker's info only seeds, for the note
  for (const auto& [method, node] : cls.methods) {
    const SyntaxNode asked = MentionOf(node, "get_worker_info");
    if (asked.null()) continue;
    // Asked and not only to seed (a None check alone included): read as a split, as
    // PyTorch's docs' examples do.
    if (UseOfWorkerInfo(node) != WorkerInfoUse::kSeedsOnly) {
      const bool every_nth = SharesEveryNth(node);
      dl.set_worker_split(every_nth ? spec::every_nth : spec::chunks);
      p.Note(asked.start(),
             cls.name + "." + method +
                 " asks get_worker_info(): read as splitting the items "
                 "among the workers (worker i yields " +
                 (every_nth ? "every n-th item from the i-th"
                            : "the i-th contiguous chunk, as PyTorch's documentation does") +
                 ", and batches its own, so each worker's last batch may be short), one copy "
                 "of the dataset an epoch whatever num_workers");
      return;
    }
    if (seeds.empty()) seeds = cls.name + "." + method;
  }
  if (const Value* init = loader.Get(10, "worker_init_fn"); init && !init->Is(Value::Kind::kNone)) {
    const std::string name = init->Is(Value::Kind::kFunction) ? init->s : init->Spelling();
    // A function of the file's is read; another (imported, a partial) may do anything.
    const bool own = init->Is(Value::Kind::kFunction) && !init->node.null();
    const WorkerInfoUse use =
        own ? UseOfWorkerInfo(init->node, FirstParameter(init->node)) : WorkerInfoUse::kSplits;
    const bool asked = own && !MentionOf(init->node, "get_worker_info").null();
    if (use == WorkerInfoUse::kSplits || (asked && use == WorkerInfoUse::kNone)) {
      dl.set_worker_split(own && SharesEveryNth(init->node) ? spec::every_nth : spec::chunks);
      p.Note(at, "the loader's worker_init_fn `" + name +
                     "` may configure each worker's replica of " + cls.name +
                     ": read as one copy of the dataset an epoch, each worker batching its own "
                     "share of the items");
      return;
    }
    if (use == WorkerInfoUse::kSeedsOnly && seeds.empty()) seeds = "worker_init_fn `" + name + "`";
  }
  dl.set_replicated(true);
  const int64_t workers = dl.num_workers();
  const std::string asks =
      seeds.empty() ? " never asks get_worker_info()"
                    : " asks the worker's id only to seed its random numbers (" + seeds + ")";
  p.Note(at, "the IterableDataset " + cls.name + asks + ": " +
                 (workers > 1 ? "each of the " + std::to_string(workers) +
                                    " workers yields all of it, so an epoch is " +
                                    std::to_string(workers) + " copies of every sample"
                              : "with num_workers > 1 each worker would yield all of it") +
                 " (PyTorch replicates the dataset in every worker process); split the items in "
                 "__iter__ by torch.utils.data.get_worker_info().id and .num_workers");
}

// The first OpenCV call a dataset's __getitem__ (or __getitems__) makes, itself or in a
// function of the file's it calls ("cv2.imread"); empty where it makes none.
std::string OpenCvCall(PythonReader& r, const ClassInfo* cls) {
  if (!cls) return {};
  for (const char* method : {"__getitem__", "__getitems__"}) {
    if (!cls->methods.count(method)) continue;
    const Value fn{.kind = Value::Kind::kFunction, .s = method, .node = cls->methods.at(method)};
    for (const RecordedCall& call : r.CallsIn(fn)) {
      if (call.path.starts_with("cv2.")) return call.path;
      if (!call.callee.Is(Value::Kind::kFunction)) continue;
      for (const RecordedCall& inner : r.CallsIn(call.callee)) {
        if (inner.path.starts_with("cv2.")) return inner.path;
      }
    }
  }
  return {};
}

// Whether the file of `any` calls cv2.setNumThreads anywhere (at its top, in a
// worker_init_fn).
bool SetsOpenCvThreads(const SyntaxNode& any) {
  SyntaxNode root = any;
  while (!root.parent().null()) root = root.parent();
  std::function<bool(const SyntaxNode&, int)> find = [&](const SyntaxNode& n, int depth) {
    if (depth > 200) return false;
    if (n.Is("call") && n.field("function").text().ends_with("setNumThreads")) return true;
    for (const SyntaxNode& c : n.named_children()) {
      if (find(c, depth + 1)) return true;
    }
    return false;
  };
  return find(root, 0);
}

// What taking one sample of a list costs the loader's fetcher (`[self.dataset[idx] for idx in
// possibly_batched_index]`): a Python loop's turn and a list index, about a microsecond.
constexpr char kListIndexCost[] = "1us";

// A call whose file a `with` block opens and closes (`with h5py.File(path) as f:` in
// __init__, reading a length): closed before a worker process starts.
bool OpensForAWithBlock(const SyntaxNode& call) {
  SyntaxNode up = call.parent();
  if (up.Is("as_pattern")) up = up.parent();
  return up.Is("with_item");
}

// __getitem__ of the dataset's class as Python work, or with `getitems` its __getitems__,
// which the loader calls once a batch; a class the file does not define (torchvision's
// ImageFolder, say) gets a cost parameter.
spec::WorkFunction GetItem(PythonReader& r, Pipeline& p, const Value* dataset, const ClassInfo* cls,
                           const std::string& op, SourcePoint at, bool getitems) {
  StageWork work;
  const std::string method = getitems ? "__getitems__" : ItemMethod(cls);
  if (cls && !method.empty() && cls->methods.count(method)) {
    if (method == "get") {
      p.Note(at, "`" + cls->name +
                     "` defines get and len, as a torch_geometric Dataset does (its "
                     "__getitem__ calls get): get is read as the item's work");
    }
    Value fn{.kind = Value::Kind::kFunction, .s = method, .node = cls->methods.at(method)};
    const auto attributes = PythonReader::SelfOf(
        *cls,
        dataset && dataset->call ? r.InstanceAttributes(*cls, *dataset->call) : cls->attributes);
    work = ReadWork(r, fn, method, /*python=*/true, &attributes);
    if (work.fn.has_python() && work.fn.output_bytes() == 0) {
      // A sample made in memory (`return torch.randn(3, 64, 64), 0`): its size as returned.
      if (const auto bytes = SampleBytes(work.returned)) work.fn.set_output_bytes(*bytes);
    }
  } else if (cls && cls->methods.count("__iter__")) {
    // An IterableDataset: each worker runs its own copy of __iter__ and batches what it
    // yields, as the map-style loader's workers batch what __getitem__ returns; the cost
    // per sample is its loop's per-yield work.
    Value fn{.kind = Value::Kind::kFunction, .s = "__iter__", .node = cls->methods.at("__iter__")};
    const auto attributes = PythonReader::SelfOf(
        *cls,
        dataset && dataset->call ? r.InstanceAttributes(*cls, *dataset->call) : cls->attributes);
    work = ReadWork(r, fn, "__iter__", /*python=*/true, &attributes);
    p.Note(at, "`" + dataset->Spelling() +
                   "` is an IterableDataset: read as a cost per sample yielded by its __iter__, "
                   "each worker batching its own samples");
  } else if (!cls && dataset && dataset->Is(Value::Kind::kList) && !dataset->items.empty()) {
    // A list of samples (`DataLoader(data[:4000], ...)`, Lightning#17410's tensors in memory):
    // each sample one index into it, a C call beside the fetcher's own loop.
    work.fn.mutable_python()->set_duration(kListIndexCost);
    if (const auto bytes = SampleBytes(dataset->items[0])) work.fn.set_output_bytes(*bytes);
    p.Note(at, "`" + dataset->Spelling() + "` is a list of " +
                   std::to_string(dataset->items.size()) +
                   " samples in memory: each one index into it, " + kListIndexCost +
                   " a sample (the fetcher's loop and the index); --set " + op +
                   ".cost=DURATION sets it");
  } else {
    work.fn.mutable_python()->set_duration(DefaultStageCost());
    work.fn.set_cost_is_stand_in(true);
    work.cost_is_parameter = true;
    p.Note(at, "`" + (dataset ? dataset->Spelling() : std::string("?")) + "` " +
                   (cls ? "is a `" + cls->name +
                              "`, whose class defines no __getitem__ (nor get and len): its "
                              "items' work is not read"
                        : std::string("is not a class this file defines: its __getitem__ is "
                                      "not read")));
  }
  work.name = op;
  WaitForFileLoads(p, at, op, work);
  NoteWork(p, at, op, work);
  if (work.fn.has_python() && work.fn.output_bytes() == 0) {
    // A Keras Sequence's __getitem__ makes a whole batch, a Dataset's one sample, in the
    // words and sizes of each.
    const bool keras = p.framework == "keras";
    p.Note(at, std::string(keras ? "a batch's" : "a sample's") +
                   " size is not read from the code: it counts a few bytes, so a batch crosses "
                   "from the workers for its message's cost alone; --set " +
                   op + ".sample_bytes=SIZE gives its size " +
                   (keras ? "(32 224×224 RGB images: 4.8MB as uint8, 19MB as float32); worker "
                            "processes send it pickled through a pipe, which the main process "
                            "reads and unpickles at " +
                                engine::FormatDuration(engine::kDefaultPipeReceiveNsPerMib) +
                                " a MiB (measured here: --set " + op +
                                ".receive_per_mb=DURATION for the machine that trains)"
                          : std::string("(a 224×224 RGB image: 150KB as bytes, 600KB as float32 "
                                        "after ToTensor)")));
  }
  return work.fn;
}

// BatchSampler(sampler, batch_size, drop_last): its arguments, where `sampler` is one.
constexpr char kBatchSampler[] = "torch.utils.data.BatchSampler";
Value BatchSampler(PythonReader&, const CallArgs& a) {
  Value v{.kind = Value::Kind::kInstance, .s = kBatchSampler, .node = a.node};
  v.call = std::make_shared<const CallArgs>(a);
  return v;
}
const CallArgs* BatchSamplerOf(PythonReader&, const Value* sampler) {
  return sampler && sampler->Is(Value::Kind::kInstance) && sampler->s == kBatchSampler
             ? sampler->call.get()
             : nullptr;
}

// RandomSampler(data_source, replacement, num_samples) and SequentialSampler(data_source):
// which order a sampler gives the indices in.
constexpr char kRandomSampler[] = "torch.utils.data.RandomSampler";
constexpr char kSequentialSampler[] = "torch.utils.data.SequentialSampler";
Value RandomSampler(PythonReader&, const CallArgs& a) {
  return Value{.kind = Value::Kind::kInstance, .s = kRandomSampler, .node = a.node};
}
Value SequentialSampler(PythonReader&, const CallArgs& a) {
  return Value{.kind = Value::Kind::kInstance, .s = kSequentialSampler, .node = a.node};
}
// DistributedSampler(dataset, num_replicas, rank, shuffle=True, seed, drop_last): each of
// the job's num_replicas processes takes every num_replicas-th index from its rank, the
// dataset padded (or, with drop_last, cut) to a multiple of them; shuffled unless told.
constexpr char kDistributedSampler[] = "torch.utils.data.DistributedSampler";
// SubsetRandomSampler(indices, generator): the given indices alone, in a new random order each
// epoch (the train part of a split, ConVIRT-pytorch's 90%).
constexpr char kSubsetRandomSampler[] = "torch.utils.data.SubsetRandomSampler";
// A sampler `which` that keeps the arguments it was made with, for the loader to read.
template <const char* which>
Value SamplerWithArguments(PythonReader&, const CallArgs& a) {
  return Value{.kind = Value::Kind::kInstance,
               .s = which,
               .call = std::make_shared<CallArgs>(a),
               .node = a.node};
}
bool IsSampler(const Value* v, const char* which) {
  return v && v->Is(Value::Kind::kInstance) && v->s == which;
}

const ClassInfo* ClassOf(PythonReader& r, const Value* v) {
  return v && v->Is(Value::Kind::kInstance) ? r.FindClass(v->s) : nullptr;
}

// An epoch of a SubsetRandomSampler: its indices, where the code shows how many; else the
// whole range, noted.
void SubsetOfTheIndices(Pipeline& p, const CallArgs& sampler) {
  const Value* indices = sampler.Get(0, "indices");
  if (p.source.has_range()) {
    auto* range = p.source.mutable_range();
    if (indices && indices->Is(Value::Kind::kList) && !indices->items.empty()) {
      range->set_stop(range->start() + static_cast<int64_t>(indices->items.size()));
      return;
    }
  }
  // A dataset of files (ImageFolder) or a range of unknown subset: all of it, said.
  const std::string all =
      p.source.has_range()
          ? "all " + std::to_string(p.source.range().stop() - p.source.range().start()) +
                " until set: --set " + p.source.name() + ".stop=N (the subset's size)"
          : "all of the dataset";
  p.Note(sampler.node.start(), "SubsetRandomSampler: an epoch takes only its indices `" +
                                   (indices ? indices->Spelling() : std::string("?")) +
                                   "`, how many known only when the code runs; the spec takes " +
                                   all);
}

// The indices one process of a DistributedSampler's job takes: ceil(N / replicas), or
// floor with drop_last, where the code gives the replicas; else the whole range, noted (the
// world size is the job's launch's, mmpose#923's 8 GPUs).
void OneProcessShare(Pipeline& p, const CallArgs& sampler) {
  if (!p.source.has_range()) return;
  auto* range = p.source.mutable_range();
  const int64_t n = range->stop() - range->start();
  const Value* replicas = sampler.Get(1, "num_replicas");
  const auto r = replicas ? replicas->AsInt() : std::nullopt;
  if (r && *r >= 1) {
    const Value* drop = sampler.Get(5, "drop_last");
    const bool floor = drop && drop->Is(Value::Kind::kBool) && drop->b;
    range->set_stop(range->start() + (floor ? n / *r : (n + *r - 1) / *r));
    return;
  }
  p.Note(sampler.node.start(),
         "DistributedSampler: each of the job's processes takes its share of the " +
             std::to_string(n) + " indices, 1/" +
             (replicas ? "`" + replicas->Spelling() + "`" : std::string("world size")) +
             " of them, known only when the job runs; the spec is one process's, over all of "
             "them until set: --set " +
             p.source.name() + ".stop=N (the indices divided by the processes)");
}

// The loader's batch_size and drop_last from a BatchSampler(sampler, batch_size, drop_last)
// it is given.
void BatchesOf(const CallArgs& batches, Pipeline& p, const CallArgs& a, const std::string& op_name,
               spec::DataLoaderOp& dl) {
  const Value* size = batches.Get(1, "batch_size");
  dl.set_batch_size(size && size->AsInt() ? *size->AsInt() : 1);
  if (!size || !size->AsInt()) {
    p.Note(a.node.start(),
           "the BatchSampler's batch_size is `" + (size ? size->Spelling() : std::string("?")) +
               "`, known only when the code runs: 1 until set: --set " + op_name + ".batch_size=N");
  }
  if (const Value* drop = batches.Get(2, "drop_last"); drop && drop->Is(Value::Kind::kBool)) {
    dl.set_drop_last(drop->b);
  }
}

// `graphs`: PyTorch Geometric's DataLoader (torch_geometric.loader, earlier .data), which is
// torch's with a collate of its own: Batch.from_data_list, Python that joins a batch's graphs
// (pyg#811: "CPU load high, GPU load low" with 10,000 small graphs).
Value DataLoaderOf(PythonReader& r, const CallArgs& a, bool graphs) {
  auto p = r.NewPipeline("pytorch", a.node.start());
  const std::string op_name = "loader";
  const Value* dataset = a.Get(0, "dataset");
  RecordSite(*p, a, dataset, op_name, "dataset");  // for a sampler written around it
  const ClassInfo* cls = ClassOf(r, dataset);
  const CallArgs* tensors = TensorsOf(dataset);
  if (!tensors && !IsTorchvisionDataset(dataset)) IndexSource(r, *p, dataset, cls, "dataset");
  spec::Op op;
  op.set_name(op_name);
  auto* dl = op.mutable_dataloader();
  const Value* batch = a.Get(1, "batch_size");
  const Value* sampler = a.Get(3, "sampler");
  const CallArgs* batches = BatchSamplerOf(r, sampler);
  // batch_sampler=BatchSampler(sampler, batch_size, drop_last): its batches of indices, each
  // fetched item by item and collated (DataLoader refuses batch_size, shuffle, sampler and
  // drop_last beside it).
  const CallArgs* batch_sampler = BatchSamplerOf(r, a.Get(4, "batch_sampler"));
  // A dataset with __getitems__ is given each batch's indices in one call (PyTorch's
  // _MapDatasetFetcher), where the loader batches.
  const bool getitems = cls && cls->methods.count("__getitems__");
  if (batch_sampler) {
    batches = batch_sampler;
    dl->set_fetch_batches(getitems);
    BatchesOf(*batches, *p, a, op_name, *dl);
    // PyTorch's _MapDatasetFetcher: given a batch of indices, a dataset without __getitems__
    // is still called once an index (huggingface/datasets#5505's surprise).
    if (const SyntaxNode& given = a.Get(4, "batch_sampler")->node; !getitems) {
      p->Note(given.null() ? a.node.start() : given.start(),
              "batch_sampler= hands the loader each batch's indices, and it still calls "
              "__getitem__ once an index, then collates ([dataset[i] for i in indices]); one "
              "call a batch needs a __getitems__, or sampler=BatchSampler(...) with "
              "batch_size=None over a dataset whose __getitem__ takes the list");
    }
  } else if (batch && batch->Is(Value::Kind::kNone) && batches) {
    // batch_size=None over a sampler of index batches: the dataset gets each batch's indices
    // in one call (TensorDataset's tensor[indices]).
    dl->set_fetch_batches(true);
    BatchesOf(*batches, *p, a, op_name, *dl);
  } else if (batch && batch->Is(Value::Kind::kNone)) {
    // No automatic batching: each index the sampler gives is fetched as it is, a whole batch
    // where __getitem__ (or a batch sampler's indices) makes one.
    dl->set_batch_size(1);
    p->Note(batch->node.start(),
            "batch_size=None: no automatic batching, each item __getitem__ makes is handed on "
            "as it is: read as batches of one item (its cost is the whole batch's where "
            "__getitem__ makes one)");
  } else {
    dl->set_batch_size(
        ReadKnob(*p, a, 1, "batch_size", op_name, "1 (the DataLoader's default)").value_or(1));
    dl->set_fetch_batches(getitems);
  }
  // The order of the indices: shuffle=True, or a RandomSampler as the sampler or inside the
  // BatchSampler. It is kept for the code written back; it costs nothing the spec counts.
  const Value* order = batches ? batches->Get(0, "sampler") : sampler;
  if (const auto shuffle = ReadFlag(*p, a, 2, "shuffle", op_name); shuffle && *shuffle) {
    dl->set_shuffle(true);
  } else if (IsSampler(order, kDistributedSampler) && order->call) {
    OneProcessShare(*p, *order->call);
    const Value* shuffled = order->call->Get(3, "shuffle");
    dl->set_shuffle(!shuffled || !shuffled->Is(Value::Kind::kBool) || shuffled->b);
  } else if (IsSampler(order, kRandomSampler)) {
    dl->set_shuffle(true);
  } else if (IsSampler(order, kSubsetRandomSampler) && order->call) {
    SubsetOfTheIndices(*p, *order->call);
    dl->set_shuffle(true);
  } else if ((order && !IsSampler(order, kSequentialSampler) && !order->Is(Value::Kind::kNone)) ||
             (a.Get(4, "batch_sampler") && !batch_sampler)) {
    p->Note(a.node.start(),
            "the loader's sampler `" +
                (order ? order->Spelling() : a.Get(4, "batch_sampler")->Spelling()) +
                "` is not read: indices in order");
  }
  dl->set_num_workers(
      ReadKnob(*p, a, 5, "num_workers", op_name, "0 (the DataLoader's default)").value_or(0));
  if (const Value* collate = a.Get(6, "collate_fn"); collate && !collate->Is(Value::Kind::kNone)) {
    StageWork work = ReadWork(r, *collate, "collate_fn", /*python=*/true);
    // One that calls nothing (`lambda batch: batch`, the list of samples as it is) costs a
    // Python call, not the stand-in for work the code does not show.
    if (collate->Is(Value::Kind::kFunction) && r.CallsIn(*collate).empty() &&
        work.transforms.parts.empty()) {
      work.fn.mutable_python()->set_duration(kPythonCallOnly);
      work.cost_is_parameter = false;
    }
    *dl->mutable_collate() = work.fn;
    NoteWork(*p, collate->node.start(), op_name, work, "collate_cost");
  } else if (graphs) {
    spec::WorkFunction& collate_fn = *dl->mutable_collate();
    collate_fn.mutable_python()->set_duration(DefaultStageCost());
    collate_fn.set_cost_is_stand_in(true);
    p->Note(a.node.start(),
            "torch_geometric's DataLoader joins each batch's graphs with "
            "Batch.from_data_list, Python whose cost the code does not show: " +
                DefaultStageCost() + " a batch stands in; --set " + op_name +
                ".collate_cost=DURATION");
  }
  dl->set_pin_memory(ReadFlag(*p, a, 7, "pin_memory", op_name).value_or(false));
  if (!dl->fetch_batches() && !batch_sampler) {
    dl->set_drop_last(ReadFlag(*p, a, 8, "drop_last", op_name).value_or(false));
  }
  if (const auto pf = ReadKnob(*p, a, 13, "prefetch_factor", op_name, "2")) {
    dl->set_prefetch_factor(*pf);
  }
  dl->set_persistent_workers(ReadFlag(*p, a, 14, "persistent_workers", op_name).value_or(false));
  if (const auto in_order = ReadFlag(*p, a, 16, "in_order", op_name)) dl->set_in_order(*in_order);
  ReadStartMethod(r, *p, a, dataset, cls, tensors, op_name, *dl);
  if (dl->num_workers() > 0 && !dl->persistent_workers() && !YieldsForever(cls)) {
    // The default start-up is a new interpreter's, which a fork need not pay; spawn (Windows' and
    // macOS's start method) imports the script and its libraries again in each worker, torch above
    // all (the rules' kSpawnedTorchWorkerStartupNs where the code spawns). The count as the code
    // gives it: a --set of num_workers changes the spec, not notes.
    const std::string each =
        dl->start_method() == spec::spawn
            ? "each spawned, importing this file and torch again (" +
                  engine::FormatDuration(engine::kSpawnedTorchWorkerStartupNs) +
                  " stands in: pytorch#12831's worker on Windows took about that)"
            : "each forked (Linux's default), a new Python interpreter's start-up measured "
              "here standing in (" +
                  engine::FormatDuration(engine::kDefaultWorkerStartupNs) +
                  "), where a fork of the main process starts no interpreter and may cost "
                  "less; where workers spawn (Windows, macOS) they import the script and "
                  "torch again, seconds each";
    p->Note(a.node.start(),
            "the loader starts its worker processes again every epoch (no "
            "persistent_workers; num_workers=" +
                std::to_string(dl->num_workers()) + " in the code), " + each + ": --set " +
                op_name + ".worker_startup=DURATION for what one takes there");
  }
  if (tensors) {
    TensorItems(*p, *dataset, *tensors, op, a.node.start());
  } else if (IsTorchvisionDataset(dataset)) {
    TorchvisionItems(*p, *dataset, op, a.node.start());
  } else if (const auto rows = RowsReturned(cls)) {
    IndexedRowsWork(*p, op, *rows, cls->name + ".__getitem__", a.node.start());
  } else {
    *dl->mutable_getitem() =
        GetItem(r, *p, dataset, cls, op_name, a.node.start(), getitems && dl->fetch_batches());
  }
  if (cls && !cls->methods.count("__getitem__") && cls->methods.count("__iter__")) {
    ReplicasOfIterable(*p, *cls, a, *dl, a.node.start());
  }
  // OpenCV runs a thread pool of its own (a thread per core) in every worker process, so
  // workers that decode or resize with it crowd the cores (mmdetection#3306: 2.14 s an
  // iteration, cured by cv2.setNumThreads(0), which mmdetection now sets in each worker).
  if (const std::string cv = OpenCvCall(r, cls);
      !cv.empty() && dl->num_workers() > 0 && !SetsOpenCvThreads(a.node) &&
      // The class's own module, where it is another file: its top runs on import.
      (cls->methods.empty() || !SetsOpenCvThreads(cls->methods.begin()->second))) {
    p->Note(a.node.start(), cls->name + " calls OpenCV (" + cv +
                                "), which runs a thread per core of its own in each of the " +
                                std::to_string(dl->num_workers()) +
                                " worker processes: they crowd the cores, which the simulation "
                                "does not count; cv2.setNumThreads(0) at the top of the file "
                                "(or in a worker_init_fn) keeps each worker to its own thread");
  }
  // An HDF5 file opened in __init__ is inherited by every worker process, which h5py does
  // not support (pytorch#11929: open it in __getitem__, once per worker).
  // Code written back with workers added says so again (Pipeline::before_more_workers).
  if (cls && cls->methods.count("__init__")) {
    const Value init{
        .kind = Value::Kind::kFunction, .s = "__init__", .node = cls->methods.at("__init__")};
    for (const RecordedCall& call : r.CallsIn(init)) {
      if (call.path != "h5py.File" || OpensForAWithBlock(call.args.node)) continue;
      const std::string move =
          "h5py does not support a handle shared across processes: open it in __getitem__ "
          "(once per worker, on first use) instead";
      p->before_more_workers[op_name] = cls->name +
                                        ".__init__ opens an HDF5 file (h5py.File, line " +
                                        std::to_string(call.args.node.start().line) +
                                        ") that each worker process would inherit; " + move;
      if (dl->num_workers() == 0) break;
      p->Note(call.args.node.start(),
              cls->name + ".__init__ opens an HDF5 file (h5py.File) that the loader's " +
                  (dl->num_workers() == 1
                       ? std::string("worker process inherits")
                       : std::to_string(dl->num_workers()) + " worker processes inherit") +
                  "; " + move + ", before any advice that adds workers is taken");
      break;
    }
  }
  if (!a.unknown_splat.empty()) {
    p->Note(a.node.start(), "the loader's `" + a.unknown_splat +
                                "` is known only when the code runs: the arguments it passes are "
                                "read at the DataLoader's defaults (--set " +
                                op_name + ".KNOB=VALUE for each)");
  }
  p->op_at[op_name] = a.node.start();
  p->ops.push_back(op);
  // A training loop takes the loader's batches epoch after epoch.
  spec::Op epochs;
  epochs.set_name("epochs");
  epochs.mutable_repeat()->set_training_loop(true);
  p->ops.push_back(epochs);
  return PipelineValue(std::move(p), a);
}

// A class of the file's own that derives from Lightning's LightningModule (pl.LightningModule,
// L.LightningModule, lightning.pytorch.LightningModule) or its LightningDataModule.
bool DerivesFrom(const ClassInfo* cls, std::string_view base) {
  if (!cls) return false;
  return std::any_of(cls->bases.begin(), cls->bases.end(), [&](const std::string& b) {
    return b == base || b.ends_with("." + std::string(base));
  });
}
bool IsLightningModule(const ClassInfo* cls) { return DerivesFrom(cls, "LightningModule"); }

// Lightning's Trainer.fit(model, train_dataloaders=None, val_dataloaders=None,
// datamodule=None): the loaders given, else the datamodule's train_dataloader(), else the
// module's own. It trains on them; the module is not a Keras Sequence.
// The arguments of the Trainer whose fit `fit` is (`pl.Trainer(max_epochs=20).fit(model)`, or
// through the name it is bound to); null where fit is not a Trainer's.
std::shared_ptr<const CallArgs> TrainerArgs(PythonReader& r, const CallArgs& fit) {
  const SyntaxNode callee = fit.node.field("function");
  if (!callee.Is("attribute")) return nullptr;
  const Value trainer = r.Evaluate(callee.field("object"));
  // A call the reader does not know keeps its arguments (Value::call), bound to a name or not.
  if (!trainer.call || !trainer.call->node.field("function").text().ends_with("Trainer")) {
    return nullptr;
  }
  return trainer.call;
}

// The epochs Lightning's Trainer runs, from the Trainer(...) `trainer.fit(...)` is called on:
// max_epochs, or 1000 where neither it nor max_steps is given (Trainer's docstring: "If both
// max_epochs and max_steps are not specified, defaults to max_epochs = 1000"); nullopt where
// max_steps bounds them or the Trainer is not the code's to read.
std::optional<PythonReader::LoopEpochs> TrainerEpochs(PythonReader& r, const CallArgs& fit) {
  const auto trainer = TrainerArgs(r, fit);
  if (!trainer) return std::nullopt;
  const CallArgs& args = *trainer;
  const SyntaxNode made = args.node;
  const SourcePoint at = made.start();
  if (const Value* max = args.Get(100, "max_epochs")) {
    const auto n = max->AsInt();
    if (!n || *n <= 0) return std::nullopt;
    return PythonReader::LoopEpochs{
        .epochs = *n, .at = at, .counted_by = "the Trainer's max_epochs=" + std::to_string(*n)};
  }
  if (args.Get(100, "max_steps")) return std::nullopt;
  return PythonReader::LoopEpochs{
      .epochs = 1000,
      .at = at,
      .counted_by =
          "the Trainer is given neither max_epochs nor max_steps, so Lightning runs "
          "1000 epochs (its default then)"};
}

// The Trainer's max_steps, where it is a count the code gives (more than 0); nullopt else.
std::optional<int64_t> TrainerMaxSteps(PythonReader& r, const CallArgs& fit) {
  const auto trainer = TrainerArgs(r, fit);
  if (!trainer) return std::nullopt;
  const Value* steps = trainer->Get(100, "max_steps");
  const auto n = steps && !steps->Is(Value::Kind::kBool) ? steps->AsInt() : std::nullopt;
  return n && *n > 0 ? n : std::nullopt;
}

// Lightning goes over the validation loader at each epoch's end (after a sanity check of two
// batches before training): the module's or datamodule's val_dataloader(), or
// val_dataloaders= given. Not simulated: said, as fit's validation_data is.
void NoteLightningValidationLeftOut(PythonReader& r, const CallArgs& a,
                                    std::initializer_list<const ClassInfo*> classes) {
  std::string whose;
  for (const ClassInfo* cls : classes) {
    if (cls && cls->methods.count("val_dataloader")) {
      whose = "`" + cls->name + ".val_dataloader()`";
      break;
    }
  }
  const Value* given = a.Get(2, "val_dataloaders");
  if (given && !given->Is(Value::Kind::kNone)) whose = "val_dataloaders";
  if (whose.empty()) return;
  r.Note(a.node.start(), "Lightning also goes over " + whose +
                             " at each epoch's end: not simulated, so its time (and its "
                             "workers' start each epoch, unless persistent) is in none of "
                             "these figures");
}

Value LightningFit(PythonReader& r, const CallArgs& a, const ClassInfo& module) {
  const std::optional<PythonReader::LoopEpochs> epochs = TrainerEpochs(r, a);
  const Value* datamodule = a.Get(3, "datamodule");
  NoteLightningValidationLeftOut(r, a, {ClassOf(r, datamodule), &module});
  const std::optional<int64_t> max_steps = TrainerMaxSteps(r, a);
  const auto trains_on = [&](const Value* v) {
    if (!v || !v->Is(Value::Kind::kPipeline)) return false;
    if (max_steps && !epochs && v->pipeline) {
      // Trainer(max_steps=N) alone: the epochs go on until N batches are taken.
      auto p = r.Extend(*v->pipeline, a.node.start());
      spec::Op op;
      op.set_name(p->FreshName(kFitSteps));
      op.mutable_take()->set_count(*max_steps);
      p->ops.push_back(op);
      p->Note(a.node.start(), "the Trainer's max_steps=" + std::to_string(*max_steps) +
                                  ": training ends after " + std::to_string(*max_steps) +
                                  " batches, a take of them after the loader's epochs");
      r.Trains(PipelineValue(std::move(p), a), a.node);
      return true;
    }
    r.Trains(*v, a.node);
    if (epochs && v->pipeline) r.SetEpochs(v->pipeline->id, *epochs);
    return true;
  };
  // train_dataloader() of the module or datamodule as it was made (Lit(batch_size=64)): read
  // with the constructor's arguments where the instance is the file's, else as defined.
  std::optional<Value> made;
  const auto returned = [&](const Value* instance, const ClassInfo* cls) -> const Value* {
    if (!cls) return nullptr;
    if (instance && instance->Is(Value::Kind::kInstance)) {
      made = r.CallMethodOf(*instance, "train_dataloader", CallArgs{.node = a.node});
      if (made && made->Is(Value::Kind::kPipeline)) return &*made;
    }
    const auto it = cls->returns.find("train_dataloader");
    return it == cls->returns.end() ? nullptr : &it->second;
  };
  if (trains_on(a.Get(1, "train_dataloaders")) || trains_on(a.Get(100, "train_dataloader"))) {
    return Value{.node = a.node};
  }
  if (trains_on(returned(datamodule, ClassOf(r, datamodule))) ||
      trains_on(returned(a.Get(0, "model"), &module))) {
    return Value{.node = a.node};
  }
  r.Note(a.node.start(), "Lightning's fit of `" + module.name +
                             "`: no train_dataloader() of it returns a DataLoader import-code "
                             "reads, nor a train_dataloaders= given");
  return Value{.node = a.node};
}

// fit's enqueuer arguments onto its keras_fit op `op_name`: workers (fit's default 1),
// use_multiprocessing and max_queue_size.
// `whose`: the call whose defaults they are ("fit's", Keras 3's "PyDataset's"); `args_for`
// the call each knob is read from (and written back into).
void ReadEnqueuerArgs(Pipeline& p,
                      const std::function<const CallArgs&(const std::string&)>& args_for,
                      const std::string& op_name, spec::KerasFitOp& kf,
                      const std::string& whose = "fit's") {
  if (const auto w =
          ReadKnob(p, args_for("workers"), 100, "workers", op_name, "1 (" + whose + " default)")) {
    kf.set_workers(*w);
  } else {
    kf.clear_workers();
  }
  kf.set_use_multiprocessing(
      ReadFlag(p, args_for("use_multiprocessing"), 100, "use_multiprocessing", op_name)
          .value_or(false));
  if (const auto q = ReadKnob(p, args_for("max_queue_size"), 100, "max_queue_size", op_name,
                              "10 (" + whose + " default)")) {
    kf.set_max_queue_size(*q);
  }
}

// fit's own workers, use_multiprocessing and max_queue_size (Keras 2). A call that spells
// the queue or the processes as Keras 2.0.0 to 2.0.5 did (keras#7168's fit_generator(...,
// workers=3, max_q_size=50)) gets a knob it leaves out written under that version's name:
// pickle_safe, max_q_size (use_multiprocessing and max_queue_size came in 2.0.6).
// Whether a fit call spells the queue or the processes as Keras 2.0.0 to 2.0.5 did.
bool SpelledAsKeras20(const CallArgs& a) {
  return !KeywordExpression(a, "max_q_size").null() || !KeywordExpression(a, "pickle_safe").null();
}

void ReadEnqueuerArgs(Pipeline& p, const CallArgs& a, const std::string& op_name,
                      spec::KerasFitOp& kf) {
  ReadEnqueuerArgs(
      p, [&a](const std::string&) -> const CallArgs& { return a; }, op_name, kf);
  if (!SpelledAsKeras20(a)) return;
  p.Note(a.node.start(),
         "the call spells fit's queue and processes as Keras 2.0.0 to 2.0.5 did (max_q_size, "
         "pickle_safe): advice names them as Keras 2.0.6 on does (max_queue_size, "
         "use_multiprocessing), and code written back keeps this file's names");
  for (const auto& [knob, old_name] :
       {std::pair<const char*, const char*>{"use_multiprocessing", "pickle_safe"},
        {"max_queue_size", "max_q_size"}}) {
    const auto site = p.sites.find(op_name + "." + knob);
    if (site != p.sites.end() && site->second.value_end == 0) site->second.keyword = old_name;
  }
}

// Keras 3's keras.utils.PyDataset: a Sequence whose constructor, not fit, takes workers,
// use_multiprocessing and max_queue_size (PyDataset.__init__, passed on by the subclass's
// `super().__init__(**kwargs)`); Keras 3's fit has no such arguments.
bool IsPyDataset(const ClassInfo* cls) {
  return cls && std::any_of(cls->bases.begin(), cls->bases.end(), [](const std::string& b) {
           return b == "PyDataset" || b.ends_with(".PyDataset");
         });
}

// Where each of a PyDataset's enqueuer knobs is read, and a tuned value written back:
// - the call that makes the dataset (`Images(paths, 32, workers=4)`), where its keywords
//   reach PyDataset.__init__ through the subclass's `super().__init__(**kwargs)`, or where it
//   passes one of the subclass's own parameters (`super().__init__(workers=workers)`: the
//   value is the parameter's, its default where the call leaves it out);
// - that super call itself where it writes the value (`super().__init__(workers=4)`), or
//   where the knob is left out and its **kwargs do not reach it.
std::map<std::string, CallArgs> PyDatasetKnobCalls(PythonReader& r, const ClassInfo& cls,
                                                   const CallArgs& made_with) {
  std::optional<CallArgs> super_init;  // as __init__ runs on made_with's arguments
  std::vector<RecordedCall> calls;
  r.InstanceAttributes(cls, made_with, &calls);
  for (const RecordedCall& c : calls) {
    const std::string_view callee = c.args.node.field("function").text();
    if ((callee.starts_with("super(") && callee.ends_with(".__init__")) ||
        callee.ends_with("PyDataset.__init__")) {
      super_init = c.args;
      break;
    }
  }
  std::vector<std::string> parameters;
  if (const auto init = cls.methods.find("__init__"); init != cls.methods.end()) {
    for (const SyntaxNode& p : init->second.field("parameters").code_children()) {
      parameters.emplace_back(p.Is("identifier") ? p.text() : p.field("name").text());
    }
  }
  std::map<std::string, CallArgs> out;
  for (const char* knob : {"workers", "use_multiprocessing", "max_queue_size"}) {
    if (!super_init || made_with.Get(knob)) {
      out[knob] = made_with;
      continue;
    }
    const SyntaxNode written = KeywordExpression(*super_init, knob);
    if (written.null()) {
      out[knob] = super_init->unknown_splat.starts_with("**") ? made_with : *super_init;
    } else if (written.Is("identifier") && std::find(parameters.begin(), parameters.end(),
                                                     written.text()) != parameters.end()) {
      CallArgs at_making = made_with;
      if (const Value* v = super_init->Get(knob)) at_making.keyword[knob] = *v;
      out[knob] = std::move(at_making);
    } else {
      out[knob] = *super_init;
    }
  }
  return out;
}

// fit(..., epochs=N): Keras's enqueuer goes over the Sequence (or steps_per_epoch of the
// generator) N times, with a new pool of workers each epoch: a repeat after it.
// Fit's validation_data, gone over at each epoch's end: said to be left out.
void NoteValidationLeftOut(PythonReader& r, const CallArgs& a) {
  if (const Value* validation = a.Get(100, "validation_data");
      validation && !validation->Is(Value::Kind::kNone)) {
    r.Note(validation->node.null() ? a.node.start() : validation->node.start(),
           "fit's validation_data is gone over at each epoch's end, between the training's "
           "epochs: not simulated, so its time is in none of these figures");
  }
}

// The epochs fit runs: `epochs` (its index, the last) less `initial_epoch`, where training
// resumes (keras#6108's `epochs=stop_epoch, initial_epoch=start_epoch`); nullopt where the
// code does not say. Said where initial_epoch changes them.
std::optional<int64_t> FitEpochsRun(PythonReader& r, const CallArgs& a) {
  const Value* epochs = a.Get(3, "epochs");
  const auto n = epochs && !epochs->Is(Value::Kind::kBool) ? epochs->AsInt() : std::nullopt;
  if (!n) return std::nullopt;
  const Value* initial = a.Get(100, "initial_epoch");
  const auto first = initial && !initial->Is(Value::Kind::kBool) ? initial->AsInt() : std::nullopt;
  if (!first || *first <= 0) return n;
  const int64_t run = std::max<int64_t>(0, *n - *first);
  r.Note(initial->node.null() ? a.node.start() : initial->node.start(),
         "fit starts at initial_epoch " + std::to_string(*first) +
             " and ends at epochs=" + std::to_string(*n) + ": " +
             (run == 0 ? std::string("no epoch runs, so fit trains on nothing (one epoch is "
                                     "simulated)")
                       : std::to_string(run) + (run == 1 ? " epoch" : " epochs") + " run"));
  return run;
}

void AddFitEpochs(PythonReader& r, Pipeline& p, const CallArgs& a) {
  NoteValidationLeftOut(r, a);
  const auto n = FitEpochsRun(r, a);
  if (!n || *n <= 1) return;
  spec::Op repeat;
  repeat.set_name(p.FreshName(kFitEpochs));
  repeat.mutable_repeat()->set_count(*n);
  repeat.mutable_repeat()->set_training_loop(true);
  p.ops.push_back(repeat);
  p.Note(a.node.start(), "fit's " + std::to_string(*n) +
                             " epochs each go over the sequence afresh, its workers started "
                             "again: a repeat of " +
                             std::to_string(*n) + " after it");
}

// steps_per_epoch spelled as a count of samples (`nb_train_samples`), as code ported from
// Keras 1's samples_per_epoch keeps it: Keras 2 counts an epoch's steps in batches, so each
// epoch takes that many batches, batch_size times the data (keras#6406: 91,234 steps of 32
// where 2,851 were meant, an epoch's ETA 10,721 s for 245 s). Said, with its count.
// Keras 1's own samples_per_epoch (`call` passes it) is said too: Keras 2 takes its value as
// steps_per_epoch unchanged, warning "steps_per_epoch = samples_per_epoch/batch_size".
void NoteStepsNamedAsSamples(Pipeline& p, const CallArgs& call, const Value& steps, int64_t count) {
  if (steps.node.null()) return;
  const std::string text(steps.node.text());
  if (!KeywordExpression(call, "samples_per_epoch").null()) {
    p.Note(steps.node.start(),
           "samples_per_epoch=" + text + ": Keras 2 takes it as steps_per_epoch, " +
               std::to_string(count) +
               " batches an epoch, as read here (warning that \"steps_per_epoch = "
               "samples_per_epoch/batch_size\"); Keras 1, whose name it is, counted samples, "
               "an epoch of " +
               text + " // batch_size steps: --set " + p.source.name() + ".stop=N for the job's");
    return;
  }
  if (!HoldsIgnoringCase(text, "sample") || text.find('/') != std::string::npos) return;
  p.Note(steps.node.start(),
         "steps_per_epoch is `" + text + "` (" + std::to_string(count) +
             "), a count of samples by its name: Keras 2 counts an epoch's steps in batches "
             "(Keras 1's samples_per_epoch counted samples), so each epoch takes " +
             std::to_string(count) + " batches; where it holds the samples, an epoch is `" + text +
             " // batch_size` steps");
}

// fit over a Sequence another call made (ImageDataGenerator.flow): its enqueuer runs the
// Sequence's batches with fit's workers, epoch after epoch.
Value FitOverSequence(PythonReader& r, const CallArgs& a, const Value& x) {
  auto p = r.Extend(*x.pipeline, a.node.start());
  spec::Op& op = p->ops.back();
  ReadEnqueuerArgs(*p, a, op.name(), *op.mutable_keras_fit());
  if (SpelledAsKeras20(a)) {
    // Those versions had no Sequence: fit_generator ran ImageDataGenerator's flow() iterators
    // as generators (keras#7853 made them Sequences, in 2.0.9), so worker processes each ran
    // a copy of one (keras#7168's flow() under pickle_safe).
    op.mutable_keras_fit()->set_generator(true);
    p->Note(a.node.start(),
            "in Keras 2.0.0 to 2.0.5, " + op.name() +
                "() gives an iterator that fit_generator runs as a generator, each worker "
                "process a copy of it under pickle_safe (batches repeat): its iterators are "
                "keras.utils.Sequences from Keras 2.0.9 on");
  }
  if (const Value* steps = a.Get(100, "steps_per_epoch");
      steps && steps->AsInt() && *steps->AsInt() > 0 && !steps->Is(Value::Kind::kBool)) {
    // The Sequence's own batches, where its length is known: steps_per_epoch many times them
    // goes over the data that many times an epoch (keras#6108's samples given as steps).
    const int64_t batches = p->source.has_range() && !p->source.size_is_stand_in()
                                ? p->source.range().stop() - p->source.range().start()
                                : 0;
    const int64_t count = *steps->AsInt();
    const bool many_passes = batches > 0 && count >= 2 * batches;
    if (many_passes) {
      const std::string times =
          (count % batches == 0 ? "" : "about ") +
          std::to_string(std::llround(static_cast<double>(count) / static_cast<double>(batches))) +
          " times";
      p->Note(steps->node.null() ? a.node.start() : steps->node.start(),
              "steps_per_epoch is " + std::to_string(count) + ", " + times + " the " +
                  std::to_string(batches) + " batches of `" + x.Spelling() +
                  "` (its length): Keras counts an epoch's steps in batches, so each epoch goes "
                  "over the data " +
                  times + "; one pass is " + std::to_string(batches) +
                  " steps (the samples // batch_size)");
    }
    p->source.mutable_range()->set_stop(count);
    p->source.clear_size_is_stand_in();
    if (!many_passes) NoteStepsNamedAsSamples(*p, a, *steps, count);
  }
  AddFitEpochs(r, *p, a);
  // The pipeline fit trains on, over the Sequence's own (bound to a name before fit).
  r.Trains(PipelineValue(std::move(p), a), a.node);
  return Value{.node = a.node};
}

// model.fit(x, ..., max_queue_size, workers, use_multiprocessing) and fit_generator: over a
// tf.data dataset the dataset is the pipeline; over a Sequence or a generator, Keras's
// enqueuer.
// Keras 1's names of fit_generator's arguments, which Keras 2 still takes and converts
// (keras/legacy/interfaces.py, legacy_generator_methods_support): each read as its Keras 2
// argument, its value where the call wrote it, so that code written back changes the value
// under the name the call uses (a second keyword beside it is a TypeError there).
// samples_per_epoch is steps_per_epoch as written where the generator has no batch_size.
CallArgs WithKeras2Names(const CallArgs& a) {
  static const std::pair<const char*, const char*> kConversions[] = {
      {"samples_per_epoch", "steps_per_epoch"},
      {"nb_epoch", "epochs"},
      {"nb_worker", "workers"},
      {"pickle_safe", "use_multiprocessing"},
      {"max_q_size", "max_queue_size"},
  };
  CallArgs converted = a;
  for (const auto& [keras1, keras2] : kConversions) {
    const auto it = a.keyword.find(keras1);
    if (it == a.keyword.end() || a.keyword.count(keras2)) continue;
    converted.keyword[keras2] = it->second;
    converted.keyword.erase(keras1);
  }
  return converted;
}

// A dataset whose iteration does not end by itself: a repeat without a count in it, or a
// source that yields forever by its code (a generator's `while True:`). Over one, Keras's fit
// keeps one iterator across its epochs where steps_per_epoch is given (its data adapter makes
// a new one each epoch only where the dataset's size is the epoch's, or no steps are given).
// A repeat(50) ends: each of fit's epochs is its 50 passes (tensorflow#24520's repeat(50)
// under fit(epochs=50)).
bool GoesOn(const Pipeline& p) {
  return p.source_goes_on || std::any_of(p.ops.begin(), p.ops.end(), [](const spec::Op& op) {
           return op.has_repeat() && (!op.repeat().has_count() || op.repeat().count() < 0);
         });
}

Value Fit(PythonReader& r, const CallArgs& keras_args, bool generator_call) {
  const CallArgs a = WithKeras2Names(keras_args);
  const Value* x = a.Get(0, generator_call ? "generator" : "x");
  if (x && x->Is(Value::Kind::kPipeline) && x->pipeline && !x->pipeline->ops.empty() &&
      x->pipeline->ops.back().has_keras_fit()) {
    return FitOverSequence(r, a, *x);
  }
  if (x && x->Is(Value::Kind::kPipeline)) {
    // fit(ds, epochs=N) over a dataset that ends: each epoch iterates it afresh, refilling
    // its shuffle buffers and prefetches (tensorflow#30646), as a repeat after it does.
    NoteValidationLeftOut(r, a);
    const int64_t n = FitEpochsRun(r, a).value_or(0);
    const bool repeats = GoesOn(*x->pipeline);
    // Given steps_per_epoch, Keras makes a new iterator each epoch only where the steps are the
    // dataset's size: over a repeat of any count it keeps the one (the take below).
    const Value* steps = a.Get("steps_per_epoch");
    const bool one_iterator =
        steps && !steps->Is(Value::Kind::kBool) && steps->AsInt().value_or(0) > 0 &&
        (repeats || std::any_of(x->pipeline->ops.begin(), x->pipeline->ops.end(),
                                [](const spec::Op& op) { return op.has_repeat(); }));
    if (n > 1 && !repeats && !one_iterator) {
      auto p = r.Extend(*x->pipeline, a.node.start());
      spec::Op op;
      op.set_name(p->FreshName(kFitEpochs));
      op.mutable_repeat()->set_count(n);
      op.mutable_repeat()->set_training_loop(true);
      // Where steps_per_epoch goes, for the epochs put in the dataset (epochs_in_dataset).
      RecordSite(*p, a, a.Get("steps_per_epoch"), op.name(), "steps_per_epoch");
      p->ops.push_back(op);
      p->Note(a.node.start(), "fit's " + std::to_string(n) +
                                  " epochs each iterate the dataset afresh: a repeat of " +
                                  std::to_string(n) + " after it");
      r.Trains(PipelineValue(std::move(p), a), a.node);
    } else if (one_iterator) {
      // Over a dataset that goes on, Keras keeps one iterator across the epochs and ends
      // after epochs × steps_per_epoch batches (the dataset's own end never comes).
      const int64_t epochs_run = std::max<int64_t>(1, n);  // fit's default: one
      const int64_t total = *steps->AsInt() * epochs_run;
      auto p = r.Extend(*x->pipeline, a.node.start());
      spec::Op op;
      op.set_name(p->FreshName(kFitSteps));
      op.mutable_take()->set_count(total);
      p->ops.push_back(op);
      p->Note(a.node.start(), "fit takes " + std::to_string(epochs_run) +
                                  (epochs_run == 1 ? " epoch of " : " epochs of ") +
                                  std::to_string(*steps->AsInt()) +
                                  " steps from one iterator over the dataset, which " +
                                  (repeats ? std::string("does not end")
                                           : "repeats (a new iterator each epoch only where "
                                             "the steps are all of the dataset's batches)") +
                                  ": a take of " + std::to_string(total) + " after it");
      r.Trains(PipelineValue(std::move(p), a), a.node);
    } else if (steps && !steps->Is(Value::Kind::kNone) && !steps->AsInt() && repeats) {
      // steps_per_epoch = TRAIN_LENGTH // BATCH_SIZE of a count only the run knows (TFDS's
      // info.splits): said, as the epochs it would count are not.
      r.Note(steps->node.null() ? a.node.start() : steps->node.start(),
             "fit's steps_per_epoch is `" + steps->Spelling() +
                 "`, known only when the code runs: fit's " +
                 (n > 0 ? std::to_string(n) + " epochs" : std::string("epochs")) +
                 " are not counted, and the dataset, which repeats without end, is read as "
                 "going on (its figures are a steady run's)");
      r.Trains(*x, a.node);
    } else {
      r.Trains(*x, a.node);
    }
    return Value{.node = a.node};
  }
  const ClassInfo* cls = ClassOf(r, x);
  if (IsLightningModule(cls)) return LightningFit(r, a, *cls);
  // A generator: the call of a def that yields.
  bool generator = false;
  const SyntaxNode made_by = x && x->call ? x->call->node : x ? x->node : SyntaxNode{};
  if (x && !cls && made_by.Is("call")) {
    const SyntaxNode callee = made_by.field("function");
    Value f = r.Evaluate(callee);
    // A method of an object of the file's class (keras#6108's image_ocr:
    // `fit_generator(img_gen.next_train(), ...)`): the def its class holds.
    if (!f.Is(Value::Kind::kFunction) && callee.Is("attribute")) {
      const Value object = r.Evaluate(callee.field("object"));
      const ClassInfo* owner = object.Is(Value::Kind::kInstance) ? r.FindClass(object.s) : nullptr;
      const auto method = owner ? owner->methods.find(std::string(callee.field("attribute").text()))
                                : std::map<std::string, SyntaxNode>::const_iterator{};
      if (owner && method != owner->methods.end()) {
        f = Value{.kind = Value::Kind::kFunction, .node = method->second};
      }
    }
    generator = f.Is(Value::Kind::kFunction) && f.node.Is("function_definition") &&
                f.node.text().find("yield") != std::string_view::npos;
  }
  if (!cls && !generator) {
    // Arrays (fit(x_train, y_train, ...)): Keras slices them itself, and workers and
    // use_multiprocessing are "used for generator or keras.utils.Sequence input only" (its
    // fit docstring): nothing runs beside the step to read.
    if (x) {
      const bool asks_workers = a.Get(100, "workers") || a.Get(100, "use_multiprocessing");
      // A call import-code cannot follow may make anything: said as read, not as arrays.
      const std::string read_as =
          made_by.Is("call")
              ? "`, a call import-code cannot follow to a tf.data dataset, a keras.utils.Sequence "
                "or a generator of the file's: read as arrays, which Keras slices itself between "
                "steps"
              : "`, not a tf.data dataset, a keras.utils.Sequence or a generator of the "
                "file's: arrays are sliced by Keras itself between steps";
      r.Note(a.node.start(),
             "fit's x is `" + x->Spelling() + read_as +
                 (asks_workers ? ", and workers and use_multiprocessing apply to a generator "
                                 "or Sequence only (Keras's fit docs): they change nothing here"
                               : std::string()));
    }
    return Value{.node = a.node};
  }
  auto p = r.NewPipeline("keras", a.node.start());
  // A PyDataset's workers are its own, set where it is made: the op is named after its class.
  const std::string op_name = IsPyDataset(cls) ? cls->name : "fit";
  // steps_per_epoch: the batches an epoch takes (a generator's only measure of one).
  const Value* steps = a.Get(100, "steps_per_epoch");
  if (steps && steps->AsInt() && *steps->AsInt() > 0 && !steps->Is(Value::Kind::kBool)) {
    p->source.set_name("indices");
    p->source.mutable_range()->set_stop(*steps->AsInt());
    NoteStepsNamedAsSamples(*p, a, *steps, *steps->AsInt());
  } else {
    IndexSource(r, *p, x, cls, "indices");
  }
  spec::Op op;
  op.set_name(op_name);
  auto* kf = op.mutable_keras_fit();
  if (IsPyDataset(cls) && x->call) {
    // Where the dataset is made: `PyDatasetSubclass(..., workers=4, use_multiprocessing=True)`,
    // or in its own `super().__init__(workers=4)`.
    const std::map<std::string, CallArgs> knob_calls = PyDatasetKnobCalls(r, *cls, *x->call);
    ReadEnqueuerArgs(
        *p,
        [&knob_calls](const std::string& knob) -> const CallArgs& { return knob_calls.at(knob); },
        op_name, *kf, "PyDataset's");
    p->Note(x->call->node.start(),
            "`" + cls->name +
                "` is a Keras 3 PyDataset: its constructor takes workers, use_multiprocessing "
                "and max_queue_size (read here, or from its own super().__init__), not fit");
    if (a.Get(100, "workers") || a.Get(100, "use_multiprocessing") ||
        a.Get(100, "max_queue_size")) {
      p->Note(a.node.start(),
              "fit's workers, use_multiprocessing and max_queue_size are Keras 2's: Keras 3's fit "
              "has none, and takes them from the PyDataset's constructor");
    }
  } else {
    ReadEnqueuerArgs(*p, a, op_name, *kf);
  }
  if (cls) {
    *kf->mutable_getitem() = GetItem(r, *p, x, cls, op_name, a.node.start(), false);
  } else {
    // A generator: its next() makes a batch, run by Keras's GeneratorEnqueuer.
    StageWork work;
    work.fn.mutable_python()->set_duration(DefaultStageCost());
    work.fn.set_cost_is_stand_in(true);
    work.cost_is_parameter = true;
    *kf->mutable_getitem() = work.fn;
    kf->set_generator(true);
    p->Note(x->node.start(), "`" + x->Spelling() +
                                 "` is a generator: each batch it yields is read as a "
                                 "Sequence's __getitem__ (Keras's GeneratorEnqueuer)");
    if (kf->use_multiprocessing() && kf->workers() != 0) {
      p->Note(a.node.start(),
              "fit runs the generator in worker processes "
              "(use_multiprocessing=True): each runs its own copy, so batches "
              "repeat, as Keras warns; a keras.utils.Sequence makes each batch "
              "by index (the simulation counts each copy's batches as new)");
    }
    NoteWork(*p, a.node.start(), op_name, work);
  }
  p->ops.push_back(op);
  AddFitEpochs(r, *p, a);
  return PipelineValue(std::move(p), a);
}

// keras.utils.OrderedEnqueuer(sequence, use_multiprocessing, shuffle): fit's enqueuer, run by
// hand (keras#9332's answer for a loop that trains batch by batch): start(workers,
// max_queue_size) starts its workers, and next() of get() takes the batches they made ahead,
// epoch after epoch (get() starts the sequence again at its end, with a new pool). Kept as
// its constructor's arguments; start's, once called, are its `items`.
Value OrderedEnqueuer(PythonReader&, const CallArgs& a) {
  Value v{.kind = Value::Kind::kTransform, .s = "OrderedEnqueuer", .node = a.node};
  v.call = std::make_shared<const CallArgs>(a);
  return v;
}

// enqueuer.start(workers, max_queue_size): the enqueuer's name is bound again, started.
Value StartEnqueuer(PythonReader& r, const CallArgs& a) {
  const SyntaxNode callee = a.node.field("function");
  if (!a.receiver || !callee.Is("attribute")) return Value{.node = a.node};
  Value started = *a.receiver;
  Value start{.kind = Value::Kind::kTransform, .s = "start", .node = a.node};
  // start(4, 10) as start(workers=4, max_queue_size=10): read, and written back, in place.
  CallArgs named = a;
  for (const auto& [at, keyword] :
       {std::pair<size_t, const char*>{0, "workers"}, {1, "max_queue_size"}}) {
    if (at < named.positional.size() && !named.keyword.count(keyword)) {
      named.keyword[keyword] = named.positional[at];
    }
  }
  named.positional.clear();
  start.call = std::make_shared<const CallArgs>(std::move(named));
  started.items = {start};
  r.Rebind(callee.field("object"), started);
  return Value{.node = a.node};
}

// enqueuer.get(): the sequence's batches, made by the workers start() started.
Value EnqueuedBatches(PythonReader& r, const CallArgs& a) {
  if (!a.receiver || !a.receiver->call) return Value{.node = a.node};
  const CallArgs& made = *a.receiver->call;
  if (a.receiver->items.empty() || !a.receiver->items[0].call) {
    r.Note(a.node.start(),
           "get() of an OrderedEnqueuer never started: it gives no batch until start(workers=N) "
           "is called on it");
    return Value{.node = a.node};
  }
  const CallArgs& started = *a.receiver->items[0].call;
  const Value* x = made.Get(0, "sequence");
  const ClassInfo* cls = ClassOf(r, x);
  std::shared_ptr<Pipeline> p;
  if (x && x->Is(Value::Kind::kPipeline) && x->pipeline && !x->pipeline->ops.empty() &&
      x->pipeline->ops.back().has_keras_fit()) {
    p = r.Extend(*x->pipeline, a.node.start());  // flow(): the Sequence another call made
  } else if (cls) {
    p = r.NewPipeline("keras", a.node.start());
    IndexSource(r, *p, x, cls, "indices");
    spec::Op op;
    op.set_name("enqueuer");
    p->ops.push_back(op);
  } else {
    r.Note(a.node.start(),
           "the OrderedEnqueuer's sequence is not a keras.utils.Sequence of the "
           "file's: its batches are not read");
    return Value{.node = a.node};
  }
  spec::Op& op = p->ops.back();
  spec::KerasFitOp& kf = *op.mutable_keras_fit();
  ReadEnqueuerArgs(
      *p,
      [&](const std::string& knob) -> const CallArgs& {
        return knob == "use_multiprocessing" ? made : started;
      },
      op.name(), kf, "OrderedEnqueuer's");
  if (cls) *kf.mutable_getitem() = GetItem(r, *p, x, cls, op.name(), a.node.start(), false);
  spec::Op epochs;
  epochs.set_name(p->FreshName(kFitEpochs));
  epochs.mutable_repeat()->set_training_loop(true);
  p->ops.push_back(epochs);
  p->Note(a.node.start(),
          "the OrderedEnqueuer's workers make the sequence's batches ahead, epoch after epoch "
          "(each epoch a new pool): an endless repeat after them");
  return PipelineValue(std::move(p), a);
}

}  // namespace

const Dialect& TorchDialect() {
  static const Dialect d = [] {
    Dialect t;
    t.framework = "pytorch";
    t.functions = TensorConstructors();
    t.functions.merge(TorchvisionConstructors());
    t.functions.merge(StartMethodFunctions());
    t.functions["DataLoader"] = [](PythonReader& r, const CallArgs& a) {
      return DataLoaderOf(r, a, false);
    };
    for (const char* graphs :
         {"torch_geometric.loader.DataLoader", "torch_geometric.data.DataLoader"}) {
      t.functions[graphs] = [](PythonReader& r, const CallArgs& a) {
        return DataLoaderOf(r, a, true);
      };
    }
    t.functions["TensorDataset"] = TensorDataset;
    t.functions["BatchSampler"] = BatchSampler;
    t.functions["RandomSampler"] = RandomSampler;
    t.functions["SequentialSampler"] = SequentialSampler;
    t.functions["DistributedSampler"] = SamplerWithArguments<kDistributedSampler>;
    t.functions["SubsetRandomSampler"] = SamplerWithArguments<kSubsetRandomSampler>;
    // In a worker process, where the dataset's code runs when there are workers: its
    // WorkerInfo, not None (the branch that splits the items is the one read).
    t.functions["get_worker_info"] = [](PythonReader&, const CallArgs& a) {
      return Value{
          .kind = Value::Kind::kInstance, .s = "torch.utils.data.WorkerInfo", .node = a.node};
    };
    return t;
  }();
  return d;
}

const Dialect& KerasDialect() {
  static const Dialect d = [] {
    Dialect k;
    k.framework = "keras";
    k.functions = {
        {"fit", [](PythonReader& r, const CallArgs& a) { return Fit(r, a, false); }},
        {"fit_generator", [](PythonReader& r, const CallArgs& a) { return Fit(r, a, true); }},
    };
    k.functions["OrderedEnqueuer"] = OrderedEnqueuer;
    k.functions["OrderedEnqueuer.start"] = StartEnqueuer;
    k.functions["OrderedEnqueuer.get"] = EnqueuedBatches;
    AddImageDataGenerator(k);
    return k;
  }();
  return d;
}

}  // namespace pipescope::code
