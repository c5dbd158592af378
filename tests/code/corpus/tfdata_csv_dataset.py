# From TensorFlow's tutorial "Load CSV data", the low-level CsvDataset: every column a float
# with its default, the header line skipped, then a shuffle, batches and prefetching.
import tensorflow as tf

font_files = ["fonts/AGENCY.csv", "fonts/ARIAL.csv"]
font_column_types = [float()] * 12
simple_font_ds = tf.data.experimental.CsvDataset(
    font_files,
    record_defaults=font_column_types,
    header=True)
ds = simple_font_ds.shuffle(1000).batch(64).prefetch(tf.data.AUTOTUNE)
