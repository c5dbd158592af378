# From seed 000 ("Why is TensorFlow's tf.data.Dataset.shuffle so slow?"), the answer's shuffle-the-file-names pipeline.
import tensorflow as tf

filenames = tf.constant(["img/0001.jpg", "img/0002.jpg", "img/0003.jpg"])
labels = tf.constant([0, 1, 1])
batch_size = 64


def _parse_function(filename, label):
    image_string = tf.read_file(filename)
    image_decoded = tf.image.decode_image(image_string)
    image_resized = tf.image.resize_images(image_decoded, [28, 28])
    return image_resized, label


dataset = tf.data.Dataset.from_tensor_slices((filenames, labels))
dataset = dataset.shuffle(len(filenames))  # shuffle file names
dataset = dataset.map(_parse_function)
dataset = dataset.batch(batch_size)
