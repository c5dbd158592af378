#include "instrumentation/trace/lineage.h"

#include <algorithm>

namespace pipescope::trace {
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

const record::StageDef* TopLevelOf(const Model& model, const std::string& kind, bool source) {
  const record::StageDef* found = nullptr;
  for (const record::StageDef* s : model.StagesInOrder()) {
    if (s->depth != 0) continue;
    if (source ? s->input < 0 : s->kind == kind) found = found ? found : s;
  }
  return found;
}

}  // namespace

Lineage::Lineage(const Model& model) : model_(model) {
  if (const record::StageDef* source = TopLevelOf(model, "", true)) {
    RecordRef next;
    for (const Call& c : CallsOf(model, source->id)) {
      if (c.end_of_sequence) {
        if (records_per_pass_ < 0 && next.index > 0) records_per_pass_ = next.index;
        ++next.pass;
        next.index = 0;
        continue;
      }
      records_[c.element] = next;
      ++next.index;
    }
  }
  // A batch's rows: its input's calls nested in its own call on the same thread.
  const record::StageDef* batch = TopLevelOf(model, "batch", false);
  if (!batch || batch->input < 0) return;
  for (const Track* bt : model.TracksOf(EventKind::kCall, batch->id)) {
    const Track* it =
        model.FindTrack({EventKind::kCall, static_cast<uint16_t>(batch->input), bt->key().thread});
    if (!it) continue;
    size_t j = 0;
    for (size_t i = 0; i < bt->size(); ++i) {
      std::vector<uint64_t>& rows = rows_[bt->element(i)];
      while (j < it->size() && it->start(j) < bt->start(i)) ++j;
      for (; j < it->size() && it->end(j) <= bt->end(i); ++j) {
        for (uint32_t k = 0; k < it->calls(j); ++k) rows.push_back(it->element(j) + k);
      }
    }
  }
}

const RecordRef* Lineage::Record(uint64_t element) const {
  auto it = records_.find(element);
  return it == records_.end() ? nullptr : &it->second;
}

const std::vector<uint64_t>* Lineage::Rows(uint64_t batch) const {
  auto it = rows_.find(batch);
  return it == rows_.end() ? nullptr : &it->second;
}

std::vector<std::vector<RecordRef>> Lineage::ConsumedBatches() const {
  std::vector<std::vector<RecordRef>> batches;
  std::vector<std::pair<int64_t, uint64_t>> received;
  for (const Track* t : model_.TracksOf(EventKind::kInputWait, record::kConsumerOp)) {
    for (size_t i = 0; i < t->size(); ++i) {
      if (t->element(i) != 0) received.emplace_back(t->end(i), t->element(i));
    }
  }
  std::sort(received.begin(), received.end());
  for (const auto& [time, id] : received) {
    std::vector<RecordRef> records;
    if (const auto* rows = Rows(id)) {
      for (uint64_t row : *rows) {
        if (const RecordRef* r = Record(row)) records.push_back(*r);
      }
    } else if (const RecordRef* r = Record(id)) {
      records.push_back(*r);
    }
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
