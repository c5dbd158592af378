# From TensorFlow's guide "tf.data: Build TensorFlow input pipelines" (flat_map over TextLineDatasets) and the shard/take/cache/repeat/unbatch docstrings, keyword spellings.
import tensorflow as tf

lines = tf.data.Dataset.from_tensor_slices(["a.txt", "b.txt"]).flat_map(tf.data.TextLineDataset)
lines = lines.shard(num_shards=2, index=1).take(500).cache("/tmp/lines.cache").repeat(3)
lines = lines.batch(10).unbatch()
