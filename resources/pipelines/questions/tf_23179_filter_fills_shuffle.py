# tensorflow/tensorflow#23179 (from tensorflow/minigo#520): a filter with a random predicate
# samples 1% of a repeating dataset, then a 100000-element shuffle buffer has to fill:
# "Filling up shuffle buffer" takes up to a minute. jsimsa (maintainer): the predicate is a
# function call for every input element, 100 for each one kept; fuse filter(random_uniform <
# rate) into one sampling op (PR #25384). Pipescope: filter busy 95%, 1,061 elements/s, the
# buffer full after 94 s (9 µs a call standing in for tf.data's dispatch); its advice leads
# with that sampling op (filter_with_random_uniform_fusion in the options): 12,950 elements/s
# and the first step after 7.7 s predicted.
import tensorflow as tf

rate = 0.01

datasetF = tf.data.Dataset.range(10000)
datasetF = datasetF.repeat()
datasetF = datasetF.filter(lambda x: tf.less(tf.random_uniform([1]), rate)[0])
datasetF = datasetF.shuffle(buffer_size=100000)
iterator = datasetF.make_one_shot_iterator()
next_element = iterator.get_next()

with tf.Session() as sess:
    for i in range(1000):
        sess.run(next_element)
