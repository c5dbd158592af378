# From seed 002 (CSCS course), the ImageNet decoding lab with the fused-transformation slides (shuffle_and_repeat, map_and_batch, prefetch).
import tensorflow.compat.v1 as tf


def parse_imagenet(record):
    features = tf.parse_single_example(record, features={
        "image/encoded": tf.FixedLenFeature([], tf.string),
        "image/class/label": tf.FixedLenFeature([], tf.int64),
    })
    image = tf.image.decode_jpeg(features["image/encoded"], channels=3)
    image = tf.image.resize_images(image, (224, 224))
    return image, features["image/class/label"]


dataset = tf.data.TFRecordDataset(
    "/scratch/snx3000/stud71/imagenet/train-00000-of-01024")
dataset = dataset.apply(tf.data.experimental.shuffle_and_repeat(
    buffer_size=1024, count=10, seed=3))
dataset = dataset.apply(tf.data.experimental.map_and_batch(parse_imagenet,
                                                           batch_size=128,
                                                           num_parallel_calls=8))
dataset = dataset.prefetch(4)
