// import-code on code from real questions about slow pipelines, written as their askers
// wrote it: what each reads as, and the notes that say what the figures leave out.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "app/code/code_emit.h"
#include "app/code/code_import.h"
#include "app/code/code_patch.h"
#include "app/code/example_size.h"
#include "engine/spec/spec_validator.h"
#include "engine/work/work_registry.h"

namespace pipescope::code {
namespace {

ImportedCode Import(const std::string& source) {
  auto c = ImportCode(source, "question.py");
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return {};
  const engine::Status valid = engine::ValidateSpec(c->spec, "question.py");
  EXPECT_TRUE(valid.ok()) << valid.message();
  return std::move(c).value();
}

std::string Notes(const ImportedCode& c) {
  std::string s;
  for (const CodeNote& n : c.notes) s += FormatNote("question.py", n) + "\n";
  return s;
}

// `code` read with its one `%s` replaced by `part`: a file tried with a line's variants.
ImportedCode ImportWith(std::string code, const std::string& part) {
  code.replace(code.find("%s"), 2, part);
  return Import(code);
}

bool Says(const ImportedCode& c, const std::string& part) {
  return Notes(c).find(part) != std::string::npos;
}

// tensorflow#40755: a tf.function method mapped over a dataset (`map(self.compute)`) does an
// rfft, which tf.data runs on the CPU where the asker's loop ran it on the GPU. The map is
// the method (its name, its calls), the note says where the math runs, and the slices are
// the rows of tf.random.uniform((1000, 2**16)).
TEST(CodeQuestionsTest, AMappedMethodsGpuMathIsSaidToRunOnTheCpu) {
  const ImportedCode c = Import(R"(import tensorflow as tf

class Test:
    @tf.function
    def compute(self, tensor):
        res = 100 * tensor
        res = tf.signal.rfft(res)
        return tf.math.abs(res)

    def run(self):
        tensors = tf.random.uniform((1000, 2**16))
        dataset = tf.data.Dataset.from_tensor_slices(tensors)
        dataset = dataset.map(self.compute)
        for res in dataset:
            pass

Test().run()
)");
  ASSERT_EQ(c.spec.ops_size(), 1) << c.spec.DebugString();
  EXPECT_EQ(c.spec.ops(0).name(), "compute");
  EXPECT_EQ(c.spec.source().from_tensor_slices().count(), 1000) << Notes(c);
  EXPECT_TRUE(Says(c, "'compute' calls tf.signal.rfft: tf.data runs a map's function on the CPU"))
      << Notes(c);
  // Nothing an accelerator does faster: no such note.
  const ImportedCode parse = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.range(100).map(lambda x: tf.cast(x, tf.float32) * 2)
)");
  EXPECT_FALSE(Says(parse, "runs a map's function on the CPU")) << Notes(parse);
}

// tensorflow#13610: VGG-16's features extracted in a map, under tf.device("/gpu:0"), CPU at
// 1000% and the GPU idle. The network's call is said to run on the CPU whatever tf.device
// says; the model the loop builds on get_next() (a dense layer, its loss and optimizer) is
// the step's, not work to move into a map.
TEST(CodeQuestionsTest, ANetworkInAMapIsSaidToRunOnTheCpuWhateverItsDevice) {
  const ImportedCode c = Import(R"(import tensorflow as tf
from tensorflow.contrib.slim.nets import vgg

def extract_feats(image):
  with tf.device("/gpu:0"):
    _, end_points = vgg.vgg_16(tf.expand_dims(image, 0), is_training=False)
    feats = tf.reduce_mean(end_points['vgg_16/conv5/conv5_3'], axis=[1, 2])
  return feats

features = tf.data.TFRecordDataset(["/data/images.tfrecord"])
features = features.map(lambda r: tf.to_float(tf.image.decode_jpeg(r)))
features = features.map(extract_feats)
features = features.batch(32).repeat()
next_feats = features.make_one_shot_iterator().get_next()
logits = tf.layers.dense(tf.reshape(next_feats, [32, -1]), 10)
train_op = tf.train.AdamOptimizer().minimize(tf.reduce_mean(logits))
with tf.Session() as sess:
  for step in range(100000):
    sess.run(train_op)
)");
  EXPECT_TRUE(Says(c,
                   "'extract_feats' calls tf.contrib.slim.nets.vgg.vgg_16: tf.data runs a map's "
                   "function on the CPU, whatever devices the machine has and whatever tf.device "
                   "the function names"))
      << Notes(c);
  EXPECT_FALSE(Says(c, "TensorFlow ops on each element")) << Notes(c);
  // Keras's applications too (tf.keras. read as keras.), not their preprocess_input.
  const ImportedCode keras = Import(R"(import tensorflow as tf
base = None
def features(image):
    x = tf.keras.applications.vgg16.preprocess_input(image)
    return tf.keras.applications.VGG16(include_top=False)(x)
ds = tf.data.Dataset.list_files("/data/*.jpg").map(features)
)");
  EXPECT_TRUE(Says(keras, "'features' calls keras.applications.VGG16: tf.data runs a map's"))
      << Notes(keras);
  EXPECT_FALSE(Says(keras, "preprocess_input: tf.data")) << Notes(keras);
}

// tensorflow#40502: FixedLengthRecordDataset(..., num_parallel_reads=4) over files the code
// globs. The stand-in records are one stream, which the note says (as TFRecordDataset's),
// not a silent drop; records of the code's 10 bytes stand in.
TEST(CodeQuestionsTest, ParallelReadsOfFixedLengthRecordsAreSaidUnread) {
  const ImportedCode c = Import(R"(import tensorflow as tf
from pathlib import Path
filepaths = [str(fp) for fp in Path('.').glob('*.gerbil')]
dataset = tf.data.FixedLengthRecordDataset(filepaths, record_bytes=10, num_parallel_reads=4)
dataset = dataset.map(decode)
)");
  EXPECT_TRUE(Says(c, "question.py:4:11: num_parallel_reads=4 is not read")) << Notes(c);
  EXPECT_EQ(c.spec.source().synthetic().record_bytes(), 10);
  const ImportedCode one = Import(R"(import tensorflow as tf
dataset = tf.data.FixedLengthRecordDataset(files, record_bytes=10, num_parallel_reads=1)
)");
  EXPECT_FALSE(Says(one, "num_parallel_reads")) << Notes(one);
}

// tensorflow#40502's loop, `for r in dataset: _ = r`, takes each 10-byte record in eager
// Python: its next() is the loop's own Python (train_step.loop_python), 14 µs a component
// of the element. A custom training loop that unpacks `x, y` pays two; the same loop inside a
// tf.function is AutoGraph's, in the graph, and pays none; a DataLoader's loop none either
// (its receipt is the loader's own).
TEST(CodeQuestionsTest, AnEagerLoopOverADatasetPaysItsNextPerElement) {
  const ImportedCode timing = Import(R"(import time
import tensorflow as tf
dataset = tf.data.FixedLengthRecordDataset(filepaths, record_bytes=10)
dataset = dataset.skip(10000)
start_time = time.time()
for r in dataset:
    _ = r
print(time.time() - start_time)
)");
  EXPECT_EQ(timing.spec.train_step().loop_python(), "14us") << Notes(timing);
  EXPECT_TRUE(Says(timing,
                   "question.py:6:1: the loop takes the dataset's elements one at a "
                   "time in eager Python"))
      << Notes(timing);
  EXPECT_TRUE(Says(timing, "--set train_step.loop_python=DURATION")) << Notes(timing);
  // Its skip(10000) would empty the 10,000 records that stand in for the files: the stand-in
  // holds them and 10,000 more, so that the loop's steps are simulated.
  EXPECT_EQ(timing.spec.source().synthetic().records(), 20000) << Notes(timing);
  EXPECT_TRUE(Says(timing,
                   "the stand-in is 20000 records of 10 bytes, past the 10000 the "
                   "code skips"))
      << Notes(timing);

  const std::string custom = R"(import tensorflow as tf
ds = tf.data.Dataset.from_tensor_slices((features, labels)).batch(32)

@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                  model.trainable_variables))

%s
)";
  const ImportedCode eager =
      ImportWith(custom, "for step, (x, y) in enumerate(ds):\n    train_step(x, y)");
  EXPECT_EQ(eager.spec.train_step().loop_python(), "28us") << Notes(eager);
  EXPECT_TRUE(Says(eager, "2 components, as the code makes the element")) << Notes(eager);
  const ImportedCode compiled = ImportWith(
      custom,
      "@tf.function\ndef epoch(ds):\n    for x, y in ds:\n        train_step(x, y)\n\nepoch(ds)\n");
  EXPECT_EQ(compiled.spec.train_step().loop_python(), "") << Notes(compiled);

  const ImportedCode loader = Import(R"(import torch
loader = torch.utils.data.DataLoader(dataset, batch_size=64)
for x, y in loader:
    pass
)");
  EXPECT_EQ(loader.spec.train_step().loop_python(), "") << Notes(loader);
}

// MNIST's input (tensorflow-triplet-loss's dataset.py): a one-byte label read as a number,
// reshaped and cast in TensorFlow 1's words. Next to nothing beside the map's call, as the
// image's decode beside it: no 100 µs stand-in that would have it blamed for the pipeline.
TEST(CodeQuestionsTest, ALabelReadAsANumberIsNoWorkOfItsOwn) {
  const ImportedCode c = Import(R"(import tensorflow as tf
def decode_label(label):
    label = tf.decode_raw(label, tf.uint8)
    label = tf.reshape(label, [])
    return tf.to_int32(label)
labels = tf.data.FixedLengthRecordDataset(labels_file, 1, header_bytes=8)
labels = labels.map(decode_label)
)");
  ASSERT_EQ(c.spec.ops_size(), 1) << Notes(c);
  EXPECT_TRUE(c.spec.ops(0).map().fn().has_identity()) << c.spec.ops(0).DebugString();
  EXPECT_FALSE(Says(c, "decode_label.cost=DURATION")) << Notes(c);
}

// from_tensor_slices over arrays the code makes: each element a row of every array, whose
// bytes a shuffle of them holds (tensorflow#60599's np.arange of 50,000,000 int64s, 8 bytes
// each; MNIST's images and labels, 28×28 float32s and an int64). Arrays the run makes leave
// the size to a setting, which the note names.
TEST(CodeQuestionsTest, SlicedArraysGiveEachElementsBytes) {
  const ImportedCode arange = Import(R"(import numpy as np
import tensorflow as tf
data_size = 50000000
ds = tf.data.Dataset.from_tensor_slices(np.arange(data_size)).shuffle(data_size)
)");
  EXPECT_EQ(arange.spec.source().from_tensor_slices().count(), 50000000) << Notes(arange);
  EXPECT_EQ(arange.spec.source().from_tensor_slices().element_bytes(), 8) << Notes(arange);
  const ImportedCode pair = Import(R"(import numpy as np
import tensorflow as tf
images = np.zeros((60000, 28, 28), dtype=np.float32)
labels = np.zeros(60000, dtype=np.int64)
ds = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(60000)
)");
  EXPECT_EQ(pair.spec.source().from_tensor_slices().element_bytes(), 28 * 28 * 4 + 8)
      << Notes(pair);
  const ImportedCode unknown = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(len(features))
)");
  EXPECT_EQ(unknown.spec.source().from_tensor_slices().element_bytes(), 0) << Notes(unknown);
  EXPECT_TRUE(Says(unknown, "from_tensor_slices.element_bytes=SIZE")) << Notes(unknown);
}

// tensorflow#37093: TFRecord files the code names (data/file_0.tfrecord .. 9, a comprehension
// over a range), not here, whose count and size the asker gave with --set. The stand-in's
// count and size are notes of their own, which the settings answer, and the note on the
// files stays: no note says 10,000 records of 10240 bytes after they are set. Where the code
// computes the files from what it does not show, the same.
TEST(CodeQuestionsTest, SettingTheStandInsSizeAnswersItsNoteAndKeepsTheFilesOne) {
  for (const std::string files : {"[\"data/file_{}.tfrecord\".format(i) for i in range(10)]",
                                  "tf.io.gfile.glob(FLAGS.data)"}) {
    ImportedCode c = Import("import tensorflow as tf\nfiles = " + files +
                            "\nds = tf.data.TFRecordDataset(files).map(parse).batch(512)\n");
    EXPECT_TRUE(Says(c, "10000 records") || Says(c, "10000 synthetic records")) << Notes(c);
    EXPECT_TRUE(Says(c, "10240 bytes") || Says(c, "10 KiB")) << Notes(c);
    ASSERT_TRUE(SetCodeKnob(c, "read.records=2100830").ok());
    ASSERT_TRUE(SetCodeKnob(c, "read.record_bytes=600").ok());
    EXPECT_FALSE(Says(c, "10000 records") || Says(c, "10000 synthetic records")) << Notes(c);
    EXPECT_FALSE(Says(c, "10240 bytes") || Says(c, "10 KiB")) << Notes(c);
    EXPECT_TRUE(Says(c, "--set read.files=PATTERN reads real files")) << Notes(c);
    EXPECT_EQ(c.spec.source().synthetic().records(), 2100830);
  }
}

// The stand-in records are an Example of the features the pipeline parses: 134 floats and a
// label, 580 bytes, not 10 KiB. The figures are protoc's: `protoc --encode=Example` of
// TensorFlow's example.proto (packed lists) over such an Example, counted with `wc -c`.
TEST(CodeQuestionsTest, StandInRecordsAreTheSizeOfTheExamplesParsed) {
  const auto feature = [](spec::ParseExample& parse, const std::string& name,
                          const std::string& dtype, const std::vector<int64_t>& shape) {
    spec::FeatureSpec* f = parse.add_features();
    f->set_name(name);
    f->set_dtype(dtype);
    for (const int64_t d : shape) f->add_shape(d);
  };
  spec::ParseExample floats;
  feature(floats, "features", "float", {134});
  feature(floats, "label", "float", {1});
  EXPECT_EQ(EncodedExampleBytes(floats), 580);
  // 784 int64 of two-byte varints (200), an int64 label of 300 and a scalar float.
  spec::ParseExample ints;
  feature(ints, "image_raw", "int64", {784});
  feature(ints, "label", "int64", {});
  feature(ints, "weight", "float", {});
  EXPECT_EQ(EncodedExampleBytes(ints), 1631);
  // A feature of bytes has no size in the code.
  feature(ints, "image/encoded", "bytes", {});
  EXPECT_EQ(EncodedExampleBytes(ints), std::nullopt);

  const ImportedCode c = Import(R"(import tensorflow as tf
features = {"features": tf.io.FixedLenFeature([134], tf.float32),
            "label": tf.io.FixedLenFeature([1], tf.float32)}
def parse(serialized):
    return tf.io.parse_single_example(serialized, features)
ds = tf.data.TFRecordDataset(files).map(parse).batch(512)
)");
  EXPECT_EQ(c.spec.source().synthetic().record_bytes(), 580);
  EXPECT_TRUE(Says(c,
                   "the stand-in is 10000 records of 580 bytes, an Example of the features "
                   "'parse' parses"))
      << Notes(c);
  // Files named but not here: how their records are read says the same size (it said the
  // 10 KiB stand-in's, tensorflow#37093's files).
  const ImportedCode named = Import(R"(import tensorflow as tf
features = {"features": tf.io.FixedLenFeature([134], tf.float32),
            "label": tf.io.FixedLenFeature([1], tf.float32)}
def parse(serialized):
    return tf.io.parse_single_example(serialized, features)
ds = tf.data.TFRecordDataset(["data_%d.tfrecord" % i for i in range(10)]).map(parse)
)");
  EXPECT_TRUE(Says(named, "' is 580 bytes, read as fast as memory gives them")) << Notes(named);
  EXPECT_FALSE(Says(named, "10240 bytes")) << Notes(named);
}

// `if self.cache and os.path.exists(p):` on a dataset made with cache=False is false whatever
// the path (ClinicalDG#2's dataset): the else branch, which decodes the JPEG, is the one read.
// `x or True` is true whatever x.
TEST(CodeQuestionsTest, AConditionTheKnownPartSettlesIsNotGuessed) {
  const std::string code = R"(import os, pickle, torch
from PIL import Image
from torch.utils.data import Dataset, DataLoader

class Images(Dataset):
    def __init__(self, paths, cache=False):
        self.paths = paths
        self.cache = cache
    def __len__(self):
        return len(self.paths)
    def __getitem__(self, idx):
        if %s:
            img = pickle.load(open(self.paths[idx] + '.pkl', 'rb'))
        else:
            img = Image.open(self.paths[idx]).convert('RGB')
        return torch.zeros(3)

loader = DataLoader(Images(['a.jpg'] * 1000, cache=False), batch_size=32, num_workers=2)
for x in loader:
    pass
)";
  const auto with = [&](const std::string& condition) { return ImportWith(code, condition); };
  EXPECT_TRUE(Says(with("self.cache and os.path.exists(self.paths[idx])"), "decodes an image"));
  EXPECT_FALSE(Says(with("not self.cache"), "decodes an image"));
  EXPECT_FALSE(Says(with("os.path.exists(self.paths[idx]) or True"), "decodes an image"));
  EXPECT_FALSE(Says(with("os.path.exists(self.paths[idx]) and True"), "decodes an image"))
      << "unknown and true: unknown, read as true, the first branch";
}

// mmpose#923's DistributedSampler: one process of the job takes 1/world_size of the indices,
// shuffled. With the replicas in the code, the spec is that share (ceil, as PyTorch pads);
// with the job's world size, a note says the spec is over all of them and how to set it.
TEST(CodeQuestionsTest, ADistributedSamplersProcessTakesItsShare) {
  const std::string code = R"(import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

class Items(Dataset):
    def __len__(self):
        return 18727
    def __getitem__(self, i):
        return torch.zeros(3)

dataset = Items()
sampler = DistributedSampler(dataset, %s)
loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=2)
for x in loader:
    pass
)";
  const auto with = [&](const std::string& replicas) { return ImportWith(code, replicas); };
  const ImportedCode eight = with("num_replicas=8");
  EXPECT_EQ(eight.spec.source().range().stop(), 2341) << "ceil(18727 / 8)";
  EXPECT_TRUE(eight.spec.ops(0).dataloader().shuffle());
  EXPECT_FALSE(Says(eight, "sampler")) << Notes(eight);
  const ImportedCode world = with("dist.get_world_size(), shuffle=False");
  EXPECT_EQ(world.spec.source().range().stop(), 18727);
  EXPECT_FALSE(world.spec.ops(0).dataloader().shuffle());
  EXPECT_TRUE(Says(world, "--set dataset.stop=N (the indices divided by the processes)"))
      << Notes(world);
}

// pytorch/examples#387: ImageNet's main.py takes num_workers from `-j` (default 4), and the
// advice is 16 for a machine of 16 cores. Written back, the flag's default becomes 16 and
// `num_workers=args.workers` stays, so `-j` still sets it; where the code computes the default
// (os.cpu_count()), the argument itself is written, as before.
TEST(CodeQuestionsTest, AKnobAFlagSetsIsWrittenAsTheFlagsDefault) {
  const std::string code = R"(import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument('-j', '--workers', default=%s, type=int, metavar='N')
args = parser.parse_args()
loader = torch.utils.data.DataLoader(dataset, batch_size=256, num_workers=args.workers)
)";
  const auto tuned = [&](const std::string& default_value) {
    const ImportedCode c = ImportWith(code, default_value);
    spec::PipelineSpec advised = c.spec;
    for (auto& op : *advised.mutable_ops()) {
      if (op.has_dataloader()) op.mutable_dataloader()->set_num_workers(16);
    }
    auto written = PatchCode(c, advised);
    EXPECT_TRUE(written.ok()) << written.status().message();
    return written.ok() ? written->text : std::string();
  };
  const std::string literal = tuned("4");
  EXPECT_NE(literal.find("default=16, type=int"), std::string::npos) << literal;
  EXPECT_NE(literal.find("num_workers=args.workers)"), std::string::npos) << literal;
  const std::string computed = tuned("os.cpu_count()");
  EXPECT_NE(computed.find("default=os.cpu_count()"), std::string::npos) << computed;
  EXPECT_NE(computed.find("num_workers=16)"), std::string::npos) << computed;
}

// tensorflow/models' deeplab: _decode_image picks tf.image.decode_jpeg or decode_png by
// tf.cond(tf.image.is_jpeg(content), lambda: ..., lambda: ...). The decode in the branches is
// the map's work: it takes one image at a time, so the map cannot follow a batch (written
// back, a batched parse_a would hand decode_jpeg a vector of strings, which TensorFlow
// refuses). Read without the branches, the map was cheap parsing, and vectorising it advised.
TEST(CodeQuestionsTest, ADecodeInATfCondBranchIsTheMapsWork) {
  const std::string code = R"(import tensorflow as tf

def _decode_image(content, channels):
    return %s

def parse_a(rec):
    f = tf.io.parse_single_example(rec, {'img': tf.io.FixedLenFeature((), tf.string)})
    return _decode_image(f['img'], 3)

ds = tf.data.TFRecordDataset(['a.tfrecord']).map(parse_a).batch(8)
)";
  for (const char* branches :
       {"tf.cond(tf.image.is_jpeg(content), lambda: tf.image.decode_jpeg(content, channels), "
        "lambda: tf.image.decode_png(content, channels))",
        "tf.case([(tf.image.is_jpeg(content), lambda: tf.image.decode_jpeg(content, channels))], "
        "default=lambda: tf.image.decode_png(content, channels))"}) {
    const ImportedCode c = ImportWith(code, branches);
    ASSERT_EQ(c.spec.ops_size(), 2) << c.spec.DebugString();
    const spec::WorkFunction& fn = c.spec.ops(0).map().fn();
    EXPECT_EQ(fn.cpu_work().one_element_call(), "decode_jpeg") << branches << "\n" << Notes(c);
    EXPECT_FALSE(engine::WorkFunctionHasBatchedForm(fn)) << branches;
  }
  // Beside a branch that only relabels, the parse alone is the work, and batches.
  const ImportedCode relabel =
      ImportWith(code, "tf.cond(channels > 1, lambda: content, lambda: tf.identity(content))");
  EXPECT_TRUE(engine::WorkFunctionHasBatchedForm(relabel.spec.ops(0).map().fn()))
      << relabel.spec.DebugString();
}

// tensorflow/models#5443: official/resnet's map_and_batch(..., num_parallel_batches=1) with a
// batch of 2048 keeps 2048 calls in flight (batch_size x num_parallel_batches, tf.data's
// batching.py) on TensorFlow's pool of one thread a core: the note says the count and the
// batch it holds in flight. Written back, a tuned num_parallel_calls takes the place of
// num_parallel_batches, as TensorFlow raises a ValueError where the call is given both.
TEST(CodeQuestionsTest, MapAndBatchsParallelBatchesGiveWayToATunedNumParallelCalls) {
  const std::string code = R"(import tensorflow as tf
def parse(record):
    f = tf.io.parse_single_example(record, {'x': tf.io.FixedLenFeature([], tf.string)})
    return tf.image.decode_jpeg(f['x'], channels=3)
ds = tf.data.TFRecordDataset(['train.tfrecord'])
ds = ds.apply(tf.data.experimental.map_and_batch(%s))
)";
  const auto tuned = [&](const std::string& arguments, std::string* notes) {
    const ImportedCode c = ImportWith(code, arguments);
    *notes = Notes(c);
    spec::PipelineSpec advised = c.spec;
    for (auto& op : *advised.mutable_ops()) {
      if (op.has_map()) op.mutable_map()->set_num_parallel_calls(12);
    }
    auto written = PatchCode(c, advised);
    EXPECT_TRUE(written.ok()) << written.status().message();
    return written.ok() ? written->text : std::string();
  };
  std::string notes;
  const std::string keyword =
      tuned("parse, batch_size=2048, num_parallel_batches=1, drop_remainder=True", &notes);
  EXPECT_NE(notes.find("2048 x 1 = 2048 calls in flight"), std::string::npos) << notes;
  EXPECT_NE(notes.find("It holds 1 batch in flight"), std::string::npos) << notes;
  EXPECT_NE(keyword.find("map_and_batch(parse, batch_size=2048, num_parallel_calls=12, "
                         "drop_remainder=True))"),
            std::string::npos)
      << keyword;
  // Passed by position, it becomes None and the keyword goes at the end.
  const std::string positional = tuned("parse, 256, 4", &notes);
  EXPECT_NE(notes.find("256 x 4 = 1024 calls in flight"), std::string::npos) << notes;
  EXPECT_NE(positional.find("map_and_batch(parse, 256, None, num_parallel_calls=12))"),
            std::string::npos)
      << positional;
  // Given num_parallel_calls, that is the map's, and nothing else changes.
  const std::string given = tuned("parse, 256, num_parallel_calls=4", &notes);
  EXPECT_NE(given.find("map_and_batch(parse, 256, num_parallel_calls=12))"), std::string::npos)
      << given;
}

// transformers#14428: one pass over a DataLoader at the file's top level (`for batch in
// tqdm(loader): continue`) is one epoch. Read as a training loop's endless epochs, advice
// found persistent_workers gaining from epoch starts the program never reaches, and wrote it.
// A loop inside `for epoch in range(N):` or a def still goes over it N times, or endlessly.
TEST(CodeQuestionsTest, OnePassOverALoaderAtTheTopLevelIsOneEpoch) {
  const std::string code = R"(from torch.utils.data import Dataset, DataLoader
from tqdm import tqdm

class Sentences(Dataset):
    def __len__(self):
        return 550000
    def __getitem__(self, i):
        return "a man is walking a dog"

loader = DataLoader(Sentences(), 64, num_workers=2)
%s
)";
  const auto epochs = [&](const std::string& loop) -> int64_t {
    const ImportedCode c = ImportWith(code, loop);
    const auto& ops = c.spec.ops();
    if (ops.empty() || !ops.rbegin()->has_repeat()) return -2;
    return ops.rbegin()->repeat().has_count() ? ops.rbegin()->repeat().count() : -1;
  };
  EXPECT_EQ(epochs("for batch in tqdm(loader):\n    continue"), 1);
  EXPECT_TRUE(Says(ImportWith(code, "for batch in loader:\n    pass"),
                   "goes over the loader once, at the file's top level"));
  EXPECT_EQ(epochs("for epoch in range(3):\n    for batch in loader:\n        pass"), 3);
  EXPECT_EQ(epochs("def train():\n    for batch in loader:\n        pass\nwhile True:\n    "
                   "train()"),
            -1);
}

// minigo#520's parse after batch: the stand-in cost of a map that takes batches is a row's,
// which the engine pays on every row, and the note says so (it said "a call", and a user who
// set a call's cost got 256 times it).
TEST(CodeQuestionsTest, AStandInCostAfterABatchIsSaidToBeARows) {
  const std::string code = R"(import tensorflow as tf
def parse(x):
    return tf.io.parse_example(x, {'a': tf.io.FixedLenFeature([], tf.int64)})
ds = tf.data.TFRecordDataset(['r.tfrecord'])%s.map(parse)
)";
  const ImportedCode batched = ImportWith(code, ".batch(256)");
  EXPECT_TRUE(Says(batched,
                   "a row (it maps batches of 256 rows, and costs that on each), stands "
                   "in; --set parse.cost=DURATION sets a row's"))
      << Notes(batched);
  const ImportedCode single = ImportWith(code, "");
  EXPECT_TRUE(Says(single, " a call, stands in; --set parse.cost=DURATION sets it"))
      << Notes(single);
}

// minigo#520 read ZLIB-compressed TFRecords: the stand-in records are plain, and the note
// says the decompression is left out; the real files set then are read as compressed (they
// were read as plain, which fails on a compressed file's first record).
TEST(CodeQuestionsTest, CompressedFilesStandInsSayTheDecompressionIsLeftOutAndKeepIt) {
  const std::string code = R"(import tensorflow as tf
ds = tf.data.TFRecordDataset(%s, compression_type='ZLIB').batch(8)
)";
  ImportedCode missing = ImportWith(code, "['train.tfrecord.zz']");
  EXPECT_TRUE(Says(missing,
                   "the files are ZLIB-compressed: the synthetic records that stand in "
                   "are not, so their decompression is not counted; --set "
                   "read.files=PATTERN"))
      << Notes(missing);
  const std::string real = ::testing::TempDir() + "/compressed_question.tfrecord.zz";
  std::ofstream(real) << "x";
  ASSERT_TRUE(SetCodeKnob(missing, "read.files=" + real).ok());
  EXPECT_EQ(missing.spec.source().tfrecord().compression(), "ZLIB")
      << missing.spec.source().DebugString();
  const ImportedCode computed = ImportWith(code, "tf.io.gfile.glob('/data/*.zz')");
  EXPECT_TRUE(Says(computed, "the files are ZLIB-compressed")) << Notes(computed);
}

// A TensorFlow 1 file (official/resnet's, tensorflow/models#5443) spells AUTOTUNE
// tf.contrib.data.AUTOTUNE; code written back spells it alike, as tf.data.AUTOTUNE exists
// only from TensorFlow 2.4. A file that passes none gets tf.data.AUTOTUNE.
TEST(CodeQuestionsTest, AutotuneIsWrittenAsTheFileSpellsIt) {
  const std::string code = R"(import tensorflow as tf
def parse(x):
    return tf.io.parse_single_example(x, {'a': tf.io.FixedLenFeature([], tf.int64)})
ds = tf.data.TFRecordDataset(['r.tfrecord']).map(parse, num_parallel_calls=2).batch(8)%s
)";
  const auto written = [&](const std::string& end) {
    const ImportedCode c = ImportWith(code, end);
    spec::PipelineSpec advised = c.spec;
    for (auto& op : *advised.mutable_ops()) {
      if (op.has_map()) op.mutable_map()->set_num_parallel_calls(-1);
    }
    auto patched = PatchCode(c, advised);
    EXPECT_TRUE(patched.ok()) << patched.status().message();
    return patched.ok() ? patched->text : std::string();
  };
  for (const char* spelling : {"tf.contrib.data.AUTOTUNE", "tf.data.experimental.AUTOTUNE"}) {
    const std::string text = written(".prefetch(" + std::string(spelling) + ")");
    EXPECT_NE(text.find("map(parse, num_parallel_calls=" + std::string(spelling) + ")"),
              std::string::npos)
        << text;
  }
  const std::string plain = written("");
  EXPECT_NE(plain.find("map(parse, num_parallel_calls=tf.data.AUTOTUNE)"), std::string::npos)
      << plain;
}

// keras#12120: a Sequence whose __getitem__ slices its batch of ids and hands them to a
// helper method, which augments each sample with ImageDataGenerator.random_transform in
// `for i, ID in enumerate(ids)`. Each sample's transform is costed as flow() costs it (the
// affine transform of its side, 96×96 where the array's shape is in the code), as many as
// the batch holds: the helper is read with the batch's ids, enumerate turns once an id.
TEST(CodeQuestionsTest, ASequencesOwnRandomTransformIsCostedSampleBySample) {
  const std::string code = R"(import numpy as np
import keras
from keras.preprocessing.image import ImageDataGenerator

class DataGenerator(keras.utils.Sequence):
    def __init__(self, features, batch_size=32):
        self.batch_size = batch_size
        self.features = features
        self.indexes = np.arange(len(features))
        self.datagen = ImageDataGenerator(%s)
    def __len__(self):
        return int(np.floor(len(self.features) / self.batch_size))
    def __getitem__(self, index):
        indexes = self.indexes[index*self.batch_size:(index+1)*self.batch_size]
        list_IDs_temp = [k for k in indexes]
        return self.__data_generation(list_IDs_temp)
    def __data_generation(self, list_IDs_temp):
        X = np.empty((self.batch_size, 96, 96, 1))
        for i, ID in enumerate(list_IDs_temp):
            X[i] = self.datagen.random_transform(self.features[ID])
        return X, 0

model = keras.models.load_model('model.h5')
model.fit_generator(generator=DataGenerator(np.zeros((1000, 96, 96, 1))), epochs=1)
)";
  const ImportedCode rotated = ImportWith(code, "rotation_range=20, horizontal_flip=True");
  EXPECT_TRUE(Says(rotated,
                   "ImageDataGenerator.random_transform 1.46 ms on 96×96 (rotation_range: "
                   "scipy.ndimage) (32 samples)"))
      << Notes(rotated);
  EXPECT_FALSE(Says(rotated, "count only the run knows")) << Notes(rotated);
  ASSERT_FALSE(rotated.spec.ops().empty());
  const spec::WorkFunction& fn = rotated.spec.ops(0).keras_fit().getitem();
  EXPECT_FALSE(fn.cost_is_stand_in()) << fn.DebugString();
  // 100 us of the function's own Python and 32 × (80 us + 150 ns × 96 × 96).
  EXPECT_EQ(fn.python().duration(), "46896us");
  // A flip alone makes no affine transform: next to nothing a sample.
  const ImportedCode flipped = ImportWith(code, "horizontal_flip=True");
  EXPECT_TRUE(Says(flipped, "(no affine range set) (32 samples)")) << Notes(flipped);
}

// keras#12683: ImageDataGenerator.flow_from_dataframe with heavy augmentation over 130,000
// images is a DataFrameIterator, a Sequence that loads the files the frame names as
// flow_from_directory does. It was not read, and simulate found no pipeline at all.
TEST(CodeQuestionsTest, FlowFromDataframeIsReadAsFlowFromDirectoryIs) {
  const ImportedCode c = Import(R"(import pandas as pd
from keras.preprocessing.image import ImageDataGenerator
df = pd.read_csv('train.csv')
gen = ImageDataGenerator(rotation_range=30, zoom_range=0.2, horizontal_flip=True)
train = gen.flow_from_dataframe(dataframe=df, directory='images/', x_col='file', y_col='label',
                                target_size=(128, 128), batch_size=64)
model.fit_generator(train, epochs=5, workers=2)
)");
  ASSERT_FALSE(c.spec.ops().empty()) << Notes(c);
  EXPECT_TRUE(c.spec.ops(0).has_keras_fit()) << c.spec.DebugString();
  EXPECT_EQ(c.spec.ops(0).keras_fit().workers(), 2);
  EXPECT_TRUE(Says(c,
                   "ImageDataGenerator.flow_from_dataframe() makes each batch of 64 in "
                   "Python, sample by sample, each image loaded from its file (PIL) first"))
      << Notes(c);
  EXPECT_TRUE(Says(c, "for 128×128 here")) << Notes(c);
}

// keras#6406: code ported from Keras 1 passes the sample count as steps_per_epoch, which
// Keras 2 counts in batches: each epoch takes 32 times the data (an ETA of 10,721 s for
// 245 s). The epoch is read as written, and the note says what the name suggests; a
// division by the batch size is no count of samples.
TEST(CodeQuestionsTest, StepsPerEpochNamedAsSamplesIsSaidToCountBatches) {
  const std::string code = R"(from keras.preprocessing.image import ImageDataGenerator
nb_train_samples = 91234
batch_size = 32
datagen = ImageDataGenerator(rescale=1. / 255)
train_generator = datagen.flow_from_directory('data/train', target_size=(64, 64),
                                              batch_size=batch_size)
model.fit_generator(train_generator, steps_per_epoch=%s, epochs=10)
)";
  const ImportedCode ported = ImportWith(code, "nb_train_samples");
  EXPECT_EQ(ported.spec.source().range().stop(), 91234) << ported.spec.DebugString();
  EXPECT_TRUE(Says(ported,
                   "steps_per_epoch is `nb_train_samples` (91234), a count of samples by its "
                   "name: Keras 2 counts an epoch's steps in batches"))
      << Notes(ported);
  const ImportedCode fixed = ImportWith(code, "nb_train_samples // batch_size");
  EXPECT_EQ(fixed.spec.source().range().stop(), 2851) << fixed.spec.DebugString();
  EXPECT_FALSE(Says(fixed, "a count of samples by its name")) << Notes(fixed);
}

// tensorflow/models#7127: official/resnet reading ImageNet from gs:// (the path is the
// call's argument, joined with os.path.join in a comprehension). Files on a remote store are
// read as such wherever the path is built from one (+, %, os.path.join, f-strings,
// str.format, list_files' pattern): synthetic files that answer in requests of the reader's
// buffer, each waiting the store's latency, said as stand-ins. A local path is not remote.
TEST(CodeQuestionsTest, FilesOnARemoteStoreAreReadInRequestsThatWait) {
  const std::string code = R"(import os
import tensorflow as tf
def get_filenames(data_dir):
    return [%s for i in range(1024)]
def input_fn(data_dir):
    ds = tf.data.Dataset.from_tensor_slices(get_filenames(data_dir))
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=16, num_parallel_calls=16)
    return ds.batch(256)
ds = input_fn('gs://my-bucket/imagenet')
)";
  for (const char* path :
       {"os.path.join(data_dir, 'train-%05d-of-01024' % i)", "data_dir + '/train-%05d' % i",
        "f'{data_dir}/train-{i:05d}'", "'{}/train-{:05d}'.format(data_dir, i)"}) {
    const ImportedCode c = ImportWith(code, path);
    ASSERT_EQ(c.spec.ops_size(), 2) << path << "\n" << c.spec.DebugString();
    const auto& file = c.spec.ops(0).interleave().per_element().synthetic_file();
    EXPECT_EQ(file.read_request_bytes(), 256 * 1024) << path;
    EXPECT_GT(file.read_latency_cv(), 0) << path;
    EXPECT_FALSE(file.read_latency().empty()) << path;
    EXPECT_TRUE(file.storage_is_stand_in()) << path;
    EXPECT_TRUE(Says(c, "interleave reads files on Cloud Storage")) << path << "\n" << Notes(c);
    EXPECT_TRUE(Says(c, "--set interleave.read_latency=DURATION")) << Notes(c);
  }
  // A local path: records as the code reads them, no requests.
  std::string local = code;
  local.replace(local.find("gs://my-bucket"), 14, "/data");
  const ImportedCode on_disk = ImportWith(local, "os.path.join(data_dir, 'train-%05d' % i)");
  EXPECT_EQ(on_disk.spec.ops(0).interleave().per_element().synthetic_file().read_request_bytes(),
            0);
  EXPECT_FALSE(Says(on_disk, "reads files on"));

  // A buffer the code gives the reader is the request's size; list_files of a bucket's
  // pattern is listed only where the job runs.
  const ImportedCode buffered = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.list_files('s3://bucket/train-*.tfrecord')
ds = ds.interleave(lambda f: tf.data.TFRecordDataset(f, buffer_size=8 * 1024 * 1024),
                   cycle_length=8, num_parallel_calls=8)
)");
  ASSERT_GE(buffered.spec.ops_size(), 1) << buffered.spec.DebugString();
  EXPECT_EQ(buffered.spec.ops(0).interleave().per_element().synthetic_file().read_request_bytes(),
            8 * 1024 * 1024)
      << buffered.spec.DebugString();
  EXPECT_TRUE(Says(buffered, "reads files on S3")) << Notes(buffered);
  EXPECT_TRUE(Says(buffered, "requests of 8 MiB (its buffer_size)")) << Notes(buffered);
  EXPECT_TRUE(Says(buffered, "on S3, not listed here")) << Notes(buffered);
}

// tf.data's performance guide ("Parallelizing data extraction") and TFRecordDataset's
// docstring: files on a remote store read one after another wait on the store for every
// request; num_parallel_reads reads several at once. TFRecordDataset over a bucket's files
// is an interleave over them (as TensorFlow builds one): one file at a time without
// num_parallel_reads, that many with it, the argument the site of both knobs. The files'
// names, computed or given, are not here: synthetic files read as from the store stand in.
TEST(CodeQuestionsTest, TfRecordDatasetOfABucketsFilesReadsThemOneAfterAnother) {
  const ImportedCode globbed = Import(R"(import tensorflow as tf
files = tf.io.gfile.glob("gs://my-bucket/train-*.tfrecord")
ds = tf.data.TFRecordDataset(files).batch(32)
)");
  ASSERT_EQ(globbed.spec.ops_size(), 2) << globbed.spec.DebugString();
  EXPECT_EQ(globbed.spec.source().name(), "files");
  EXPECT_EQ(globbed.spec.source().range().stop(), 100) << "a stand-in count of files";
  EXPECT_TRUE(globbed.spec.source().size_is_stand_in());
  const auto& read = globbed.spec.ops(0).interleave();
  EXPECT_EQ(globbed.spec.ops(0).name(), "read");
  EXPECT_EQ(read.cycle_length(), 1);
  EXPECT_EQ(read.num_parallel_calls(), 0);
  EXPECT_TRUE(read.per_element().synthetic_file().storage_is_stand_in());
  EXPECT_EQ(read.per_element().synthetic_file().read_request_bytes(), 256 * 1024);
  EXPECT_TRUE(Says(globbed,
                   "TFRecordDataset's files `files` are on Cloud Storage, not here: 100 "
                   "(a stand-in count: --set files.stop=N)"))
      << Notes(globbed);
  EXPECT_TRUE(Says(globbed, "read one after another (num_parallel_reads absent)"))
      << Notes(globbed);
  EXPECT_TRUE(Says(globbed, "read reads files on Cloud Storage")) << Notes(globbed);

  // Named files, read AUTOTUNE at a time: as many as named, the cycle tuned.
  const ImportedCode named = Import(R"(import tensorflow as tf
ds = tf.data.TFRecordDataset(["s3://b/a.tfrecord", "s3://b/b.tfrecord", "s3://b/c.tfrecord"],
                             num_parallel_reads=tf.data.AUTOTUNE)
)");
  ASSERT_EQ(named.spec.ops_size(), 1) << named.spec.DebugString();
  EXPECT_EQ(named.spec.source().range().stop(), 3);
  EXPECT_FALSE(named.spec.source().size_is_stand_in());
  EXPECT_FALSE(named.spec.ops(0).interleave().has_cycle_length());
  EXPECT_EQ(named.spec.ops(0).interleave().num_parallel_calls(), -1);
  EXPECT_TRUE(Says(named, "are on S3, not here: 3 (as many as it names)")) << Notes(named);

  // A local glob is no remote store: the records stand in as one stream, as before.
  const ImportedCode local = Import(R"(import tensorflow as tf
ds = tf.data.TFRecordDataset(tf.io.gfile.glob("/data/train-*.tfrecord"))
)");
  EXPECT_TRUE(local.spec.source().has_synthetic()) << local.spec.DebugString();
  EXPECT_FALSE(Says(local, "reads files on")) << Notes(local);
}

// Written back: a tuned parallelism goes into num_parallel_reads; deterministic=False, which
// TFRecordDataset takes no argument for, goes into a tf.data.Options made before the source's
// statement (its indentation kept, a name the file does not use) and applied to the source.
TEST(CodeQuestionsTest, ABucketsReadsTunedAreWrittenAsNumParallelReadsAndOptions) {
  const std::string code = R"(import tensorflow as tf
def input_fn(options):
    files = tf.io.gfile.glob("gs://my-bucket/train-*.tfrecord")
    ds = tf.data.TFRecordDataset(files)
    return ds.batch(32)
ds = input_fn(None)
)";
  const ImportedCode c = Import(code);
  ASSERT_EQ(c.spec.ops_size(), 2) << c.spec.DebugString();
  const auto written = [&](const std::function<void(spec::InterleaveOp&)>& tune) {
    spec::PipelineSpec advised = c.spec;
    tune(*advised.mutable_ops(0)->mutable_interleave());
    auto patched = PatchCode(c, advised);
    EXPECT_TRUE(patched.ok()) << patched.status().message();
    return patched.ok() ? patched->text : std::string();
  };
  const std::string parallel = written([](spec::InterleaveOp& il) {
    il.set_num_parallel_calls(16);
    il.set_cycle_length(16);
  });
  EXPECT_NE(parallel.find("tf.data.TFRecordDataset(files, num_parallel_reads=16)\n"),
            std::string::npos)
      << parallel;
  const std::string any_order =
      written([](spec::InterleaveOp& il) { il.set_deterministic(false); });
  EXPECT_NE(any_order.find("    data_options = tf.data.Options()\n"
                           "    data_options.deterministic = False"),
            std::string::npos)
      << any_order;
  EXPECT_NE(
      any_order.find("\n    ds = tf.data.TFRecordDataset(files).with_options(data_options)\n"),
      std::string::npos)
      << any_order;
}

// tensorflow#20068: audio files on Cloud Storage, each read with tf.io.read_file in a map. The
// map waits on the store for every file, using no core: a request's stand-in latency beside
// its work, said with its setting (it was costed as CPU alone, and more num_parallel_calls
// than cores never tried).
TEST(CodeQuestionsTest, AMapThatReadsABucketsFilesWaitsOnTheStore) {
  const std::string code = R"(import tensorflow as tf
files = tf.data.Dataset.list_files('%s')
def load(path):
    return tf.audio.decode_wav(tf.io.read_file(path), desired_channels=1)[0]
ds = files.map(load, num_parallel_calls=8).batch(100)
)";
  const ImportedCode remote = ImportWith(code, "gs://my-bucket/audio/*.wav");
  ASSERT_EQ(remote.spec.ops_size(), 2) << remote.spec.DebugString();
  EXPECT_EQ(remote.spec.ops(0).map().fn().cpu_work().wait(), "50ms")
      << remote.spec.ops(0).DebugString();
  EXPECT_TRUE(Says(remote,
                   "'load' reads the file each element names (tf.io.read_file) from Cloud "
                   "Storage: each read waits on the store, using no core, 50ms standing in"))
      << Notes(remote);
  EXPECT_TRUE(Says(remote, "--set load.wait=DURATION")) << Notes(remote);
  const ImportedCode local = ImportWith(code, "/data/audio/*.wav");
  EXPECT_TRUE(local.spec.ops(0).map().fn().cpu_work().wait().empty())
      << local.spec.ops(0).DebugString();
}

// tensorflow#28130: a super-resolution model's low- and high-resolution PNGs, a pair of files
// each element names, both read in one map (`load_pair`). Each read is one of the disk, one
// after another: two stand-in files a call, said, written back as settings; from a bucket,
// two requests' waits.
TEST(CodeQuestionsTest, AMapThatReadsAPairOfFilesReadsBoth) {
  const std::string code = R"(import glob
import tensorflow as tf
lr_paths = sorted(tf.io.gfile.glob('%s/lr/*.png'))
hr_paths = sorted(tf.io.gfile.glob('%s/hr/*.png'))
def load_pair(lr_path, hr_path):
    lr = tf.image.decode_png(tf.read_file(lr_path), channels=3)
    hr = tf.image.decode_png(tf.read_file(hr_path), channels=3)
    return lr, hr
def load_views(path):
    return [tf.image.decode_png(tf.io.read_file(path + s)) for s in ('_a', '_b', '_c')]
views = tf.data.Dataset.from_tensor_slices(lr_paths).map(load_views)
dataset = tf.data.Dataset.from_tensor_slices((lr_paths, hr_paths))
dataset = dataset.map(load_pair, num_parallel_calls=32)
)";
  const auto with = [&](const std::string& dir, const std::string& more = "") {
    std::string text = code + more;
    for (size_t at; (at = text.find("%s")) != std::string::npos;) text.replace(at, 2, dir);
    return Import(text);
  };
  const ImportedCode local = with("data");
  const spec::CpuWork& pair = local.spec.ops(0).map().fn().cpu_work();
  EXPECT_EQ(pair.read_bytes(), 2 * 108000) << local.spec.DebugString();
  EXPECT_EQ(pair.read_files(), 2);
  EXPECT_TRUE(Says(local,
                   "'load_pair' reads 2 files each element names (tf.io.read_file), 108 KB each "
                   "standing in"))
      << Notes(local);
  EXPECT_TRUE(Says(local, "--set load_pair.read_bytes=SIZE for a call's files together"))
      << Notes(local);
  const auto written = EmitCode(local.spec, "tfdata");
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_NE(written->text.find("load_pair.read_files=2"), std::string::npos) << written->text;
  // A comprehension of known count reads as many.
  const ImportedCode views = with("data", "ds = views\n");
  EXPECT_EQ(views.spec.ops(0).map().fn().cpu_work().read_files(), 3) << views.spec.DebugString();

  const ImportedCode remote = with("gs://bucket/div2k");
  EXPECT_EQ(remote.spec.ops(0).map().fn().cpu_work().wait(), "100ms")
      << remote.spec.ops(0).DebugString();
  EXPECT_TRUE(Says(remote, "--set load_pair.wait=DURATION for a call's 2 reads")) << Notes(remote);
}

// tensorflow#28130's fix: each decoded image pair gives 64 random crops, made by
// parallel_interleave's function as a dataset of their rows (from_tensor_slices of the
// stacked crops), so a pair's reads and decode are paid once for 64 elements. The function's
// reads and decode are a map before the interleave on its threads (cycle_length of them);
// the crops' count is the loop's that fills the list (64 appends, stacked). A count the code
// shows otherwise (an array's first dimension) is taken too, and written back; one known only
// when the code runs (a loop over the run's sizes) stands in, said with its setting.
TEST(CodeQuestionsTest, AnInterleaveOfCropsReadsEachPairOnceForAllItsCrops) {
  const ImportedCode c = Import(R"(import tensorflow as tf
def load_pair(lr_path, hr_path):
    lr = tf.image.decode_png(tf.read_file(lr_path), channels=3)
    hr = tf.image.decode_png(tf.read_file(hr_path), channels=3)
    return lr, hr
def crops_from_pair(lr_path, hr_path):
    lr, hr = load_pair(lr_path, hr_path)
    lr_crops, hr_crops = [], []
    for _ in range(64):
        lr_crops.append(tf.image.random_crop(lr, [96, 96, 3]))
        hr_crops.append(tf.image.random_crop(hr, [384, 384, 3]))
    return tf.data.Dataset.from_tensor_slices((tf.stack(lr_crops), tf.stack(hr_crops)))
lr_paths = sorted(tf.io.gfile.glob('data/lr/*.png'))
hr_paths = sorted(tf.io.gfile.glob('data/hr/*.png'))
dataset = tf.data.Dataset.from_tensor_slices((lr_paths, hr_paths))
dataset = dataset.apply(tf.data.experimental.parallel_interleave(
    crops_from_pair, cycle_length=32, sloppy=True))
dataset = dataset.batch(16)
)");
  ASSERT_EQ(c.spec.ops_size(), 3) << c.spec.DebugString();
  const spec::Op& work = c.spec.ops(0);
  EXPECT_EQ(work.name(), "crops_from_pair");
  EXPECT_EQ(work.map().num_parallel_calls(), 32);
  EXPECT_EQ(work.map().fn().cpu_work().read_files(), 2);
  EXPECT_TRUE(Says(c,
                   "it is read as a map 'crops_from_pair' before interleave, as parallel as "
                   "interleave"))
      << Notes(c);
  EXPECT_EQ(c.spec.ops(1).interleave().per_element().from_element().slices(), 64);
  EXPECT_TRUE(Says(c, "64 elements of each input element: --set interleave.slices=N")) << Notes(c);

  // Appended under an if, or in a loop whose count the run decides: not counted.
  for (const char* loop : {R"(    for _ in range(64):
        if tf.random.uniform([]) > 0.5:
            out.append(tf.image.random_crop(img, [96, 96, 3]))
)",
                           R"(    for _ in range(FLAGS.crops):
        out.append(tf.image.random_crop(img, [96, 96, 3]))
)"}) {
    const ImportedCode unknown = Import(std::string(R"(import tensorflow as tf
def crops(path):
    img = tf.image.decode_png(tf.io.read_file(path))
    out = []
)") + loop + R"(    return tf.data.Dataset.from_tensor_slices(tf.stack(out))
files = tf.data.Dataset.list_files("/data/*.png")
ds = files.interleave(crops, cycle_length=4, num_parallel_calls=4)
)");
    ASSERT_EQ(unknown.spec.ops_size(), 2) << unknown.spec.DebugString();
    EXPECT_EQ(unknown.spec.ops(1).interleave().per_element().from_element().slices(), 1000) << loop;
    EXPECT_TRUE(Says(unknown,
                     "their count known only when the code runs: --set "
                     "interleave.slices=N"))
        << Notes(unknown);
  }

  const ImportedCode known = Import(R"(import tensorflow as tf
def crops(path):
    img = tf.image.decode_png(tf.io.read_file(path))
    return tf.data.Dataset.from_tensor_slices(tf.zeros([64, 96, 96, 3]))
files = tf.data.Dataset.list_files("/data/*.png")
ds = files.interleave(crops, cycle_length=4, num_parallel_calls=4)
)");
  ASSERT_EQ(known.spec.ops_size(), 2) << known.spec.DebugString();
  EXPECT_EQ(known.spec.ops(0).map().num_parallel_calls(), 4);
  EXPECT_EQ(known.spec.ops(1).interleave().per_element().from_element().slices(), 64);
  const auto written = EmitCode(known.spec, "tfdata");
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_NE(written->text.find("from_tensors(f).repeat(64)"), std::string::npos) << written->text;
}

// torchmd-net#235, written for torch_geometric: its Dataset's items come from get and len
// (torch_geometric's __getitem__ calls get), read as __getitem__ and __len__ are; the .npy
// files get loads for every item are reads from storage beside its Python, said.
TEST(CodeQuestionsTest, ATorchGeometricDatasetsGetIsItsItemsWork) {
  const ImportedCode c = Import(R"(import numpy as np
from torch_geometric.data import Dataset, Data
from torch_geometric.loader import DataLoader
class Custom(Dataset):
    def __init__(self, files, n=5000):
        super().__init__()
        self.files = files
        self.n = n
    def get(self, idx):
        coords = np.load(self.files[idx % 3], mmap_mode="r")[idx]
        forces = np.load(self.files[idx % 3 + 3])
        return Data(pos=coords, neg_dy=forces)
    def len(self):
        return self.n
loader = DataLoader(Custom(["a.npy"] * 6), batch_size=64, num_workers=2)
)");
  ASSERT_FALSE(c.spec.ops().empty()) << Notes(c);
  EXPECT_EQ(c.spec.source().range().stop(), 5000) << "len() of the instance";
  const auto& python = c.spec.ops(0).dataloader().getitem().python();
  EXPECT_EQ(python.wait(), "200us") << python.DebugString();
  EXPECT_TRUE(python.wait_loads_files());
  EXPECT_TRUE(Says(c, "`Custom` defines get and len, as a torch_geometric Dataset does"))
      << Notes(c);
  EXPECT_TRUE(Says(c, "'loader' loads 2 files an item (np.load)")) << Notes(c);
  EXPECT_FALSE(Says(c, "is not a class this file defines")) << Notes(c);
}

// pytorch#680's Dataset: each item opens its image with PIL. The file it reads is a read of
// the disk the user names (a hard disk's seek), 108 KB standing in, and the note says how to
// name the disk and the size.
TEST(CodeQuestionsTest, AnImageOpenedByPathIsAFileReadFromTheNamedDisk) {
  const ImportedCode c = Import(R"(from PIL import Image
from torch.utils.data import Dataset, DataLoader
class Images(Dataset):
    def __init__(self, paths):
        self.paths = paths
    def __len__(self):
        return len(self.paths)
    def __getitem__(self, i):
        return Image.open(self.paths[i]).convert("RGB")
loader = DataLoader(Images(["a.jpg"] * 1000), batch_size=64, num_workers=4)
)");
  ASSERT_FALSE(c.spec.ops().empty()) << Notes(c);
  EXPECT_EQ(c.spec.ops(0).dataloader().getitem().python().read_bytes(), 108000)
      << c.spec.ops(0).DebugString();
  EXPECT_TRUE(Says(c, "'loader' reads an image file a call, 108 KB each standing in")) << Notes(c);
  EXPECT_TRUE(Says(c, "--set storage.kind=hdd")) << Notes(c);
}

// monodepth2#157 ("training is too slow", images on a hard disk): the Dataset's __getitem__
// is its base class's, which calls a method the subclass defines, which calls the loader
// the base's __init__ binds: torchvision's pil_loader, `with open(path, "rb") as f:
// Image.open(f)`. The item's work is read through the class it inherits from, and the open
// is the image's own read: one file a frame, not an image and a file load besides.
TEST(CodeQuestionsTest, ADatasetsGetItemIsReadThroughTheClassItInheritsFrom) {
  const ImportedCode c = Import(R"(from PIL import Image
from torch.utils.data import Dataset, DataLoader
def pil_loader(path):
    with open(path, 'rb') as f:
        with Image.open(f) as img:
            return img.convert('RGB')
class MonoDataset(Dataset):
    def __init__(self, filenames):
        self.filenames = filenames
        self.loader = pil_loader
    def __len__(self):
        return len(self.filenames)
    def __getitem__(self, index):
        return self.get_color(self.filenames[index])
class KITTIRAWDataset(MonoDataset):
    def __init__(self, *args, **kwargs):
        super(KITTIRAWDataset, self).__init__(*args, **kwargs)
    def get_color(self, path):
        return self.loader(path)
loader = DataLoader(KITTIRAWDataset(["a.jpg"] * 1000), batch_size=12, num_workers=12)
)");
  ASSERT_FALSE(c.spec.ops().empty()) << Notes(c);
  const spec::Python& item = c.spec.ops(0).dataloader().getitem().python();
  EXPECT_EQ(item.read_bytes(), 108000) << c.spec.ops(0).DebugString();
  EXPECT_LE(item.read_files(), 1);
  EXPECT_FALSE(item.wait_loads_files()) << c.spec.ops(0).DebugString();
  EXPECT_FALSE(Says(c, "defines no __getitem__")) << Notes(c);
  EXPECT_FALSE(Says(c, "time.sleep")) << Notes(c);
}

// keras#6108, the image_ocr example after Keras 2: fit_generator over a method of an object
// of the file's class (`img_gen.next_train()`, a def that yields), its steps_per_epoch the
// samples (`words_per_epoch - val_words`, val_words an int() of a float product), training
// resumed at initial_epoch, and validation at each epoch's end. The generator is read, the
// steps counted, the epochs run are those after initial_epoch, and validation is said to be
// left out. A Sequence whose length is known, given many times that as steps_per_epoch, is
// said to go over the data that many times an epoch.
TEST(CodeQuestionsTest, AGeneratorMethodsStepsGivenInSamplesAreRead) {
  const ImportedCode c = Import(R"(import numpy as np
from keras.models import Model
class TextImageGenerator:
    def __init__(self, minibatch_size):
        self.minibatch_size = minibatch_size
    def next_train(self):
        while 1:
            yield np.zeros((self.minibatch_size, 64, 128, 1))
    def next_val(self):
        while 1:
            yield np.zeros((self.minibatch_size, 64, 128, 1))
def train(start_epoch, stop_epoch):
    words_per_epoch = 16000
    val_split = 0.2
    val_words = int(words_per_epoch * (val_split))
    img_gen = TextImageGenerator(minibatch_size=32)
    model = Model()
    model.fit_generator(generator=img_gen.next_train(), steps_per_epoch=(words_per_epoch - val_words),
                        epochs=stop_epoch, validation_data=img_gen.next_val(),
                        validation_steps=val_words, initial_epoch=start_epoch)
train(20, 25)
)");
  ASSERT_EQ(c.spec.ops_size(), 2) << c.spec.DebugString() << Notes(c);
  EXPECT_TRUE(c.spec.ops(0).keras_fit().generator());
  EXPECT_EQ(c.spec.source().range().stop(), 12800) << Notes(c);
  EXPECT_EQ(c.spec.ops(1).repeat().count(), 5);
  EXPECT_TRUE(Says(c, "fit starts at initial_epoch 20 and ends at epochs=25: 5 epochs run"))
      << Notes(c);
  EXPECT_TRUE(Says(c, "fit's validation_data is gone over at each epoch's end")) << Notes(c);

  const ImportedCode flow = Import(R"(import numpy as np
from keras.preprocessing.image import ImageDataGenerator
x_train = np.zeros((50000, 32, 32, 3), dtype='float32')
y_train = np.zeros((50000, 10), dtype='float32')
datagen = ImageDataGenerator(rotation_range=20)
model.fit_generator(datagen.flow(x_train, y_train, batch_size=32), steps_per_epoch=len(x_train),
                    epochs=10)
)");
  EXPECT_TRUE(Says(flow, "steps_per_epoch is 50000, about 32 times the 1563 batches of "))
      << Notes(flow);
  EXPECT_TRUE(Says(flow, "rotation_range makes an affine transform")) << Notes(flow);
}

}  // namespace
}  // namespace pipescope::code
