# tf.data's performance guide, "Parallelizing data extraction": input stored remotely (GCS,
# HDFS) pays a time to first byte and a read throughput that one file at a time cannot hide,
# and TFRecordDataset's docstring says "If your input pipeline is I/O bottlenecked, consider
# setting [num_parallel_reads] to a value greater than one to parallelize the I/O". The
# pipeline as people write it: TFRecordDataset over the bucket's files, one after another.
# pipescope: budget.cpu_cores=8 train_step.step_time=100ms
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def parse_example(record):
    features = tf.io.parse_single_example(record, {
        "image": tf.io.FixedLenFeature([], tf.string),
        "label": tf.io.FixedLenFeature([], tf.int64),
    })
    image = tf.io.decode_raw(features["image"], tf.uint8)
    return image, features["label"]


files = tf.io.gfile.glob("gs://my-bucket/train/train-*.tfrecord")
dataset = tf.data.TFRecordDataset(files)
dataset = dataset.shuffle(10000)
dataset = dataset.map(parse_example, num_parallel_calls=AUTOTUNE)
dataset = dataset.batch(256)
dataset = dataset.prefetch(AUTOTUNE)
model.fit(dataset, epochs=10)
