# From TensorFlow's guides "Load and preprocess images" / "Data augmentation" (tf.image ops in Dataset.map), with positional num_parallel_calls.
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
IMG_SIZE = 180


def resize_and_rescale(image, label):
  image = tf.cast(image, tf.float32)
  image = tf.image.resize(image, [IMG_SIZE, IMG_SIZE])
  image = (image / 255.0)
  return image, label


def augment(image, label):
  image = tf.image.random_crop(image, size=[160, 160, 3])
  image = tf.image.random_flip_left_right(image)
  return image, label


ds = tf.data.Dataset.from_tensor_slices(["daisy/1.jpg", "roses/2.jpg", "tulips/3.jpg"])
ds = ds.map(lambda p: tf.io.decode_jpeg(tf.io.read_file(p)), num_parallel_calls=AUTOTUNE)
ds = ds.map(lambda x: (x, 0))
ds = ds.map(resize_and_rescale, AUTOTUNE)   # num_parallel_calls by position
ds = ds.map(augment, num_parallel_calls=AUTOTUNE)
ds = ds.map(lambda x, y: (tf.image.per_image_standardization(x), y))
ds = ds.batch(32).prefetch(AUTOTUNE)
