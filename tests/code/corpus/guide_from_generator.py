# From TensorFlow's guide "tf.data: Build TensorFlow input pipelines", the "Consuming Python generators" section.
import tensorflow as tf


def count(stop):
  i = 0
  while i<stop:
    yield i
    i += 1


ds_counter = tf.data.Dataset.from_generator(count, args=[25], output_types=tf.int32, output_shapes = (), )

ds_counter = ds_counter.repeat().batch(10)
