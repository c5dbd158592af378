#include "tests/fuzz/fuzz_seed.h"

namespace pipescope::fuzz {

// Every construct import-code reads, in one file: a def with a feature dict, tf.data chains
// over files, a flag, AUTOTUNE, a contrib transformation, a DataLoader and Keras's fit.
std::string FuzzSeed() {
  return R"(import tensorflow as tf
from torch.utils.data import DataLoader, Dataset
AUTOTUNE = tf.data.experimental.AUTOTUNE
features = {"d": tf.io.FixedLenFeature([8], tf.string), "v": tf.io.VarLenFeature(tf.int64)}

def parse(record):
    return tf.io.parse_single_example(record, features)

class Items(Dataset):
    def __len__(self):
        return 100
    def __getitem__(self, i):
        return i

loader = DataLoader(Items(), batch_size=4, num_workers=2, pin_memory=True)
files = tf.data.Dataset.list_files(FLAGS.pattern)
ds = files.interleave(lambda f: tf.data.TFRecordDataset(f).map(parse), cycle_length=4,
                      num_parallel_calls=AUTOTUNE)
ds = ds.apply(tf.contrib.data.map_and_batch(parse, 32, num_parallel_batches=2))
ds = ds.shuffle(1000).repeat().prefetch(tf.data.AUTOTUNE)  # pipescope: parse.cost=40us
model.fit(ds, workers=2)
)";
}

}  // namespace pipescope::fuzz
