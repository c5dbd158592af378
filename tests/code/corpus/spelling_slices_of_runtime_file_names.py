# File names from a flag, sliced into a dataset and read by an interleave of TFRecordDatasets (the official models' input functions before list_files).
import tensorflow as tf

flags = tf.compat.v1.flags
FLAGS = flags.FLAGS

filenames = tf.io.gfile.glob(FLAGS.train_files)
dataset = tf.data.Dataset.from_tensor_slices(filenames)
dataset = dataset.shuffle(buffer_size=len(filenames))
dataset = dataset.interleave(
    tf.data.TFRecordDataset,  # one reader per file
    cycle_length=8,
    num_parallel_calls=tf.data.experimental.AUTOTUNE)
dataset = dataset.map(parse_record, num_parallel_calls=8)
dataset = dataset.batch(128, drop_remainder=True)
dataset = dataset.prefetch(2)
