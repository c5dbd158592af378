# CSV lines read with TextLineDataset from files a glob finds when the code runs (the "Consuming CSV data" pattern of TensorFlow's guide, with the file list computed), header skipped, parsed in parallel.
import glob
import os

import tensorflow as tf

DATA_DIR = os.environ.get("DATA_DIR", "/data/csv")
csv_files = sorted(glob.glob(os.path.join(DATA_DIR, "*.csv")))


def parse_line(line):
    fields = tf.io.decode_csv(line, record_defaults=[[0.0]] * 8)
    return tf.stack(fields[:-1]), fields[-1]


lines = tf.data.TextLineDataset(csv_files).skip(1)
lines = lines.map(parse_line, num_parallel_calls=tf.data.AUTOTUNE)
lines = lines.batch(256).prefetch(tf.data.AUTOTUNE)
