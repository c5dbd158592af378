# From TensorFlow's tutorial "Load CSV data": make_csv_dataset over the Titanic CSV, in
# batches of 5 with the label column apart, for a Keras model to train on.
import tensorflow as tf

titanic_file_path = "titanic_train.csv"
titanic_csv_ds = tf.data.experimental.make_csv_dataset(
    titanic_file_path,
    batch_size=5,  # Artificially small to make examples easier to show.
    label_name='survived',
    num_epochs=1,
    ignore_errors=True,)

model.fit(titanic_csv_ds, epochs=20)
