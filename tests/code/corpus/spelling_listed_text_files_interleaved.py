# list_files of a pattern a flag gives, each file's lines read by TextLineDataset inside an interleave with its header skipped (the pattern of TensorFlow's CSV questions).
import tensorflow as tf

files = tf.data.Dataset.list_files(FLAGS.pattern, shuffle=True)
rows = files.interleave(
    lambda f: tf.data.TextLineDataset(f).skip(1),
    cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
rows = rows.map(parse_csv, num_parallel_calls=4).batch(32)
