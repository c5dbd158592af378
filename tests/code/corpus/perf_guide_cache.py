# From TensorFlow's guide "Better performance with the tf.data API", the "Caching" section (py_function stands in for heavy work).
import time

import tensorflow as tf


def mapped_function(s):
    # Do some hard pre-processing
    tf.py_function(lambda: time.sleep(0.03), [], ())
    return s


def benchmark(dataset, num_epochs=2):
    for epoch_num in range(num_epochs):
        for sample in dataset:
            time.sleep(0.01)


dataset = tf.data.Dataset.range(5).map(mapped_function).cache()
benchmark(dataset, 5)
