# tensorflow/models#7725, "train object detect model error": an object-detection input decodes
# each COCO image and resizes it to 640×640, then shuffles 2048 of them. The log shows
# "Filling up shuffle buffer (this may take a while): 1359 of 2048", "Shuffle buffer filled.",
# then "Killed". The answers: the machine runs out of RAM; decrease the shuffle buffer (1024).
# Each element is a float32 image of 4.9 MB: 2048 of them are 10 GB, on a machine of 8 GB.
# Shuffled before the map, the same buffer holds the encoded records (160 KB each: 328 MB).
# pipescope: read.records=118000 read.record_bytes=160KB budget.ram_bytes=8GB budget.cpu_cores=4 train_step.step_time=400ms
import tensorflow as tf


def decode(serialized):
    ex = tf.io.parse_single_example(serialized, {
        "image/encoded": tf.io.FixedLenFeature([], tf.string),
        "image/object/class/label": tf.io.VarLenFeature(tf.int64),
    })
    image = tf.io.decode_jpeg(ex["image/encoded"], channels=3)
    image = tf.image.resize(image, [640, 640])
    return image, ex["image/object/class/label"]


files = tf.data.Dataset.list_files("data/coco_train.record-*-of-00100")
dataset = tf.data.TFRecordDataset(files)
dataset = dataset.map(decode, num_parallel_calls=4)
dataset = dataset.shuffle(2048)
dataset = dataset.repeat()
dataset = dataset.batch(8)
dataset = dataset.prefetch(2)
