// One conformance table, two clocks: every case runs through the engine (real threads,
// element values) and through the simulator (virtual time, the records each consumed
// element came from), and both must give what tf.data gives. Deterministic cases must agree
// element for element, shuffles included (they draw through the same rule); the others as
// multisets. The cases are TensorFlow's own kernel tests for shard, take, skip, repeat,
// batch, interleave and cache (tensorflow/python/data/kernel_tests), over range sources, and
// the values this project gives explicit meaning to (op_values.h). The simulator's elements
// carry no data: their values are the engine's own rules (a map's function, padding)
// replayed over its trace's lineage (engine/sim/sim_values.h), which numbers records by
// pass over the source, a pass that a take inside a repeat cuts short included.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>

#include "../engine/test_support.h"
#include "engine/device/simulated_device.h"
#include "engine/runtime/training_run.h"
#include "engine/sim/sim_values.h"
#include "engine/sim/simulator.h"
#include "instrumentation/trace/lineage.h"

namespace pipescope::sim {
namespace {

struct Case {
  std::string name;
  int64_t stop;                                  // the source is range(start, stop)
  std::string ops;                               // the spec's ops
  std::optional<std::vector<int64_t>> expected;  // tf.data's answer, where it is fixed
  bool ordered = true;
  int64_t batches = -1;  // elements reaching the step, where the case is about batching
  int64_t start = 0;
  int64_t step = 1;
  // Where set, the source is from_tensor_slices over these values instead of the range.
  std::vector<int64_t> slices = {};
  // Where set, the spec's source instead of the range (from_generator).
  std::string source = {};
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<int64_t> Range(int64_t from, int64_t to) {
  std::vector<int64_t> v;
  for (int64_t i = from; i < to; ++i) v.push_back(i);
  return v;
}

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// interleave_test.py: range(4, 7).repeat(2) (its [4, 5, 6] twice) interleaved over
// from_tensors(x).repeat(x), for each cycle_length and block_length it tests, sequential and
// with each num_parallel_calls it tests; the expected orders are the test's own lists
// (testPythonImplementation), or its reference _interleave's where it lists none.
std::vector<Case> InterleaveRepeatByValueCases() {
  const std::vector<int64_t> by_cycle1 = {4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6,
                                          4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6};
  struct Order {
    int64_t cycle, block;
    std::vector<int64_t> parallel;  // 0: synchronous (num_parallel_calls=None)
    std::vector<int64_t> expected;
  };
  const std::vector<Order> orders = {
      {1, 1, {0, 1}, by_cycle1},
      {1, 3, {0, 1}, by_cycle1},
      {2, 1, {0, 1, 2}, {4, 5, 4, 5, 4, 5, 4, 5, 5, 6, 6, 4, 6, 4, 6,
                         4, 6, 4, 6, 5, 6, 5, 6, 5, 6, 5, 6, 5, 6, 6}},
      {2, 3, {0, 1, 2}, {4, 4, 4, 5, 5, 5, 4, 5, 5, 6, 6, 6, 4, 4, 4,
                         6, 6, 6, 4, 5, 5, 5, 6, 6, 6, 5, 5, 6, 6, 6}},
      {3, 2, {1, 2, 3}, {4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6, 5, 6, 6,
                         4, 4, 5, 5, 4, 4, 5, 5, 6, 6, 5, 6, 6, 6, 6}},
      {7, 2, {0, 1, 3, 5, 7}, {4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6, 4, 4, 5,
                               5, 6, 6, 4, 4, 5, 5, 6, 6, 5, 6, 6, 5, 6, 6}},
  };
  std::vector<Case> cases;
  for (const Order& o : orders) {
    for (int64_t parallel : o.parallel) {
      Case c;
      c.name = "InterleaveRepeatByValueCycle" + std::to_string(o.cycle) + "Block" +
               std::to_string(o.block) + "Parallel" + std::to_string(parallel);
      c.start = 4;
      c.stop = 7;
      c.ops =
          "ops { repeat { count: 2 } } ops { interleave { per_element { from_element { "
          "repeat_by_value: true } } cycle_length: " +
          std::to_string(o.cycle) + " block_length: " + std::to_string(o.block) +
          " num_parallel_calls: " + std::to_string(parallel) + " } }";
      c.expected = o.expected;
      cases.push_back(c);
    }
  }
  // Empty sub-datasets among the others (the test's [4, 0, 6], here range(6, -1, -3)'s
  // [6, 3, 0]): the reference _interleave's order.
  for (int64_t parallel : {0, 1, 2}) {
    Case c;
    c.name = "InterleaveRepeatByValueWithEmptyParallel" + std::to_string(parallel);
    c.start = 6;
    c.stop = -1;
    c.step = -3;
    c.ops =
        "ops { repeat { count: 2 } } ops { interleave { per_element { from_element { "
        "repeat_by_value: true } } cycle_length: 2 block_length: 3 num_parallel_calls: " +
        std::to_string(parallel) + " } }";
    c.expected = {{6, 6, 6, 3, 3, 3, 6, 6, 6, 6, 6, 6, 3, 3, 3, 6, 6, 6}};
    cases.push_back(c);
  }
  return cases;
}

// tf.data's interleave docstring example.
const std::vector<int64_t> kInterleaveDocstring = {1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3,
                                                   3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5};

std::vector<Case> Cases() {
  const auto ten = Range(0, 10);
  const auto seven_twice = Concat(Range(0, 7), Range(0, 7));
  return {
      // shard_test.py: range(10).shard(5, 2), shard(7, 5), shard(20, 5).
      {"Shard5Index2", 10, "ops { shard { num_shards: 5 index: 2 } }", {{2, 7}}},
      {"Shard7Index5", 10, "ops { shard { num_shards: 7 index: 5 } }", {{5}}},
      {"Shard20Index5", 10, "ops { shard { num_shards: 20 index: 5 } }", {{5}}},
      // take_test.py / skip_test.py: -1, 0, within and past the end.
      {"TakeAll", 10, "ops { take { count: -1 } }", ten},
      {"TakeNone", 10, "ops { take { count: 0 } }", {{}}},
      {"TakeSome", 10, "ops { take { count: 4 } }", Range(0, 4)},
      {"TakePastTheEnd", 10, "ops { take { count: 25 } }", ten},
      {"SkipAll", 10, "ops { skip { count: -1 } }", {{}}},
      {"SkipNone", 10, "ops { skip { count: 0 } }", ten},
      {"SkipSome", 10, "ops { skip { count: 4 } }", Range(4, 10)},
      {"SkipPastTheEnd", 10, "ops { skip { count: 25 } }", {{}}},
      // repeat_test.py: a count, zero (empty), and an empty input repeated forever.
      {"RepeatTwice", 10, "ops { repeat { count: 2 } }", Concat(ten, ten)},
      {"RepeatZero", 10, "ops { repeat { count: 0 } }", {{}}},
      {"RepeatEmptyForever", 10, "ops { take { count: 0 } } ops { repeat {} }", {{}}},
      // A take inside a repeat: each pass a new iterator of the take and of the source
      // (range(10).take(3).repeat(2), and a take past the source's end).
      {"TakeInsideRepeat",
       10,
       "ops { take { count: 3 } } ops { repeat { count: 2 } }",
       {{0, 1, 2, 0, 1, 2}}},
      {"TakePastTheEndInsideRepeat",
       4,
       "ops { take { count: 9 } } ops { repeat { count: 2 } }",
       {{0, 1, 2, 3, 0, 1, 2, 3}}},
      {"FilteredTakeInsideRepeatInBatches",
       10,
       "ops { filter { predicate { mod_equals { modulus: 2 remainder: 1 } } } } "
       "ops { take { count: 2 } } ops { repeat { count: 3 } } ops { batch { batch_size: 4 } }",
       {{1, 3, 1, 3, 1, 3}},
       true,
       2},
      // batch_test.py: range(7).repeat(2) in batches of 14 and 15, with and without
      // drop_remainder.
      {"Batch14", 7, "ops { repeat { count: 2 } } ops { batch { batch_size: 14 } }", seven_twice,
       true, 1},
      {"Batch14DropRemainder", 7,
       "ops { repeat { count: 2 } } ops { batch { batch_size: 14 drop_remainder: true } }",
       seven_twice, true, 1},
      {"Batch15", 7, "ops { repeat { count: 2 } } ops { batch { batch_size: 15 } }", seven_twice,
       true, 1},
      {"Batch15DropRemainder",
       7,
       "ops { repeat { count: 2 } } ops { batch { batch_size: 15 drop_remainder: true } }",
       {{}},
       true,
       0},
      {"Batch3", 10, "ops { batch { batch_size: 3 } }", ten, true, 4},
      // Seeded shuffles: the same order from both (one pick rule); seed 0 is a seed.
      {"ShuffleSeeded", 20, "ops { shuffle { buffer_size: 5 seed: 7 } }", std::nullopt},
      {"ShuffleSeedZero", 20, "ops { shuffle { buffer_size: 5 seed: 0 } }", std::nullopt},
      {"ShuffleReshuffledEachPass", 10,
       "ops { shuffle { buffer_size: 10 seed: 3 } } ops { repeat { count: 3 } }", std::nullopt},
      {"ShuffleWholeBuffer", 10, "ops { shuffle { buffer_size: 100 seed: 11 } }", std::nullopt},
      // interleave_test.py and the docstring: range(1, 6) interleaved over
      // from_tensors(x).repeat(6), cycle_length 2, block_length 4, sequential, parallel and
      // AUTOTUNE (deterministic: the same order); a cycle longer than the inputs; empty
      // sub-datasets.
      {"InterleaveDocstring", 6,
       "ops { interleave { per_element { from_element {} } ops { repeat { count: 6 } } "
       "cycle_length: 2 block_length: 4 } }",
       kInterleaveDocstring, true, -1, 1},
      {"InterleaveDocstringParallel2", 6,
       "ops { interleave { per_element { from_element {} } ops { repeat { count: 6 } } "
       "cycle_length: 2 block_length: 4 num_parallel_calls: 2 } }",
       kInterleaveDocstring, true, -1, 1},
      {"InterleaveDocstringAutotune", 6,
       "ops { interleave { per_element { from_element {} } ops { repeat { count: 6 } } "
       "cycle_length: 2 block_length: 4 num_parallel_calls: AUTOTUNE } }",
       kInterleaveDocstring, true, -1, 1},
      {"InterleaveCycleLongerThanInputs",
       3,
       "ops { interleave { per_element { from_element {} } ops { repeat { count: 2 } } "
       "cycle_length: 5 block_length: 1 } }",
       {{0, 1, 2, 0, 1, 2}}},
      {"InterleaveEmptySubDatasets",
       4,
       "ops { interleave { per_element { from_element {} } ops { take { count: 0 } } "
       "cycle_length: 2 } }",
       {{}}},
      // flat_map_test.py's testFlatMapDataset: each x becomes from_tensors(x).repeat(x), read to
      // its end before the next (here range(1, 6): its [1, 2, 3, 4, 5]); a 0 gives nothing
      // (range(3, -1, -1): its [3, 2, 1, 0]).
      {"FlatMapRepeatByValue",
       6,
       "ops { flat_map { per_element { from_element { repeat_by_value: true } } } }",
       {{1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5}},
       true,
       -1,
       1},
      {"FlatMapWithAnEmptyDataset",
       -1,
       "ops { flat_map { per_element { from_element { repeat_by_value: true } } } }",
       {{3, 3, 3, 2, 2, 1}},
       true,
       -1,
       3,
       -1},
      // A function that makes from_tensor_slices of what it computed (tensorflow#28130's 64
      // crops of a decoded image): each element gives its `slices` rows, cycled through.
      {"InterleaveOfSlices",
       3,
       "ops { interleave { per_element { from_element { slices: 3 } } cycle_length: 2 } }",
       {{0, 1, 0, 1, 0, 1, 2, 2, 2}}},
      // flat_map is interleave(cycle_length=1) (its docstring): the same order over sub-ops.
      {"FlatMapOverSubOps",
       4,
       "ops { flat_map { per_element { from_element {} } ops { repeat { count: 3 } } } }",
       {{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}}},
      // cache_test.py: later passes replay the first complete pass; a shuffle before the
      // cache is frozen by it (every pass the same order); batches of batches count
      // elements, not rows.
      {"CacheReplayed", 5, "ops { cache {} } ops { repeat { count: 3 } }",
       Concat(Concat(Range(0, 5), Range(0, 5)), Range(0, 5))},
      {"ShuffleFrozenByCache", 8,
       "ops { shuffle { buffer_size: 8 seed: 5 } } ops { cache {} } ops { repeat { count: 2 } }",
       std::nullopt},
      {"BatchOfBatches", 10, "ops { batch { batch_size: 2 } } ops { batch { batch_size: 3 } }", ten,
       true, 2},
      // unbatch_test.py: batches split back into their rows, in order.
      {"BatchUnbatch", 10, "ops { batch { batch_size: 3 } } ops { unbatch {} }", ten},
      // Parallel and non-deterministic: the same elements.
      {"ParallelMap", 10, "ops { map { fn { identity {} } num_parallel_calls: 3 } }", ten},
      {"ParallelMapNondeterministic", 10,
       "ops { map { fn { identity {} } num_parallel_calls: 3 deterministic: false } }", ten, false},
      // Non-deterministic parallel interleave: the same elements, in any order.
      {"ParallelInterleaveNondeterministicToTheEnd",
       6,
       "ops { interleave { per_element { from_element { repeat_by_value: true } } "
       "cycle_length: 2 num_parallel_calls: 2 deterministic: false } }",
       {{1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5}},
       false},
      // filter_test.py's modulus predicates, decided on the values by both.
      {"FilterModEquals",
       10,
       "ops { filter { predicate { mod_equals { modulus: 3 remainder: 1 } } } }",
       {{1, 4, 7}}},
      {"FilterModEqualsNegativeValues",
       3,
       "ops { filter { predicate { mod_equals { modulus: 2 remainder: 1 } } } }",
       {{-3, -1, 1}},
       true,
       -1,
       -4},
      {"FilterThenInterleaveRepeatByValue",
       7,
       "ops { filter { predicate { mod_equals { modulus: 2 remainder: 0 } } } } "
       "ops { repeat { count: 2 } } ops { interleave { per_element { from_element { "
       "repeat_by_value: true } } cycle_length: 2 block_length: 3 } }",
       {{2, 2, 4, 4, 4, 6, 6, 6, 4, 6, 6, 6, 2, 2, 4, 4, 4, 6, 6, 6, 4, 6, 6, 6}}},
  };
}

// from_tensor_slices_test.py and its docstring: the entries in order; flat_map_test.py's
// testFlatMapDataset over them, from_tensors([x]).repeat(x) per entry.
std::vector<Case> SliceCases() {
  Case docstring{"FromTensorSlicesDocstring", 0, "", {{1, 2, 3}}};
  docstring.slices = {1, 2, 3};
  Case twice{"FromTensorSlicesRepeated", 0, "ops { repeat { count: 2 } }", {{5, -1, 7, 5, -1, 7}}};
  twice.slices = {5, -1, 7};
  Case flat_map{"FlatMapDatasetOfTheKernelTest",
                0,
                "ops { flat_map { per_element { from_element { repeat_by_value: true } } } }",
                {{1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 1}}};
  flat_map.slices = {1, 2, 3, 4, 5, 0, 1};
  // from_generator's docstring-like use: a generator of 0, 1, 2, called again each pass.
  Case generator{"FromGeneratorRepeated", 0, "ops { repeat { count: 2 } }", {{0, 1, 2, 0, 1, 2}}};
  generator.source = "from_generator { records: 3 duration: \"1ms\" }";
  // A generator that yields whole batches (tensorflow#13101's data_generator_batch): 10 rows
  // four a yield, the last yield the two left, three elements reaching the step.
  Case batches{"FromGeneratorYieldingBatches", 0, "", Range(0, 10), true, 3};
  batches.source = "from_generator { records: 10 duration: \"1ms\" rows_per_yield: 4 }";
  return {docstring, twice, flat_map, generator, batches};
}

// padded_batch_test.py and the docstring: range(1, 5).map(lambda x: tf.fill([x], x))
// padded to the longest in each batch, to a fixed length, with a padding value; with
// drop_remainder; and scalars, which need no padding (testPaddedBatchScalars-like
// from_tensor_slices([0, 1, 2, 3]).padded_batch(2)).
std::vector<Case> PaddedBatchCases() {
  const std::string fill = "ops { map { fn { fill {} } } } ";
  Case longest{"PaddedBatchDocstringLongest",
               5,
               fill + "ops { padded_batch { batch_size: 2 } }",
               {{1, 0, 2, 2, 3, 3, 3, 0, 4, 4, 4, 4}},
               true,
               2,
               1};
  Case fixed{"PaddedBatchDocstringFixedShape",
             5,
             fill + "ops { padded_batch { batch_size: 2 padded_shapes: 5 } }",
             {{1, 0, 0, 0, 0, 2, 2, 0, 0, 0, 3, 3, 3, 0, 0, 4, 4, 4, 4, 0}},
             true,
             2,
             1};
  Case value{"PaddedBatchDocstringPaddingValue",
             5,
             fill + "ops { padded_batch { batch_size: 2 padded_shapes: 5 padding_values: -1 } }",
             {{1, -1, -1, -1, -1, 2, 2, -1, -1, -1, 3, 3, 3, -1, -1, 4, 4, 4, 4, -1}},
             true,
             2,
             1};
  Case unknown_dim{"PaddedBatchUnknownDimension",
                   5,
                   fill + "ops { padded_batch { batch_size: 3 padded_shapes: -1 } }",
                   {{1, 0, 0, 2, 2, 0, 3, 3, 3, 4, 4, 4, 4}},
                   true,
                   2,
                   1};
  Case dropped{"PaddedBatchDropRemainder",
               6,
               fill + "ops { padded_batch { batch_size: 2 drop_remainder: true } }",
               {{1, 0, 2, 2, 3, 3, 3, 0, 4, 4, 4, 4}},
               true,
               2,
               1};
  // Batches padded again: rank-2 rows, each padded in both dimensions.
  Case nested{
      "PaddedBatchOfPaddedBatches",
      5,
      fill + "ops { padded_batch { batch_size: 2 } } ops { padded_batch { batch_size: 2 } }",
      {{1, 0, 0, 0, 2, 2, 0, 0, 3, 3, 3, 0, 4, 4, 4, 4}},
      true,
      1,
      1};
  Case scalars{"PaddedBatchScalars", 0,    "ops { padded_batch { batch_size: 2 } }",
               {{0, 1, 2, 3}},       true, 2};
  scalars.slices = {0, 1, 2, 3};
  return {longest, fixed, value, unknown_dim, dropped, nested, scalars};
}

// Values a map makes, carried through the ops after it: unbatch_test.py's
// range(1, 4).map(lambda x: tf.fill([x], x)).unbatch() (each vector's entries as elements),
// a cache's replays of padded batches, and an interleave over batches
// (interleave(lambda b: from_tensors(b)) hands each batch on whole).
std::vector<Case> MadeValueCases() {
  const std::string fill = "ops { map { fn { fill {} } } } ";
  Case unbatch{"UnbatchOfFilledVectors", 4, fill + "ops { unbatch {} }", {{1, 2, 2, 3, 3, 3}}};
  unbatch.start = 1;
  Case cached{"CacheReplaysPaddedBatches",
              3,
              fill +
                  "ops { padded_batch { batch_size: 2 } } ops { cache {} } "
                  "ops { repeat { count: 2 } }",
              {{1, 0, 2, 2, 1, 0, 2, 2}},
              true,
              2,
              1};
  Case rebatched{"FilledVectorsUnbatchedAndBatchedAgain",
                 3,
                 fill + "ops { unbatch {} } ops { batch { batch_size: 2 } }",
                 {{1, 2, 2}},
                 true,
                 2,
                 1};
  Case interleaved{"InterleaveOverBatches",
                   6,
                   "ops { batch { batch_size: 2 } } ops { interleave { cycle_length: 2 "
                   "per_element { from_element {} } } }",
                   {{0, 1, 2, 3, 4, 5}},
                   true,
                   3};
  // unbatch splits an element along its leading dimension, not into records: a batch of
  // batches into batches, padded batches into padded rows, and those rows into entries.
  Case batches_of_batches{"UnbatchOfBatchesOfBatches",
                          12,
                          "ops { batch { batch_size: 2 } } ops { batch { batch_size: 3 } } "
                          "ops { unbatch {} }",
                          Range(0, 12),
                          true,
                          6};
  const std::vector<int64_t> padded = {1, 0, 2, 2, 3, 3, 3, 0, 4, 4, 4, 4};
  Case padded_rows{"UnbatchOfPaddedBatches",
                   5,
                   fill + "ops { padded_batch { batch_size: 2 } } ops { unbatch {} }",
                   padded,
                   true,
                   4,
                   1};
  Case padded_entries{"UnbatchTwiceOfPaddedBatches",
                      5,
                      fill +
                          "ops { padded_batch { batch_size: 2 } } ops { unbatch {} } "
                          "ops { unbatch {} }",
                      padded,
                      true,
                      12,
                      1};
  return {unbatch, cached, rebatched, interleaved, batches_of_batches, padded_rows, padded_entries};
}

// zip_test.py: Dataset.zip((a, b)) pairs the i-th elements and ends with the shorter (its
// components of 4, 5 and 2 entries give 2 pairs); here the second pipeline's value follows
// the input's in each element. A zip inside a repeat zips a fresh second pipeline each
// epoch; a take after it cuts both short; batching stacks each component.
std::vector<Case> ZipCases() {
  auto zip = [](const std::string& source, const std::string& ops = "") {
    return "ops { zip { source { name: \"b\" " + source + " } " + ops + " } } ";
  };
  Case shorter_second{"ZipEndsWithTheShorterSecond",
                      0,
                      zip("from_tensor_slices { values: 1 values: 2 }"),
                      {{1, 1, 2, 2}}};
  shorter_second.slices = {1, 2, 3, 4};
  Case shorter_input{"ZipEndsWithTheShorterInput",
                     3,
                     zip("range { start: 10 stop: 20 }"),
                     {{0, 10, 1, 11, 2, 12}}};
  Case mapped{"ZipOfAMappedSecondPipeline",
              3,
              zip("range { start: 1 stop: 4 }", "ops { map { fn { fill {} } } }"),
              {{0, 1, 1, 2, 2, 2, 3, 3, 3}}};
  Case repeated{"ZipInsideRepeatRestartsTheSecond",
                2,
                zip("range { start: 5 stop: 10 }") + "ops { repeat { count: 2 } }",
                {{0, 5, 1, 6, 0, 5, 1, 6}}};
  Case taken{
      "ZipTakeInsideRepeat",
      5,
      zip("range { start: 10 stop: 20 }") + "ops { take { count: 2 } } ops { repeat { count: 2 } }",
      {{0, 10, 1, 11, 0, 10, 1, 11}}};
  Case batched{"ZipThenBatchStacksEachComponent",
               4,
               zip("range { start: 10 stop: 14 }") + "ops { batch { batch_size: 2 } }",
               {{0, 1, 10, 11, 2, 3, 12, 13}},
               true,
               2};
  return {shorter_second, shorter_input, mapped, repeated, taken, batched};
}

// torch.utils.data.DataLoader (test_dataloader.py's sequential batches): range(10) in batches
// of 3, the last one short unless drop_last; the main process or worker processes, which
// hand batches out in the sampler's order unless in_order is false; two epochs over
// persistent workers.
std::vector<Case> DataLoaderCases() {
  const auto ten = Range(0, 10);
  const std::string fetch =
      "batch_size: 3 getitem { python { duration: \"100us\" } } "
      "collate { python { duration: \"50us\" } } worker_startup: \"2ms\" ";
  auto loader = [&](const std::string& fields) {
    return "ops { dataloader { " + fetch + fields + " } }";
  };
  Case main_process{"DataLoaderMainProcess", 10, loader(""), ten, true, 4};
  Case workers{"DataLoaderWorkersInOrder", 10, loader("num_workers: 2"), ten, true, 4};
  Case pinned{"DataLoaderPinMemory", 10, loader("num_workers: 3 pin_memory: true"), ten, true, 4};
  Case drop_last{
      "DataLoaderDropLast", 10,   loader("num_workers: 2 prefetch_factor: 1 drop_last: true"),
      Range(0, 9),          true, 3};
  Case epochs{"DataLoaderPersistentEpochs",
              10,
              loader("num_workers: 2 persistent_workers: true") + " ops { repeat { count: 2 } }",
              Concat(ten, ten),
              true,
              8};
  Case any_order{
      "DataLoaderOutOfOrder", 10, loader("num_workers: 2 in_order: false"), ten, false, 4};
  // The dataset makes each batch in one call of its indices (fetch_batches): the same
  // batches.
  Case whole{"DataLoaderFetchesWholeBatches",
             10,
             loader("num_workers: 2 fetch_batches: true"),
             ten,
             true,
             4};
  // An IterableDataset replicated in each worker (no get_worker_info split): each of the 2
  // workers yields every batch, handed out worker after worker.
  Case replicated{"DataLoaderReplicatedIterable",
                  10,
                  loader("num_workers: 2 replicated: true"),
                  std::vector<int64_t>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8, 6, 7, 8, 9, 9},
                  true,
                  8};
  // Without workers the main process iterates its one copy.
  Case one_copy{"DataLoaderReplicatedWithoutWorkers", 10, loader("replicated: true"), ten, true, 4};
  // An IterableDataset split by get_worker_info() as PyTorch's documentation splits it: each
  // of 3 workers batches its chunk of 4, 4 and 2 items (3 + 1, 3 + 1, 2): 5 batches where a
  // map-style dataset gives 4. Worker i's items are chunk i in torch, the input's next ones
  // here: the same items, in another order.
  Case split{
      "DataLoaderSplitIterable", 10, loader("num_workers: 3 worker_split: chunks"), ten, false, 5};
  // Every 3rd item from the i-th: 4, 3 and 3 items (3 + 1, 3, 3): 4 batches; with
  // drop_last, each worker's short batch goes: 3.
  Case strided{"DataLoaderSplitIterableEveryNth",
               10,
               loader("num_workers: 3 worker_split: every_nth"),
               ten,
               false,
               4};
  Case strided_drop{"DataLoaderSplitIterableDropsEachWorkersShortBatch",
                    10,
                    loader("num_workers: 3 worker_split: every_nth drop_last: true"),
                    Range(0, 9),
                    false,
                    3};
  // Workers that spawn, sent a dataset over a pipe's buffer one after another, over two
  // epochs: the same batches.
  Case spawned{"DataLoaderSpawnedWorkers",
               10,
               loader("num_workers: 2 start_method: spawn dataset_bytes: 1048576") +
                   " ops { repeat { count: 2 } }",
               Concat(ten, ten),
               true,
               8};
  return {main_process, workers,  pinned, drop_last, epochs,       any_order, whole,
          replicated,   one_copy, split,  strided,   strided_drop, spawned};
}

// Keras's OrderedEnqueuer (model.fit over a Sequence): sequence[i] for each index in order,
// made on the training loop's thread (workers 0), on threads, or on worker processes started
// each epoch; each batch handed out as getitem made it.
std::vector<Case> KerasFitCases() {
  const auto ten = Range(0, 10);
  auto keras = [](const std::string& fields) {
    return "ops { keras_fit { getitem { python { duration: \"100us\" } } worker_startup: "
           "\"2ms\" " +
           fields + " } }";
  };
  Case main_thread{"KerasFitOnTheLoopsThread", 10, keras("workers: 0"), ten, true, 10};
  Case threads{"KerasFitThreadsInOrder", 10, keras("workers: 3 max_queue_size: 4"), ten, true, 10};
  Case processes{
      "KerasFitProcessesInOrder", 10, keras("workers: 2 use_multiprocessing: true"), ten, true, 10};
  Case epochs{"KerasFitProcessesEachEpoch",
              10,
              keras("workers: 2 use_multiprocessing: true") + " ops { repeat { count: 2 } }",
              Concat(ten, ten),
              true,
              20};
  return {main_thread, threads, processes, epochs};
}

std::vector<Case> AllCases() {
  std::vector<Case> cases = Cases();
  for (Case& c : DataLoaderCases()) cases.push_back(std::move(c));
  for (Case& c : KerasFitCases()) cases.push_back(std::move(c));
  for (Case& c : PaddedBatchCases()) cases.push_back(std::move(c));
  for (Case& c : MadeValueCases()) cases.push_back(std::move(c));
  for (Case& c : SliceCases()) cases.push_back(std::move(c));
  for (Case& c : ZipCases()) cases.push_back(std::move(c));
  for (Case& c : InterleaveRepeatByValueCases()) cases.push_back(std::move(c));
  return cases;
}

std::string SpecText(const Case& c) {
  std::string source = "range { start: " + std::to_string(c.start) +
                       " stop: " + std::to_string(c.stop) + " step: " + std::to_string(c.step) +
                       " }";
  if (!c.slices.empty()) {
    source = "from_tensor_slices {";
    for (int64_t v : c.slices) source += " values: " + std::to_string(v);
    source += " }";
  }
  if (!c.source.empty()) source = c.source;
  return "name: \"conformance\" source { name: \"src\" " + source + " } " + c.ops +
         " train_step { step_time: \"1ms\" }";
}

struct EngineRun {
  std::vector<int64_t> values;
  int64_t elements = 0;
};

// Every element's numbers in order (a batch's rows in order, padding included): its value,
// then each int64 feature's (a zip's second pipeline).
std::vector<int64_t> Flattened(const std::vector<engine::Element>& elements) {
  std::vector<int64_t> values;
  auto append = [&](const engine::Tensor& t) {
    const int64_t* rows = t.data<int64_t>();
    values.insert(values.end(), rows, rows + t.num_elements());
  };
  for (const auto& e : elements) {
    append(e.value);
    for (const auto& f : e.features) {
      if (f.value.dtype() == engine::DType::kInt64) append(f.value);
    }
  }
  return values;
}

EngineRun RunEngine(const Case& c) {
  auto pipeline = engine::testing::MakePipeline(SpecText(c));
  EngineRun run;
  if (!pipeline) return run;
  const auto elements = engine::testing::Drain(*pipeline);
  run.elements = static_cast<int64_t>(elements.size());
  run.values = Flattened(elements);
  return run;
}

struct SimRun {
  std::vector<int64_t> values;  // the engine's values, replayed over the run's lineage
  int64_t steps = 0;
};

SimRun RunSimulator(const Case& c, const std::function<void(CostModel&)>& adjust = {}) {
  const spec::PipelineSpec spec = engine::testing::Spec(SpecText(c));
  auto cost = DefaultCostModel(spec, 4);
  EXPECT_TRUE(cost.ok()) << cost.status().message();
  if (cost.ok() && adjust) adjust(*cost);
  trace::Model model;
  SimulationOptions options;
  options.duration_s = 60;
  options.sinks = {&model};
  auto result = Simulate(spec, *cost, options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  SimRun run;
  if (!result.ok()) return run;
  EXPECT_TRUE(result->summary.end_of_data) << "every case is finite";
  run.steps = result->summary.steps;
  auto values = ConsumedValues(spec, model, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(values.ok()) << values.status().ToString();
  if (values.ok()) run.values = Flattened(*values);
  return run;
}

std::vector<int64_t> Sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

class EngineSimConformance : public ::testing::TestWithParam<Case> {};

TEST_P(EngineSimConformance, BothClocksGiveTfDatasAnswer) {
  const Case& c = GetParam();
  const EngineRun engine = RunEngine(c);
  const SimRun sim = RunSimulator(c);
  if (c.expected) {
    if (c.ordered) {
      EXPECT_EQ(engine.values, *c.expected) << "engine";
    } else {
      EXPECT_EQ(Sorted(engine.values), Sorted(*c.expected)) << "engine";
    }
  }
  if (c.ordered) {
    EXPECT_EQ(sim.values, engine.values) << "the simulator differs from the engine";
  } else {
    EXPECT_EQ(Sorted(sim.values), Sorted(engine.values)) << "the simulator differs";
  }
  if (c.batches >= 0) {
    EXPECT_EQ(engine.elements, c.batches) << "engine batches";
    EXPECT_EQ(sim.steps, c.batches) << "simulated batches";
  }
}

INSTANTIATE_TEST_SUITE_P(TensorFlowCases, EngineSimConformance, ::testing::ValuesIn(AllCases()),
                         [](const auto& test_info) { return test_info.param.name; });

// padded_batch_test.py's testPaddedBatchShortPadding: from_tensor_slices([6, 5, 5, 5, 5])
// .map(fill).padded_batch(4, padded_shapes=[5]): the 6-long element cannot be padded to 5,
// an error (tf.data's DataLossError) and no batch.
TEST(EngineSimConformanceTest, PaddingToLessThanAnElementIsAnError) {
  Case c{"short", 0,
         "ops { map { fn { fill {} } } } ops { padded_batch { batch_size: 4 padded_shapes: 5 } }",
         std::nullopt};
  c.slices = {6, 5, 5, 5, 5};
  auto pipeline = engine::testing::MakePipeline(SpecText(c));
  ASSERT_TRUE(pipeline);
  engine::Element e;
  bool end = false;
  const engine::Status s = pipeline->GetNext(e, end);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("padded_batch 'padded_batch': element 0 has shape [6], "
                             "longer than padded_shapes allows in dimension 0 (5)"),
            std::string::npos)
      << s.message();
}

// The lineage of a recorded run reads a take inside a repeat as the simulator's does: each
// pass begins again at the source's first record (the engine's elements are cheap calls on
// consecutive ids, which its recorder may keep as runs).
TEST(EngineSimConformanceTest, ARecordedRunNumbersPassesThatATakeCutShort) {
  auto run = engine::testing::MakeRecordedPipeline(
      "source { name: \"src\" range { stop: 10 } } ops { take { count: 3 } } "
      "ops { repeat { count: 3 } }");
  engine::CancellationToken cancel;
  engine::SimulatedDevice device(0, 1, cancel);
  device.set_recorder(run.recorder.get());
  ASSERT_TRUE(engine::RunTraining(*run.pipeline, device, engine::RunOptions{}).ok());
  run.Finish();
  std::vector<std::pair<int64_t, int64_t>> records;  // (pass, index)
  for (const auto& r : trace::Lineage(*run.model).Consumed()) records.emplace_back(r.pass, r.index);
  EXPECT_EQ(records, (std::vector<std::pair<int64_t, int64_t>>{
                         {0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {2, 2}}));
}

// The shuffled cases are permutations that really shuffle, not the identity both could
// agree on by doing nothing.
TEST(EngineSimConformanceTest, SeededShufflesAreRealPermutations) {
  for (const char* seed : {"0", "7"}) {
    Case c{"shuffle", 20, std::string("ops { shuffle { buffer_size: 5 seed: ") + seed + " } }",
           std::nullopt};
    const auto values = RunEngine(c).values;
    EXPECT_EQ(Sorted(values), Range(0, 20));
    EXPECT_NE(values, Range(0, 20));
  }
}

// The engine's values of `c` cut into epochs of `epoch` elements, where the simulator gives
// the same values; empty where either fails that.
std::vector<std::vector<int64_t>> EpochsOnBothClocks(const Case& c, size_t epoch) {
  const auto values = RunEngine(c).values;
  EXPECT_EQ(RunSimulator(c).values, values) << c.name;
  EXPECT_EQ(values.size() % epoch, 0u) << c.name;
  if (values.size() % epoch != 0) return {};
  std::vector<std::vector<int64_t>> epochs;
  for (auto at = values.begin(); at != values.end(); at += static_cast<std::ptrdiff_t>(epoch)) {
    epochs.emplace_back(at, at + static_cast<std::ptrdiff_t>(epoch));
  }
  return epochs;
}

// shuffle(...).repeat(n), which tf.data fuses: one buffer fills across the epochs' ends,
// picks come from the oldest epoch held, so each epoch is whole and in a new order, even
// where the buffer holds several epochs (10 over epochs of 6). Both clocks alike.
TEST(EngineSimConformanceTest, AShuffleFusedWithItsRepeatKeepsEachEpochWhole) {
  const auto epochs = EpochsOnBothClocks(
      {"fused", 6, "ops { shuffle { buffer_size: 10 seed: 3 } } ops { repeat { count: 4 } }",
       std::nullopt},
      6);
  ASSERT_EQ(epochs.size(), 4u);
  for (const auto& e : epochs) EXPECT_EQ(Sorted(e), Range(0, 6));
  EXPECT_FALSE(std::all_of(epochs.begin(), epochs.end(), [&](const auto& e) {
    return e == epochs.front();
  })) << "a new order each epoch";
  // Not reshuffled: not fused (tf.data fuses only the reshuffling shuffle), each pass its
  // own buffer drawn with the same seed, so every epoch repeats the first's order.
  const auto same = EpochsOnBothClocks(
      {"same", 6,
       "ops { shuffle { buffer_size: 10 seed: 3 reshuffle_each_iteration: false } } "
       "ops { repeat { count: 3 } }",
       std::nullopt},
      6);
  ASSERT_EQ(same.size(), 3u);
  EXPECT_EQ(same[0], same[2]);
}

// A cache after a shuffle freezes the shuffled order: the second pass is the first again,
// though a shuffle alone reshuffles every pass.
TEST(EngineSimConformanceTest, CacheReplaysTheFirstPassExactly) {
  const auto passes = EpochsOnBothClocks({"cached", 8,
                                          "ops { shuffle { buffer_size: 8 seed: 5 } } "
                                          "ops { cache {} } ops { repeat { count: 2 } }",
                                          std::nullopt},
                                         8);
  ASSERT_EQ(passes.size(), 2u);
  EXPECT_EQ(passes[0], passes[1]);
}

// Parallel map's hand-out order on virtual time, where elements finish out of order: each
// takes 5 ms on average with a coefficient of variation of 1 (slower than the 1 ms step, so
// the consumer waits on the map). Deterministic: input order all the same; not
// deterministic: the first finished first, so the order changes.
TEST(EngineSimConformanceTest, ParallelMapKeepsOrderOnlyWhenDeterministic) {
  const auto uneven = [](CostModel& cost) { cost.ops["m"].cpu_per_row = Dist{5'000'000, 1.0}; };
  const auto map = [](const char* deterministic) {
    return std::string(
               "ops { name: \"m\" map { fn { identity {} } num_parallel_calls: 4 "
               "deterministic: ") +
           deterministic + " } }";
  };
  const auto in_order = RunSimulator({"ordered", 40, map("true"), std::nullopt}, uneven).values;
  EXPECT_EQ(in_order, Range(0, 40));
  const auto loose = RunSimulator({"loose", 40, map("false"), std::nullopt}, uneven).values;
  EXPECT_EQ(Sorted(loose), Range(0, 40));
  EXPECT_NE(loose, Range(0, 40)) << "finished elements go first when order need not be kept";
}

}  // namespace
}  // namespace pipescope::sim
