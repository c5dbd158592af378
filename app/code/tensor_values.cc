#include "app/code/tensor_values.h"

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipescope::code {

namespace {

// Bytes per element of a dtype as the code names it (torch.float32, np.uint8, "float32",
// torch.long); nullopt for one not known.
std::optional<int64_t> DtypeBytes(const std::string& dtype) {
  static const std::map<std::string, int64_t> kBytes = {
      {"float64", 8},  {"double", 8},    {"int64", 8},      {"long", 8},    {"float32", 4},
      {"float", 4},    {"int32", 4},     {"int", 4},        {"float16", 2}, {"half", 2},
      {"bfloat16", 2}, {"int16", 2},     {"short", 2},      {"uint8", 1},   {"int8", 1},
      {"bool", 1},     {"complex64", 8}, {"complex128", 16}};
  const auto it = kBytes.find(dtype);
  if (it == kBytes.end()) return std::nullopt;
  return it->second;
}

// The dtype keyword's name (the tail of torch.float32 or np.uint8, or a string); `fallback`
// when the call leaves it out.
std::string DtypeOf(const CallArgs& a, const std::string& fallback) {
  const Value* d = a.Get("dtype");
  if (!d) return fallback;
  if (d->Is(Value::Kind::kString)) return d->s;
  if (d->Is(Value::Kind::kSymbol)) return d->SymbolTail();
  return "?";
}

Value Tensor(std::vector<Value> dims, std::string dtype, const CallArgs& a, bool torch) {
  return Value{.kind = Value::Kind::kTensor,
               .b = torch,
               .s = std::move(dtype),
               .items = std::move(dims),
               .node = a.node};
}

// A size as the constructors take it: one tuple or list (np.zeros((N, 8))), or the dimensions
// one by one from `first` on (torch.randn(N, 3, 32, 32)).
std::vector<Value> SizeFrom(const CallArgs& a, size_t first, const char* keyword) {
  if (const Value* size = a.Get(keyword); size) {
    if (size->Is(Value::Kind::kList)) return size->items;
    return {*size};
  }
  if (a.positional.size() == first + 1 && a.positional[first].Is(Value::Kind::kList)) {
    return a.positional[first].items;
  }
  return std::vector<Value>(a.positional.begin() + std::min(first, a.positional.size()),
                            a.positional.end());
}

// torch.randn(*size, dtype=...) and its kin: float32 unless told; NumPy's float64.
Dialect::Function Filled(const char* default_dtype, const char* size_keyword, bool torch) {
  return [default_dtype, size_keyword, torch](PythonReader&, const CallArgs& a) {
    return Tensor(SizeFrom(a, 0, size_keyword), DtypeOf(a, default_dtype), a, torch);
  };
}

// torch.randint(low=0, high, size) and np.random.randint(low, high=None, size=None): int64.
Value TorchRandint(PythonReader&, const CallArgs& a) {
  const Value* size = a.Get("size");
  if (!size && !a.positional.empty()) size = &a.positional.back();
  std::vector<Value> dims;
  if (size && size->Is(Value::Kind::kList)) dims = size->items;
  return Tensor(dims, DtypeOf(a, "int64"), a, /*torch=*/true);
}
Value NumpyRandint(PythonReader&, const CallArgs& a) {
  const Value* size = a.Get(2, "size");
  std::vector<Value> dims;
  if (size && size->Is(Value::Kind::kList)) dims = size->items;
  if (size && size->AsInt()) dims = {*size};
  // No size: one integer, not an array.
  if (!size) return Value{.node = a.node};
  return Tensor(dims, DtypeOf(a, "int64"), a, /*torch=*/false);
}

// arange(n) and arange(start, stop[, step]): one dimension, int64 for integers.
Value Arange(const CallArgs& a, bool torch) {
  std::vector<int64_t> n;
  for (const Value& v : a.positional) {
    if (const auto i = v.AsInt()) n.push_back(*i);
  }
  Value length;
  if (n.size() == a.positional.size() && !n.empty()) {
    const int64_t start = n.size() >= 2 ? n[0] : 0;
    const int64_t stop = n.size() >= 2 ? n[1] : n[0];
    const int64_t step = n.size() >= 3 && n[2] != 0 ? n[2] : 1;
    const int64_t count =
        step > 0 ? (stop - start + step - 1) / step : (start - stop - step - 1) / -step;
    length = Value{.kind = Value::Kind::kInt, .i = std::max<int64_t>(0, count)};
  }
  return Tensor({length}, DtypeOf(a, "int64"), a, torch);
}

// torch.from_numpy(a), torch.as_tensor(a), torch.tensor(a): the same array as a tensor (the
// dtype kept; torch.tensor of a list is not read).
Value SameArray(PythonReader&, const CallArgs& a) {
  if (!a.positional.empty() && a.positional[0].Is(Value::Kind::kTensor)) {
    Value v = a.positional[0];
    v.s = DtypeOf(a, v.s);
    v.b = true;
    v.node = a.node;
    return v;
  }
  return Value{.node = a.node};
}

}  // namespace

Value TensorMethod(const Value& tensor, const std::string& method, const CallArgs& args) {
  static const std::map<std::string, std::string> kConversions = {
      {"float", "float32"},     {"double", "float64"}, {"half", "float16"},
      {"bfloat16", "bfloat16"}, {"long", "int64"},     {"int", "int32"},
      {"short", "int16"},       {"byte", "uint8"},     {"bool", "bool"}};
  Value v = tensor;
  v.node = args.node;
  if (const auto it = kConversions.find(method); it != kConversions.end()) {
    v.s = it->second;
    return v;
  }
  if (method == "astype" || method == "to" || method == "type") {
    // The dtype by position or keyword; to(device) keeps the dtype.
    const Value* d = args.Get(0, "dtype");
    if (d && d->Is(Value::Kind::kSymbol) && DtypeBytes(d->SymbolTail())) v.s = d->SymbolTail();
    if (d && d->Is(Value::Kind::kString) && DtypeBytes(d->s)) v.s = d->s;
    return v;
  }
  if (method == "numpy") {
    v.b = false;  // a NumPy array now
    return v;
  }
  if (method == "contiguous" || method == "clone" || method == "copy" || method == "cpu" ||
      method == "pin_memory" || method == "detach") {
    return v;
  }
  return Value{.node = args.node};
}

std::map<std::string, Dialect::Function> TensorConstructors() {
  std::map<std::string, Dialect::Function> f;
  for (const char* name : {"randn", "rand", "zeros", "ones", "empty"}) {
    f[std::string("torch.") + name] = Filled("float32", "size", true);
  }
  for (const char* name : {"random.randn", "random.rand"}) {
    f[std::string("numpy.") + name] = Filled("float64", "size", false);
  }
  for (const char* name : {"zeros", "ones", "empty"}) {
    f[std::string("numpy.") + name] = Filled("float64", "shape", false);
  }
  f["numpy.random.random"] = Filled("float64", "size", false);
  // TensorFlow's: a shape first (tf.random.uniform((5000, 2**16)), tensorflow#40755's).
  for (const char* name : {"random.uniform", "random.normal", "zeros", "ones"}) {
    f[std::string("tf.") + name] = Filled("float32", "shape", false);
  }
  f["torch.randint"] = TorchRandint;
  f["numpy.random.randint"] = NumpyRandint;
  // len(a): an array's first dimension, which its constructor fixed, or a comprehension's
  // count (`[f"img{i}.jpg" for i in range(5000)]`), which its range fixed, or a list
  // written out item by item and held as written (`files = ["a.npy", "b.npy"]`). Not one the
  // code fills (`self.samples = []`, then append in a loop over a directory): it may hold
  // more at run time.
  f["len"] = [](PythonReader&, const CallArgs& a) {
    const Value* of = a.Get(0, "obj");
    if (const auto n = of ? FirstDimension(*of) : std::nullopt) {
      return Value{.kind = Value::Kind::kInt, .i = *n, .node = a.node};
    }
    if (of && of->Is(Value::Kind::kList) && (of->comprehension || of->written_out)) {
      return Value{
          .kind = Value::Kind::kInt, .i = static_cast<int64_t>(of->items.size()), .node = a.node};
    }
    return Value{.node = a.node};
  };
  // enumerate(items): as many (index, item) pairs as the items, where their count is known
  // (`for i, ID in enumerate(list_IDs_temp):` turns once an item). The pairs are the first's:
  // a loop's targets are bound to its first item.
  f["enumerate"] = [](PythonReader&, const CallArgs& a) {
    const Value* of = a.Get(0, "iterable");
    if (!of) return Value{.node = a.node};
    // A list's items, or an array's rows (np.arange(n)[lo:hi]).
    const std::optional<int64_t> n =
        of->Is(Value::Kind::kList) ? std::optional<int64_t>(of->items.size()) : FirstDimension(*of);
    if (!n || *n < 0) return Value{.node = a.node};
    Value pairs{.kind = Value::Kind::kList, .node = a.node, .comprehension = true};
    if (*n == 0) return pairs;
    const Value item = of->Is(Value::Kind::kList) ? of->items[0] : TensorRow(*of, a.node);
    const Value first{.kind = Value::Kind::kList,
                      .items = {Value{.kind = Value::Kind::kInt, .i = 0}, item}};
    pairs.items = ValueList::Repeated(static_cast<size_t>(*n), first);
    return pairs;
  };
  // isinstance(x, int) where the code makes x a constant (the tutorial's Rescale takes an int
  // or a tuple): which branch it takes. Other types, or an x known only at run time: unknown.
  f["isinstance"] = [](PythonReader&, const CallArgs& a) {
    const Value* of = a.Get(0, "obj");
    const Value* types = a.Get(1, "classinfo");
    if (!of || !types) return Value{.node = a.node};
    const auto kind_name = [](const Value& v) -> std::string {
      switch (v.kind) {
        case Value::Kind::kBool:
          return "bool";
        case Value::Kind::kInt:
          return "int";
        case Value::Kind::kFloat:
          return "float";
        case Value::Kind::kString:
          return "str";
        case Value::Kind::kDict:
          return "dict";
        case Value::Kind::kList:
          return v.node.Is("tuple") ? "tuple" : v.node.Is("list") ? "list" : "";
        default:
          return "";
      }
    };
    const std::string kind = kind_name(*of);
    if (kind.empty()) return Value{.node = a.node};
    const std::vector<Value> names = types->Is(Value::Kind::kList)
                                         ? std::vector<Value>(types->items)
                                         : std::vector<Value>{*types};
    bool is = false;
    for (const Value& t : names) {
      const std::string name = t.Is(Value::Kind::kSymbol) ? t.s : std::string(t.node.text());
      if (name != "int" && name != "float" && name != "str" && name != "bool" && name != "dict" &&
          name != "tuple" && name != "list") {
        return Value{.node = a.node};  // a class of the file's, a module's type
      }
      // A bool is an int to isinstance.
      is = is || name == kind || (name == "int" && kind == "bool");
    }
    return Value{.kind = Value::Kind::kBool, .b = is, .node = a.node};
  };
  // A length as Python rounds it: math.ceil(n / batch_size), int(np.ceil(...)), n // b.
  const auto rounded = [](double (*round)(double), bool to_int) {
    return [round, to_int](PythonReader&, const CallArgs& a) {
      const Value* of = a.Get(0, "x");
      if (!of || !(of->Is(Value::Kind::kFloat) || of->Is(Value::Kind::kInt))) {
        return Value{.node = a.node};
      }
      const double x = of->Is(Value::Kind::kInt) ? static_cast<double>(of->i) : of->f;
      if (!std::isfinite(x) || std::abs(x) > 9e15) return Value{.node = a.node};
      if (!to_int) return Value{.kind = Value::Kind::kFloat, .f = round(x), .node = a.node};
      return Value{.kind = Value::Kind::kInt, .i = static_cast<int64_t>(round(x)), .node = a.node};
    };
  };
  double (*const ceil)(double) = [](double x) { return std::ceil(x); };
  double (*const floor)(double) = [](double x) { return std::floor(x); };
  f["math.ceil"] = rounded(ceil, true);
  f["math.floor"] = rounded(floor, true);
  f["int"] = rounded([](double x) { return std::trunc(x); }, true);
  f["float"] = rounded([](double x) { return x; }, false);
  f["numpy.ceil"] = rounded(ceil, false);
  f["numpy.floor"] = rounded(floor, false);
  // tf.stack(crops), np.stack(rows), torch.stack(items): an array of a list's items along a
  // new first dimension, where the code counts them (a comprehension, appends in a loop of
  // known count); each row of an item's shape where that is known.
  struct Stack {
    const char* path;
    const char* items;  // the list's parameter
    const char* axis;
  };
  for (const Stack& stack :
       {Stack{"tf.stack", "values", "axis"}, Stack{"numpy.stack", "arrays", "axis"},
        Stack{"torch.stack", "tensors", "dim"}}) {
    const bool torch = std::string_view(stack.path).starts_with("torch");
    f[stack.path] = [stack, torch](PythonReader&, const CallArgs& a) {
      const Value* of = a.Get(0, stack.items);
      const Value* axis = a.Get(1, stack.axis);
      if (!of || !of->Is(Value::Kind::kList) || !of->comprehension ||
          (axis && axis->AsInt() != std::optional<int64_t>(0))) {
        return Value{.node = a.node};
      }
      Value stacked{.kind = Value::Kind::kTensor, .b = torch, .node = a.node};
      stacked.items.push_back(
          Value{.kind = Value::Kind::kInt, .i = static_cast<int64_t>(of->items.size())});
      if (!of->items.empty() && of->items[0].Is(Value::Kind::kTensor)) {
        const Value& row = of->items[0];
        stacked.s = row.s;
        for (const Value& d : row.items) stacked.items.push_back(d);
      }
      return stacked;
    };
  }
  f["torch.arange"] = [](PythonReader&, const CallArgs& a) { return Arange(a, true); };
  f["numpy.arange"] = [](PythonReader&, const CallArgs& a) { return Arange(a, false); };
  for (const char* name : {"torch.from_numpy", "torch.as_tensor", "torch.tensor"}) {
    f[name] = SameArray;
  }
  // torch.Tensor(np.arange(5000)) copies an array into its dtype; torch.Tensor(5, 3) makes
  // one of those sizes.
  for (const auto& [name, dtype] :
       std::map<std::string, const char*>{{"torch.Tensor", "float32"},
                                          {"torch.FloatTensor", "float32"},
                                          {"torch.DoubleTensor", "float64"},
                                          {"torch.LongTensor", "int64"},
                                          {"torch.IntTensor", "int32"}}) {
    f[name] = [sized = Filled(dtype, "size", true), dtype = std::string(dtype)](PythonReader& r,
                                                                                const CallArgs& a) {
      if (a.positional.size() == 1 && a.positional[0].Is(Value::Kind::kTensor)) {
        Value v = a.positional[0];
        v.s = dtype;
        v.b = true;
        v.node = a.node;
        return v;
      }
      return sized(r, a);
    };
  }
  return f;
}

Value TensorRow(const Value& tensor, const SyntaxNode& node) {
  Value row = tensor;
  row.items.erase(row.items.begin(), row.items.begin() + std::min<size_t>(1, row.items.size()));
  row.node = node;
  return row;
}

std::optional<int64_t> FirstDimension(const Value& tensor) {
  if (!tensor.Is(Value::Kind::kTensor) || tensor.items.empty()) return std::nullopt;
  return tensor.items[0].AsInt();
}

std::optional<int64_t> ItemBytes(const Value& tensor) {
  if (!tensor.Is(Value::Kind::kTensor) || tensor.items.empty()) return std::nullopt;
  return ArrayBytes(TensorRow(tensor, tensor.node));
}

std::optional<int64_t> ArrayBytes(const Value& tensor) {
  if (!tensor.Is(Value::Kind::kTensor)) return std::nullopt;
  auto bytes = DtypeBytes(tensor.s);
  if (!bytes) return std::nullopt;
  int64_t n = *bytes;
  for (const Value& dimension : tensor.items) {
    const auto d = dimension.AsInt();
    if (!d || *d < 0) return std::nullopt;
    n *= *d;
  }
  return n;
}

std::optional<int64_t> SampleBytes(const Value& sample) {
  if (sample.Is(Value::Kind::kTensor)) return ArrayBytes(sample);
  if (sample.Is(Value::Kind::kInt) || sample.Is(Value::Kind::kFloat) ||
      sample.Is(Value::Kind::kBool)) {
    return 8;
  }
  const bool dict = sample.Is(Value::Kind::kDict);
  if ((!sample.Is(Value::Kind::kList) && !dict) || sample.items.empty()) return std::nullopt;
  int64_t bytes = 0;
  for (size_t k = dict ? 1 : 0; k < sample.items.size(); k += dict ? 2 : 1) {
    const auto part = SampleBytes(sample.items[k]);
    if (!part) return std::nullopt;
    bytes += *part;
  }
  return bytes;
}

}  // namespace pipescope::code
