# From TensorFlow's guide "Better performance with the tf.data API", the best-practice summary (interleave + map with deterministic=False).
import tensorflow as tf


def parse(record):
    example = tf.io.parse_single_example(record, {
        "pixels": tf.io.FixedLenFeature([28, 28], tf.float32),
        "digit": tf.io.FixedLenFeature([], tf.int32),
    })
    return example["pixels"], example["digit"]


dataset = tf.data.Dataset.list_files("/data/mnist/train-*.tfrecord.gz", shuffle=True, seed=42)
dataset = dataset.interleave(
    lambda path: tf.data.TFRecordDataset(path, compression_type="GZIP"),
    cycle_length=4,
    num_parallel_calls=tf.data.AUTOTUNE,
    deterministic=False)
dataset = dataset.map(parse, num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)
dataset = dataset.batch(128).prefetch(tf.data.AUTOTUNE)
