#include "instrumentation/trace/import/tf_iterator_paths.h"

#include <simdjson.h>

#include <cctype>
#include <unordered_map>

namespace pipescope::trace {
namespace {

constexpr std::string_view kIterator = "Iterator::";

// The length of `part` without a trailing "[digits]" (its length when there is none).
size_t WithoutIndex(std::string_view part) {
  if (part.size() < 3 || part.back() != ']') return part.size();
  size_t open = part.size() - 1;
  while (open > 0 && std::isdigit(static_cast<unsigned char>(part[open - 1]))) --open;
  if (open == 0 || open == part.size() - 1 || part[open - 1] != '[') return part.size();
  return open - 1;
}

// The path in a span's args.long_name, or "" where it has none.
std::string_view LongName(simdjson::dom::parser& parser, std::string_view args) {
  if (args.find("long_name") == std::string_view::npos) return {};
  simdjson::dom::element root;
  if (parser.parse(simdjson::padded_string(args)).get(root) != simdjson::SUCCESS) return {};
  std::string_view path;
  if (root["long_name"].get_string().get(path) != simdjson::SUCCESS) return {};
  return path;
}

}  // namespace

std::string OpPathOfIterator(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  size_t from = 0;
  while (from <= path.size()) {
    size_t to = path.find("::", from);
    if (to == std::string_view::npos) to = path.size();
    const std::string_view part = path.substr(from, to - from);
    const size_t base = WithoutIndex(part);
    const bool epoch =
        base < part.size() && part.substr(0, base).find("Repeat") != std::string_view::npos;
    if (from > 0) out += "::";
    out += epoch ? part.substr(0, base) : part;
    from = to + 2;
  }
  return out;
}

std::string ConsumerOfIterator(std::string_view path) {
  const size_t last = path.rfind("::");
  if (last == std::string_view::npos || last + 2 <= kIterator.size()) return "";
  std::string_view consumer = path.substr(0, last);
  const size_t part = consumer.rfind("::");
  const size_t part_start = part == std::string_view::npos ? 0 : part + 2;
  return std::string(consumer.substr(0, part_start + WithoutIndex(consumer.substr(part_start))));
}

void NameIteratorSpansByPath(TraceEvents& t) {
  simdjson::dom::parser parser;
  std::unordered_map<std::string, uint32_t> ids;   // an op's path, interned once
  std::unordered_map<uint32_t, uint32_t> renamed;  // a name without long_name: its path's id
  for (RawEvent& e : t.events) {
    if (e.ph != 'X') continue;
    const std::string& name = t.str(e.name);
    if (name.compare(0, kIterator.size(), kIterator) != 0) continue;
    std::string_view path = e.args != 0 ? LongName(parser, t.args[e.args]) : std::string_view();
    if (path.substr(0, kIterator.size()) != kIterator) {
      path = {};
      if (const auto it = renamed.find(e.name); it != renamed.end()) {
        e.name = it->second;
        continue;
      }
    }
    const uint32_t own = e.name;
    const std::string op = OpPathOfIterator(path.empty() ? std::string_view(name) : path);
    auto [it, added] = ids.try_emplace(op, 0);
    if (added) {
      if (op == name) {
        it->second = own;
      } else {
        it->second = static_cast<uint32_t>(t.strings.size());
        t.strings.push_back(op);
      }
    }
    if (path.empty()) renamed.emplace(own, it->second);
    e.name = it->second;
  }
}

}  // namespace pipescope::trace
