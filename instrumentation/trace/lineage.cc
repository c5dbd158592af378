#include "instrumentation/trace/lineage.h"

#include <algorithm>
#include <optional>
#include <string>

namespace pipescope::trace {

void ForEachBatchTaken(const Model& model, const record::StageDef& batch, int64_t t0, int64_t t1,
                       const std::function<void(uint64_t batch, const Track& input, size_t first,
                                                size_t last, bool copy)>& fn) {
  if (batch.input < 0) return;
  const EventKind taken_in = batch.asynchronous && batch.Has(record::kTraitWorkerProcesses)
                                 ? EventKind::kWaitInput
                                 : EventKind::kCall;
  for (const Track* bt : model.TracksOf(taken_in, batch.id)) {
    const Track* in =
        model.FindTrack({EventKind::kCall, static_cast<uint16_t>(batch.input), bt->key().thread});
    if (!in) continue;
    const size_t first = bt->FirstStartingAtOrAfter(t0);
    const size_t last = bt->FirstStartingAtOrAfter(t1, first);
    size_t j = first < last ? in->FirstStartingAtOrAfter(bt->start(first)) : 0;
    for (size_t i = first; i < last; ++i) {
      if (taken_in == EventKind::kWaitInput && bt->value(i) == record::kCopyOfThePreviousItems) {
        fn(bt->element(i), *in, j, j, true);
        continue;
      }
      while (j < in->size() && in->start(j) < bt->start(i)) ++j;
      const size_t from = j;
      while (j < in->size() && in->end(j) <= bt->end(i)) ++j;
      fn(bt->element(i), *in, from, j, false);
    }
  }
}
namespace {

struct Call {
  int64_t start, end;
  uint64_t element;
  bool end_of_sequence;
};

// An op's calls on every thread, by the time they returned.
std::vector<Call> CallsOf(const Model& model, uint16_t op) {
  std::vector<Call> calls;
  for (EventKind kind : {EventKind::kCall, EventKind::kCallEnd}) {
    for (const Track* t : model.TracksOf(kind, op)) {
      for (size_t i = 0; i < t->size(); ++i) {
        // A run stands for calls on consecutive elements, all ending with it.
        for (uint32_t k = 0; k < t->calls(i); ++k) {
          calls.push_back({t->start(i), t->end(i), t->element(i) + k, kind == EventKind::kCallEnd});
        }
      }
    }
  }
  // Stable: the calls of a run end together and are in element order.
  std::stable_sort(calls.begin(), calls.end(),
                   [](const Call& a, const Call& b) { return a.end < b.end; });
  return calls;
}

const record::StageDef* TopLevelSource(const Model& model) {
  for (const record::StageDef* s : model.StagesInOrder()) {
    if (s->depth == 0 && s->input < 0) return s;
  }
  return nullptr;
}

std::vector<const record::StageDef*> TopLevelWith(const Model& model, record::StageTrait trait) {
  std::vector<const record::StageDef*> found;
  for (const record::StageDef* s : model.StagesInOrder()) {
    if (s->depth == 0 && s->Has(trait)) found.push_back(s);
  }
  return found;
}

// When the passes that a repeat begins over its input ended short of the source's end:
// the end-of-sequence calls of each top-level repeat's input (a take that reached its
// count before the source ended), by the time they returned.
std::vector<int64_t> PassesCutShort(const Model& model, uint16_t source) {
  std::vector<int64_t> ends;
  for (const auto* repeat : TopLevelWith(model, record::kTraitRepeats)) {
    if (repeat->input < 0 || repeat->input == source) continue;
    for (const Call& c : CallsOf(model, static_cast<uint16_t>(repeat->input))) {
      if (c.end_of_sequence) ends.push_back(c.end);
    }
  }
  std::sort(ends.begin(), ends.end());
  return ends;
}

}  // namespace

Lineage::Lineage(const Model& model) : model_(model) {
  if (const record::StageDef* source = TopLevelSource(model)) {
    ReadRecords(source->id, PassesCutShort(model, source->id), &records_per_pass_);
  }
  for (const auto* cache : TopLevelWith(model, record::kTraitReplays)) ReadReplays(cache->id);
  for (const auto* batch : TopLevelWith(model, record::kTraitBatches)) ReadRows(*batch);
  for (const auto* unbatch : TopLevelWith(model, record::kTraitUnbatches)) ReadUnbatch(*unbatch);
  for (const auto* zip : TopLevelWith(model, record::kTraitZips)) ReadZip(*zip);
}

// A source's records, numbered within each pass over it. A pass ends at the source's end,
// or at the first of `cut_short` after its first record (a pass its consumer ended early:
// the next record begins the next pass).
void Lineage::ReadRecords(uint16_t source, const std::vector<int64_t>& cut_short,
                          int64_t* records_per_pass) {
  RecordRef next;
  size_t cut = 0;
  for (const Call& c : CallsOf(model_, source)) {
    for (; cut < cut_short.size() && cut_short[cut] <= c.start; ++cut) {
      if (next.index == 0) continue;
      ++next.pass;
      next.index = 0;
    }
    if (c.end_of_sequence) {
      if (records_per_pass && *records_per_pass < 0 && next.index > 0) {
        *records_per_pass = next.index;
      }
      ++next.pass;
      next.index = 0;
      continue;
    }
    records_[c.element] = next;
    ++next.index;
  }
}

// A zip's second pipeline: its stages follow the zip's, one level deeper; the first is its
// source, the last gives the partners. Every element the zip gives took exactly one of the
// last stage's, and every one of those went into an element of the zip (the zip pulls the
// second pipeline only after its input gave one, and calls on it one at a time), so the
// two sequences pair off in order. The second source starts a new pass with each iterator
// of the zip: after the zip's end, or where a repeat's input ended early.
void Lineage::ReadZip(const record::StageDef& zip) {
  const std::vector<const record::StageDef*> second = model_.SubPipelineOf(zip);
  if (second.empty()) return;
  const record::StageDef* first = second.front();
  const record::StageDef* last = second.back();
  std::vector<int64_t> cut_short = PassesCutShort(model_, first->id);
  std::vector<uint64_t> zipped;
  for (const Call& c : CallsOf(model_, zip.id)) {
    if (c.end_of_sequence) {
      cut_short.push_back(c.end);
    } else {
      zipped.push_back(c.element);
    }
  }
  std::sort(cut_short.begin(), cut_short.end());
  ReadRecords(first->id, cut_short, nullptr);
  size_t k = 0;
  for (const Call& c : CallsOf(model_, last->id)) {
    if (c.end_of_sequence) continue;
    if (k == zipped.size()) break;
    paired_[zipped[k++]] = c.element;
  }
}

// An unbatch hands out the rows of the batch it pulled last, in order, under new ids: its
// k-th element after a pull is that batch's k-th row.
void Lineage::ReadUnbatch(const record::StageDef& unbatch) {
  if (unbatch.input < 0) return;
  const std::vector<Call> in = CallsOf(model_, static_cast<uint16_t>(unbatch.input));
  std::optional<uint64_t> batch;
  size_t next_row = 0, j = 0;
  for (const Call& out : CallsOf(model_, unbatch.id)) {
    for (; j < in.size() && in[j].end <= out.end; ++j) {
      if (in[j].end_of_sequence) continue;
      batch = in[j].element;
      next_row = 0;
    }
    if (out.end_of_sequence || !batch) continue;
    unbatched_[out.element] = RowRef{*batch, next_row++};
  }
}

void Lineage::ReadRows(const record::StageDef& batch) {
  ForEachBatchTaken(model_, batch, INT64_MIN, INT64_MAX,
                    [&](uint64_t id, const Track& in, size_t first, size_t last, bool copy) {
                      if (copy) {
                        rows_[id] = previous_rows_;
                        return;
                      }
                      std::vector<uint64_t>& rows = rows_[id];
                      for (size_t j = first; j < last; ++j) {
                        for (uint32_t k = 0; k < in.calls(j); ++k)
                          rows.push_back(in.element(j) + k);
                      }
                      previous_rows_ = rows;
                    });
}

// A cache's later passes replay its first pass under new ids: the n-th element of a later
// pass is the n-th of the first. (A first pass cut short keeps nothing in tf.data; its
// trace has no end there, so it is read as part of the pass that completed.)
void Lineage::ReadReplays(uint16_t cache) {
  std::vector<uint64_t> first_pass;
  bool first_pass_ended = false;
  size_t position = 0;
  for (const Call& c : CallsOf(model_, cache)) {
    if (c.end_of_sequence) {
      first_pass_ended = true;
      position = 0;
      continue;
    }
    if (!first_pass_ended) {
      first_pass.push_back(c.element);
    } else if (position < first_pass.size()) {
      replays_[c.element] = first_pass[position++];
    }
  }
}

uint64_t Lineage::Origin(uint64_t element) const {
  // A chain at most as long as the ops that renumber (a cache replaying an unbatch's rows).
  for (int hops = 0; hops < 64; ++hops) {
    if (auto it = replays_.find(element); it != replays_.end()) {
      element = it->second;
      continue;
    }
    auto it = unbatched_.find(element);
    if (it == unbatched_.end()) break;
    const std::vector<uint64_t>* rows = Rows(it->second.batch);
    if (!rows || it->second.row >= rows->size()) break;
    element = (*rows)[it->second.row];
  }
  return element;
}

const RowRef* Lineage::UnbatchedFrom(uint64_t element) const {
  auto it = unbatched_.find(element);
  return it == unbatched_.end() ? nullptr : &it->second;
}

const uint64_t* Lineage::PairedWith(uint64_t element) const {
  auto it = paired_.find(element);
  return it == paired_.end() ? nullptr : &it->second;
}

uint64_t Lineage::ReplayOf(uint64_t element) const {
  auto it = replays_.find(element);
  return it == replays_.end() ? element : it->second;
}

void Lineage::AppendRecords(uint64_t element, std::vector<RecordRef>& out) const {
  if (const auto* rows = Rows(element)) {
    for (uint64_t row : *rows) AppendRecords(row, out);
  } else if (const RecordRef* r = Record(element)) {
    out.push_back(*r);
  }
}

const RecordRef* Lineage::Record(uint64_t element) const {
  auto it = records_.find(Origin(element));
  return it == records_.end() ? nullptr : &it->second;
}

const std::vector<uint64_t>* Lineage::Rows(uint64_t batch) const {
  auto it = rows_.find(Origin(batch));
  return it == rows_.end() ? nullptr : &it->second;
}

std::vector<uint64_t> Lineage::ConsumedIds() const {
  std::vector<std::pair<int64_t, uint64_t>> received;
  for (const Track* t : model_.TracksOf(EventKind::kInputWait, record::kConsumerOp)) {
    for (size_t i = 0; i < t->size(); ++i) {
      if (t->element(i) != 0) received.emplace_back(t->end(i), t->element(i));
    }
  }
  std::sort(received.begin(), received.end());
  std::vector<uint64_t> ids;
  ids.reserve(received.size());
  for (const auto& [time, id] : received) ids.push_back(id);
  return ids;
}

std::vector<std::vector<RecordRef>> Lineage::ConsumedBatches() const {
  std::vector<std::vector<RecordRef>> batches;
  for (uint64_t id : ConsumedIds()) {
    std::vector<RecordRef> records;
    AppendRecords(id, records);
    batches.push_back(std::move(records));
  }
  return batches;
}

std::vector<RecordRef> Lineage::Consumed() const {
  std::vector<RecordRef> out;
  for (auto& batch : ConsumedBatches()) out.insert(out.end(), batch.begin(), batch.end());
  return out;
}

std::vector<RecordRef> Lineage::PassedOn(uint16_t op) const {
  std::vector<RecordRef> out;
  for (const Call& c : CallsOf(model_, op)) {
    if (c.end_of_sequence) continue;
    if (const RecordRef* r = Record(c.element)) out.push_back(*r);
  }
  return out;
}

}  // namespace pipescope::trace
