# tensorflow/tensorflow#40502, "Tensorflow's FixedLengthRecordDataset reads binary file
# significantly slower than pure Python": four files of 400,000 records of 10 bytes each (a
# k-mer and its count), read with FixedLengthRecordDataset and timed by a loop that does
# nothing with them. The reads are not the limit: the loop's next() in eager Python is paid
# once per 10-byte record. Batch the dataset before the loop, next() then once a batch.
# pipescope: read.records=1600000
import time
from pathlib import Path

import tensorflow as tf

filepaths = [str(fp) for fp in Path('.').glob('file_*.gerbil')]


def time_parallel_reads_4():
    dataset = tf.data.FixedLengthRecordDataset(filepaths, record_bytes=10, num_parallel_reads=4)
    dataset = dataset.skip(10000)

    start_time = time.time()
    for r in dataset:
        _ = r
    print(f'time_ParallelReads_4: {time.time() - start_time}')


time_parallel_reads_4()
