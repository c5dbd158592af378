# From Keras/TensorFlow tf.data + model.fit usage (MNIST), the training pipeline picked with --pipeline although evaluate comes last.
import tensorflow as tf

(x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(60000)
            .batch(128)
            .prefetch(tf.data.AUTOTUNE))
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(256)

model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(train_ds, epochs=5)
model.evaluate(test_ds)
