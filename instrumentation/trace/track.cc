#include "instrumentation/trace/track.h"

#include <algorithm>
#include <cmath>

namespace pipescope::trace {

void Track::ShrinkToFit() {
  block_starts_.shrink_to_fit();
  start_offsets_.ShrinkToFit();
  durations_.ShrinkToFit();
  values_.ShrinkToFit();
  elements_.ShrinkToFit();
  wide_elements_.ShrinkToFit();
  extra_calls_.ShrinkToFit();
  labels_.ShrinkToFit();
  args_.ShrinkToFit();
  block_duration_sums_.shrink_to_fit();
  block_value_sums_.shrink_to_fit();
  block_extra_call_sums_.shrink_to_fit();
}

void Track::Append(int64_t start, int64_t end, uint64_t element, uint64_t value, uint32_t calls,
                   uint32_t label, uint32_t args) {
  const size_t i = size();
  if (i != 0) start = std::max(start, last_end_);
  end = std::max(end, start);
  if (i % kBlock == 0) {
    block_starts_.push_back(start);
    block_duration_sums_.push_back(duration_sum_);
    block_value_sums_.push_back(value_sum_);
    if (!extra_calls_.empty()) block_extra_call_sums_.push_back(extra_call_sum_);
  }
  const uint32_t extra = calls > 1 ? calls - 1 : 0;
  const int64_t d = end - start;
  const auto offset = static_cast<uint64_t>(start - block_starts_.back());
  if (offset >= kFarStart) {
    start_offsets_.push_back(kFarStart);
    far_starts_[i] = start;
  } else {
    start_offsets_.push_back(static_cast<uint32_t>(offset));
  }
  if (d >= kLongDuration) {
    durations_.push_back(kLongDuration);
    long_durations_[i] = d;
  } else {
    durations_.push_back(static_cast<uint32_t>(d));
  }
  // Lazy columns start when the first non-zero value arrives, with the zeros before it.
  if (value != 0 || !values_.empty()) {
    values_.Fill(i - values_.size(), 0);
    if (value >= kLargeValue) {
      values_.push_back(kLargeValue);
      large_values_[i] = value;
    } else {
      values_.push_back(static_cast<uint32_t>(value));
    }
  }
  if (element > UINT32_MAX && wide_elements_.empty()) {
    for (size_t k = 0; k < i; ++k) wide_elements_.push_back(elements_.empty() ? 0 : elements_[k]);
    elements_.clear();
  }
  if (!wide_elements_.empty()) {
    wide_elements_.push_back(element);
  } else if (element != 0 || !elements_.empty()) {
    elements_.Fill(i - elements_.size(), 0);
    elements_.push_back(static_cast<uint32_t>(element));
  }
  if (extra != 0 || !extra_calls_.empty()) {
    // The first run: every block before it sums to no extra calls.
    if (extra_calls_.empty()) block_extra_call_sums_.assign(block_duration_sums_.size(), 0);
    extra_calls_.Fill(i - extra_calls_.size(), 0);
    extra_calls_.push_back(extra);
  }
  if (label != 0 || !labels_.empty()) {
    labels_.Fill(i - labels_.size(), 0);
    labels_.push_back(label);
  }
  if (args != 0 || !args_.empty()) {
    args_.Fill(i - args_.size(), 0);
    args_.push_back(args);
  }
  duration_sum_ += d;
  value_sum_ += static_cast<double>(value);
  extra_call_sum_ += extra;
  last_end_ = end;
}

uint64_t Track::element(size_t i) const {
  if (!wide_elements_.empty()) return wide_elements_[i];
  return elements_.empty() ? 0 : elements_[i];
}

Track::Window Track::SearchWindow(int64_t t, size_t from, bool after) const {
  // The first block past `from`'s whose first start passes t: every span from it on passes,
  // and none before the block ahead of it does (spans never overlap, so a span that ends
  // after t starts no earlier than the last block start at or before t). Galloping from
  // `from`: a search just past the previous one (the next pixel) touches nearby blocks only.
  const auto passes = [&](size_t b) {
    return after ? block_starts_[b] > t : block_starts_[b] >= t;
  };
  const size_t blocks = block_starts_.size();
  size_t lo = from / kBlock + 1;
  size_t hi = lo;
  for (size_t step = 1; hi < blocks && !passes(hi); step *= 2) {
    lo = hi + 1;
    hi = std::min(blocks, hi + step);
  }
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (passes(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return {std::max(from, (lo - 1) * kBlock), std::min(size(), lo * kBlock)};
}

size_t Track::FirstEndingAfter(int64_t t, size_t from) const {
  if (from >= size()) return size();
  const Window w = SearchWindow(t, from, /*after=*/true);
  size_t lo = w.first, hi = w.last;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (end(mid) > t) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

size_t Track::FirstStartingAtOrAfter(int64_t t, size_t from) const {
  if (from >= size()) return size();
  const Window w = SearchWindow(t, from, /*after=*/false);
  // Within one block the offsets from its first start are sorted like the starts (a far
  // start's marker is above every offset it could be compared with here), and contiguous.
  const size_t block = w.first / kBlock;
  const int64_t offset = t - block_starts_[std::min(block, block_starts_.size() - 1)];
  if (w.last > w.first && offset >= 0 && offset < kFarStart && (w.last - 1) / kBlock == block) {
    const uint32_t* offsets = start_offsets_.values_from(w.first);
    return w.first + static_cast<size_t>(std::lower_bound(offsets, offsets + (w.last - w.first),
                                                          static_cast<uint32_t>(offset)) -
                                         offsets);
  }
  size_t lo = w.first, hi = w.last;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (start(mid) < t) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Sum of at(k) over [i, j): whole blocks from the running sums taken at each block's start
// (`total` after the last), the ragged ends one by one.
template <typename T, typename At>
T Track::BlockSum(size_t i, size_t j, const std::vector<T>& block_sums, T total, At at) {
  T s = 0;
  if (i >= j) return s;
  const size_t first_full = (i + kBlock - 1) / kBlock;
  const size_t last_full = j / kBlock;
  if (first_full >= last_full) {
    for (size_t k = i; k < j; ++k) s += at(k);
    return s;
  }
  for (size_t k = i; k < first_full * kBlock; ++k) s += at(k);
  s += (last_full < block_sums.size() ? block_sums[last_full] : total) - block_sums[first_full];
  for (size_t k = last_full * kBlock; k < j; ++k) s += at(k);
  return s;
}

int64_t Track::SumDurations(size_t i, size_t j) const {
  return i >= j ? 0 : DurationsBefore(j) - DurationsBefore(i);
}

double Track::SumValues(size_t i, size_t j) const {
  if (values_.empty()) return 0;
  return BlockSum(i, j, block_value_sums_, value_sum_,
                  [this](size_t k) { return static_cast<double>(value(k)); });
}

int64_t Track::CallsIn(size_t i, size_t j) const {
  if (i >= j) return 0;
  const auto spans = static_cast<int64_t>(j - i);
  if (extra_calls_.empty()) return spans;
  return spans + BlockSum(i, j, block_extra_call_sums_, extra_call_sum_,
                          [this](size_t k) { return static_cast<int64_t>(extra_calls_[k]); });
}

Track::Sums Track::SumRange(int64_t t0, int64_t t1) const {
  Sums sums;
  if (t1 <= t0 || empty()) return sums;
  const size_t i = FirstEndingAfter(t0);
  const size_t j = FirstStartingAtOrAfter(t1);
  if (i >= j) return sums;
  sums.events = j - i;
  sums.covered_ns = SumDurations(i, j);
  sums.value = SumValues(i, j);
  // Clip the spans that stick out of the range, taking their share of value with them.
  auto clip = [&](size_t k, int64_t outside) {
    const int64_t d = duration(k);
    if (outside <= 0 || d <= 0) return;
    sums.covered_ns -= outside;
    sums.value -=
        static_cast<double>(value(k)) * static_cast<double>(outside) / static_cast<double>(d);
  };
  clip(i, t0 - start(i));
  clip(j - 1, end(j - 1) - t1);  // the same span as i when only one overlaps
  sums.covered_ns = std::max<int64_t>(0, sums.covered_ns);
  sums.value = std::max(0.0, sums.value);
  return sums;
}

int64_t Track::DurationsBefore(size_t k) const {
  const size_t block = k / kBlock;
  int64_t sum = block < block_duration_sums_.size() ? block_duration_sums_[block] : duration_sum_;
  if (k == block * kBlock) return sum;
  // The block's durations are contiguous; a long one's marker sends it the slow way.
  const uint32_t* durations = durations_.values_from(block * kBlock);
  uint64_t short_sum = 0;
  bool long_one = false;
  for (size_t i = 0; i < k - block * kBlock; ++i) {
    short_sum += durations[i];
    long_one |= durations[i] == kLongDuration;
  }
  if (!long_one) return sum + static_cast<int64_t>(short_sum);
  for (size_t i = block * kBlock; i < k; ++i) sum += duration(i);
  return sum;
}

void Track::Summarize(int64_t t0, int64_t t1, int pixels, std::vector<Bucket>& out) const {
  out.assign(static_cast<size_t>(std::max(0, pixels)), Bucket{});
  if (pixels <= 0 || t1 <= t0) return;
  SummarizeCells(t0, static_cast<double>(t1 - t0) / pixels, 0, out.data(), pixels);
}

void Track::SummarizeCells(int64_t origin, double width, int64_t first_cell, Bucket* out,
                           int count) const {
  std::fill(out, out + std::max(0, count), Bucket{});
  if (count <= 0 || width <= 0 || empty()) return;
  const auto edge = [&](int64_t cell) {
    return origin + static_cast<int64_t>(std::floor(static_cast<double>(cell) * width));
  };
  size_t from = FirstEndingAfter(edge(first_cell));
  // Neighbouring pixels share a boundary: the durations summed up to one pixel's last span
  // serve the next pixel's first, so each pixel sums one ragged block end, not two.
  size_t known = 0;
  int64_t known_before = 0;
  const auto durations_before = [&](size_t k) {
    if (k == known) return known_before;
    if (k + 1 == known) return known_before - duration(k);
    return DurationsBefore(k);
  };
  for (int p = 0; p < count && from < size(); ++p) {
    const int64_t b0 = edge(first_cell + p);
    const int64_t b1 = edge(first_cell + p + 1);
    if (b1 <= b0) continue;
    // `from` is the first span ending after b0.
    const size_t to = FirstStartingAtOrAfter(b1, from);
    if (to > from) {
      Bucket& bucket = out[p];
      bucket.events = static_cast<uint32_t>(std::min<size_t>(to - from, UINT32_MAX));
      bucket.first = static_cast<uint32_t>(from);
      const int64_t before_from = durations_before(from);
      known_before = durations_before(to);
      known = to;
      int64_t covered = known_before - before_from;
      covered -= std::max<int64_t>(0, b0 - start(from));
      covered -= std::max<int64_t>(0, end(to - 1) - b1);
      bucket.covered_ns = std::clamp<int64_t>(covered, 0, b1 - b0);
    }
    // The next pixel's first span: the spans before to - 1 end by its start, before b1, so
    // it is to - 1 when that reaches past b1, else the first from `to` on.
    if (to > from && end(to - 1) > b1) {
      from = to - 1;
    } else if (to < size() && end(to) > b1) {
      from = to;
    } else {
      from = FirstEndingAfter(b1, to);
    }
  }
}

size_t Track::memory_bytes() const {
  return sizeof(Track) + block_starts_.capacity() * sizeof(int64_t) +
         start_offsets_.memory_bytes() + durations_.memory_bytes() + values_.memory_bytes() +
         elements_.memory_bytes() + wide_elements_.memory_bytes() + extra_calls_.memory_bytes() +
         labels_.memory_bytes() + args_.memory_bytes() +
         (block_duration_sums_.capacity() + block_extra_call_sums_.capacity()) * sizeof(int64_t) +
         block_value_sums_.capacity() * sizeof(double) +
         (long_durations_.size() + far_starts_.size() + large_values_.size()) * 32;
}

}  // namespace pipescope::trace
