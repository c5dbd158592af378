# From TensorFlow's guide "Better performance with the tf.data API" (best-practice pipeline), wrapped in a make_dataset() helper as training scripts do.
import tensorflow as tf


def parse_record(record):
    return tf.io.parse_example(record, {"label": tf.io.FixedLenFeature([], tf.int64),
                                        "image": tf.io.FixedLenFeature([], tf.string)})


def make_dataset(pattern, batch_size=64, training=True):
    ds = tf.data.Dataset.list_files(pattern, shuffle=training)
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=8,
                       num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(10000)
    ds = ds.map(parse_record, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size).prefetch(1)


train = make_dataset("/data/train-*.tfrecord")
