# tensorflow#44274 "Tensorflow dataset is not faster with multiple cores": an interleave whose
# function runs Python through tf.py_function before it makes a one-element dataset. tf.data
# calls the function one input element at a time and the Python holds the interpreter lock,
# so more num_parallel_calls gains nothing (the maintainers' answer).
import time

import tensorflow as tf


def real_work():
    for i in range(1000000):
        2 + 2


def map_function(x):
    tf.py_function(real_work, [], [])
    return tf.data.Dataset.from_tensors(x)


dataset = tf.data.Dataset.range(64).interleave(map_function, cycle_length=4, num_parallel_calls=4)

start = time.time()
for _ in dataset:
    pass
print(time.time() - start)
