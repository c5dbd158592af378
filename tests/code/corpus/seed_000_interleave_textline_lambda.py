# From seed 000 (answer on interleave vs map vs flat_map), the Dataset.interleave docstring example with TextLineDataset.
import tensorflow as tf


def parse_fn(line):
    # CSV columns: id, text, label
    return tf.io.decode_csv(line, record_defaults=[[0], [""], [0]])


dataset = tf.data.Dataset.from_tensor_slices(["shard-0.csv", "shard-1.csv",
                                              "shard-2.csv", "shard-3.csv"])
dataset = dataset.interleave(lambda x:
    tf.data.TextLineDataset(x).map(parse_fn, num_parallel_calls=1),
    cycle_length=4, block_length=16)
