# From Keras's Sequence + model.fit usage, with an aliased Sequence import, a literal __len__ and workers=0 (batches made on the training thread).
from tensorflow.keras.utils import Sequence as KerasSequence
from tensorflow import keras
import numpy as np


class RandomBatches(KerasSequence):
    def __len__(self):
        return 100

    def __getitem__(self, idx):
        return np.random.rand(32, 16), np.random.rand(32, 1)


model = keras.Sequential([keras.layers.Dense(1, input_shape=(16,))])
model.compile("adam", "mse")
model.fit(x=RandomBatches(), epochs=3, workers=0, max_queue_size=4)
