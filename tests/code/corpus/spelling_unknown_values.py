# From TensorFlow's Dataset.range/shard/shuffle docstrings, with every size coming from the command line (sys.argv / os.environ).
import os
import sys

import tensorflow as tf

num_examples = int(sys.argv[1])
world = int(os.environ["WORLD_SIZE"])
rank = int(os.environ["RANK"])

ds = tf.data.Dataset.range(num_examples)
ds = ds.shard(world, rank)
ds = ds.shuffle(buffer_size=int(sys.argv[2]), reshuffle_each_iteration=True)
ds = ds.batch(int(sys.argv[3]))
