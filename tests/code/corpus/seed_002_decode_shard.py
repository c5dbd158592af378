# From seed 002 (CSCS course), the "Read data from a TFRecord file" decode() slide plus the shard-by-rank slide.
import tensorflow.compat.v1 as tf
import horovod.tensorflow as hvd

hvd.init()


def decode(serialized_example):
    features = tf.parse_single_example(
        serialized_example,
        features={
            "height": tf.FixedLenFeature([], tf.int64),
            "width": tf.FixedLenFeature([], tf.int64),
            "image": tf.FixedLenFeature([], tf.string),
            "label": tf.FixedLenFeature([], tf.string),
        })
    label = tf.cast(features["label"], tf.string)
    width = tf.cast(features["width"], tf.int64)
    height = tf.cast(features["height"], tf.int64)
    image = tf.decode_raw(features["image"], tf.uint8)
    image = tf.reshape(image, (height, width, 3))
    return image, label


def filter_vowels(image, label):
    return tf.strings.regex_full_match(label, "[aeiou].*")


dataset = tf.data.TFRecordDataset("./train.tfrecords")
# Split the input pipeline by shards
dataset = dataset.shard(hvd.size(), hvd.rank())
dataset = dataset.map(decode)
dataset = dataset.filter(filter_vowels)
dataset = dataset.repeat(2)
