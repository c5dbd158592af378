# tensorflow/models#7127 "Slow ImageNet/ResNet50 training when reading data from Google Cloud
# Storage": official/resnet (TF 1.14), 8xV100, 16 CPUs, batch 256. From gs:// at most 1.2 steps/s,
# with cycle_length=16, num_parallel_calls=16 or higher; 7 steps/s from local disk, and from gs://
# with parallel_interleave(TFRecordDataset, cycle_length=64, sloppy=True).
import os
import tensorflow as tf

_NUM_TRAIN_FILES = 1024
_SHUFFLE_BUFFER = 10000
_DEFAULT_IMAGE_SIZE = 224
_NUM_CHANNELS = 3


def get_filenames(is_training, data_dir):
  if is_training:
    return [os.path.join(data_dir, 'train-%05d-of-01024' % i)
            for i in range(_NUM_TRAIN_FILES)]
  else:
    return [os.path.join(data_dir, 'validation-%05d-of-00128' % i)
            for i in range(128)]


def _parse_example_proto(example_serialized):
  feature_map = {
      'image/encoded': tf.io.FixedLenFeature([], dtype=tf.string, default_value=''),
      'image/class/label': tf.io.FixedLenFeature([], dtype=tf.int64, default_value=-1),
      'image/object/bbox/xmin': tf.io.VarLenFeature(dtype=tf.float32),
      'image/object/bbox/ymin': tf.io.VarLenFeature(dtype=tf.float32),
      'image/object/bbox/xmax': tf.io.VarLenFeature(dtype=tf.float32),
      'image/object/bbox/ymax': tf.io.VarLenFeature(dtype=tf.float32),
  }
  features = tf.io.parse_single_example(serialized=example_serialized, features=feature_map)
  label = tf.cast(features['image/class/label'], dtype=tf.int32)
  xmin = tf.expand_dims(features['image/object/bbox/xmin'].values, 0)
  ymin = tf.expand_dims(features['image/object/bbox/ymin'].values, 0)
  xmax = tf.expand_dims(features['image/object/bbox/xmax'].values, 0)
  ymax = tf.expand_dims(features['image/object/bbox/ymax'].values, 0)
  bbox = tf.concat([ymin, xmin, ymax, xmax], 0)
  bbox = tf.expand_dims(bbox, 0)
  bbox = tf.transpose(a=bbox, perm=[0, 2, 1])
  return features['image/encoded'], label, bbox


def preprocess_image(image_buffer, bbox, output_height, output_width, num_channels, is_training=False):
  sample_distorted_bounding_box = tf.image.sample_distorted_bounding_box(
      tf.image.extract_jpeg_shape(image_buffer),
      bounding_boxes=bbox, min_object_covered=0.1,
      aspect_ratio_range=[0.75, 1.33], area_range=[0.05, 1.0],
      max_attempts=100, use_image_if_no_bounding_boxes=True)
  bbox_begin, bbox_size, _ = sample_distorted_bounding_box
  offset_y, offset_x, _ = tf.unstack(bbox_begin)
  target_height, target_width, _ = tf.unstack(bbox_size)
  crop_window = tf.stack([offset_y, offset_x, target_height, target_width])
  cropped = tf.image.decode_and_crop_jpeg(image_buffer, crop_window, channels=num_channels)
  cropped = tf.image.random_flip_left_right(cropped)
  image = tf.compat.v1.image.resize(cropped, [output_height, output_width],
                                    method=tf.image.ResizeMethod.BILINEAR,
                                    align_corners=False)
  image.set_shape([output_height, output_width, num_channels])
  return image


def parse_record(raw_record, is_training, dtype):
  image_buffer, label, bbox = _parse_example_proto(raw_record)
  image = preprocess_image(
      image_buffer=image_buffer, bbox=bbox,
      output_height=_DEFAULT_IMAGE_SIZE, output_width=_DEFAULT_IMAGE_SIZE,
      num_channels=_NUM_CHANNELS, is_training=is_training)
  image = tf.cast(image, dtype)
  return image, label


def input_fn(is_training, data_dir, batch_size, num_epochs=1, dtype=tf.float32,
             parse_record_fn=parse_record, drop_remainder=False):
  filenames = get_filenames(is_training, data_dir)
  dataset = tf.data.Dataset.from_tensor_slices(filenames)

  if is_training:
    dataset = dataset.shuffle(buffer_size=_NUM_TRAIN_FILES)

  dataset = dataset.interleave(
      tf.data.TFRecordDataset,
      cycle_length=16,
      num_parallel_calls=16)

  # resnet_run_loop.process_record_dataset
  dataset = dataset.prefetch(buffer_size=batch_size)
  if is_training:
    dataset = dataset.shuffle(buffer_size=_SHUFFLE_BUFFER)
  dataset = dataset.repeat(num_epochs)
  dataset = dataset.map(
      lambda value: parse_record_fn(value, is_training, dtype),
      num_parallel_calls=tf.data.experimental.AUTOTUNE)
  dataset = dataset.batch(batch_size, drop_remainder=drop_remainder)
  dataset = dataset.prefetch(buffer_size=tf.data.experimental.AUTOTUNE)
  return dataset


ds = input_fn(True, 'gs://my-bucket/imagenet', 256, num_epochs=300)
