#include "app/code/string_format.h"

#include <cstdio>

namespace pipescope::code {
namespace {

// A conversion of one value: `zero` pads with zeros to `width`, `left` aligns left, `type`
// is d (i), s, x or X. Unknown values, floats and other types give nothing.
std::optional<std::string> Convert(const Value& value, bool zero, bool left, int width, char type) {
  std::string out;
  if (type == 'd' || type == 'i' || type == 'x' || type == 'X') {
    if (!value.Is(Value::Kind::kInt)) return std::nullopt;
    char buffer[32];
    const char* pattern = type == 'x' ? "%llx" : type == 'X' ? "%llX" : "%lld";
    std::snprintf(buffer, sizeof buffer, pattern, static_cast<long long>(value.i));
    out = buffer;
  } else if (type == 's') {
    if (value.Is(Value::Kind::kString)) {
      out = value.s;
    } else if (value.Is(Value::Kind::kInt)) {
      out = std::to_string(value.i);
    } else {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  if (static_cast<int>(out.size()) >= width) return out;
  const size_t pad = static_cast<size_t>(width) - out.size();
  if (left) return out + std::string(pad, ' ');
  if (!zero) return std::string(pad, ' ') + out;
  // Zeros go after the sign.
  const size_t sign = !out.empty() && out[0] == '-' ? 1 : 0;
  return out.substr(0, sign) + std::string(pad, '0') + out.substr(sign);
}

// Reads a width at `i` (digits); -1 where there are none.
int Width(const std::string& s, size_t& i) {
  int width = -1;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    width = (width < 0 ? 0 : width) * 10 + (s[i] - '0');
    if (width > 1024) return -2;  // no file name is padded so
    ++i;
  }
  return width;
}

}  // namespace

std::optional<std::string> FormatField(const Value& value, const std::string& spec) {
  size_t i = 0;
  bool left = false, zero = false;
  if (i < spec.size() && spec[i] == '<') {
    left = true;
    ++i;
  } else if (i < spec.size() && spec[i] == '>') {
    ++i;
  }
  if (i < spec.size() && spec[i] == '0') {
    zero = true;
    ++i;
  }
  const int width = Width(spec, i);
  if (width < -1) return std::nullopt;
  char type = value.Is(Value::Kind::kInt) ? 'd' : 's';
  if (i < spec.size()) type = spec[i++];
  if (i != spec.size()) return std::nullopt;
  return Convert(value, zero, left, width, type);
}

std::optional<std::string> PercentFormat(const std::string& format,
                                         const std::vector<Value>& args) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    if (++i >= format.size()) return std::nullopt;
    if (format[i] == '%') {
      out += '%';
      continue;
    }
    bool left = false, zero = false;
    for (; i < format.size() && (format[i] == '-' || format[i] == '0'); ++i) {
      left |= format[i] == '-';
      zero |= format[i] == '0';
    }
    const int width = Width(format, i);
    if (width < -1 || i >= format.size() || next >= args.size()) return std::nullopt;
    const auto converted = Convert(args[next++], zero && !left, left, width, format[i]);
    if (!converted) return std::nullopt;
    out += *converted;
  }
  if (next != args.size()) return std::nullopt;  // Python's "not all arguments converted"
  return out;
}

std::optional<std::string> BraceFormat(const std::string& format, const std::vector<Value>& args) {
  std::string out;
  size_t automatic = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    if (c == '}') {
      if (i + 1 < format.size() && format[i + 1] == '}') ++i;  // "}}"
      out += '}';
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    const size_t close = format.find('}', i);
    if (close == std::string::npos) return std::nullopt;
    const std::string field = format.substr(i + 1, close - i - 1);
    const size_t colon = field.find(':');
    const std::string name = field.substr(0, colon);
    const std::string spec = colon == std::string::npos ? "" : field.substr(colon + 1);
    size_t index = automatic++;
    if (!name.empty()) {
      size_t k = 0;
      const int n = Width(name, k);
      if (n < 0 || k != name.size()) return std::nullopt;  // a keyword's or attribute's field
      index = static_cast<size_t>(n);
    }
    if (index >= args.size()) return std::nullopt;
    const auto rendered = FormatField(args[index], spec);
    if (!rendered) return std::nullopt;
    out += *rendered;
    i = close;
  }
  return out;
}

}  // namespace pipescope::code
