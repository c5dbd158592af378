# tf.data's performance guide, "Parallelizing data extraction": TFRecordDataset over a bucket's
# files as people first write it, one file after another (num_parallel_reads absent).
import tensorflow as tf

files = tf.io.gfile.glob("gs://my-bucket/train/train-*.tfrecord")
dataset = tf.data.TFRecordDataset(files, buffer_size=1024 * 1024)
dataset = dataset.shuffle(1000)
dataset = dataset.batch(64)
