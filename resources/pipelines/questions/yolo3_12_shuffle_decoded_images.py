# aloyschen/tensorflow-yolo3#12, "is there a efficient way to shuffle the data?": the reader
# decodes each JPEG and resizes it to 416×416 in its map, then
# `dataset.repeat().shuffle(70000).batch(batch_size).prefetch(batch_size)`. Training stops at
# "Filling up shuffle buffer (this may take a while): 46287 of 70000" with no more logs. The
# answer given, shuffle(1024), the asker refused: it shuffles far less. tensorflow#32376's
# maintainer: a buffer that does not fit memory cannot be used; use a smaller one. Each
# element here is a float32 image of 2 MB: 70000 of them are 145 GB. Shuffled before the
# map, the same buffer holds the encoded records (100 KB each: 7 GB), and the whole shuffle
# stays.
# pipescope: budget.cpu_cores=16 budget.ram_bytes=64GB train_step.step_time=100ms read.records=117266 read.record_bytes=100KB
import tensorflow as tf


def parser(serialized_example):
    features = tf.parse_single_example(
        serialized_example,
        features={
            "image/encoded": tf.FixedLenFeature([], dtype=tf.string),
            "image/object/bbox/xmin": tf.VarLenFeature(dtype=tf.float32),
            "image/object/bbox/xmax": tf.VarLenFeature(dtype=tf.float32),
            "image/object/bbox/ymin": tf.VarLenFeature(dtype=tf.float32),
            "image/object/bbox/ymax": tf.VarLenFeature(dtype=tf.float32),
            "image/object/bbox/label": tf.VarLenFeature(dtype=tf.float32),
        },
    )
    image = tf.image.decode_jpeg(features["image/encoded"], channels=3)
    image = tf.image.convert_image_dtype(image, tf.uint8)
    image = tf.image.resize_images(image, [416, 416])
    image = image / 255.0
    xmin = tf.expand_dims(features["image/object/bbox/xmin"].values, axis=0)
    label = tf.expand_dims(features["image/object/bbox/label"].values, axis=0)
    bbox = tf.concat(axis=0, values=[xmin, label])
    return image, bbox


batch_size = 16
dataset = tf.data.TFRecordDataset(filenames=["train.tfrecords"])
dataset = dataset.map(parser, num_parallel_calls=10)
dataset = dataset.repeat().shuffle(70000).batch(batch_size).prefetch(batch_size)
iterator = dataset.make_one_shot_iterator()
