#include "engine/core/duration.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace pipescope::engine {
namespace {

// Splits "12.5ms" into 12.5 and "ms"; whitespace between them is allowed.
Result<std::pair<double, std::string_view>> SplitNumber(std::string_view text,
                                                        std::string_view what) {
  size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  size_t start = i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             text[i] == 'e' || text[i] == '-' || text[i] == '+')) {
    // 'e' only as an exponent after a digit.
    if (text[i] == 'e' && (i == start || i + 1 >= text.size() ||
                           !(std::isdigit(static_cast<unsigned char>(text[i + 1])) ||
                             text[i + 1] == '-' || text[i + 1] == '+'))) {
      break;
    }
    ++i;
  }
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data() + start, text.data() + i, value);
  if (ec != std::errc() || ptr != text.data() + i || i == start) {
    return InvalidArgument("expected a " + std::string(what) + " like " +
                           (what == "duration" ? "\"2ms\"" : "\"200MB/s\"") + ", got \"" +
                           std::string(text) + "\"");
  }
  while (i < text.size() && text[i] == ' ') ++i;
  std::string_view unit = text.substr(i);
  while (!unit.empty() && unit.back() == ' ') unit.remove_suffix(1);
  return std::make_pair(value, unit);
}

}  // namespace

Result<int64_t> ParseDurationNs(std::string_view text) {
  ASSIGN_OR_RETURN(auto parts, SplitNumber(text, "duration"));
  auto [value, unit] = parts;
  double scale = 0;
  if (unit == "ns")
    scale = 1;
  else if (unit == "us" || unit == "µs")
    scale = 1e3;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "s")
    scale = 1e9;
  else if (unit == "min")
    scale = 60e9;
  else
    return InvalidArgument("duration \"" + std::string(text) +
                           "\" needs a unit: ns, us, ms, s or min");
  if (value < 0 || !std::isfinite(value) || value * scale > 1e18) {
    return InvalidArgument("duration \"" + std::string(text) + "\" is out of range");
  }
  return static_cast<int64_t>(std::llround(value * scale));
}

Result<int64_t> OptionalDurationNs(std::string_view text) {
  if (text.empty()) return int64_t{0};
  return ParseDurationNs(text);
}

std::string SpecDuration(int64_t ns) {
  for (const auto& [unit, size] :
       {std::pair{"s", int64_t{1'000'000'000}}, std::pair{"ms", int64_t{1'000'000}},
        std::pair{"us", int64_t{1'000}}}) {
    if (ns != 0 && ns % size == 0) return std::to_string(ns / size) + unit;
  }
  return std::to_string(ns) + "ns";
}

namespace {

// A number of bytes ("150KB"), or of bytes per second with `per` "/s": the number scaled by
// its unit, decimal (KB, MB, GB) or binary (KiB, MiB, GiB).
Result<double> ByteQuantity(std::string_view text, std::string_view what, std::string_view per) {
  ASSIGN_OR_RETURN(auto parts, SplitNumber(text, what));
  auto [value, unit] = parts;
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"B", 1},        {"KB", 1e3},      {"MB", 1e6},      {"GB", 1e9},
      {"KiB", 1024.0}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
  };
  std::string units;
  for (const auto& [name, scale] : kUnits) {
    if (unit.size() == name.size() + per.size() && unit.starts_with(name) && unit.ends_with(per))
      return value * scale;
    units += (units.empty() ? "" : ", ") + std::string(name) + std::string(per);
  }
  return InvalidArgument(std::string(what) + " \"" + std::string(text) +
                         "\" needs a unit: " + units);
}

}  // namespace

Result<double> ParseBytesPerSecond(std::string_view text) {
  ASSIGN_OR_RETURN(const double rate, ByteQuantity(text, "rate", "/s"));
  if (rate <= 0 || !std::isfinite(rate)) {
    return InvalidArgument("rate \"" + std::string(text) + "\" must be positive");
  }
  return rate;
}

Result<int64_t> ParseBytes(std::string_view text) {
  ASSIGN_OR_RETURN(const double bytes, ByteQuantity(text, "size", ""));
  if (bytes < 0 || !std::isfinite(bytes) || bytes > 1e15) {
    return InvalidArgument("size \"" + std::string(text) + "\" must be from 0 to 1 PB");
  }
  return static_cast<int64_t>(std::llround(bytes));
}

Result<TimeRange> ParseTimeRange(std::string_view text) {
  const size_t colon = text.find(':');
  auto invalid = [&](const std::string& why) {
    return InvalidArgument(
        "time range \"" + std::string(text) + "\" " + why +
        ": give T0:T1 in seconds from the start, like 2.5:2.52 or 2500ms:2520ms");
  };
  if (colon == std::string_view::npos) return invalid("has no colon");
  // One end: empty (the run's start or end), a bare number of seconds, or a duration.
  auto end_at = [&](std::string_view part) -> Result<int64_t> {
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part.empty()) return int64_t{0};
    double seconds = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), seconds);
    if (ec == std::errc() && ptr == part.data() + part.size()) {
      if (!(seconds >= 0) || seconds > 1e7) return invalid("is out of range");
      return static_cast<int64_t>(std::llround(seconds * 1e9));
    }
    return ParseDurationNs(part);
  };
  auto t0 = end_at(text.substr(0, colon));
  if (!t0.ok()) return t0.status();
  auto t1 = end_at(text.substr(colon + 1));
  if (!t1.ok()) return t1.status();
  if (t1.value() != 0 && t1.value() <= t0.value()) return invalid("ends before it starts");
  return TimeRange{t0.value(), t1.value()};
}

namespace {

// The unit a magnitude of nanoseconds reads in: the largest that keeps it at least 1.
struct TimeUnit {
  double ns;
  const char* name;
};
TimeUnit UnitFor(double magnitude_ns) {
  if (magnitude_ns >= 1e9) return {1e9, "s"};
  if (magnitude_ns >= 1e6) return {1e6, "ms"};
  if (magnitude_ns >= 1e3) return {1e3, "µs"};
  return {1, "ns"};
}

}  // namespace

std::string FormatBytes(int64_t bytes) {
  char text[32];
  const auto b = static_cast<double>(bytes);
  if (b >= 1e12) {
    std::snprintf(text, sizeof text, "%.1f TB", b / 1e12);
  } else if (b >= 1e9) {
    std::snprintf(text, sizeof text, "%.1f GB", b / 1e9);
  } else if (b >= 1e6) {
    std::snprintf(text, sizeof text, "%.0f MB", b / 1e6);
  } else if (b >= 1e3) {
    std::snprintf(text, sizeof text, "%.0f KB", b / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
  }
  return text;
}

std::string FormatDuration(int64_t ns) {
  // Three significant digits: "1.5 ms", "250 µs", "3 s" (tooltips, docks, the CLI); zero is
  // just "0".
  if (ns == 0) return "0";
  char buf[32];
  const double v = static_cast<double>(ns);
  const TimeUnit unit = UnitFor(std::fabs(v));
  if (unit.ns == 1) {
    std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  } else if (std::fabs(v / unit.ns) >= 1000) {
    // Seconds past a thousand (a shuffle buffer of millions filling): whole, not "2.54e+03".
    std::snprintf(buf, sizeof buf, "%.0f %s", v / unit.ns, unit.name);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g %s", v / unit.ns, unit.name);
  }
  return buf;
}

std::string FormatTimeAt(int64_t t_ns, double resolution_ns) {
  const double resolution = std::max(resolution_ns, 1.0);
  const TimeUnit unit = UnitFor(std::max(std::fabs(static_cast<double>(t_ns)), resolution));
  const int digits =
      resolution >= unit.ns
          ? 0
          : std::clamp(static_cast<int>(std::ceil(std::log10(unit.ns / resolution) - 1e-9)), 0, 9);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f %s", digits, static_cast<double>(t_ns) / unit.ns, unit.name);
  return buf;
}

}  // namespace pipescope::engine
