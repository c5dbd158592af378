#pragma once
// What an imported trace says about each span beyond its time: its name with its category,
// interned (a trace repeats a few thousand names over millions of spans, as Perfetto's
// string table has it), and its arguments, kept as the JSON object text the profiler
// wrote. Tracks hold the ids; id 0 means "none" in both tables.
//
// Not thread-safe, like the model that owns them.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pipescope::trace {

struct SpanLabel {
  std::string name;
  std::string category;  // as written ("cpu_op", "kernel", "Operator", ...); may be empty
};

class LabelTable {
 public:
  LabelTable();
  // The id of (name, category), added if new.
  uint32_t Intern(std::string_view name, std::string_view category);
  const SpanLabel& operator[](uint32_t id) const { return labels_[id < labels_.size() ? id : 0]; }
  size_t size() const { return labels_.size(); }  // ids are [0, size())
  size_t memory_bytes() const;

 private:
  std::deque<SpanLabel> labels_;                     // deque: the keys below view into it
  std::unordered_map<std::string, uint32_t> index_;  // name + '\0' + category
};

class ArgsTable {
 public:
  // Keeps `json` (an object's text), returning its id; empty text is id 0.
  uint32_t Add(std::string_view json);
  // Room for `bytes` of text and `count` arguments, so that filling the table never copies
  // what it holds (pages reserved and not written cost no memory).
  void Reserve(size_t bytes, size_t count) {
    text_.reserve(bytes);
    offsets_.reserve(count);
  }
  std::string_view operator[](uint32_t id) const;
  size_t size() const { return offsets_.size(); }  // ids are [0, size())
  // Forgets the arguments with ids from `size` on.
  void Truncate(size_t size) {
    if (size == 0 || size >= offsets_.size()) return;
    offsets_.resize(size);
    text_.resize(offsets_.back());
  }
  size_t memory_bytes() const { return text_.capacity() + offsets_.capacity() * 8; }
  void ShrinkToFit() {
    text_.shrink_to_fit();
    offsets_.shrink_to_fit();
  }

 private:
  std::string text_;
  std::vector<uint64_t> offsets_{0};  // id i's text is [offsets_[i-1], offsets_[i])
};

// One event of a model, by its track (Track::id) and its index in that track.
struct EventRef {
  uint32_t track = 0;
  uint32_t index = 0;
  friend bool operator==(const EventRef&, const EventRef&) = default;
  // clang-tidy reads the comparison with 0 it synthesises here as a null pointer.
  friend auto operator<=>(const EventRef&,
                          const EventRef&) = default;  // NOLINT(modernize-use-nullptr)
};

// An arrow between two spans, as Chrome's flow events ('s' to 'f') draw one: PyTorch's
// CPU launch to GPU kernel ("ac2g") and forward to backward ("fwdbwd") links.
struct Flow {
  EventRef from;
  EventRef to;
  uint32_t label = 0;  // the flow's name and category
};

}  // namespace pipescope::trace
