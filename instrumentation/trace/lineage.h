#pragma once
// Where elements came from, read off a trace: which record of which pass over the source
// an element id is, which rows a batch was made of, and the order in which records reached
// the training step. What order-related lesson goals ("batches differ across epochs", "the
// shuffle mixes the whole dataset", "workers read distinct files") are checked with.
//
// It relies on what every Pipescope trace (recorded or simulated) holds: the top-level
// source's kCall per record and a kCallEnd at the end of each pass; ops that pass elements
// on keep their ids; a synchronous batch pulls its rows inside its own kCall, on its thread
// (a DataLoader with workers, inside the kWaitInput that carries the batch's id)
// (a batch of batches is expanded down to records); an unbatch hands out the rows of the
// batch it pulled last; a cache's later passes replay its first pass in order.
// A pass cut short before the source's end (take before repeat) has no end at the source:
// the repeat's input ends it (its end-of-sequence call), and the next record begins the
// next pass. A zip's elements pair off in order with its second pipeline's, whose source's
// records are numbered as the top-level source's are. (Traces written before stages said they
// repeat number such passes on.)

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "instrumentation/trace/model.h"

namespace pipescope::trace {

// Where `batch` took each batch's rows: its input's calls nested in its own call on the same
// thread; for an op whose worker processes fetch batches it asked for ahead (a DataLoader's),
// nested in the kWaitInput span that carries the batch's id, or the previous span's rows
// where the span's value is record::kCopyOfThePreviousItems (a replicated dataset's copy
// for another worker). Calls fn(batch id, input track, [first, last) of its events, copy)
// for each such span starting in [t0, t1), in order per thread; a copy's range is empty.
void ForEachBatchTaken(const Model& model, const record::StageDef& batch, int64_t t0, int64_t t1,
                       const std::function<void(uint64_t batch, const Track& input, size_t first,
                                                size_t last, bool copy)>& fn);

struct RecordRef {
  int64_t pass = 0;   // 0 for the first pass over the source (the first epoch)
  int64_t index = 0;  // position of the record within its pass
};

// Where an unbatch's element came from: row `row` of the element `batch` it pulled.
struct RowRef {
  uint64_t batch = 0;
  size_t row = 0;
};

class Lineage {
 public:
  explicit Lineage(const Model& model);

  // The top-level source's record an element id is (ids kept through maps, filters,
  // shuffles, shards, prefetches, zips), or a zip's second source's for the ids of its
  // pipeline; nullptr for ids no source made (batches).
  const RecordRef* Record(uint64_t element) const;
  // Records per pass over the source (the first complete pass; -1 when none completed).
  int64_t records_per_pass() const { return records_per_pass_; }
  // A batch's rows (element ids), for batches made by a top-level batch op.
  const std::vector<uint64_t>* Rows(uint64_t batch) const;
  // The batch and row an unbatch's element is; nullptr for elements no unbatch made.
  const RowRef* UnbatchedFrom(uint64_t element) const;
  // The element of a zip's second pipeline that `element` (one the zip gave) was paired
  // with; nullptr for elements no zip gave.
  const uint64_t* PairedWith(uint64_t element) const;
  // The element of a cache's first pass that an element of a later pass replays; the
  // element itself when it is no replay.
  uint64_t ReplayOf(uint64_t element) const;
  // Records in the order the consumer received them (batches expanded into their rows).
  std::vector<RecordRef> Consumed() const;
  // Records of the elements `op` passed on, in the order it did.
  std::vector<RecordRef> PassedOn(uint16_t op) const;
  // The elements the consumer received, in order.
  std::vector<uint64_t> ConsumedIds() const;
  // Batches the consumer received, as the records they hold (nested batches flattened).
  std::vector<std::vector<RecordRef>> ConsumedBatches() const;

 private:
  void ReadRecords(uint16_t source, const std::vector<int64_t>& cut_short,
                   int64_t* records_per_pass);
  void ReadZip(const record::StageDef& zip);
  void ReadRows(const record::StageDef& batch);
  void ReadReplays(uint16_t cache);
  void ReadUnbatch(const record::StageDef& unbatch);
  // The element a cache replay stands for (itself when it is not one).
  uint64_t Origin(uint64_t element) const;
  void AppendRecords(uint64_t element, std::vector<RecordRef>& out) const;

  const Model& model_;
  std::unordered_map<uint64_t, RecordRef> records_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> rows_;
  std::vector<uint64_t> previous_rows_;  // ReadRows: the last batch's, for a copy of it
  // A cache's replayed element -> the first pass's element it is.
  std::unordered_map<uint64_t, uint64_t> replays_;
  std::unordered_map<uint64_t, RowRef> unbatched_;
  // A zip's element -> its second pipeline's element it holds.
  std::unordered_map<uint64_t, uint64_t> paired_;
  int64_t records_per_pass_ = -1;
};

}  // namespace pipescope::trace
