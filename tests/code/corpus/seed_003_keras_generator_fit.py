# From seed 003 ("What does the use_multiprocessing input argument in keras model.fit do?"), an LSTM autoencoder fed by a generator.
import numpy as np
from tensorflow import keras

x_train = np.load("sequences.npy")  # (n, timesteps, features)


def batch_generator(x, batch_size=32):
    while True:
        idx = np.random.randint(0, len(x), batch_size)
        yield x[idx], x[idx]


model = keras.Sequential([
    keras.layers.LSTM(64, input_shape=(30, 8)),
    keras.layers.RepeatVector(30),
    keras.layers.LSTM(64, return_sequences=True),
    keras.layers.TimeDistributed(keras.layers.Dense(8)),
])
model.compile(optimizer="adam", loss="mse")
model.fit(batch_generator(x_train),
          steps_per_epoch=200,
          epochs=10,
          workers=4,                 # processes (use_multiprocessing) preparing batches
          use_multiprocessing=True,
          max_queue_size=20)
