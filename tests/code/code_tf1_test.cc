// TensorFlow 1's own spellings of a pipeline, as the Estimator code people still run writes
// them: tf.contrib.data's transformations through .apply, and an iterator's element taken
// apart where it is made.
#include <gtest/gtest.h>

#include <string>

#include "app/code/code_import.h"
#include "tests/code/imported_code_helpers.h"

namespace pipescope::code {
namespace {

using testing::ImportAs;

const spec::Op* OpOfKind(const spec::PipelineSpec& spec, spec::Op::KindCase kind) {
  for (const spec::Op& op : spec.ops()) {
    if (op.kind_case() == kind) return &op;
  }
  return nullptr;
}

// tf-crnn's input_fn (tensorflow#20059): a batch that drops its remainder, written as
// TensorFlow 1.5 to 1.9 wrote it, and a prefetch on the chain whose element is unpacked.
const std::string kInputFn = R"(import tensorflow as tf
BATCH = 64
ds = tf.data.TFRecordDataset(['train.tfrecord'])
ds = ds.map(parse, num_parallel_calls=4).apply(tf.contrib.data.batch_and_drop_remainder(BATCH))
features, labels = ds.prefetch(5).make_one_shot_iterator().get_next()
)";

TEST(CodeTf1Test, BatchAndDropRemainderIsABatchThatDropsItsRemainder) {
  const ImportedCode c = ImportAs(kInputFn, "input_fn.py");
  const spec::Op* batch = OpOfKind(c.spec, spec::Op::kBatch);
  ASSERT_NE(batch, nullptr) << c.spec.DebugString();
  EXPECT_EQ(batch->batch().batch_size(), 64);
  EXPECT_TRUE(batch->batch().drop_remainder());
}

// `features, labels = ...get_next()`: the pipeline the element comes from is the one used,
// its prefetch included, as `batch = ...get_next()` is.
TEST(CodeTf1Test, AnElementUnpackedWhereItIsMadeKeepsItsPipeline) {
  const ImportedCode c = ImportAs(kInputFn, "input_fn.py");
  const spec::Op* prefetch = OpOfKind(c.spec, spec::Op::kPrefetch);
  ASSERT_NE(prefetch, nullptr) << c.spec.DebugString();
  EXPECT_EQ(prefetch->prefetch().buffer_size(), 5);
}

// tf-crnn's loop: `estimator.train(input_fn=make_input_fn(..., repeat=False))` in `for e in
// range(n_epochs):` goes through the dataset once a turn, each a new one: a repeat of the
// loop's count. Given steps, train ends there, and the epochs are not the dataset's.
TEST(CodeTf1Test, AnEstimatorTrainedInTheEpochsLoopRunsItsEpochs) {
  const auto read = [](const std::string& train_arguments) {
    return ImportAs(R"(import tensorflow as tf
def make_input_fn(files, repeat=True):
    def input_fn():
        ds = tf.data.TFRecordDataset(files).batch(64)
        if repeat:
            ds = ds.repeat()
        return ds.prefetch(2)
    return input_fn
estimator = tf.estimator.Estimator(model_fn=model_fn)
for epoch in range(10):
    estimator.train()" + train_arguments +
                        R"()
)",
                    "estimator.py");
  };
  const ImportedCode each = read("input_fn=make_input_fn(['a.tfrecord'], repeat=False)");
  const spec::Op& last = each.spec.ops(each.spec.ops_size() - 1);
  ASSERT_TRUE(last.has_repeat()) << each.spec.DebugString();
  EXPECT_EQ(last.repeat().count(), 10);
  const ImportedCode stepped =
      read("input_fn=make_input_fn(['a.tfrecord'], repeat=False), steps=100");
  EXPECT_FALSE(stepped.spec.ops(stepped.spec.ops_size() - 1).has_repeat())
      << stepped.spec.DebugString();
}

}  // namespace
}  // namespace pipescope::code
