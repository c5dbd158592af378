// The rules that decide whether a live reorder needs the user's confirmation: moves that
// keep the output (prefetch anywhere, take/skip/shard across 1:1 maps, vectorising a map
// with a batched form) and moves that change it (shuffle <-> batch, shard after shuffle,
// repeat <-> shuffle, cache after a random map, filter before the map its predicate reads,
// batch before a map without a batched form), each with its sentence.
#include "engine/tuning/move_rules.h"

#include <gtest/gtest.h>

#include "engine/spec/spec_loader.h"

namespace pipescope::engine {
namespace {

spec::PipelineSpec Spec(const std::string& ops) {
  auto spec = ParseSpecText("source { range { start: 0 stop: 100 } } " + ops, "rules");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return *spec;
}

void ExpectKept(const spec::PipelineSpec& spec, int from, int to) {
  const auto a = AssessMove(spec, from, to);
  EXPECT_TRUE(a.keeps_output) << a.explanation;
  EXPECT_TRUE(AssessChange(spec, MoveOp(spec, from, to)).keeps_output);
}

std::string ExpectChanged(const spec::PipelineSpec& spec, int from, int to) {
  const auto a = AssessMove(spec, from, to);
  EXPECT_FALSE(a.keeps_output);
  EXPECT_FALSE(a.explanation.empty());
  const auto c = AssessChange(spec, MoveOp(spec, from, to));
  EXPECT_FALSE(c.keeps_output);
  EXPECT_EQ(c.explanation, a.explanation);
  return a.explanation;
}

const char* kChain = R"(
  ops { name: "decode" map { fn { cpu_work { duration: "1ms" } } } }
  ops { name: "shuffle" shuffle { buffer_size: 100 } }
  ops { name: "batch" batch { batch_size: 8 } }
  ops { name: "prefetch" prefetch { buffer_size: 2 } })";

// tensorflow#30646: repeat moved before a batch and a shuffle changes both, each said in the
// order crossed (tf.data's guide: batches then straddle epoch ends, and the shuffle mixes
// the epochs).
TEST(MoveRulesTest, ARepeatMovedAcrossABatchAndAShuffleSaysBoth) {
  const auto spec = Spec(R"(ops { name: "mix" shuffle { buffer_size: 100 } }
                            ops { name: "pad" padded_batch { batch_size: 8 } }
                            ops { name: "epochs" repeat { count: 3 } })");
  const std::string said = ExpectChanged(spec, 2, 0);
  EXPECT_NE(said.find("Batching after repeat(3) fills batches across epoch ends"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("Shuffling after repeat mixes elements across epoch boundaries"),
            std::string::npos)
      << said;
  EXPECT_LT(said.find("Batching after"), said.find("Shuffling after")) << said;
  // The other way round: each epoch batched on its own.
  const auto repeat_first = Spec(R"(ops { name: "epochs" repeat { count: 3 } }
                                    ops { name: "b" batch { batch_size: 8 } })");
  EXPECT_NE(ExpectChanged(repeat_first, 0, 1).find("an epoch's last batch may be partial"),
            std::string::npos);
}

// A shuffle's draws depend on its seed and its buffer's count, not on values: moved across a
// map that draws nothing, the same elements come in the same order (keras#19502's fix:
// shuffle the file names, then decode); across a random map, the draws meet other elements.
TEST(MoveRulesTest, AShuffleMovedAcrossAPlainMapKeepsTheOutput) {
  const auto spec = Spec(R"(ops { name: "decode" map { fn { cpu_work { duration: "1ms" } } } }
                            ops { name: "mix" shuffle { buffer_size: 1024 seed: 3 } })");
  ExpectKept(spec, 1, 0);
  const auto random = Spec(R"(ops { name: "flip" map { fn { random_flip {} } } }
                             ops { name: "crop" map { fn { random_crop {} } } }
                             ops { name: "mix" shuffle { buffer_size: 1024 seed: 3 } })");
  const std::string said = ExpectChanged(random, 2, 0);
  // Said once for both random maps crossed.
  const std::string sentence =
      "The random maps draw their numbers for the elements in another "
      "order, so each element is augmented otherwise";
  EXPECT_EQ(said.find(sentence), 0u) << said;
  EXPECT_EQ(said.find(sentence, 1), std::string::npos) << said;
}

TEST(MoveRulesTest, PrefetchMovesAnywhere) {
  const auto spec = Spec(kChain);
  ExpectKept(spec, 3, 0);
  ExpectKept(MoveOp(spec, 3, 0), 0, 2);
}

TEST(MoveRulesTest, TakeSkipAndShardMoveAcrossOneToOneMaps) {
  for (const char* op :
       {"take { count: 5 }", "skip { count: 5 }", "shard { num_shards: 2 index: 1 }"}) {
    const auto spec =
        Spec(std::string(R"(ops { name: "decode" map { fn { cpu_work { duration: "1ms" } } } } )") +
             "ops { name: \"count\" " + op + " }");
    ExpectKept(spec, 1, 0);
  }
}

TEST(MoveRulesTest, TakeAcrossAFilterOrABatchChangesWhatItCounts) {
  const auto spec = Spec(R"(ops { name: "f" filter { predicate { mod_equals { modulus: 2 } } } }
                            ops { name: "t" take { count: 5 } })");
  // Moved before the filter, the take counts what the filter is given.
  EXPECT_NE(ExpectChanged(spec, 1, 0)
                .find("'t' (take) will count the input of 'f' (filter) instead of the elements it "
                      "produces"),
            std::string::npos)
      << ExpectChanged(spec, 1, 0);
  // Moved after it, what the filter keeps.
  const auto before = Spec(R"(ops { name: "t" take { count: 5 } }
                             ops { name: "f" filter { predicate { mod_equals { modulus: 2 } } } })");
  EXPECT_NE(
      ExpectChanged(before, 1, 0)
          .find("'t' (take) will count the elements 'f' (filter) produces instead of its input"),
      std::string::npos);
  const auto batched =
      Spec(R"(ops { name: "b" batch { batch_size: 4 } } ops { name: "t" take { count: 5 } })");
  EXPECT_NE(ExpectChanged(batched, 1, 0).find("elements instead of batches"), std::string::npos);
  const auto take_first =
      Spec(R"(ops { name: "t" take { count: 5 } } ops { name: "b" batch { batch_size: 4 } })");
  EXPECT_NE(ExpectChanged(take_first, 1, 0).find("batches instead of elements"), std::string::npos);
}

TEST(MoveRulesTest, ShuffleAndBatchDoNotCommute) {
  const auto spec = Spec(kChain);
  EXPECT_NE(ExpectChanged(spec, 1, 2).find("shuffles whole batches"), std::string::npos);
  const auto after = Spec(R"(ops { name: "batch" batch { batch_size: 8 } }
                            ops { name: "shuffle" shuffle { buffer_size: 10 } })");
  EXPECT_NE(ExpectChanged(after, 1, 0).find("Batches will be drawn"), std::string::npos);
}

// The rules read an op's traits, not its kind: padded_batch groups elements as batch does,
// so it moves as batch does, with batch's sentences.
TEST(MoveRulesTest, APaddedBatchMovesAsABatch) {
  const auto spec = Spec(R"(ops { name: "pb" padded_batch { batch_size: 4 } }
                            ops { name: "shuffle" shuffle { buffer_size: 10 } })");
  EXPECT_NE(ExpectChanged(spec, 1, 0).find("Batches will be drawn"), std::string::npos);
  const auto counted = Spec(
      R"(ops { name: "pb" padded_batch { batch_size: 4 } } ops { name: "t" take { count: 5 } })");
  EXPECT_NE(ExpectChanged(counted, 1, 0).find("elements instead of batches"), std::string::npos);
  const auto vectorised = Spec(R"(
      ops { name: "norm" map { fn { normalize {} } } }
      ops { name: "pb" padded_batch { batch_size: 4 } })");
  ExpectKept(vectorised, 0, 1);
}

TEST(MoveRulesTest, ShardAfterShuffleIsFlagged) {
  const auto spec = Spec(R"(ops { name: "shard" shard { num_shards: 4 index: 0 } }
                            ops { name: "shuffle" shuffle { buffer_size: 10 } })");
  EXPECT_NE(ExpectChanged(spec, 0, 1).find("overlapping elements"), std::string::npos);
}

TEST(MoveRulesTest, RepeatAndShuffleDoNotCommute) {
  const auto spec = Spec(R"(ops { name: "shuffle" shuffle { buffer_size: 10 } }
                            ops { name: "repeat" repeat { count: 2 } })");
  EXPECT_NE(ExpectChanged(spec, 1, 0).find("epoch boundaries"), std::string::npos);
}

TEST(MoveRulesTest, CacheAfterARandomMapFreezesTheAugmentation) {
  const auto spec = Spec(R"(ops { name: "cache" cache {} }
                            ops { name: "flip" map { fn { random_flip { seed: 1 } } } })");
  EXPECT_NE(ExpectChanged(spec, 0, 1).find("freezes its augmentation"), std::string::npos);
  ExpectKept(MoveOp(spec, 0, 1), 1, 0);  // caching before the random map again is the fix
  // Adding a cache after a random map is flagged; after a deterministic one it is not.
  const auto plain = Spec(R"(ops { name: "flip" map { fn { random_flip { seed: 1 } } } })");
  auto with_cache = plain;
  with_cache.add_ops()->set_name("cache");
  with_cache.mutable_ops(1)->mutable_cache();
  EXPECT_FALSE(AssessChange(plain, with_cache).keeps_output);
  const auto det = Spec(R"(ops { name: "decode" map { fn { cpu_work { duration: "1ms" } } } })");
  auto det_cache = det;
  det_cache.add_ops()->set_name("cache");
  det_cache.mutable_ops(1)->mutable_cache();
  EXPECT_TRUE(AssessChange(det, det_cache).keeps_output);
}

TEST(MoveRulesTest, AddingACacheAfterAShuffleFreezesTheFirstEpochsOrder) {
  const auto shuffled = Spec(R"(ops { name: "shuffle" shuffle { buffer_size: 100 } })");
  auto with_cache = shuffled;
  with_cache.add_ops()->set_name("cache");
  with_cache.mutable_ops(1)->mutable_cache();
  const MoveAssessment a = AssessChange(shuffled, with_cache);
  EXPECT_FALSE(a.keeps_output) << "shuffle is random (its op kind's description says so)";
  EXPECT_NE(a.explanation.find("first epoch's order"), std::string::npos) << a.explanation;
}

// shuffle(reshuffle_each_iteration=False) gives one order every epoch: a cache after it
// replays that same order, added or moved across it (tensorflow#30646's split).
TEST(MoveRulesTest, ACacheAfterAShuffleWhoseOrderComesBackEachEpochKeepsTheOutput) {
  const auto fixed = Spec(R"(ops { name: "shuffle" shuffle { buffer_size: 100
                                                             reshuffle_each_iteration: false } })");
  auto with_cache = fixed;
  with_cache.add_ops()->set_name("cache");
  with_cache.mutable_ops(1)->mutable_cache();
  EXPECT_TRUE(AssessChange(fixed, with_cache).keeps_output);
  ExpectKept(with_cache, 1, 0);
  ExpectKept(MoveOp(with_cache, 1, 0), 0, 1);
}

TEST(MoveRulesTest, AFilterCannotMoveBeforeTheMapItsPredicateReads) {
  const auto spec = Spec(R"(ops { name: "decode" map { fn { unpack_bits {} } } }
                            ops { name: "keep" filter { predicate { mod_equals { modulus: 2 } } } })");
  EXPECT_NE(ExpectChanged(spec, 1, 0).find("before 'decode' (map) transforms them"),
            std::string::npos);
  const auto cost_only = Spec(R"(ops { name: "work" map { fn { cpu_work { duration: "1ms" } } } }
                                ops { name: "keep" filter { predicate { mod_equals { modulus: 2 } } } })");
  ExpectKept(cost_only, 1, 0);  // cpu_work leaves the element as it is
  const auto identity = Spec(R"(ops { name: "id" map { fn { identity {} } } }
                               ops { name: "keep" filter { predicate { mod_equals { modulus: 2 } } } })");
  ExpectKept(identity, 1, 0);
}

TEST(MoveRulesTest, BatchingBeforeAMapVectorisesItOnlyWhenItHasABatchedForm) {
  const auto vectorisable = Spec(R"(ops { name: "unpack" map { fn { unpack_bits {} } } }
                                   ops { name: "batch" batch { batch_size: 8 } })");
  ExpectKept(vectorisable, 1, 0);
  const auto per_record = Spec(R"(ops { name: "wait" map { fn { io_wait { duration: "1ms" } } } }
                                 ops { name: "batch" batch { batch_size: 8 } })");
  EXPECT_NE(ExpectChanged(per_record, 1, 0).find("has no batched form"), std::string::npos);
}

TEST(MoveRulesTest, AddingOrRemovingPrefetchKeepsTheOutputOtherOpsDoNot) {
  const auto spec = Spec(kChain);
  auto without = spec;
  without.mutable_ops()->DeleteSubrange(3, 1);
  EXPECT_TRUE(AssessChange(spec, without).keeps_output);
  auto no_shuffle = spec;
  no_shuffle.mutable_ops()->DeleteSubrange(1, 1);
  const auto a = AssessChange(spec, no_shuffle);
  EXPECT_FALSE(a.keeps_output);
  EXPECT_EQ(a.explanation, "Removing 'shuffle' (shuffle) changes what reaches the training step.");
  EXPECT_TRUE(AssessChange(spec, spec).keeps_output);
}

}  // namespace
}  // namespace pipescope::engine
