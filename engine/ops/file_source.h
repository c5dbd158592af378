#pragma once
// What a file source reads: the files its spec lists, or, inside an interleave (a per-file
// source: tfrecord_file, text_line_file), the one file its input element names. The rule
// both file formats' datasets follow.

#include <string>
#include <string_view>
#include <vector>

#include "engine/runtime/iterator.h"

namespace pipescope::engine {

inline Result<std::vector<std::string>> FilesToRead(const std::vector<std::string>& listed,
                                                    bool per_file, const IteratorArgs& args,
                                                    std::string_view kind, const std::string& op) {
  if (!per_file) return listed;
  if (args.parent == nullptr) return Internal(std::string(kind) + " outside an interleave");
  const Tensor& v = args.parent->value;
  if (v.dtype() != DType::kString || v.strings().size() != 1) {
    return InvalidArgument(std::string(kind) + " '" + op +
                           "': its input element must be one file name (a string scalar)");
  }
  return std::vector<std::string>{v.strings()[0]};
}

}  // namespace pipescope::engine
