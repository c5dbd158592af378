# From seed 003 (related: "How to define max_queue_size, workers and use_multiprocessing in keras fit_generator()"), a Sequence fed to fit_generator.
import numpy as np
import keras
from keras.utils import Sequence


class WindowSequence(Sequence):
    def __init__(self, series, batch_size):
        self.series = series
        self.batch_size = batch_size

    def __len__(self):
        return 250

    def __getitem__(self, idx):
        batch = self.series[idx * self.batch_size:(idx + 1) * self.batch_size]
        return batch, batch


model = keras.models.Sequential([keras.layers.Dense(8, input_shape=(8,))])
model.compile("adam", "mse")
model.fit_generator(WindowSequence(np.zeros((16000, 8)), 64),
                    epochs=5,
                    workers=8,
                    use_multiprocessing=False)
