# From TensorFlow's guide "tf.data: Build TensorFlow input pipelines", the "Batching tensors with padding" section.
import tensorflow as tf

dataset = tf.data.Dataset.range(100)
dataset = dataset.map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))
dataset = dataset.padded_batch(4, padded_shapes=(None,))
