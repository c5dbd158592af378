# From seed 001 (same question): the things its author tried -- tf.contrib.data.parallel_interleave, map_and_batch, prefetch.
import tensorflow as tf

_keys_to_map = {
    'd': tf.FixedLenFeature([], tf.string),  # data
    's': tf.FixedLenFeature([], tf.int64),   # score
}


def _parser(record):
    parsed = tf.parse_single_example(record, _keys_to_map)
    return parsed['d'], parsed['s']


files = tf.data.Dataset.list_files("/content/tfrecords/*.tfrecord")
ds = files.apply(
    tf.contrib.data.parallel_interleave(
        tf.data.TFRecordDataset,
        cycle_length=8,
        sloppy=True))
ds = ds.apply(tf.contrib.data.shuffle_and_repeat(10000))
ds = ds.apply(tf.contrib.data.map_and_batch(
    _parser, 512,                     # map_func, batch_size
    num_parallel_batches=4,
    drop_remainder=True))
ds = ds.prefetch(2)
