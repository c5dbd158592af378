# From TensorFlow's TFRecordDataset docstring (num_parallel_reads) and the TF1 fused-ops docstrings, written with tf.compat.v1, positional arguments and backslashes.
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

AUTOTUNE = tf.data.experimental.AUTOTUNE


def parse(record):
    return tf.parse_single_example(record, {"ids": tf.VarLenFeature(tf.int64),
                                            "score": tf.FixedLenFeature([], tf.float32)})


dataset = tf.data.TFRecordDataset(["gs://bucket/train-0.tfrecord.z",
                                   "gs://bucket/train-1.tfrecord.z"], \
                                  "ZLIB", 8 * 1024 * 1024, 4)
dataset = dataset.map(parse, AUTOTUNE)
dataset = dataset \
    .apply(tf.data.experimental.shuffle_and_repeat(2048, seed=1)) \
    .batch(batch_size=128, drop_remainder=True)
dataset = dataset.prefetch(AUTOTUNE)
iterator = tf.data.make_one_shot_iterator(dataset)
