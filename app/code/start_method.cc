#include "app/code/start_method.h"

#include <optional>
#include <vector>

#include "app/code/tensor_values.h"
#include "app/code/torchvision_work.h"
#include "engine/core/duration.h"
#include "engine/core/worker_process_costs.h"

namespace pipescope::code {
namespace {

std::optional<spec::StartMethod> MethodNamed(const std::string& name) {
  spec::StartMethod method{};
  if (!spec::StartMethod_Parse(name, &method)) return std::nullopt;
  return method;
}
std::optional<spec::StartMethod> MethodOf(const Value* v) {
  return v != nullptr && v->Is(Value::Kind::kString) ? MethodNamed(v->s) : std::nullopt;
}

// A dataset this large, its start method not said, is worth a word on what spawning costs.
constexpr int64_t kDatasetWorthSaying = int64_t{1} << 20;

// Bytes `v` pickles to, where the code shows them: an array's, a string's characters, a
// list's or dict's items' (a number or None next to nothing); nullopt for anything else.
std::optional<int64_t> PickledBytes(const Value& v, int depth = 0) {
  switch (v.kind) {
    case Value::Kind::kTensor:
      return ArrayBytes(v);
    case Value::Kind::kString:
      return static_cast<int64_t>(v.s.size());
    case Value::Kind::kNone:
    case Value::Kind::kBool:
    case Value::Kind::kInt:
    case Value::Kind::kFloat:
      return 8;
    case Value::Kind::kList:
    case Value::Kind::kDict: {
      if (depth > 8) return std::nullopt;
      int64_t total = 0;
      for (const Value& item : v.items) {
        const auto bytes = PickledBytes(item, depth + 1);
        if (!bytes) return std::nullopt;
        total += *bytes;
      }
      return total;
    }
    default:
      return std::nullopt;
  }
}

// What the dataset object keeps, as far as the code shows: its bytes, and the attributes it
// loads when it runs (`self.x = np.load(path)`), which are not sized.
struct DatasetSize {
  int64_t bytes = 0;
  std::string what;  // "its `self.images`", "CIFAR10's images and labels"
  std::vector<std::string> unsized;
};

DatasetSize SizeOf(PythonReader& r, const Value* dataset, const ClassInfo* cls,
                   const CallArgs* tensors) {
  DatasetSize size;
  if (dataset == nullptr) return size;
  if (tensors != nullptr) {
    for (const Value& t : tensors->positional) size.bytes += ArrayBytes(t).value_or(0);
    size.what = "its tensors";
  } else if (const auto images = TorchvisionDatasetBytes(*dataset)) {
    size.bytes = *images;
    size.what = dataset->s.substr(dataset->s.rfind('.') + 1) + "'s images and labels";
  } else if (cls != nullptr && dataset->call) {
    for (const auto& [name, value] : r.InstanceAttributes(*cls, *dataset->call)) {
      if (const auto bytes = PickledBytes(value); bytes && *bytes >= kDatasetWorthSaying / 16) {
        size.bytes += *bytes;
        size.what += (size.what.empty() ? "its `" : ", `") + name + "`";
      } else if (!bytes && value.Is(Value::Kind::kUnknown) && value.node.Is("call")) {
        size.unsized.push_back("`" + name + "` (" + value.Spelling() + ")");
      }
    }
  }
  return size;
}

std::string Listed(const std::vector<std::string>& items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  }
  return text;
}

}  // namespace

std::map<std::string, Dialect::Function> StartMethodFunctions() {
  std::map<std::string, Dialect::Function> functions;
  functions["multiprocessing.get_context"] = [](PythonReader&, const CallArgs& a) {
    const Value* method = a.Get(0, "method");
    // The default context (no name), or one the code computes: not known.
    if (!MethodOf(method)) return Value{.node = a.node};
    return Value{.kind = Value::Kind::kString, .s = method->s, .node = a.node};
  };
  functions["multiprocessing.set_start_method"] = [](PythonReader& r, const CallArgs& a) {
    const Value* method = a.Get(0, "method");
    if (MethodOf(method)) r.NoteStartMethod({.method = method->s, .at = a.node.start()});
    return Value{.kind = Value::Kind::kNone, .node = a.node};
  };
  return functions;
}

void ReadStartMethod(PythonReader& r, Pipeline& p, const CallArgs& a, const Value* dataset,
                     const ClassInfo* cls, const CallArgs* tensors, const std::string& op_name,
                     spec::DataLoaderOp& loader) {
  if (loader.num_workers() == 0) return;
  std::string said;  // where the code says it
  const Value* context = a.Get(11, "multiprocessing_context");
  if (const auto method = MethodOf(context)) {
    loader.set_start_method(*method);
    said = "multiprocessing_context `" + context->Spelling() + "`";
  } else if (const auto set = MethodNamed(r.start_method().method)) {
    loader.set_start_method(*set);
    said = "set_start_method(\"" + r.start_method().method + "\"), line " +
           std::to_string(r.start_method().at.line);
  }
  const DatasetSize size = SizeOf(r, dataset, cls, tensors);
  loader.set_dataset_bytes(size.bytes);
  const std::string workers = std::to_string(loader.num_workers()) + " worker process" +
                              (loader.num_workers() == 1 ? "" : "es");
  if (loader.start_method() == spec::fork) {
    if (size.bytes < kDatasetWorthSaying || loader.persistent_workers()) return;
    p.Note(a.node.start(),
           "where workers spawn or start from a fork server (Windows' and macOS's default, and "
           "Linux's from Python 3.14) each of the loader's " +
               workers + " is sent the dataset pickled (" + size.what + ", " +
               engine::FormatBytes(size.bytes) +
               "), one worker after another, every epoch: --set " + op_name +
               ".start_method=spawn simulates that");
    return;
  }
  std::string sent = "the loader's " + workers + " start with " +
                     spec::StartMethod_Name(loader.start_method()) + " (" + said +
                     "): each that starts is sent the dataset pickled";
  if (size.bytes > 0) {
    sent += " (" + size.what + ", " + engine::FormatBytes(size.bytes) + ")";
    if (size.bytes > engine::kPipeBufferBytes) {
      sent +=
          ", and the main process waits until each has started and read it before it "
          "starts the next";
    }
  }
  const SourcePoint at = context != nullptr ? context->node.start() : a.node.start();
  p.Note(at, sent);
  // Apart, so that a setting of the size takes this note back and leaves the one above.
  if (!size.unsized.empty()) {
    p.Note(at, "what " + Listed(size.unsized) + " holds is not sized from the code: --set " +
                   op_name + ".dataset_bytes=SIZE for what each worker is sent");
  }
}

}  // namespace pipescope::code
