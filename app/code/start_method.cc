#include "app/code/start_method.h"

#include <optional>
#include <string_view>
#include <vector>

#include "app/code/dialects.h"
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

// What sending a value to a worker moves: the bytes it pickles to (a NumPy array's, a
// string's characters, a list's or dict's items'; a number or None next to nothing), and a
// torch tensor's, which torch.multiprocessing moves into shared memory once and sends as a
// handle, not pickled. False for anything else.
struct Sent {
  int64_t pickled = 0;
  int64_t shared = 0;
};
bool AddSent(const Value& v, Sent& sent, int depth = 0) {
  switch (v.kind) {
    case Value::Kind::kTensor: {
      const auto bytes = ArrayBytes(v);
      if (!bytes) return false;
      (v.b ? sent.shared : sent.pickled) += *bytes;
      return true;
    }
    case Value::Kind::kString:
      sent.pickled += static_cast<int64_t>(v.s.size());
      return true;
    case Value::Kind::kNone:
    case Value::Kind::kBool:
    case Value::Kind::kInt:
    case Value::Kind::kFloat:
      sent.pickled += 8;
      return true;
    case Value::Kind::kList:
    case Value::Kind::kDict:
      if (depth > 8) return false;
      for (const Value& item : v.items) {
        if (!AddSent(item, sent, depth + 1)) return false;
      }
      return true;
    default:
      return false;
  }
}

// What the dataset object keeps, as far as the code shows: what it pickles to, its torch
// tensors (sent through shared memory), and the attributes it loads when it runs
// (`self.x = np.load(path)`), which are not sized.
struct DatasetSize {
  Sent sent;
  int64_t per_item = 0;  // an entry it lists for each item, pickled (ImageFolder's samples)
  std::string what;      // "its `self.images`", "CIFAR10's images and labels"
  std::vector<std::string> unsized;
};

DatasetSize SizeOf(PythonReader& r, const Value* dataset, const ClassInfo* cls,
                   const CallArgs* tensors) {
  DatasetSize size;
  if (dataset == nullptr) return size;
  if (tensors != nullptr) {  // a TensorDataset holds torch tensors, whatever made them
    for (const Value& t : tensors->positional) size.sent.shared += ArrayBytes(t).value_or(0);
    size.what = "its tensors";
  } else if (const auto kept = TorchvisionDatasetInMemory(*dataset)) {
    const std::string name = dataset->s.substr(dataset->s.rfind('.') + 1);
    (kept->torch_tensors ? size.sent.shared : size.sent.pickled) = kept->bytes;
    size.per_item = kept->bytes_per_item;
    size.what = kept->bytes_per_item > 0
                    ? name + "'s list of samples, a path and a class for each file: " +
                          engine::FormatBytes(kept->bytes_per_item) +
                          " and Python objects to pickle for each (ImageNet's 1,281,167: "
                          "about a second a worker)"
                    : name + "'s images and labels";
  } else if (cls != nullptr && dataset->call) {
    // Attributes of a few KiB (a root path, a list of class names) are left out, so that the
    // note names the ones that make the dataset large.
    constexpr int64_t kAttributeWorthNaming = kDatasetWorthSaying / 16;
    for (const auto& [name, value] : r.InstanceAttributes(*cls, *dataset->call)) {
      Sent sent;
      if (AddSent(value, sent)) {
        if (sent.pickled + sent.shared < kAttributeWorthNaming) continue;
        size.sent.pickled += sent.pickled;
        size.sent.shared += sent.shared;
        size.what += (size.what.empty() ? "its `" : ", `") + name + "`";
      } else if (value.Is(Value::Kind::kUnknown) && value.node.Is("call")) {
        size.unsized.push_back("`" + name + "` (" + value.Spelling() + ")");
      }
    }
  }
  return size;
}

// Whether the file guards its program with `if __name__ == "__main__":`, as a worker that
// spawns needs: it imports the file again, under another name.
bool GuardsItsMain(const SyntaxNode& any) {
  return AnyNodeWithin(any.tree()->root(), [](const SyntaxNode& n) {
    if (!n.Is("if_statement")) return false;
    const std::string_view condition = n.field("condition").text();
    return condition.find("__name__") != std::string_view::npos &&
           condition.find("__main__") != std::string_view::npos;
  });
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
  const Value* context = a.Get(11, "multiprocessing_context");
  // Where it is given: code written for no workers takes it out (PyTorch refuses it then).
  if (context) RecordSite(p, a, context, op_name, "multiprocessing_context");
  if (loader.num_workers() == 0) return;
  std::string said;  // where the code says it
  if (const auto method = MethodOf(context)) {
    loader.set_start_method(*method);
    said = "multiprocessing_context `" + context->Spelling() + "`";
  } else if (const auto set = MethodNamed(r.start_method().method)) {
    loader.set_start_method(*set);
    said = "set_start_method(\"" + r.start_method().method + "\"), line " +
           std::to_string(r.start_method().at.line);
  }
  const DatasetSize size = SizeOf(r, dataset, cls, tensors);
  const int64_t pickled = size.sent.pickled;
  loader.set_dataset_bytes(pickled);
  loader.set_dataset_bytes_per_item(size.per_item);
  const std::string workers = std::to_string(loader.num_workers()) + " worker process" +
                              (loader.num_workers() == 1 ? "" : "es");
  // Torch tensors cross in shared memory: what the dataset keeps in them is not pickled.
  const std::string shared = size.sent.shared > 0
                                 ? "its torch tensors (" + engine::FormatBytes(size.sent.shared) +
                                       ") go to each worker through shared memory, as handles"
                                 : "";
  if (loader.start_method() == spec::fork) {
    // A list of samples is as long as the folder is large, which the code does not say.
    if ((pickled < kDatasetWorthSaying && size.per_item == 0) || loader.persistent_workers()) {
      return;
    }
    p.Note(a.node.start(),
           "where workers spawn or start from a fork server (Windows' and macOS's default, and "
           "Linux's from Python 3.14) each of the loader's " +
               workers + " is sent the dataset pickled (" + size.what +
               (pickled > 0 ? ", " + engine::FormatBytes(pickled) : "") +
               "), one worker after another, every epoch: --set " + op_name +
               ".start_method=spawn simulates that");
    return;
  }
  std::string sent = "the loader's " + workers + " start with " +
                     spec::StartMethod_Name(loader.start_method()) + " (" + said +
                     "): each that starts is sent the dataset pickled";
  if (pickled > 0 || size.per_item > 0) {
    sent += " (" + size.what + (pickled > 0 ? ", " + engine::FormatBytes(pickled) : "") + ")";
    if (pickled > engine::kPipeBufferBytes || size.per_item > 0) {
      sent +=
          ", and the main process waits until each has started and read it before it "
          "starts the next";
    }
  }
  if (!shared.empty()) sent += "; " + shared + ", not pickled";
  const SourcePoint at = context != nullptr ? context->node.start() : a.node.start();
  p.Note(at, sent);
  // Python's multiprocessing documentation: a spawned child imports the main module; without
  // the guard it would run the program again and start workers of its own, which Python
  // refuses ("An attempt has been made to start a new process before the current process has
  // finished its bootstrapping phase", pytorch#12831, #46648).
  if (!GuardsItsMain(a.node)) {
    p.Note(a.node.start(),
           "workers started with " + spec::StartMethod_Name(loader.start_method()) +
               " import this file again, and it has no `if __name__ == \"__main__\":`: each "
               "would run the program again, which Python refuses (\"An attempt has been made "
               "to start a new process before the current process has finished its "
               "bootstrapping phase\"); put the training under that guard");
  }
  // Apart, so that a setting of the size takes this note back and leaves the one above.
  if (!size.unsized.empty()) {
    p.Note(at, "what " + Listed(size.unsized) + " holds is not sized from the code: --set " +
                   op_name + ".dataset_bytes=SIZE for what each worker is sent");
  }
}

}  // namespace pipescope::code
