#pragma once
// Paths as the code builds them, for where the data lives. A file on a remote store (Cloud
// Storage's gs://, S3's s3://, HDFS, Azure) is read in requests that wait tens of
// milliseconds each, with a long tail, where a local disk's read is a fraction of one: the
// difference decides how many files an input pipeline must read at once, and whether in
// order (tensorflow/models#7127: ImageNet on gs:// at 1.2 steps/s in an ordered interleave,
// 7 with cycle_length 64 and sloppy=True). The store is known where a literal names it
// (`'gs://bucket/train-%05d' % i`, `os.path.join(data_dir, name)` with data_dir a literal or
// a flag's default), and kept on the values computed from it: import-code knows such a name
// only as a path on that store.

#include <cstdint>
#include <optional>
#include <string>

#include "app/code/python_reader.h"

namespace pipescope::code {

// The remote store a path names by its scheme ("Cloud Storage" for gs://), empty for a local
// path.
std::string RemoteStoreOfPath(const std::string& path);
// The store of a value: a string's, one computed from a path on it (Value::remote_store), a
// list's first item's (the file names of a from_tensor_slices or a glob).
std::string RemoteStoreOf(const Value& v);

// How a file on a remote store is read until the job's figures are set: open, the latency of
// each request and its spread, and a request's bytes (TFRecordDataset's read buffer,
// _DEFAULT_READER_BUFFER_SIZE_BYTES in readers.py). Stand-ins, not measured here.
struct RemoteStoreStandIn {
  static constexpr const char* kOpenLatency = "50ms";
  static constexpr const char* kRequestLatency = "50ms";
  static constexpr double kLatencyCv = 1.0;
  static constexpr int64_t kRequestBytes = 256 * 1024;
};

// A folder whose path names a dataset of a known size: ImageNet's (ILSVRC 2012) training
// images, 1,281,167 in 1,000 class folders, or its 50,000 validation images, where a path
// component is `imagenet` (or `ILSVRC2012`, `imagenet1k`, `imagenet-1k`) and one after it
// `train` or `val`. What an ImageFolder over it holds, in place of a stand-in count: its
// epochs are that long, and its files that many for the disk and the RAM budget.
struct KnownFolder {
  int64_t items = 0;
  const char* what = "";  // "ImageNet's training images"
};
std::optional<KnownFolder> KnownDatasetFolder(const std::string& path);

// os.path.join, posixpath.join, tf.io.gfile.join: a known string where every part is one,
// else a path known only where the code runs, on the store its first part names.
const Dialect& PathsDialect();

}  // namespace pipescope::code
