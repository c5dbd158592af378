# From seed 002 (CSCS course "Input pipelines with TensorFlow's tf.data API"), the Extract/Transform/Load slide.
import tensorflow.compat.v1 as tf

# Extract
dataset = tf.data.TFRecordDataset("./train.tfrecords")
# Transform
dataset = dataset.shuffle(1000)
dataset = dataset.batch(64)
dataset = dataset.repeat(100)
# Load
iterator = dataset.make_one_shot_iterator()
next_item = iterator.get_next()

with tf.Session() as sess:
    try:
        while True:
            features, label = sess.run(next_item)
    except tf.errors.OutOfRangeError:
        print('The dataset ran out of entries!')
