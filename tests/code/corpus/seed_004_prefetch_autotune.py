# From seed 004 ("Tensorflow tf.data AUTOTUNE"), the performance guide's prefetch/AUTOTUNE advice and the OptimizationOptions the answer mentions.
import tensorflow as tf


def parse_fn(example_proto):
    return tf.io.parse_single_example(example_proto, {
        "x": tf.io.FixedLenFeature([10], tf.float32),
        "y": tf.io.FixedLenFeature([], tf.int64),
    })


dataset = tf.data.TFRecordDataset(["train-0.tfrecord", "train-1.tfrecord"],
                                  num_parallel_reads=tf.data.experimental.AUTOTUNE)
dataset = dataset.map(parse_fn, num_parallel_calls=tf.data.experimental.AUTOTUNE)
dataset = dataset.batch(256)
dataset = dataset.prefetch(buffer_size=tf.data.experimental.AUTOTUNE)

options = tf.data.Options()
options.experimental_optimization.autotune = True
dataset = dataset.with_options(options)
