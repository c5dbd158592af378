# From TensorFlow's guide "tf.data: Build TensorFlow input pipelines", the "Processing multiple epochs" and "Randomly shuffling input data" sections.
import tensorflow as tf

titanic_lines = tf.data.TextLineDataset("titanic.csv")
titanic_batches = titanic_lines.repeat(3).batch(128)

lines = tf.data.TextLineDataset("titanic.csv")
shuffled = lines.shuffle(buffer_size=100, seed=1).batch(10).repeat(2)
