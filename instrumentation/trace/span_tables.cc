#include "instrumentation/trace/span_tables.h"

namespace pipescope::trace {

LabelTable::LabelTable() { labels_.emplace_back(); }

uint32_t LabelTable::Intern(std::string_view name, std::string_view category) {
  if (name.empty() && category.empty()) return 0;
  std::string key;
  key.reserve(name.size() + 1 + category.size());
  key.append(name).push_back('\0');
  key.append(category);
  auto [it, added] = index_.try_emplace(std::move(key), static_cast<uint32_t>(labels_.size()));
  if (added) labels_.push_back({std::string(name), std::string(category)});
  return it->second;
}

size_t LabelTable::memory_bytes() const {
  size_t n = labels_.size() * sizeof(SpanLabel) + index_.size() * 64;
  for (const auto& l : labels_) n += 2 * (l.name.capacity() + l.category.capacity());
  return n;
}

uint32_t ArgsTable::Add(std::string_view json) {
  if (json.empty()) return 0;
  text_.append(json);
  offsets_.push_back(text_.size());
  return static_cast<uint32_t>(offsets_.size() - 1);
}

std::string_view ArgsTable::operator[](uint32_t id) const {
  if (id == 0 || id >= offsets_.size()) return {};
  return std::string_view(text_).substr(offsets_[id - 1], offsets_[id] - offsets_[id - 1]);
}

}  // namespace pipescope::trace
