// Paths on remote stores, as import-code follows them through the code (path_values.h).
#include "app/code/path_values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <utility>

namespace pipescope::code {
namespace {

// The schemes of TensorFlow's and fsspec's remote file systems, and the store's name.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kRemoteSchemes{{
    {"gs://", "Cloud Storage"},
    {"s3://", "S3"},
    {"hdfs://", "HDFS"},
    {"az://", "Azure Blob Storage"},
    {"abfs://", "Azure Data Lake"},
    {"abfss://", "Azure Data Lake"},
}};

// os.path.join as Python's posixpath defines it: a part that starts with "/" begins the
// path again; a separator is added only where the path so far does not end with one.
std::string JoinPaths(const std::vector<std::string>& parts) {
  std::string path;
  for (const std::string& part : parts) {
    if (part.starts_with("/") || path.empty()) {
      path = part;
    } else if (path.ends_with("/")) {
      path += part;
    } else {
      path += "/" + part;
    }
  }
  return path;
}

Value Join(PythonReader&, const CallArgs& a) {
  Value out{.node = a.node};
  if (a.positional.empty()) return out;
  std::vector<std::string> parts;
  for (const Value& part : a.positional) {
    if (!part.Is(Value::Kind::kString)) {
      out.remote_store = RemoteStoreOf(a.positional[0]);
      return out;
    }
    parts.push_back(part.s);
  }
  out.kind = Value::Kind::kString;
  out.s = JoinPaths(parts);
  return out;
}

// tf.io.gfile.glob(pattern) and its TF 1 spellings: the files a pattern matches, listed only
// where the code runs; on the store the pattern names. (Python's glob.glob lists local
// files only: a gs:// pattern matches nothing there.)
Value Glob(PythonReader&, const CallArgs& a) {
  Value out{.node = a.node};
  if (!a.positional.empty()) out.remote_store = RemoteStoreOf(a.positional[0]);
  return out;
}

}  // namespace

std::string RemoteStoreOfPath(const std::string& path) {
  for (const auto& [scheme, store] : kRemoteSchemes) {
    if (path.starts_with(scheme)) return std::string(store);
  }
  return {};
}

std::string RemoteStoreOf(const Value& v) {
  if (!v.remote_store.empty()) return v.remote_store;
  if (v.Is(Value::Kind::kString)) return RemoteStoreOfPath(v.s);
  if (v.Is(Value::Kind::kList) && !v.items.empty()) return RemoteStoreOf(v.items.front());
  return {};
}

const Dialect& PathsDialect() {
  static const Dialect d = [] {
    Dialect f;
    f.framework = "python";
    for (const char* path : {"os.path.join", "posixpath.join", "tf.io.gfile.join"}) {
      f.functions[path] = Join;
    }
    for (const char* glob : {"tf.io.gfile.glob", "tf.gfile.Glob", "tf.compat.v1.gfile.Glob",
                             "tf.io.matching_files", "tf.matching_files"}) {
      f.functions[glob] = Glob;
    }
    return f;
  }();
  return d;
}

std::optional<KnownFolder> KnownDatasetFolder(const std::string& path) {
  const auto lower = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  bool imagenet = false;
  size_t begin = 0;
  while (begin <= path.size()) {
    const size_t end = std::min(path.find('/', begin), path.size());
    const std::string part = lower(path.substr(begin, end - begin));
    if (part == "imagenet" || part == "ilsvrc2012" || part == "imagenet1k" ||
        part == "imagenet-1k") {
      imagenet = true;
    } else if (imagenet && part == "train") {
      return KnownFolder{1'281'167, "ImageNet's training images"};
    } else if (imagenet && (part == "val" || part == "validation")) {
      return KnownFolder{50'000, "ImageNet's validation images"};
    }
    begin = end + 1;
  }
  return std::nullopt;
}

}  // namespace pipescope::code
