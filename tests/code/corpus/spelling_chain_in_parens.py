# From TensorFlow's Dataset.apply docstring style of chaining (a method chain in parentheses), with AUTOTUNE in three spellings and comments inside argument lists.
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def double(i):
    return i * 2


ds = (
    tf.data.Dataset.range(0, 1000, 2)    # even ids
    .map(lambda i: i + 1,
         num_parallel_calls=tf.data.experimental.AUTOTUNE)  # old spelling
    .filter(lambda i: i % 3 == 0)
    .map(double, AUTOTUNE)
    .batch(
        16,
        # keep partial batches
        drop_remainder=False,
    )
    .prefetch(tf.data.AUTOTUNE)
)
