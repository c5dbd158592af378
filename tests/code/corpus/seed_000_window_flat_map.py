# From seed 000 ("Reading sequential data from TFRecords files"), the answer's Dataset.window() + flat_map pipeline.
import tensorflow as tf

filenames = tf.data.Dataset.list_files("/data/video/frames-*.tfrecord")


def parse_frame(record):
    return tf.io.parse_single_example(record, {
        "frame": tf.io.FixedLenFeature([], tf.string),
        "label": tf.io.FixedLenFeature([], tf.int64),
    })


# Define a function that will be applied to each filename, and return the sequences in that
# file.
def get_examples_from_file(filename):
    examples = tf.data.TFRecordDataset(filename).map(parse_frame)
    # Selects a sliding window of 10 examples, shifting along 1 example at a time.
    sequences = examples.window(size=10, shift=1, drop_remainder=True)
    return sequences.map(
        lambda d: tf.data.experimental.get_single_element(d.batch(10)))


sequences = filenames.flat_map(get_examples_from_file)
