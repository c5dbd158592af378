# keras-team/keras#19502: image_dataset_from_directory with batch_size=None and shuffle=True,
# each full-size image cropped at random before batching.
import keras
import tensorflow as tf


def random_crop(image, label):
    return tf.image.random_crop(image, (512, 512, 3)), label


ds = keras.utils.image_dataset_from_directory(
    "photos", batch_size=None, shuffle=True, image_size=(3000, 4000))
ds = ds.map(random_crop, num_parallel_calls=tf.data.AUTOTUNE).batch(16)
model.fit(ds, epochs=10)
