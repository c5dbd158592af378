# From seed 000 (a question quoting the Dataset.shard docstring), the "efficient sharding strategy" snippet.
import tensorflow as tf

Dataset = tf.data.Dataset
FLAGS = tf.compat.v1.app.flags.FLAGS


def parser_fn(serialized):
    features = tf.io.parse_single_example(
        serialized,
        {
            "image/encoded": tf.io.FixedLenFeature([], tf.string),
            "image/class/label": tf.io.FixedLenFeature([], tf.int64),
        })
    image = tf.io.decode_jpeg(features["image/encoded"], channels=3)
    return image, features["image/class/label"]


d = Dataset.list_files(FLAGS.pattern)
d = d.shard(FLAGS.num_workers, FLAGS.worker_index)
d = d.repeat(FLAGS.num_epochs)
d = d.shuffle(FLAGS.shuffle_buffer_size)
d = d.repeat()
d = d.interleave(tf.data.TFRecordDataset,
                 cycle_length=FLAGS.num_readers, block_length=1)
d = d.map(parser_fn, num_parallel_calls=FLAGS.num_map_threads)
