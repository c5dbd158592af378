# From TensorFlow's guide "tf.data: Build TensorFlow input pipelines", the "Consuming TFRecord data" section (FSNS test file).
import tensorflow as tf

fsns_test_file = tf.keras.utils.get_file(
    "fsns.tfrec",
    "https://storage.googleapis.com/download.tensorflow.org/data/fsns-20160927/testdata/fsns-00000-of-00001")

feature_description = {
    'image/encoded': tf.io.FixedLenFeature([], tf.string),
    'image/text': tf.io.FixedLenFeature([], tf.string, default_value=''),
    'image/class': tf.io.VarLenFeature(tf.int64),
    'image/width': tf.io.FixedLenFeature([1], tf.int64),
}

dataset = tf.data.TFRecordDataset(filenames = [fsns_test_file])
dataset = dataset.map(lambda x: tf.io.parse_single_example(x, feature_description))
