# From TensorFlow's tf.data.experimental.parallel_interleave and map_and_batch docstrings, spelled tf.data.experimental / tf.compat.v1.data.experimental.
import tensorflow as tf


def _decode_example(record):
    return tf.io.parse_single_example(record, {"jpeg": tf.io.FixedLenFeature([], tf.string)})


def _augment(example):
    image = tf.image.decode_jpeg(example["jpeg"])
    return tf.image.random_flip_left_right(image)


files = tf.data.Dataset.list_files("/data/shards/train-*.tfrecord", shuffle=False)
ds = files.apply(tf.data.experimental.parallel_interleave(
    lambda f: tf.compat.v1.data.TFRecordDataset(f).map(_decode_example),
    cycle_length=16, block_length=4, sloppy=False))
ds = ds.apply(tf.compat.v1.data.experimental.map_and_batch(
    map_func=_augment,
    batch_size=64,
    num_parallel_calls=tf.data.experimental.AUTOTUNE))
