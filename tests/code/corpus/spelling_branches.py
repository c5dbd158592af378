# From TensorFlow's guide "tf.data: Build TensorFlow input pipelines" (TFRecord reading), with the pipeline built across if/else, try, for and with blocks.
import sys

import tensorflow as tf

use_gzip = "--gzip" in sys.argv

if use_gzip:
    ds = tf.data.TFRecordDataset("train.tfrecord.gz", compression_type="GZIP")
else:
    ds = tf.data.TFRecordDataset("train.tfrecord")

try:
    ds = ds.shuffle(100)
except ValueError:
    pass

for _ in range(1):
    ds = ds.take(50)

with tf.device("/cpu:0"):
    ds = ds.batch(8)
