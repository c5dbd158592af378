#pragma once
// Python's string formatting where import-code knows every value: `'data_batch_%d.bin' % i`,
// `'file_{:05d}.tfrecord'.format(i)` and f"shard_{i}", the file names a comprehension over a
// range spells (CIFAR-10's five batches, tensorflow#37093's ten files). Integers and strings,
// with the flags, widths and conversions file names use (`%05d`, `%s`, `%x`, `{:03d}`,
// `{0}`); anything else is not known, and the caller keeps the value unknown.

#include <optional>
#include <string>
#include <vector>

#include "app/code/code_values.h"

namespace pipescope::code {

// `format % args` (one value, or a tuple's items as `args`).
std::optional<std::string> PercentFormat(const std::string& format, const std::vector<Value>& args);
// `format.format(*args)`; an f-string is one whose fields are its expressions' values, in
// order, each `{}` with its format spec kept: FormatField renders one.
std::optional<std::string> BraceFormat(const std::string& format, const std::vector<Value>& args);
// One value under a format spec (`05d`, `d`, `s`, `x`, ``).
std::optional<std::string> FormatField(const Value& value, const std::string& spec);

}  // namespace pipescope::code
