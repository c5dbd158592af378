# From TensorFlow's guide "tf.data: Build TensorFlow input pipelines", the Dataset.zip example (features paired with labels).
import tensorflow as tf

features_ds = tf.data.Dataset.range(1000)
labels_ds = tf.data.Dataset.from_tensor_slices([0, 1, 0, 1]).repeat()

ds = tf.data.Dataset.zip((features_ds, labels_ds))
ds = ds.batch(32)
