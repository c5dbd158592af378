#pragma once
// Arrays the code makes in memory with PyTorch's and NumPy's constructors (torch.randn(N, 3,
// 32, 32), np.zeros((N, 8), dtype=np.float32), torch.from_numpy(a)), as far as their shape
// and dtype can be read: what a TensorDataset or from_tensor_slices over them holds, and how
// many bytes one item of it is.

#include <cstdint>
#include <map>
#include <optional>

#include "app/code/python_reader.h"

namespace pipescope::code {

// The constructors, by dotted path, for a dialect's function table.
std::map<std::string, Dialect::Function> TensorConstructors();

// A method called on such an array: the dtype conversions (astype, to, type, float, long,
// ...) keep its shape; any other method makes an array import-code does not know.
Value TensorMethod(const Value& tensor, const std::string& method, const CallArgs& args);

// tensor[i] at `node`: its first dimension's item, of the other dimensions and the dtype.
Value TensorRow(const Value& tensor, const SyntaxNode& node);

// The length of a tensor's first dimension, when the code shows it.
std::optional<int64_t> FirstDimension(const Value& tensor);
// Bytes of one item along the first dimension (one row), when shape and dtype are known.
std::optional<int64_t> ItemBytes(const Value& tensor);
// Bytes of the whole array, when shape and dtype are known.
std::optional<int64_t> ArrayBytes(const Value& tensor);
// Bytes of a sample a Dataset's __getitem__ returns, as the DataLoader's default_collate
// batches it: an array's, a tuple's or a dict's parts summed, a Python number 8 (it becomes
// an int64 or float64 tensor); nullopt where any part's size is not known.
std::optional<int64_t> SampleBytes(const Value& sample);

}  // namespace pipescope::code
