# keras-team/keras#2730 "Improving the speed of fit_generator": a generator that reads each
# batch from an HDF5 file for a shallow network, so reading is the limit. Its threads
# (workers=4 without use_multiprocessing) take turns at the generator's next(): Keras runs a
# generator one call at a time, so more threads make no more batches. The accepted fix ran
# it in processes (pickle_safe=True, Keras 2's use_multiprocessing=True: merged as #3049),
# about twice as fast for the asker; a keras.utils.Sequence avoids the repeated batches that
# copies of a generator in processes give.
# pipescope: fit.cost=5ms fit.wait=10ms train_step.step_time=5ms budget.cpu_cores=8
import h5py
import numpy as np
from keras.layers import Activation, Conv2D, Dense, Flatten
from keras.models import Sequential


def batch_generator(h5_path, batch_size=32):
    n = 50000
    while True:
        for start in range(0, n, batch_size):
            with h5py.File(h5_path, "r") as f:
                x = f["data"][start:start + batch_size].astype(np.float32) / 255.
                y = f["label"][start:start + batch_size]
            yield x, y


model = Sequential()
model.add(Conv2D(32, (3, 3), input_shape=(32, 32, 3)))
model.add(Activation("relu"))
model.add(Flatten())
model.add(Dense(10))
model.add(Activation("softmax"))
model.compile(optimizer="adam", loss="categorical_crossentropy")

model.fit_generator(batch_generator("data/train.h5", 32),
                    steps_per_epoch=50000 // 32,
                    epochs=10,
                    workers=4,
                    max_queue_size=10)
