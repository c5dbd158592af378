#include "engine/core/element.h"

#include <cstdio>
#include <cstring>

namespace pipescope::engine {
namespace {

constexpr int64_t kMaxPrintedValues = 64;

void AppendEscaped(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void AppendValue(std::string& out, const Tensor& t, int64_t index) {
  char buf[32];
  switch (t.dtype()) {
    case DType::kInt64:
      out += std::to_string(t.data<int64_t>()[index]);
      break;
    case DType::kFloat32:
      std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(t.data<float>()[index]));
      out += buf;
      break;
    case DType::kUint8:
      out += std::to_string(t.data<uint8_t>()[index]);
      break;
    case DType::kString: {
      const std::string& s = t.strings()[index];
      if (s.size() <= 64) {
        AppendEscaped(out, s);
      } else {
        out += "{\"bytes\":" + std::to_string(s.size()) + "}";
      }
      break;
    }
    case DType::kInvalid:
      out += "null";
      break;
  }
}

// Writes nested arrays following the tensor's shape, starting at dimension `d`.
void AppendNested(std::string& out, const Tensor& t, int d, int64_t& index) {
  if (d == t.shape().rank()) {
    AppendValue(out, t, index++);
    return;
  }
  out += '[';
  for (int64_t i = 0; i < t.shape().dim(d); ++i) {
    if (i) out += ',';
    AppendNested(out, t, d + 1, index);
  }
  out += ']';
}

void AppendTensor(std::string& out, const Tensor& t) {
  if (!t.valid()) {
    out += "null";
    return;
  }
  if (t.num_elements() > kMaxPrintedValues) {
    out += "{\"dtype\":\"" + std::string(DTypeName(t.dtype())) +
           "\",\"shape\":" + t.shape().ToString() + ",\"bytes\":" + std::to_string(t.byte_size()) +
           "}";
    return;
  }
  int64_t index = 0;
  AppendNested(out, t, 0, index);
}

}  // namespace

Result<Element> CombineRows(const std::vector<Element>& rows, uint64_t id,
                            const CombineComponent& combine) {
  if (rows.empty()) return InvalidArgument("a batch of no rows");
  Element batch;
  batch.id = id;
  std::vector<const Tensor*> parts(rows.size());
  if (rows[0].value.valid()) {
    for (size_t i = 0; i < rows.size(); ++i) parts[i] = &rows[i].value;
    ASSIGN_OR_RETURN(batch.value, combine(parts));
  }
  for (size_t f = 0; f < rows[0].features.size(); ++f) {
    const std::string& name = rows[0].features[f].name;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].features.size() <= f || rows[i].features[f].name != name) {
        return InvalidArgument("element " + std::to_string(i) + " of the batch lacks feature '" +
                               name + "'");
      }
      parts[i] = &rows[i].features[f].value;
    }
    auto combined = combine(parts);
    if (!combined.ok()) return combined.status().WithContext("feature '" + name + "'");
    batch.features.push_back({name, std::move(combined).value()});
  }
  return batch;
}

Result<Element> ZipElements(Element first, const Element& second, const std::string& second_name) {
  auto add = [&](const std::string& name, const Tensor& value) -> Status {
    for (const Feature& f : first.features) {
      if (f.name == name) {
        return InvalidArgument("both zipped elements have a component named '" + name + "'");
      }
    }
    first.features.push_back({name, value});
    return Status::Ok();
  };
  if (second.value.valid()) RETURN_IF_ERROR(add(second_name, second.value));
  for (const Feature& f : second.features) RETURN_IF_ERROR(add(f.name, f.value));
  return first;
}

const Tensor& LeadComponent(const Element& e) {
  return e.value.valid() || e.features.empty() ? e.value : e.features[0].value;
}

Element RowOf(const Element& batch, int64_t row, uint64_t id) {
  Element out;
  out.id = id;
  if (batch.value.valid()) out.value = batch.value.Row(row);
  for (const auto& f : batch.features) out.features.push_back({f.name, f.value.Row(row)});
  return out;
}

std::string Element::ContentKey() const {
  std::string key = std::string(DTypeName(value.dtype())) + value.shape().ToString() + ":";
  if (value.dtype() == DType::kString) {
    for (const auto& s : value.strings()) key += std::to_string(s.size()) + ":" + s;
  } else if (value.valid()) {
    key.append(reinterpret_cast<const char*>(value.raw()), value.byte_size());
  }
  for (const auto& f : features) {
    key += "|" + f.name + "=";
    key += Element{0, f.value, {}}.ContentKey();
  }
  return key;
}

std::string ElementToJson(const Element& element) {
  std::string out = "{\"id\":" + std::to_string(element.id);
  if (element.value.valid()) {
    out += ",\"value\":";
    AppendTensor(out, element.value);
  }
  if (!element.features.empty()) {
    out += ",\"features\":{";
    for (size_t i = 0; i < element.features.size(); ++i) {
      if (i) out += ',';
      AppendEscaped(out, element.features[i].name);
      out += ':';
      AppendTensor(out, element.features[i].value);
    }
    out += '}';
  }
  return out + "}";
}

size_t Element::ByteSize() const {
  size_t bytes = value.byte_size();
  for (const auto& f : features) bytes += f.value.byte_size();
  return bytes;
}

}  // namespace pipescope::engine
