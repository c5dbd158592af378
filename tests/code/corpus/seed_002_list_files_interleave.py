# From seed 002 (CSCS course), the list_files + interleave(block_length=2) slides and the map/filter batch-by-batch slide.
import tensorflow as tf


def dataset_reader(filename):
    return tf.data.TFRecordDataset(filename)


def change_color(images):
    return tf.image.adjust_hue(images, 0.2)


# listing input files
dataset = tf.data.Dataset.list_files(['file_1', 'file_2'], shuffle=False)
# interleaving with block length 2
dataset = dataset.interleave(dataset_reader, cycle_length=2, block_length=2)
# Group data in batches of 4 components
dataset = dataset.batch(4)
dataset = dataset.map(change_color)
