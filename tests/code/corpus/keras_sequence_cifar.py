# From Keras's tf.keras.utils.Sequence docstring (CIFAR10Sequence) with model.fit(workers=..., use_multiprocessing=...).
import math

import numpy as np
import tensorflow as tf
from skimage.io import imread
from skimage.transform import resize


class CIFAR10Sequence(tf.keras.utils.Sequence):

    def __init__(self, x_set, y_set, batch_size):
        self.x, self.y = x_set, y_set
        self.batch_size = batch_size

    def __len__(self):
        return math.ceil(len(self.x) / self.batch_size)

    def __getitem__(self, idx):
        low = idx * self.batch_size
        # Cap upper bound at array length; the last batch may be smaller
        # if the total number of items is not a multiple of batch size.
        high = min(low + self.batch_size, len(self.x))
        batch_x = self.x[low:high]
        batch_y = self.y[low:high]
        return np.array([
            resize(imread(file_name), (200, 200))
            for file_name in batch_x]), np.array(batch_y)


x_paths = ["img_%05d.png" % i for i in range(50000)]
y = np.zeros(50000)
train_seq = CIFAR10Sequence(x_paths, y, batch_size=64)

model = tf.keras.applications.ResNet50(weights=None, input_shape=(200, 200, 3), classes=10)
model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
model.fit(train_seq, epochs=10, workers=6, use_multiprocessing=True)
