#include "tests/fuzz/fuzz_seed.h"

namespace pipescope::fuzz {

// Every construct import-code reads, in one file: a def with a feature dict, tf.data chains
// over files, a flag, AUTOTUNE, a contrib transformation, a DataLoader, Keras's fit, paths on
// a remote store (os.path.join, %, f-strings, format), a batch sliced by its index, a helper
// method given it, and ImageDataGenerator.random_transform.
std::string FuzzSeed() {
  return R"(import tensorflow as tf
from torch.utils.data import DataLoader, Dataset
AUTOTUNE = tf.data.experimental.AUTOTUNE
features = {"d": tf.io.FixedLenFeature([8], tf.string), "v": tf.io.VarLenFeature(tf.int64)}

def parse(record):
    return tf.io.parse_single_example(record, features)

class Items(Dataset):
    def __init__(self, x, batch_size=8):
        self.x, self.batch_size = x, batch_size
        self.aug = ImageDataGenerator(rotation_range=20)
    def __len__(self):
        return 100
    def __getitem__(self, i):
        low = i * self.batch_size
        return self.fill(self.x[low:min(low + self.batch_size, len(self.x))])
    def fill(self, ids):
        for k, name in enumerate(ids):
            self.aug.random_transform(np.zeros((32, 32, 3)))
        return ids

names = [os.path.join('gs://bucket/data', 'train-%05d' % i) for i in range(64)]
more = [f"s3://bucket/{n:03d}" for n in range(8)] + ['{}/x'.format('hdfs://h')]
remote = tf.data.Dataset.from_tensor_slices(names).interleave(
    lambda f: tf.data.TFRecordDataset(f, buffer_size=8 << 20), cycle_length=16)

loader = DataLoader(Items(list(range(100))), batch_size=4, num_workers=2, pin_memory=True)
files = tf.data.Dataset.list_files(FLAGS.pattern)
ds = files.interleave(lambda f: tf.data.TFRecordDataset(f).map(parse), cycle_length=4,
                      num_parallel_calls=AUTOTUNE)
ds = ds.apply(tf.contrib.data.map_and_batch(parse, 32, num_parallel_batches=2))
ds = ds.shuffle(1000).repeat().prefetch(tf.data.AUTOTUNE)  # pipescope: parse.cost=40us
model.fit(ds, workers=2)
)";
}

}  // namespace pipescope::fuzz
