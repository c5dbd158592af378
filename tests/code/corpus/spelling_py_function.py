# From TensorFlow's guide "tf.data: Build TensorFlow input pipelines", the "Applying arbitrary Python logic" section (tf.py_function / tf.numpy_function), with argparse values.
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=16)
parser.add_argument("--workers", type=int, default=4)
args = parser.parse_args()


def load_audio(path):
    return np.fromfile(path.numpy(), dtype=np.float32)


def np_normalize(x):
    return (x - x.mean()) / (x.std() + 1e-6)


def tf_normalize(x):
    return tf.numpy_function(np_normalize, [x], tf.float32)


ds = tf.data.Dataset.from_tensor_slices(["clip0.wav", "clip1.wav"])
ds = ds.map(lambda p: tf.py_function(load_audio, [p], tf.float32), num_parallel_calls=4)
ds = ds.map(tf_normalize, num_parallel_calls=args.workers)
ds = ds.padded_batch(args.batch_size, padded_shapes=[16000], padding_values=0.0, drop_remainder=True)
