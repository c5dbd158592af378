# From TensorFlow's guide "tf.data: Build TensorFlow input pipelines", the "Consuming text data" section (interleave of TextLineDatasets, skip + filter).
import tensorflow as tf


def survived(line):
    return tf.not_equal(tf.strings.substr(line, 0, 1), "0")


files_ds = tf.data.Dataset.from_tensor_slices([
    "titanic_train.csv",   # training split
    "titanic_eval.csv",    # evaluation split
])
lines_ds = files_ds.interleave(tf.data.TextLineDataset, cycle_length=3)

survivors = lines_ds.skip(1).filter(survived)
