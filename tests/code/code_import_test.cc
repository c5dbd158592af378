// import-code on small files written as people write them: what each construct becomes,
// the notes that say where the code leaves something open, and the settings that complete it.

#include "app/code/code_import.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "app/code/code_emit.h"
#include "app/code/code_patch.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_validator.h"
#include "engine/work/work_registry.h"
#include "tests/code/imported_code_helpers.h"

namespace pipescope::code {
namespace {

ImportedCode Import(const std::string& source, const ImportOptions& options = {}) {
  auto r = ImportCode(source, "test.py", options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return {};
  const engine::Status valid = engine::ValidateSpec(r->spec, "test.py");
  EXPECT_TRUE(valid.ok()) << valid.message();
  return std::move(r).value();
}

const spec::Op& OpNamed(const ImportedCode& c, const std::string& name) {
  for (const auto& op : c.spec.ops()) {
    if (op.name() == name) return op;
  }
  ADD_FAILURE() << "no op " << name << " in " << c.spec.DebugString();
  static const spec::Op none;
  return none;
}

bool HasNote(const ImportedCode& c, int line, const std::string& part) {
  for (const auto& n : c.notes) {
    if (n.at.line == line && n.message.find(part) != std::string::npos) return true;
  }
  return false;
}

// Whether any of `notes` (PatchCode's) says `part`.
bool AnyHas(const std::vector<std::string>& notes, const std::string& part) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

std::string Notes(const ImportedCode& c) {
  std::string s;
  for (const auto& n : c.notes) s += FormatNote("test.py", n) + "\n";
  return s;
}

TEST(CodeImportTest, ReadsAMethodChainWithItsKnobsByKeywordAndPosition) {
  const auto c = Import(R"(import tensorflow as tf
ds = tf.data.TFRecordDataset(["a.tfrecord", "b.tfrecord"], "GZIP")
ds = ds.shuffle(1000, seed=7)
ds = ds.map(lambda x: tf.io.decode_jpeg(x), 4)
ds = ds.batch(32, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
)");
  EXPECT_EQ(c.framework, "tfdata");
  const auto written = AsWritten(c);
  ASSERT_TRUE(written.source().has_tfrecord());
  EXPECT_EQ(written.source().tfrecord().files_size(), 2);
  EXPECT_EQ(written.source().tfrecord().compression(), "GZIP");
  // The files are not on this machine: synthetic records stand in, so that the spec runs.
  EXPECT_TRUE(c.spec.source().has_synthetic());
  // Said where the code makes the source.
  EXPECT_TRUE(HasNote(c, 2, "'a.tfrecord' is not here")) << Notes(c);
  // Which says how to describe the real records where the files cannot come: their size and
  // the storage's rate decide whether the reads are the bottleneck (seed 000).
  EXPECT_TRUE(
      HasNote(c, 2, "--set read.record_bytes=N, and where they are with --set storage.kind=hdd"))
      << Notes(c);
  ASSERT_EQ(c.spec.ops_size(), 4);
  EXPECT_EQ(OpNamed(c, "shuffle").shuffle().buffer_size(), 1000);
  EXPECT_EQ(OpNamed(c, "shuffle").shuffle().seed(), 7);
  const auto& map = OpNamed(c, "decode_jpeg").map();
  // JPEG bytes no reader of the spec gives it: a decode's cost stands in, the code's
  // decode_jpeg kept beside it.
  EXPECT_EQ(map.fn().cpu_work().duration(), "1080000ns");
  EXPECT_TRUE(AsWritten(c).ops(1).map().fn().has_decode_jpeg());
  EXPECT_EQ(map.num_parallel_calls(), 4);  // by position
  EXPECT_TRUE(OpNamed(c, "batch").batch().drop_remainder());
  EXPECT_EQ(OpNamed(c, "prefetch").prefetch().buffer_size(), -1);
}

TEST(CodeImportTest, AutotuneInEverySpellingIsMinusOne) {
  for (const std::string spelling :
       {"tf.data.AUTOTUNE", "tf.data.experimental.AUTOTUNE", "AUTOTUNE",
        "tf.compat.v1.data.experimental.AUTOTUNE", "tensorflow.data.AUTOTUNE"}) {
    const auto c = Import(
        "import tensorflow as tf\nAUTOTUNE = tf.data.AUTOTUNE\n"
        "ds = tf.data.Dataset.range(100).map(f, num_parallel_calls=" +
        spelling + ")\n");
    EXPECT_EQ(OpNamed(c, "f").map().num_parallel_calls(), -1) << spelling;
  }
}

TEST(CodeImportTest, FlagsBecomeTfDataDefaultsWithANoteNamingLineColumnAndSetting) {
  const auto c = Import(R"(d = tf.data.Dataset.list_files(FLAGS.pattern)
d = d.shard(FLAGS.num_workers, FLAGS.worker_index)
d = d.interleave(tf.data.TFRecordDataset,
    cycle_length=FLAGS.num_readers, block_length=1)
d = d.map(parser_fn, num_parallel_calls=FLAGS.num_map_threads)
)");
  EXPECT_EQ(OpNamed(c, "parser_fn").map().num_parallel_calls(), 0);  // tf.data's default
  EXPECT_TRUE(HasNote(c, 5, "--set parser_fn.num_parallel_calls=N")) << Notes(c);
  EXPECT_TRUE(HasNote(c, 2, "--set shard.num_shards=N")) << Notes(c);
  EXPECT_FALSE(OpNamed(c, "interleave").interleave().has_cycle_length());  // AUTOTUNE
  EXPECT_TRUE(HasNote(c, 4, "--set interleave.cycle_length=N")) << Notes(c);
  EXPECT_TRUE(HasNote(c, 1, "--set list_files.pattern=PATTERN")) << Notes(c);
  for (const auto& n : c.notes) {
    if (n.message.find("parser_fn.num_parallel_calls") != std::string::npos) {
      EXPECT_EQ(n.at.column, 41);  // the flag's own column
    }
  }
  // Stand-in files: synthetic ones inside the interleave until the pattern is set.
  EXPECT_TRUE(OpNamed(c, "interleave").interleave().per_element().has_synthetic_file());
}

TEST(CodeImportTest, SettingThePatternMakesTheInterleaveReadRealFiles) {
  auto c = Import(R"(d = tf.data.Dataset.list_files(FLAGS.pattern)
d = d.interleave(tf.data.TFRecordDataset, cycle_length=2)
)");
  ASSERT_TRUE(SetCodeKnob(c, "list_files.pattern=/data/*.tfrecord").ok());
  EXPECT_EQ(c.spec.source().list_files().pattern(), "/data/*.tfrecord");
  EXPECT_TRUE(OpNamed(c, "interleave").interleave().per_element().has_tfrecord_file());
  EXPECT_FALSE(HasNote(c, 1, "list_files.pattern")) << Notes(c);
}

TEST(CodeImportTest, AUserFunctionIsAStageNamedAfterItWithItsKnownWork) {
  const auto c = Import(R"(import tensorflow as tf
def _parser(record):
    parsed = tf.parse_single_example(record, _keys_to_map)
    return parsed['d'], parsed['s']

_keys_to_map = {
    'd': tf.FixedLenFeature([], tf.string),
    's': tf.FixedLenFeature([], tf.int64),
    'v': tf.io.VarLenFeature(tf.float32),
}
ds = tf.data.TFRecordDataset(files).map(_parser).map(lambda x, y: (tf.py_function(slow, [x], tf.float32), y))
ds = ds.filter(keep).map(normalise_with_numpy)
)");
  const auto native = AsWritten(c);
  const auto& parse = native.ops(0).map().fn().parse_example();
  ASSERT_EQ(parse.features_size(), 3) << "the dict is defined below the def";
  EXPECT_EQ(parse.features(0).dtype(), "bytes");
  EXPECT_EQ(parse.features(1).dtype(), "int64");
  EXPECT_TRUE(parse.features(2).var_len());
  EXPECT_EQ(parse.features(2).dtype(), "float");
  EXPECT_TRUE(OpNamed(c, "slow").map().fn().has_python());
  EXPECT_TRUE(OpNamed(c, "normalise_with_numpy").map().fn().has_cpu_work());
  EXPECT_TRUE(HasNote(c, 12, "--set normalise_with_numpy.cost=DURATION")) << Notes(c);
  EXPECT_TRUE(HasNote(c, 12, "--set keep.fraction=F")) << Notes(c);
}

TEST(CodeImportTest, ParsingRunsOnRealRecordsAndItsCostStandsInForStandInOnes) {
  auto c = Import(R"(ds = tf.data.TFRecordDataset(tf.io.gfile.glob(FLAGS.files))
ds = ds.map(lambda r: tf.io.parse_single_example(r, {"x": tf.io.FixedLenFeature([], tf.int64)}))
)");
  EXPECT_TRUE(OpNamed(c, "parse_single_example").map().fn().has_cpu_work());
  EXPECT_TRUE(HasNote(c, 2, "stand-in records")) << Notes(c);
  const std::string file = ::testing::TempDir() + "/code_import_real.tfrecord";
  std::ofstream(file) << "";
  ASSERT_TRUE(SetCodeKnob(c, "read.files=" + file).ok());
  EXPECT_TRUE(OpNamed(c, "parse_single_example").map().fn().has_parse_example())
      << "real files bring the parse back";
  EXPECT_FALSE(HasNote(c, 2, "stand-in records")) << Notes(c);
}

TEST(CodeImportTest, FilesBesideTheCodeAreReadAndMissingOnesStandIn) {
  const std::string dir = ::testing::TempDir() + "/code_import_beside";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/train.tfrecord") << "";
  auto beside = ImportCode("ds = tf.data.TFRecordDataset('train.tfrecord')\n", dir + "/train.py");
  ASSERT_TRUE(beside.ok()) << beside.status().message();
  EXPECT_EQ(beside->spec.source().tfrecord().files(0), dir + "/train.tfrecord");
  auto missing = ImportCode("ds = tf.data.TFRecordDataset('gone.tfrecord')\n", dir + "/train.py");
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->spec.source().has_synthetic());
  ASSERT_TRUE(SetCodeKnob(*missing, "read.files=" + dir + "/*.tfrecord").ok());
  EXPECT_EQ(missing->spec.source().tfrecord().files(0), dir + "/train.tfrecord");
}

TEST(CodeImportTest, OnlyTheBranchTheCodeTakes) {
  const auto known = Import(R"(fused = False
ds = tf.data.Dataset.range(10)
if fused:
    ds = ds.apply(tf.data.experimental.map_and_batch(parse, 32))
else:
    ds = ds.map(parse).batch(32)
)");
  EXPECT_EQ(known.spec.ops_size(), 2);
  EXPECT_EQ(known.spec.ops(0).map().num_parallel_calls(), 0) << "the else branch's map";
  const auto unknown = Import(R"(ds = tf.data.Dataset.range(10)
if FLAGS.fused:
    ds = ds.apply(tf.data.experimental.map_and_batch(parse, 32))
elif FLAGS.other:
    ds = ds.take(3)
else:
    ds = ds.map(parse).batch(32)
)");
  EXPECT_EQ(unknown.spec.ops_size(), 2);
  EXPECT_EQ(unknown.spec.ops(0).map().num_parallel_calls(), -1) << "the first branch, as if true";
  EXPECT_TRUE(HasNote(unknown, 2, "read as true")) << Notes(unknown);
}

// A def's condition on its parameter is unknown where the def is read, and known where the
// file calls it with arguments: the guess made at the def is taken back, and kept where a
// call leaves it unknown (tensorflow/models' imagenet_main: get_filenames(is_training, ...)
// called as input_fn(False, ...) read the evaluation files, and said it read them as true).
TEST(CodeImportTest, AConditionTheCallsAnswerIsNotSaidToBeGuessed) {
  const std::string module = R"(import tensorflow as tf
def get_filenames(is_training):
    if is_training:
        return ['train-%05d' % i for i in range(1024)]
    else:
        return ['validation-%05d' % i for i in range(128)]
def input_fn(is_training):
    ds = tf.data.Dataset.from_tensor_slices(get_filenames(is_training))
    if is_training:
        ds = ds.shuffle(1024)
    return ds.interleave(tf.data.TFRecordDataset, cycle_length=4)
)";
  const auto answered = Import(module + "ds = input_fn(False)\n");
  EXPECT_FALSE(HasNote(answered, 3, "read as true")) << Notes(answered);
  for (const auto& op : answered.spec.ops()) EXPECT_FALSE(op.has_shuffle()) << op.name();
  // The comprehension's file list is its range's names: 128 evaluation files, no stand-in.
  const auto& names = answered.spec.source().from_tensor_slices();
  ASSERT_EQ(names.strings_size(), 128) << Notes(answered);
  EXPECT_EQ(names.strings(0), "validation-00000");
  EXPECT_EQ(names.strings(127), "validation-00127");
  EXPECT_FALSE(answered.spec.source().size_is_stand_in());
  // Called on what the file does not know: the guess stands, where it was made, said once.
  const auto unanswered = Import(module + "ds = input_fn(FLAGS.training)\n");
  EXPECT_TRUE(HasNote(unanswered, 3, "read as true")) << Notes(unanswered);
  const std::string notes = Notes(unanswered);
  EXPECT_EQ(notes.find("read as true"), notes.rfind("read as true")) << notes;
}

TEST(CodeImportTest, CostsAreParametersTheSettingAnswers) {
  auto c = Import("ds = tf.data.Dataset.range(10).map(parse, num_parallel_calls=2)\n");
  ASSERT_TRUE(SetCodeKnob(c, "parse.cost=40us").ok());
  EXPECT_EQ(OpNamed(c, "parse").map().fn().cpu_work().duration(), "40us");
  EXPECT_FALSE(HasNote(c, 1, "parse.cost")) << Notes(c);
  ASSERT_TRUE(SetCodeKnob(c, "parse.num_parallel_calls=8").ok());
  EXPECT_EQ(OpNamed(c, "parse").map().num_parallel_calls(), 8);
  EXPECT_FALSE(SetCodeKnob(c, "parse.cost=fast").ok());
  // A name the spec does not have gets the names it does.
  const engine::Status unknown = SetCodeKnob(c, "nothing.cost=1ms");
  EXPECT_NE(unknown.message().find(
                "no op or source named 'nothing' (the spec's: range, parse, train_step"),
            std::string::npos)
      << unknown.message();
}

TEST(CodeImportTest, ContribAndExperimentalTransformationsApply) {
  const auto c = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.list_files("/d/*.tfrecord")
ds = ds.apply(tf.contrib.data.parallel_interleave(tf.data.TFRecordDataset, cycle_length=8, sloppy=True))
ds = ds.apply(tf.contrib.data.shuffle_and_repeat(10000))
ds = ds.apply(tf.data.experimental.map_and_batch(parse_fn, batch_size=256, num_parallel_calls=16))
)");
  const auto& il = OpNamed(c, "interleave").interleave();
  EXPECT_EQ(il.cycle_length(), 8);
  EXPECT_EQ(il.num_parallel_calls(), 8);
  EXPECT_FALSE(il.deterministic());
  EXPECT_TRUE(AsWritten(c).ops(0).interleave().per_element().has_tfrecord_file());
  EXPECT_TRUE(il.per_element().has_synthetic_file()) << "no file matches /d/*.tfrecord here";
  // The note says how to describe the records its reader stands in for.
  EXPECT_TRUE(HasNote(c, 2, "or --set interleave.bandwidth=RATE")) << Notes(c);
  EXPECT_EQ(OpNamed(c, "shuffle").shuffle().buffer_size(), 10000);
  EXPECT_FALSE(OpNamed(c, "repeat").repeat().has_count());
  EXPECT_EQ(OpNamed(c, "parse_fn").map().num_parallel_calls(), 16);
  EXPECT_EQ(OpNamed(c, "batch").batch().batch_size(), 256);
}

// list_files of a name without a wildcard lists that one file (seed 000's
// list_files("train.tfrecords").shard(10, 1)): one stands in where it is not here, not 100,
// so that a shard of it is as empty as tf.data's.
TEST(CodeImportTest, AListedNameWithoutAWildcardIsOneFile) {
  const auto one = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.list_files("/d/train.tfrecords").interleave(tf.data.TFRecordDataset)
)");
  EXPECT_EQ(one.spec.source().range().stop(), 1) << one.spec.DebugString();
  const auto many = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.list_files("/d/train-*.tfrecords").interleave(tf.data.TFRecordDataset)
)");
  EXPECT_EQ(many.spec.source().range().stop(), kStandInFiles);
}

TEST(CodeImportTest, InterleaveOfALambdaKeepsItsInnerOps) {
  const auto c = Import(R"(files = tf.data.Dataset.from_tensor_slices(["a.txt", "b.txt"])
dataset = files.interleave(lambda x:
    tf.data.TextLineDataset(x).map(parse_fn, num_parallel_calls=1),
    cycle_length=4, block_length=16)
)");
  const auto& il = OpNamed(c, "interleave").interleave();
  EXPECT_TRUE(AsWritten(c).ops(0).interleave().per_element().has_text_line_file());
  ASSERT_EQ(il.ops_size(), 1);
  EXPECT_EQ(il.ops(0).name(), "parse_fn");
  EXPECT_EQ(il.ops(0).map().num_parallel_calls(), 1);
  EXPECT_EQ(il.block_length(), 16);
}

// tensorflow#44274: Python an interleave's function runs before it makes its dataset is a
// sequential map ahead of the interleave; Python inside the dataset's own ops stays there.
TEST(CodeImportTest, PythonAnInterleavesFunctionRunsIsAMapBeforeIt) {
  const auto c = Import(R"(def make(x):
    tf.py_function(slow_work, [], [])
    return tf.data.Dataset.from_tensors(x)
d = tf.data.Dataset.range(64).interleave(make, cycle_length=4, num_parallel_calls=4)
)");
  ASSERT_EQ(c.spec.ops_size(), 2) << c.spec.DebugString();
  EXPECT_EQ(c.spec.ops(0).name(), "make");
  EXPECT_TRUE(c.spec.ops(0).map().fn().has_python());
  EXPECT_EQ(c.spec.ops(0).map().num_parallel_calls(), 0);  // one call at a time
  EXPECT_TRUE(c.spec.ops(1).interleave().per_element().has_from_element());
  EXPECT_TRUE(HasNote(c, 4, "read as a sequential map 'make' before interleave")) << Notes(c);

  const auto inner = Import(R"(files = tf.data.Dataset.from_tensor_slices(["a.txt", "b.txt"])
d = files.interleave(lambda f: tf.data.TextLineDataset(f).map(
    lambda l: tf.py_function(parse, [l], tf.float32)), cycle_length=2)
)");
  ASSERT_EQ(inner.spec.ops_size(), 1) << inner.spec.DebugString();
  EXPECT_EQ(inner.spec.ops(0).interleave().ops_size(), 1);
}

// Dataset.from_tensors(x) is one element; os.cpu_count() is this machine's cores, said so.
TEST(CodeImportTest, OneTensorIsOneElementAndCpuCountIsThisMachinesCores) {
  const auto c = Import(R"(import os
d = tf.data.Dataset.from_tensors(x).repeat(10)
d = d.map(f, num_parallel_calls=os.cpu_count())
)");
  EXPECT_EQ(c.spec.source().from_tensor_slices().count(), 1);
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(OpNamed(c, "f").map().num_parallel_calls(), cores);
  EXPECT_TRUE(HasNote(c, 3, "`os.cpu_count()`: this machine's cores, " + std::to_string(cores)))
      << Notes(c);
  // A range of them too (tensorflow#44274's `range(cpu_count())` of generators).
  const auto ranged = Import(R"(import multiprocessing
d = tf.data.Dataset.range(multiprocessing.cpu_count()).map(f)
)");
  EXPECT_EQ(ranged.spec.source().range().stop(), cores);
  EXPECT_TRUE(HasNote(ranged, 2,
                      "range's stop is `multiprocessing.cpu_count()`: this machine's cores, " +
                          std::to_string(cores) + ", until set: --set range.stop=N"))
      << Notes(ranged);
}

// A def whose default builds pipelines that map the def itself (the fuzzer's file): each
// walk for plain Python evaluated the chains again, whose maps walked again, and the file
// took minutes. It reads at once (ctest's timeout is what fails here).
TEST(CodeImportTest, AFunctionThatMapsItselfIsReadAtOnce) {
  const auto c = Import(R"(import tensorflow as tf

def parse(record=tf.data.Dataset.list_files("x").interleave(
        lambda f: tf.data.TFRecordDataset(f).map(parse)).map(parse).map(parse)):
    return record

ds = tf.data.TFRecordDataset("a.tfrecord").map(parse)
)");
  ASSERT_GE(c.spec.ops_size(), 1) << Notes(c);
  EXPECT_EQ(c.spec.ops(0).name(), "parse");
}

// An op added right after a call that the next call of the chain follows on the same line
// (`.skip(n).shuffle(b)`): written once, after the call it follows (it was written into
// both calls).
TEST(CodeImportTest, AnOpAddedInsideAChainIsWrittenOnce) {
  const auto c = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.range(2000).map(lambda x: x * 2)
ds = ds.skip(5).shuffle(100)
for x in ds:
    pass
)");
  spec::PipelineSpec tuned = c.spec;
  int skip = 0;
  while (!tuned.ops(skip).has_skip()) ++skip;
  spec::Op cache;
  cache.set_name("cache");
  cache.mutable_cache();
  *tuned.mutable_ops()->Add() = cache;
  for (int i = tuned.ops_size() - 1; i > skip + 1; --i) tuned.mutable_ops()->SwapElements(i, i - 1);
  const auto patched = PatchCode(c, tuned);
  ASSERT_TRUE(patched.ok()) << patched.status().message();
  EXPECT_NE(patched->text.find("ds = ds.skip(5).cache().shuffle(100)\n"), std::string::npos)
      << patched->text;
}

// deterministic=False written back into TensorFlow 1 code (a one-shot iterator: minigo's,
// tensorflow#23179's) is the option TensorFlow 1 has, experimental_deterministic, not the
// argument, which 1.x refuses (it came in 2.2); in TensorFlow 2 code, the argument.
TEST(CodeImportTest, OrderWrittenIntoTensorFlow1CodeIsItsOption) {
  const std::string pipeline = R"(import tensorflow as tf
ds = tf.data.Dataset.range(1000)
ds = ds.map(lambda x: x * 2, num_parallel_calls=4)
)";
  const auto unordered = [](const ImportedCode& c) {
    spec::PipelineSpec tuned = c.spec;
    for (auto& op : *tuned.mutable_ops()) {
      if (op.has_map()) op.mutable_map()->set_deterministic(false);
    }
    return PatchCode(c, tuned);
  };
  const auto tf1 = Import(pipeline + "it = ds.make_one_shot_iterator()\nx = it.get_next()\n");
  EXPECT_TRUE(tf1.tensorflow_1);
  const auto patched = unordered(tf1);
  ASSERT_TRUE(patched.ok()) << patched.status().message();
  EXPECT_NE(patched->text.find("options = tf.data.Options()\n"
                               "options.experimental_deterministic = False\n"
                               "ds = tf.data.Dataset.range(1000).with_options(options)\n"),
            std::string::npos)
      << patched->text;
  EXPECT_EQ(patched->text.find("deterministic=False"), std::string::npos) << patched->text;
  // Read again, the options written are the maps' own deterministic=False.
  const auto read_back = Import(patched->text);
  EXPECT_FALSE(OpNamed(read_back, "map").map().deterministic()) << patched->text;
  EXPECT_TRUE(OpNamed(read_back, "map").map().has_deterministic()) << patched->text;
  const auto tf2 = Import(pipeline + "for x in ds:\n    pass\n");
  EXPECT_FALSE(tf2.tensorflow_1);
  const auto keyword = unordered(tf2);
  ASSERT_TRUE(keyword.ok()) << keyword.status().message();
  EXPECT_NE(keyword->text.find("num_parallel_calls=4, deterministic=False)"), std::string::npos)
      << keyword->text;
}

// tensorflow#30646's answer written back: fit's epochs become the dataset's repeat right
// after the shuffle (advice epochs_in_dataset), `.repeat(5)` after the shuffle's call and
// steps_per_epoch given to fit, an epoch's batches (2,000 records in batches of 32: 63).
// Over a `for` loop of epochs nothing is written, and the note says what to write.
TEST(CodeImportTest, EpochsPutInTheDatasetAreWrittenIntoFit) {
  const auto epochs_after_shuffle = [](spec::PipelineSpec s) {
    spec::Op loop = s.ops(s.ops_size() - 1);
    loop.mutable_repeat()->set_training_loop(false);
    s.mutable_ops()->RemoveLast();
    auto* ops = s.mutable_ops();
    int shuffle = 0;
    while (!ops->Get(shuffle).has_shuffle()) ++shuffle;
    *ops->Add() = loop;
    for (int i = ops->size() - 1; i > shuffle + 1; --i) ops->SwapElements(i, i - 1);
    return s;
  };
  const auto fit = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.range(2000)
ds = ds.shuffle(20000)
ds = ds.batch(32)
model = tf.keras.Sequential()
model.fit(ds, epochs=5)
)");
  ASSERT_EQ(fit.spec.ops(fit.spec.ops_size() - 1).name(), "fit_epochs") << Notes(fit);
  const auto patched = PatchCode(fit, epochs_after_shuffle(fit.spec));
  ASSERT_TRUE(patched.ok()) << patched.status().message();
  EXPECT_NE(patched->text.find("ds = ds.shuffle(20000).repeat(5)\nds = ds.batch(32)"),
            std::string::npos)
      << patched->text;
  EXPECT_NE(patched->text.find("model.fit(ds, epochs=5, steps_per_epoch=63)"), std::string::npos)
      << patched->text;
  EXPECT_TRUE(AnyHas(patched->notes, "added: .repeat(5) after 'shuffle', and steps_per_epoch=63"));

  const auto loop = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.range(2000).shuffle(20000).batch(32)
for epoch in range(5):
    for batch in ds:
        pass
)");
  const auto unwritten = PatchCode(loop, epochs_after_shuffle(loop.spec));
  ASSERT_TRUE(unwritten.ok()) << unwritten.status().message();
  EXPECT_EQ(unwritten->text, loop.source_text);
  EXPECT_TRUE(
      AnyHas(unwritten->notes, "write .repeat(EPOCHS) after it and iterate the dataset once"));
}

// A config the code writes out itself, argparse.Namespace(batch_size=64, ...) as prototree's
// notebooks do, or types.SimpleNamespace (pytorch#81412's benchmark): its attributes are the
// keywords it was made with, where they were read as known only when the code ran.
TEST(CodeImportTest, ANamespaceTheCodeFillsGivesItsAttributes) {
  for (const char* made : {"argparse.Namespace", "types.SimpleNamespace"}) {
    const auto c = Import(std::string("import argparse\nimport types\nimport torch\nargs = ") +
                          made + R"((batch_size=64, num_workers=3, name="cub")
loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size,
                                     num_workers=args.num_workers)
)");
    ASSERT_FALSE(c.spec.ops().empty()) << made << "\n" << Notes(c);
    EXPECT_EQ(c.spec.ops(0).dataloader().batch_size(), 64) << made << "\n" << Notes(c);
    EXPECT_EQ(c.spec.ops(0).dataloader().num_workers(), 3) << made;
    EXPECT_EQ(Notes(c).find("`args."), std::string::npos) << made << "\n" << Notes(c);
  }
}

// tensorflow#32454: a tf.function run through tf.py_function in a parallel map (which
// deadlocked there) is TensorFlow's ops already: said, with the map that needs no bridge. A
// plain Python function through the bridge is not.
TEST(CodeImportTest, ATfFunctionThroughPyFunctionIsSaidToNeedNoBridge) {
  const std::string map = R"(
ds = tf.data.Dataset.range(1000)
ds = ds.map(lambda key: tf.py_function(generate_feature, [key], [tf.float32]),
            num_parallel_calls=tf.data.AUTOTUNE)
ds = ds.batch(32)
)";
  const auto graph = Import(R"(import tensorflow as tf
@tf.function
def generate_feature(key):
    return tf.random.uniform(shape=())
)" + map);
  EXPECT_TRUE(HasNote(graph, 7, "runs `generate_feature`, a tf.function, through tf.py_function"))
      << Notes(graph);
  const auto python = Import(R"(import tensorflow as tf
import numpy as np
def generate_feature(key):
    return np.random.uniform()
)" + map);
  EXPECT_EQ(Notes(python).find("a tf.function, through"), std::string::npos) << Notes(python);
}

// keras#9332's answer, written as its asker would: an OrderedEnqueuer over the file's
// Sequence (or over flow()), started with workers, its get() taken by hand in a loop that
// sleeps for the GPU. The knobs are read where the code sets them (use_multiprocessing in the
// constructor, workers and max_queue_size in start()) and written back there; an enqueuer
// never started gives nothing.
TEST(CodeImportTest, AnOrderedEnqueuerStartedByHandRunsItsWorkersAhead) {
  const std::string sequence = R"(import time
import numpy as np
from keras.utils import Sequence, OrderedEnqueuer

class Batches(Sequence):
    def __len__(self):
        return 1000
    def __getitem__(self, idx):
        time.sleep(0.5)
        return np.zeros((32, 8)), np.zeros((32,))

enqueuer = OrderedEnqueuer(Batches(), use_multiprocessing=True)
)";
  const std::string loop = R"(gen = enqueuer.get()
for i in range(100):
    X, Y = next(gen)
    time.sleep(0.1)
)";
  const auto c = Import(sequence + "enqueuer.start(workers=4, max_queue_size=12)\n" + loop);
  ASSERT_GE(c.spec.ops_size(), 2) << Notes(c);
  const spec::KerasFitOp& kf = c.spec.ops(0).keras_fit();
  EXPECT_EQ(kf.workers(), 4) << Notes(c);
  EXPECT_TRUE(kf.use_multiprocessing());
  EXPECT_EQ(kf.max_queue_size(), 12);
  EXPECT_EQ(kf.getitem().python().wait(), "500ms") << c.spec.DebugString();
  EXPECT_EQ(c.spec.source().range().stop(), 1000);
  EXPECT_TRUE(c.spec.ops(1).has_repeat() && !c.spec.ops(1).repeat().has_count());
  EXPECT_EQ(c.spec.train_step().step_time(), "100ms") << Notes(c);
  EXPECT_EQ(Notes(c).find("by hand, each made when it is asked for"), std::string::npos)
      << Notes(c);
  spec::PipelineSpec tuned = c.spec;
  tuned.mutable_ops(0)->mutable_keras_fit()->set_workers(8);
  const auto patched = PatchCode(c, tuned);
  ASSERT_TRUE(patched.ok()) << patched.status().message();
  EXPECT_NE(patched->text.find("enqueuer.start(workers=8, max_queue_size=12)"), std::string::npos)
      << patched->text;
  // start(4, 12): by position, the same.
  const auto positional = Import(sequence + "enqueuer.start(4, 12)\n" + loop);
  ASSERT_GE(positional.spec.ops_size(), 1) << Notes(positional);
  EXPECT_EQ(positional.spec.ops(0).keras_fit().workers(), 4) << Notes(positional);
  EXPECT_EQ(positional.spec.ops(0).keras_fit().max_queue_size(), 12);
  EXPECT_FALSE(ImportCode(sequence + loop, "never.py").ok()) << "no batch ever comes";
}

// keras#9332: a loop that takes each batch by hand (`X, Y = gen.next()`, `next(it)`) and
// sleeps for the GPU's work, printing as it goes: the sleep is the step, as in a loop over
// the pipeline; without a sleep the loop times the input alone.
TEST(CodeImportTest, ALoopTakingTheNextBatchByHandSleepsItsStep) {
  const auto keras = Import(R"(import sys
import time
from keras.preprocessing import image as IDG_test

idg = IDG_test.ImageDataGenerator()
gen = idg.flow_from_directory("./data/", target_size=(50, 50), batch_size=4)
for i in range(5):
    print("Ask for data")
    sys.stdout.flush()
    X, Y = gen.next()
    print("Data received. Let's sleep.")
    time.sleep(3)
)");
  EXPECT_EQ(keras.spec.train_step().step_time(), "3s") << Notes(keras);
  EXPECT_TRUE(HasNote(keras, 7, "the loop sleeps 3s")) << Notes(keras);
  // No affine range: the load is the sample's cost, flips or rescaling or not.
  EXPECT_TRUE(HasNote(keras, 6,
                      "no rotation, shift, shear or zoom range is set, so no affine transform "
                      "(flips and rescaling cost next to nothing beside the load)"))
      << Notes(keras);
  // Each batch reads its 4 files, from a disk once one is named (keras#6503's first epoch).
  const spec::Python& load = keras.spec.ops(0).keras_fit().getitem().python();
  EXPECT_EQ(load.read_files(), 4);
  EXPECT_EQ(load.read_bytes(), 4 * 108000);
  EXPECT_TRUE(HasNote(keras, 6,
                      "each batch reads its 4 image files, 108 KB each standing in, from memory "
                      "until the disk is named: --set storage.kind=hdd"))
      << Notes(keras);
  EXPECT_TRUE(HasNote(keras, 7,
                      "the loop takes flow's batches by hand, each made when it is asked for: "
                      "Keras makes them ahead, in workers, only inside fit(gen, workers=N)"))
      << Notes(keras);
  // Tuned workers have no argument to go into: --advice-code says where they would.
  spec::PipelineSpec tuned = keras.spec;
  tuned.mutable_ops(0)->mutable_keras_fit()->set_workers(2);
  const auto patched = PatchCode(keras, tuned);
  ASSERT_TRUE(patched.ok()) << patched.status().message();
  EXPECT_TRUE(AnyHas(patched->notes,
                     "flow.workers = 2: the code has no argument for it to write into; the loop "
                     "at line 7 takes gen's batches by hand: Keras runs its workers only inside "
                     "model.fit(gen, workers=..., use_multiprocessing=...)"));
  const auto tf = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.range(100).batch(10)
it = iter(ds)
while True:
    batch = next(it)
)");
  EXPECT_EQ(tf.spec.train_step().step_time(), "0ms") << Notes(tf);
  // The loop's own clock reads are timing, not work: the sleep is still the step.
  const auto timed = Import(R"(import time
import tensorflow as tf
ds = tf.data.Dataset.range(100).batch(10)
it = iter(ds)
for i in range(5):
    t0 = time.perf_counter()
    batch = next(it)
    waited = time.perf_counter() - t0
    time.sleep(0.02)
)");
  EXPECT_EQ(timed.spec.train_step().step_time(), "20ms") << Notes(timed);
  // A loop that does more with what it takes is a training loop of its own, not timed here.
  const auto more = Import(R"(import time
import tensorflow as tf
ds = tf.data.Dataset.range(100).batch(10)
it = iter(ds)
for i in range(5):
    batch = next(it)
    model.train_on_batch(batch)
    time.sleep(3)
)");
  EXPECT_NE(more.spec.train_step().step_time(), "3s") << Notes(more);
}

// tensorflow#44274's control case: a generator whose yield follows a def of the file's that
// only sleeps (`sleep_delay()`, time.sleep(0.1)): a wait of 100 ms a yield, the lock
// released, so eight copies through an interleave wait at once; where the def also works,
// no wait is read from it.
TEST(CodeImportTest, AGeneratorsSleepInADefOfItsOwnIsAWait) {
  const std::string program = R"(import time
import numpy as np
import tensorflow as tf
def sleep_delay():
    time.sleep(0.1)
def work_then_sleep():
    sum(range(1000))
    time.sleep(0.1)
def generator(n):
    for i in range(10):
        %s()
        yield np.array([i])
ds = tf.data.Dataset.range(8).interleave(
    lambda n: tf.data.Dataset.from_generator(generator, output_types=tf.int64, args=(n,)),
    cycle_length=8, num_parallel_calls=8)
)";
  const auto wait_of = [&](const std::string& called) {
    std::string text = program;
    text.replace(text.find("%s"), 2, called);
    const auto c = Import(text);
    const spec::Op& il = OpNamed(c, "interleave");
    return il.interleave().per_element().from_generator().wait();
  };
  EXPECT_EQ(wait_of("sleep_delay"), "100ms");
  EXPECT_EQ(wait_of("work_then_sleep"), "");
}

// A sleep is a wait, not work (discuss.pytorch.org 156487: a database fetch timed by
// time.sleep in __getitem__, a training step by time.sleep in the loop): the getitem's wait,
// the step's time; `wait` sets one where the code does not say it.
TEST(CodeImportTest, SleepsAreWaitsAndTheLoopsSleepIsTheStep) {
  const auto c = Import(R"(import time
from torch.utils.data import Dataset, DataLoader

class Rows(Dataset):
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        time.sleep(0.003125)
        return i

loader = DataLoader(Rows(), batch_size=128, num_workers=4, prefetch_factor=4)
for batch in loader:
    time.sleep(0.05)
)");
  const auto& getitem = OpNamed(c, "loader").dataloader().getitem();
  ASSERT_TRUE(getitem.has_python());
  EXPECT_EQ(getitem.python().wait(), "3125us");
  EXPECT_TRUE(HasNote(c, 11, "'loader' sleeps 3125us a call (time.sleep)")) << Notes(c);
  EXPECT_EQ(c.spec.train_step().step_time(), "50ms");
  EXPECT_EQ(c.spec.train_step().device(), spec::simulated);
  EXPECT_TRUE(HasNote(c, 12, "the loop sleeps 50ms")) << Notes(c);

  auto set = c;
  ASSERT_TRUE(SetCodeKnob(set, "loader.wait=20ms").ok());
  EXPECT_EQ(OpNamed(set, "loader").dataloader().getitem().python().wait(), "20ms");
  // A TensorFlow map's read from remote storage: CPU and a wait beside it.
  auto tf = Import(R"(def load(path):
    return tf.io.decode_raw(tf.io.read_file(path), tf.uint8)
d = tf.data.Dataset.from_tensor_slices(["a", "b"]).map(load, num_parallel_calls=8)
)");
  ASSERT_TRUE(SetCodeKnob(tf, "load.wait=20ms").ok());
  EXPECT_EQ(OpNamed(tf, "load").map().fn().cpu_work().wait(), "20ms");
  const engine::Status refused = SetCodeKnob(tf, "load.sleep=20ms");
  EXPECT_NE(refused.message().find("for its function: cost, wait"), std::string::npos)
      << refused.message();
}

// A sleep under a condition: averaged where the condition says how often it holds (`idx % 10
// == 0`: one call in 10), counted on every call and said where it does not (pytorch#105203's
// `if i > 10:`); a sleep in a helper generator __iter__ returns (self.give_data) is read.
TEST(CodeImportTest, ConditionalSleepsAndSleepsInTheDatasetsOwnMethods) {
  const auto every_tenth = Import(R"(import time
from torch.utils.data import DataLoader, Dataset
class Demo(Dataset):
    def __len__(self):
        return 1000
    def __getitem__(self, idx):
        if idx % 10 == 0:
            time.sleep(0.05)
        return idx
loader = DataLoader(Demo(), batch_size=10, num_workers=4)
)");
  EXPECT_EQ(OpNamed(every_tenth, "loader").dataloader().getitem().python().wait(), "5ms")
      << Notes(every_tenth);
  EXPECT_TRUE(HasNote(every_tenth, 10,
                      "sleeps 5ms a call (time.sleep) on average (its sleep "
                      "runs one call in 10, when `idx % 10 == 0`)"))
      << Notes(every_tenth);
  const auto later_items = Import(R"(import time
import torch
class Slow(torch.utils.data.IterableDataset):
    def give_data(self, start, end):
        for i in range(start, end):
            if i > 10:
                time.sleep(2)
            yield i
    def __iter__(self):
        return iter(self.give_data(0, 20))
dl = torch.utils.data.DataLoader(Slow(), num_workers=2, batch_size=1)
)");
  EXPECT_EQ(OpNamed(later_items, "loader").dataloader().getitem().python().wait(), "2s")
      << Notes(later_items);
  EXPECT_TRUE(HasNote(later_items, 11,
                      "its sleep runs only when `i > 10`, which the code does not "
                      "say how often holds: counted on every call"))
      << Notes(later_items);
}

// Keras's ImageDataGenerator (keras#610): flow() is a Sequence whose batches are made sample
// by sample in Python, an affine transform of each where a shift or rotation range is set;
// a loop over it fetches each batch itself, fit(...) runs it with its workers; datagen.fit
// is no model's fit; flow_from_directory loads each image at its target_size first.
// Keras 1's names that Keras 2 still converts (keras#7168: fit_generator(..., max_q_size=50,
// pickle_safe=True)): read as their Keras 2 arguments, and a tuned value is written into the
// name the call uses, as a second keyword for it is a TypeError there.
TEST(CodeImportTest, KerasOneArgumentNamesAreReadAsKerasTwosAndWrittenThere) {
  const std::string sequence = R"(from keras.utils import Sequence
class Batches(Sequence):
    def __len__(self):
        return 100
    def __getitem__(self, i):
        return i
)";
  const auto legacy = Import(sequence + R"(
model.fit_generator(Batches(), steps_per_epoch=100, nb_epoch=3, nb_worker=2, max_q_size=50,
                    pickle_safe=False)
)");
  const auto& fit = legacy.spec.ops(0).keras_fit();
  EXPECT_EQ(fit.workers(), 2) << Notes(legacy);
  EXPECT_EQ(fit.max_queue_size(), 50);
  EXPECT_FALSE(fit.use_multiprocessing());
  EXPECT_EQ(OpNamed(legacy, "fit_epochs").repeat().count(), 3);
  spec::PipelineSpec tuned = legacy.spec;
  tuned.mutable_ops(0)->mutable_keras_fit()->set_use_multiprocessing(true);
  const auto patched = PatchCode(legacy, tuned);
  ASSERT_TRUE(patched.ok()) << patched.status().message();
  EXPECT_NE(patched->text.find("pickle_safe=True)"), std::string::npos) << patched->text;
  EXPECT_EQ(patched->text.find("use_multiprocessing"), std::string::npos) << patched->text;
  // keras#7168 as its asker wrote it: max_q_size without pickle_safe is Keras 2.0.0 to 2.0.5,
  // which has no use_multiprocessing: the knob goes in under that version's name.
  const auto keras_2_0 = Import(
      sequence + "model.fit_generator(Batches(), 100, epochs=3, workers=3, max_q_size=50)\n");
  spec::PipelineSpec processes = keras_2_0.spec;
  processes.mutable_ops(0)->mutable_keras_fit()->set_use_multiprocessing(true);
  const auto written = PatchCode(keras_2_0, processes);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_NE(written->text.find("max_q_size=50, pickle_safe=True)"), std::string::npos)
      << written->text;
  // Advice names Keras 2.0.6's knobs: the note says which this file's are.
  EXPECT_TRUE(HasNote(keras_2_0, 7, "advice names them as Keras 2.0.6 on does"))
      << Notes(keras_2_0);
  EXPECT_FALSE(keras_2_0.spec.ops(0).keras_fit().generator()) << "a Sequence: Keras 2.0.6 on";
  // flow() under those names is an iterator fit_generator runs as a generator (until 2.0.9):
  // in worker processes its batches repeat, which the advice to use them says.
  const auto flow = Import(R"(import numpy as np
from keras.preprocessing.image import ImageDataGenerator
x = np.zeros((1000, 32, 32, 3))
y = np.zeros((1000,))
it = ImageDataGenerator(rotation_range=90).flow(x, y, batch_size=100)
model.fit_generator(it, 10, epochs=3, workers=3, max_q_size=50)
)");
  EXPECT_TRUE(OpNamed(flow, "flow").keras_fit().generator()) << Notes(flow);
  EXPECT_TRUE(HasNote(flow, 6, "flow() gives an iterator that fit_generator runs as a generator"))
      << Notes(flow);
}

// TensorFlow work on a pipeline's elements after it hands them over runs in the training
// loop, where nothing runs it ahead of the step: seed 001's iterator_to_data (TF 1, inside
// tf.name_scope blocks) and a TF 2 loop's resize are said, with the map that would run them
// in parallel; the model's own ops, and a loop that only trains, are not.
TEST(CodeImportTest, TensorFlowWorkAfterThePipelineIsSaid) {
  const auto graph = Import(R"(import tensorflow as tf
ds = tf.data.TFRecordDataset(["a.tfrecord"]).batch(512).repeat()
iterator = ds.make_initializable_iterator()
def iterator_to_data(iterator):
  b = tf.constant((128, 64), dtype=tf.uint8)
  with tf.name_scope('tfr_parse'):
    with tf.name_scope('packed_data'):
      next_element = iterator.get_next()
      data_packed, score_int = next_element
      score = tf.cast(score_int, tf.float64)
    with tf.name_scope('data_unpacked'):
      unpacked = tf.reshape(tf.mod(tf.decode_raw(data_packed, tf.uint8) // b, 2), [512, 1552])
  return unpacked, score
board, score = iterator_to_data(iterator)
with tf.Session() as sess:
    for i in range(1000):
        sess.run([board, score])
)");
  EXPECT_TRUE(HasNote(graph, 10,
                      "in `iterator_to_data`, after get_next(), the code runs 4 TensorFlow ops on "
                      "each element (cast, reshape, mod, decode_raw)"))
      << Notes(graph);
  EXPECT_TRUE(HasNote(graph, 10, "ds.map(fn, num_parallel_calls=tf.data.AUTOTUNE)"));

  const std::string loop = R"(import tensorflow as tf
ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(32).prefetch(1)
for x, y in ds:
%s    with tf.GradientTape() as tape:
        logits = model(x)
        loss = tf.reduce_mean(loss_fn(y, logits))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
)";
  std::string resized = loop;
  resized.replace(resized.find("%s"), 2,
                  "    x = tf.image.resize(tf.cast(x, tf.float32) / 255.0, [224, 224])\n");
  const auto eager = Import(resized);
  EXPECT_TRUE(HasNote(eager, 4,
                      "in the loop over `ds`, the code runs 2 TensorFlow ops on each element "
                      "(resize, cast)"))
      << Notes(eager);
  std::string plain = loop;
  plain.replace(plain.find("%s"), 2, "");
  const auto trains = Import(plain);
  EXPECT_EQ(Notes(trains).find("TensorFlow op"), std::string::npos) << Notes(trains);
  // TensorFlow 1's model on get_next() (tensorflow#13610): layers, loss and optimizer are
  // the step's, not work to move into a map.
  const auto model = Import(R"(import tensorflow as tf
ds = tf.data.TFRecordDataset(["a.tfrecord"]).batch(32).repeat()
x = ds.make_one_shot_iterator().get_next()
logits = tf.layers.dense(tf.reshape(x, [32, -1]), 10)
loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
train_op = tf.train.AdamOptimizer().minimize(tf.reduce_mean(loss))
with tf.Session() as sess:
  while True:
    sess.run(train_op)
)");
  EXPECT_EQ(Notes(model).find("TensorFlow op"), std::string::npos) << Notes(model);
}

// An interleave of a Python generator per element (tensorflow#44274): the generator is what
// each element opens, its yields as its loop says and its Python a stand-in the user sets on
// the interleave; no file stands in.
TEST(CodeImportTest, AnInterleaveOfAPythonGeneratorRunsTheGeneratorPerElement) {
  auto c = Import(R"(import tensorflow as tf
def real_work():
    for i in range(1000000):
        2+2
def gen(i):
    for j in range(10):
        real_work()
        yield j
def map_function(i):
    return tf.data.Dataset.from_generator(gen, output_types=tf.int64, output_shapes=(), args=(i,))
dataset = tf.data.Dataset.range(8)
dataset = dataset.interleave(map_function, cycle_length=8, num_parallel_calls=8)
for x in dataset:
    pass
)");
  const auto& per = OpNamed(c, "interleave").interleave().per_element();
  ASSERT_TRUE(per.has_from_generator()) << per.DebugString();
  EXPECT_EQ(per.from_generator().records(), 10);
  EXPECT_TRUE(per.from_generator().cost_is_stand_in());
  EXPECT_TRUE(HasNote(c, 12,
                      "interleave runs the Python generator 'gen' per element: each of its "
                      "threads runs one, and their Python takes turns under the process's one "
                      "interpreter lock; it yields 10 each, as its loops say"))
      << Notes(c);
  EXPECT_EQ(Notes(c).find("--set gen."), std::string::npos) << Notes(c);
  ASSERT_TRUE(SetCodeKnob(c, "interleave.cost=25ms").ok());
  EXPECT_EQ(OpNamed(c, "interleave").interleave().per_element().from_generator().duration(),
            "25ms");
  EXPECT_FALSE(
      OpNamed(c, "interleave").interleave().per_element().from_generator().cost_is_stand_in());
  // Written back as code and read again: the same per-element generator.
  const auto emitted = EmitCode(c.spec, "tfdata");
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  const auto back = Import(emitted->text);
  EXPECT_EQ(OpNamed(back, "interleave").interleave().per_element().DebugString(),
            OpNamed(c, "interleave").interleave().per_element().DebugString())
      << emitted->text;
}

// Keras 3 (TensorFlow 2.16 on) moved workers, use_multiprocessing and max_queue_size from fit
// to keras.utils.PyDataset's constructor: read where the dataset is made, said so, and
// written back there; the same keywords given to fit are said to be Keras 2's.
TEST(CodeImportTest, AKeras3PyDatasetTakesItsWorkersInItsConstructor) {
  const auto c = Import(R"(import keras
class Images(keras.utils.PyDataset):
    def __init__(self, paths, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.paths = paths
    def __len__(self):
        return 100
    def __getitem__(self, idx):
        return idx
train = Images(paths, 32, workers=4, use_multiprocessing=True, max_queue_size=20)
model.fit(train, epochs=2, workers=8)
)");
  const auto& fit = OpNamed(c, "Images").keras_fit();
  EXPECT_EQ(fit.workers(), 4) << Notes(c);
  EXPECT_TRUE(fit.use_multiprocessing());
  EXPECT_EQ(fit.max_queue_size(), 20);
  const std::string notes = Notes(c);
  EXPECT_NE(notes.find("`Images` is a Keras 3 PyDataset: its constructor takes workers"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("fit's workers, use_multiprocessing and max_queue_size are Keras 2's"),
            std::string::npos)
      << notes;
  spec::PipelineSpec tuned = c.spec;
  tuned.mutable_ops(0)->mutable_keras_fit()->set_workers(6);
  const auto patched = PatchCode(c, tuned);
  ASSERT_TRUE(patched.ok()) << patched.status().message();
  EXPECT_NE(patched->text.find("train = Images(paths, 32, workers=6, use_multiprocessing=True"),
            std::string::npos)
      << patched->text;
  EXPECT_NE(patched->text.find("model.fit(train, epochs=2, workers=8)"), std::string::npos)
      << patched->text;
}

// A PyDataset that sets its workers itself, in its own `super().__init__(...)`: read there and
// written back there; one that takes them as parameters of its own is written where it is
// made, or where its **kwargs do not reach, into the super call.
TEST(CodeImportTest, AKeras3PyDatasetsOwnSuperCallSetsItsWorkers) {
  const auto c = Import(R"(import keras
class Images(keras.utils.PyDataset):
    def __init__(self, paths, workers=2, **kwargs):
        super().__init__(workers=workers, use_multiprocessing=True, **kwargs)
        self.paths = paths
    def __len__(self):
        return 100
    def __getitem__(self, idx):
        return idx
train = Images(paths, max_queue_size=20)
model.fit(train, epochs=2)
)");
  const auto& images = OpNamed(c, "Images").keras_fit();
  EXPECT_EQ(images.workers(), 2) << Notes(c);
  EXPECT_TRUE(images.use_multiprocessing());
  EXPECT_EQ(images.max_queue_size(), 20);
  spec::PipelineSpec tuned = c.spec;
  auto* kf = tuned.mutable_ops(0)->mutable_keras_fit();
  kf->set_workers(6);
  kf->set_use_multiprocessing(false);
  kf->set_max_queue_size(8);
  const auto patched = PatchCode(c, tuned);
  ASSERT_TRUE(patched.ok()) << patched.status().message();
  EXPECT_NE(patched->text.find("super().__init__(workers=workers, use_multiprocessing=False, "
                               "**kwargs)"),
            std::string::npos)
      << patched->text;
  EXPECT_NE(patched->text.find("train = Images(paths, max_queue_size=8, workers=6)"),
            std::string::npos)
      << patched->text;

  // A PyDataset with its workers written in: read there, and the queue's size it leaves out
  // goes into the super call, which its constructor's keywords do not reach.
  const auto fixed = Import(std::string(R"(import keras
class Fixed(keras.utils.PyDataset):
    def __init__(self, paths):
        super(Fixed, self).__init__(workers=3)
    def __len__(self):
        return 100
    def __getitem__(self, idx):
        return idx
model.fit(Fixed(paths), epochs=2)
)"));
  EXPECT_EQ(OpNamed(fixed, "Fixed").keras_fit().workers(), 3) << Notes(fixed);
  spec::PipelineSpec more = fixed.spec;
  more.mutable_ops(0)->mutable_keras_fit()->set_workers(4);
  more.mutable_ops(0)->mutable_keras_fit()->set_max_queue_size(16);
  const auto fixed_patched = PatchCode(fixed, more);
  ASSERT_TRUE(fixed_patched.ok()) << fixed_patched.status().message();
  EXPECT_NE(fixed_patched->text.find("super(Fixed, self).__init__(workers=4, max_queue_size=16)"),
            std::string::npos)
      << fixed_patched->text;
  EXPECT_NE(fixed_patched->text.find("model.fit(Fixed(paths), epochs=2)"), std::string::npos)
      << fixed_patched->text;
}

TEST(CodeImportTest, KerasImageDataGeneratorFlowIsASequenceMadeInPython) {
  const std::string generator = R"(import numpy as np
from keras.preprocessing.image import ImageDataGenerator
x = np.random.rand(50000, 32, 32, 3).astype("float32")
datagen = ImageDataGenerator(width_shift_range=0.2, height_shift_range=0.2, horizontal_flip=True)
datagen.fit(x)
)";
  const auto loop = Import(generator + R"(for x_batch, y_batch in datagen.flow(x, y, batch_size=32):
    model.train_on_batch(x_batch, y_batch)
)");
  const auto& flow = OpNamed(loop, "flow").keras_fit();
  EXPECT_TRUE(flow.has_workers() && flow.workers() == 0) << "the loop's thread fetches each batch";
  EXPECT_EQ(loop.spec.source().range().stop(), 1563) << "50000 samples in batches of 32";
  // 80 us and 150 ns a pixel of 32×32, a sample: 233.6 us; 32 of them.
  EXPECT_EQ(flow.getitem().python().duration(), "7475us") << Notes(loop);
  EXPECT_TRUE(HasNote(loop, 6, "width_shift_range, height_shift_range make an affine transform"))
      << Notes(loop);
  EXPECT_EQ(Notes(loop).find("fit's x is"), std::string::npos) << "datagen.fit is no model's";
  const auto fit = Import(generator +
                          "model.fit(datagen.flow(x, y, batch_size=64), epochs=10, "
                          "workers=4, use_multiprocessing=True)\n");
  EXPECT_EQ(OpNamed(fit, "flow").keras_fit().workers(), 4) << Notes(fit);
  EXPECT_TRUE(OpNamed(fit, "flow").keras_fit().use_multiprocessing());
  EXPECT_EQ(OpNamed(fit, "fit_epochs").repeat().count(), 10);
  EXPECT_EQ(fit.spec.source().range().stop(), 782);
  const auto directory =
      Import(R"(from tensorflow.keras.preprocessing.image import ImageDataGenerator
gen = ImageDataGenerator(rescale=1.0 / 255)
train = gen.flow_from_directory("data/train", target_size=(150, 150), batch_size=20)
model.fit(train, epochs=3)
)");
  const auto& loads = OpNamed(directory, "flow").keras_fit();
  EXPECT_FALSE(loads.has_workers()) << "fit's default, 1";
  // A JPEG's decode (1.08 ms) and no transform (5 us) a sample, 20 a batch.
  EXPECT_EQ(loads.getitem().python().duration(), "21700us") << Notes(directory);
  EXPECT_TRUE(directory.spec.source().size_is_stand_in());
}

// TensorFlow 1's loop that only runs the next element times the input alone, as
// `for _ in ds: pass` does (tensorflow#18784); a def's statement read again for its call is
// the pipeline read, not another.
TEST(CodeImportTest, ASessionLoopThatOnlyRunsNextTimesTheInputAlone) {
  const auto c = Import(R"(def make(name, batch_size):
    dataset = tf.data.TextLineDataset(filenames=name).skip(1)
    dataset = dataset.map(parse_csv).batch(batch_size)
    return dataset

dataset = make("data.csv", 100)
next_batch = dataset.make_one_shot_iterator().get_next()
with tf.Session() as sess:
    while True:
        try:
            sess.run(next_batch)
        except tf.errors.OutOfRangeError:
            break
)");
  EXPECT_EQ(c.spec.train_step().step_time(), "0ms") << Notes(c);
  EXPECT_FALSE(Notes(c).find("another pipeline") != std::string::npos) << Notes(c);
  // The element bound to a name the loop does nothing else with (tensorflow#23179's timing
  // loop as often written) is the same loop.
  const auto bound = Import(R"(ds = tf.data.Dataset.range(100).map(parse)
next_element = ds.make_one_shot_iterator().get_next()
with tf.Session() as sess:
    for i in range(100):
        x = sess.run(next_element)
)");
  EXPECT_EQ(bound.spec.train_step().step_time(), "0ms") << Notes(bound);
  const auto trains = Import(R"(ds = tf.data.Dataset.range(100).map(parse)
next_element = ds.make_one_shot_iterator().get_next()
with tf.Session() as sess:
    for i in range(100):
        x = sess.run(next_element)
        train(x)
)");
  EXPECT_NE(trains.spec.train_step().step_time(), "0ms") << Notes(trains);
}

// A map that only relabels (tf.cast to int64) costs next to nothing, not the 100 us
// stand-in; padded_shapes of (text, label) pad the text.
TEST(CodeImportTest, ARelabellingMapIsNoWorkAndPaddedShapesOfPairsPadTheFirst) {
  const auto c = Import(R"(def labeler(example, index):
    return example, tf.cast(index, tf.int64)
d = tf.data.TextLineDataset("a.txt").map(lambda ex: labeler(ex, 1))
d = d.padded_batch(64, padded_shapes=([-1], []))
)");
  EXPECT_TRUE(OpNamed(c, "labeler").map().fn().has_identity()) << c.spec.DebugString();
  ASSERT_EQ(OpNamed(c, "padded_batch").padded_batch().padded_shapes_size(), 1);
  EXPECT_EQ(OpNamed(c, "padded_batch").padded_batch().padded_shapes(0), -1);
}

TEST(CodeImportTest, TheLastPipelineIsReadAndTheOthersAreNamed) {
  const std::string source = R"(big = tf.data.Dataset.range(100).batch(10)
small = tf.data.Dataset.range(50).batch(5)
)";
  const auto last = Import(source);
  EXPECT_EQ(OpNamed(last, "batch").batch().batch_size(), 5);
  EXPECT_TRUE(HasNote(last, 1, "--pipeline big")) << Notes(last);
  const auto big = Import(source, {.pipeline = "big"});
  EXPECT_EQ(OpNamed(big, "batch").batch().batch_size(), 10);
  const auto nope = ImportCode(source, "test.py", {.pipeline = "nope"});
  ASSERT_FALSE(nope.ok());
  EXPECT_NE(nope.status().message().find("(the file binds big, small)"), std::string::npos)
      << nope.status().message();
  // The tf.data guide's benchmarks: each pipeline handed straight to the function that trains
  // on it, none named. The last is read; the others are said, by where they are made.
  const auto handed = Import(R"(import time
import tensorflow as tf
def benchmark(dataset, num_epochs=2):
    for epoch_num in range(num_epochs):
        for sample in dataset:
            time.sleep(0.01)
benchmark(tf.data.Dataset.range(3).map(lambda x: x + 1))
benchmark(tf.data.Dataset.range(3).prefetch(1))
benchmark(tf.data.Dataset.range(3).cache())
)");
  EXPECT_TRUE(OpNamed(handed, "cache").has_cache()) << handed.spec.DebugString();
  EXPECT_TRUE(HasNote(handed, 5,
                      "the file also trains on 2 other pipelines handed straight to a call (made "
                      "at lines 7 and 8); import-code reads the one at line 5 (bind another to a "
                      "name to read it with --pipeline NAME)"))
      << Notes(handed);
  // A pipeline named is read as the loop that trains on it consumes it, as the one read by
  // default is (pytorch#12831's two loaders timed by one function whose loop does nothing).
  const std::string timed = R"(import torch
def train(data_loader):
    for x in data_loader:
        pass
ds = torch.utils.data.TensorDataset(torch.randn(1000, 8))
loader1 = torch.utils.data.DataLoader(ds, batch_size=32, num_workers=0)
loader2 = torch.utils.data.DataLoader(ds, batch_size=32, num_workers=4)
train(loader1)
train(loader2)
)";
  // Named, a dataset fit trains on keeps fit's epochs, and fit's use of it is no other
  // pipeline.
  const auto fitted = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.range(100).batch(10)
model.fit(ds, epochs=5)
)",
                             {.pipeline = "ds"});
  EXPECT_EQ(OpNamed(fitted, "fit_epochs").repeat().count(), 5) << fitted.spec.DebugString();
  EXPECT_EQ(Notes(fitted).find("other pipeline"), std::string::npos) << Notes(fitted);
  for (const char* name : {"loader1", "loader2"}) {
    const auto one = Import(timed, {.pipeline = name});
    EXPECT_EQ(one.spec.train_step().step_time(), "0ms") << name << "\n" << Notes(one);
    EXPECT_EQ(OpNamed(one, "loader").dataloader().num_workers(),
              name == std::string("loader1") ? 0 : 4);
  }
  // Where nothing trains on one, the one named for training is read before a later
  // evaluation pipeline.
  const auto named = Import(R"(train_ds = tf.data.Dataset.range(100).batch(10)
val_ds = tf.data.Dataset.range(50).batch(5)
)");
  EXPECT_EQ(OpNamed(named, "batch").batch().batch_size(), 10);
  EXPECT_TRUE(HasNote(named, 2, "import-code reads 'train_ds'")) << Notes(named);
  // Another pipeline's iterator, its next element and the parts of that are the same other
  // pipeline, said once (voice_activity_detection's input_fn).
  const auto iterated = Import(R"(val = tf.data.Dataset.range(50).batch(5)
it = val.make_one_shot_iterator()
next_batch = it.get_next()
signal = next_batch[0]
train = tf.data.Dataset.range(100).batch(10)
)");
  EXPECT_TRUE(HasNote(iterated, 1, "another pipeline, 'val'")) << Notes(iterated);
  EXPECT_EQ(Notes(iterated).find("another pipeline, 'it'"), std::string::npos) << Notes(iterated);
  EXPECT_EQ(Notes(iterated).find("'signal'"), std::string::npos) << Notes(iterated);
}

// PyTorch computes where the tensors are: a training loop in a file that moves nothing to a
// device trains on the CPU (the CIFAR-10 tutorial's first loop), and its step shares the
// cores with the workers; one that calls .to(device) has an accelerator.
TEST(CodeImportTest, ATorchLoopThatMovesNothingToADeviceTrainsOnTheCpu) {
  const std::string loader = R"(import torch
from torch.utils.data import DataLoader, TensorDataset
loader = DataLoader(TensorDataset(torch.randn(1000, 8)), batch_size=10, num_workers=2)
for x, in loader:
)";
  const auto cpu = Import(loader + R"(    optimizer.zero_grad()
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
)");
  EXPECT_EQ(cpu.spec.train_step().device(), spec::cpu);
  EXPECT_TRUE(HasNote(cpu, 4, "PyTorch trains on the CPU")) << Notes(cpu);
  const auto gpu = Import(loader + R"(    x = x.to(dev)
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
dev = torch.device("cuda")
)");
  EXPECT_EQ(gpu.spec.train_step().device(), spec::simulated) << Notes(gpu);
  const auto dumps = Import(loader + R"(    xmin = pickle.dumps(x)
    loss = model(x).sum()
    loss.backward()
)");
  EXPECT_EQ(dumps.spec.train_step().device(), spec::cpu) << "dumps and xmin name no device";
}

// A file that hides the GPU (CUDA_VISIBLE_DEVICES="-1", or TensorFlow's
// set_visible_devices([], "GPU")) trains on the CPU, Keras's fit too; a pipeline placed on
// the CPU with tf.device, as the performance guide advises, does not move the training.
TEST(CodeImportTest, AFileThatHidesTheGpuTrainsOnTheCpu) {
  const std::string fit = R"(ds = tf.data.Dataset.range(1000).map(lambda x: x * 2).batch(10)
model.fit(ds, epochs=2)
)";
  const auto hidden = Import(
      "import os\nimport tensorflow as tf\n"
      "os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"-1\"\n" +
      fit);
  EXPECT_EQ(hidden.spec.train_step().device(), spec::cpu) << Notes(hidden);
  EXPECT_NE(Notes(hidden).find("the file hides the GPU (`os.environ[\"CUDA_VISIBLE_DEVICES\"] = "
                               "\"-1\"`): training runs on the CPU"),
            std::string::npos)
      << Notes(hidden);
  const auto tf_hidden =
      Import("import tensorflow as tf\ntf.config.set_visible_devices([], 'GPU')\n" + fit);
  EXPECT_EQ(tf_hidden.spec.train_step().device(), spec::cpu) << Notes(tf_hidden);
  const auto placed = Import(
      "import tensorflow as tf\nwith tf.device('/cpu:0'):\n"
      "    ds = tf.data.Dataset.range(1000).batch(10)\n"
      "model.fit(ds, epochs=2)\n");
  EXPECT_EQ(placed.spec.train_step().device(), spec::simulated) << Notes(placed);
  const auto visible = Import(
      "import os\nimport tensorflow as tf\n"
      "os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0\"\n" +
      fit);
  EXPECT_EQ(visible.spec.train_step().device(), spec::simulated) << Notes(visible);
}

// A generator yields what its loops say: range(N) of a constant the file binds is N
// elements, not an endless source; a while loop is known only when it runs.
TEST(CodeImportTest, AGeneratorYieldsWhatItsLoopsSay) {
  const auto counted = Import(R"(import tensorflow as tf
N = 1000
def gen():
    for i in range(N):
        x = i * 2
        yield x, i
    for name in ["a", "b"]:
        for j in range(10, 20, 5):
            yield name, j
    yield from range(3)
ds = tf.data.Dataset.from_generator(gen, output_types=(tf.int64, tf.int64)).batch(4)
)");
  EXPECT_EQ(counted.spec.source().from_generator().records(), 1000 + 2 * 2 + 3);
  EXPECT_TRUE(HasNote(counted, 11, "it yields 1007 elements")) << Notes(counted);
  // tf.data's work around each next(), as a map's dispatch, stands in and is said.
  EXPECT_EQ(counted.spec.source().from_generator().call_overhead(), "9us");
  EXPECT_TRUE(HasNote(counted, 11, "each next() of 'gen' pays tf.data's work around it"))
      << Notes(counted);
  const auto endless = Import(R"(import tensorflow as tf
def gen():
    i = 0
    while True:
        yield i
        i += 1
ds = tf.data.Dataset.from_generator(gen, output_types=tf.int64)
)");
  EXPECT_EQ(endless.spec.source().from_generator().records(), -1);
  EXPECT_TRUE(HasNote(endless, 7, ".records=N")) << Notes(endless);
  const auto guarded = Import(R"(import tensorflow as tf
def gen():
    for i in range(100):
        if i % 2:
            yield i
ds = tf.data.Dataset.from_generator(gen, output_types=tf.int64)
)");
  EXPECT_EQ(guarded.spec.source().from_generator().records(), -1) << "a yield under an if";
}

// A zip's second pipeline over files the code computes stands in until its files are set,
// by the name its source has in the spec.
TEST(CodeImportTest, TheFilesOfAZipsSecondPipelineAreSetByItsName) {
  auto c = Import(R"(import tensorflow as tf
images = tf.data.Dataset.range(100)
labels = tf.data.TFRecordDataset(label_files)
ds = tf.data.Dataset.zip((images, labels)).batch(4)
)");
  ASSERT_EQ(c.spec.ops(0).zip().source().name(), "read");
  EXPECT_TRUE(c.spec.ops(0).zip().source().has_synthetic());
  EXPECT_TRUE(HasNote(c, 4, "--set read.files=PATTERN")) << Notes(c);
  const std::string dir = ::testing::TempDir() + "/zip_labels";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/labels-0.tfrecord") << "";
  ASSERT_TRUE(SetCodeKnob(c, "read.files=" + dir + "/labels-*.tfrecord").ok());
  ASSERT_TRUE(c.spec.ops(0).zip().source().has_tfrecord());
  EXPECT_EQ(c.spec.ops(0).zip().source().tfrecord().files(0), dir + "/labels-0.tfrecord");
  EXPECT_FALSE(SetCodeKnob(c, "read.files=" + dir + "/none-*").ok());
}

TEST(CodeImportTest, ADataLoaderOverTheFilesDatasetClass) {
  const auto c = Import(R"(from torch.utils.data import Dataset, DataLoader
from PIL import Image

class FaceLandmarksDataset(Dataset):
    def __init__(self, root):
        self.root = root
    def __len__(self):
        return 69
    def __getitem__(self, idx):
        return Image.open(self.files[idx])

loader = DataLoader(FaceLandmarksDataset("faces/"), batch_size=4,
                    shuffle=True, num_workers=2, pin_memory=True,
                    persistent_workers=True, prefetch_factor=4)
for epoch in range(10):
    for batch in loader:
        train(batch)
)");
  EXPECT_EQ(c.framework, "pytorch");
  EXPECT_EQ(c.spec.source().range().stop(), 69);
  const auto& dl = OpNamed(c, "loader").dataloader();
  EXPECT_EQ(dl.batch_size(), 4);
  EXPECT_EQ(dl.num_workers(), 2);
  EXPECT_TRUE(dl.pin_memory());
  EXPECT_TRUE(dl.persistent_workers());
  EXPECT_EQ(dl.prefetch_factor(), 4);
  EXPECT_TRUE(dl.getitem().has_python());
  EXPECT_TRUE(OpNamed(c, "epochs").has_repeat());
  // What __getitem__ returns is not in the code: said, and given with --set.
  EXPECT_TRUE(HasNote(c, 12, "--set loader.sample_bytes=SIZE")) << Notes(c);
  auto sized = c;
  ASSERT_TRUE(SetCodeKnob(sized, "loader.sample_bytes=150KB").ok());
  EXPECT_EQ(OpNamed(sized, "loader").dataloader().getitem().output_bytes(), 150'000);
  EXPECT_FALSE(SetCodeKnob(sized, "loader.sample_bytes=big").ok());
  EXPECT_FALSE(SetCodeKnob(sized, "epochs.sample_bytes=1KB").ok());
}

// batch_size=None turns automatic batching off: each item is handed on as it is, and the
// note says so rather than reading the DataLoader's default of 1 silently.
// A function that builds the pipeline, called with a keyword argument: the argument, not the
// parameter's default (input_fn(True, data_dir, 256, num_epochs=300) of TensorFlow's models).
// A map that draws random numbers stays random whatever stands for its work (a cost on
// stand-in records): a cache after it is then seen to freeze the augmentation.
TEST(CodeImportTest, ARandomMapStaysRandomOnStandInRecords) {
  const auto c = Import(R"(import tensorflow as tf
def augment(image):
    image = tf.image.random_flip_left_right(image)
    return tf.image.random_brightness(image, 0.2)
ds = tf.data.TFRecordDataset(["a.tfrecord"])
ds = ds.map(tf.image.random_flip_left_right, num_parallel_calls=4)
ds = ds.map(augment)
ds = ds.map(lambda x: x * 2)
ds = ds.cache().batch(64)
)");
  EXPECT_TRUE(OpNamed(c, "random_flip_left_right").map().random());
  EXPECT_TRUE(OpNamed(c, "augment").map().random());
  for (const auto& op : c.spec.ops()) {
    if (op.has_map() && op.name() != "random_flip_left_right" && op.name() != "augment") {
      EXPECT_FALSE(op.map().random()) << op.name();
    }
  }
}

// What a function modelled by its heaviest work makes is the image its calls size: a decode
// then a resize to 416×416 is a float32 image of 2 MB (yolo3#12's 70000 of them filled the
// memory), a crop to [224, 224, 3] of a decoded image is 150 KB of uint8, whatever the work
// that stands for the function.
TEST(CodeImportTest, AFunctionsOutputIsTheImageItsCallsSize) {
  const auto c = Import(R"(import tensorflow as tf
def parser(serialized):
    features = tf.parse_single_example(serialized, {"image/encoded": tf.FixedLenFeature([], tf.string)})
    image = tf.image.decode_jpeg(features["image/encoded"], channels=3)
    image = tf.image.convert_image_dtype(image, tf.uint8)
    image = tf.image.resize_images(image, [416, 416])
    return image / 255.0
def crop(serialized):
    features = tf.parse_single_example(serialized, {"image": tf.FixedLenFeature([], tf.string)})
    image = tf.image.decode_jpeg(features["image"])
    return tf.image.random_crop(image, [224, 224, 3])
def gray(path):
    image = tf.image.decode_png(tf.io.read_file(path), channels=1)
    return tf.image.resize(image, [256, 512])
def sized(image):
    return tf.image.resize(image, [64, 64])
ds = tf.data.TFRecordDataset(["a.tfrecord"])
ds = ds.map(parser).map(crop).map(gray).map(sized)
)");
  EXPECT_EQ(OpNamed(c, "parser").map().fn().output_bytes(), 416 * 416 * 3 * 4) << Notes(c);
  EXPECT_EQ(OpNamed(c, "crop").map().fn().output_bytes(), 224 * 224 * 3) << Notes(c);
  // Cam2BEV#14's form: a decode the known works do not stand for, its cost the user's.
  EXPECT_EQ(OpNamed(c, "gray").map().fn().output_bytes(), 256 * 512 * 1 * 4) << Notes(c);
  // (The records are stand-ins: the resize's typical cost stands for it, its size kept.)
  EXPECT_EQ(OpNamed(c, "sized").map().fn().output_bytes(), 64 * 64 * 3 * 4);
  // On stand-in records the decode's typical cost stands for parser's work: its image's size
  // stays, and so does the resize's, once a cost stands for it too.
  const auto stand_in = Import(R"(import tensorflow as tf
def parser(serialized):
    features = tf.io.parse_single_example(serialized, {"image": tf.io.FixedLenFeature([], tf.string)})
    image = tf.image.decode_jpeg(features["image"], channels=3)
    return tf.image.resize(image, [224, 224])
ds = tf.data.TFRecordDataset(files).map(parser).map(lambda x, y: (tf.image.resize(x, [32, 32]), y))
)");
  const spec::WorkFunction& parser = stand_in.spec.ops(0).map().fn();
  EXPECT_TRUE(parser.has_cpu_work()) << Notes(stand_in);
  EXPECT_EQ(parser.output_bytes(), 224 * 224 * 3 * 4);
  const spec::WorkFunction& small = stand_in.spec.ops(1).map().fn();
  EXPECT_TRUE(small.has_cpu_work()) << stand_in.spec.DebugString();
  EXPECT_EQ(small.output_bytes(), 32 * 32 * 3 * 4);
}

// A function that calls what takes one element at a time (decode_jpeg: one image's bytes;
// read_file: one name) cannot be mapped over a batch, whatever stands for its work: the
// validator refuses batching before it, so the advisor never offers it. One that parses
// (parse_single_example, whose batched form is parse_example) can be.
TEST(CodeImportTest, AFunctionThatTakesOneElementCannotFollowABatch) {
  const auto c = Import(R"(import tensorflow as tf
def parser_fn(serialized):
    features = tf.io.parse_single_example(serialized, {"image": tf.io.FixedLenFeature([], tf.string)})
    return tf.image.decode_jpeg(features["image"], channels=3)
def load(path):
    return tf.io.read_file(path)
def parse(serialized):
    return tf.io.parse_single_example(serialized, {"x": tf.io.FixedLenFeature([], tf.int64)})
def parse_sample(f):
    img = tf.image.decode_png(tf.io.read_file(f))
    return tf.image.resize(img, [256, 512])
ds = tf.data.TFRecordDataset(["a.tfrecord"])
ds = ds.map(parser_fn).map(load).map(parse).map(parse_sample)
ds = ds.batch(32)
)");
  EXPECT_EQ(OpNamed(c, "parser_fn").map().fn().cpu_work().one_element_call(), "decode_jpeg");
  EXPECT_EQ(OpNamed(c, "load").map().fn().cpu_work().one_element_call(), "tf.io.read_file");
  EXPECT_EQ(OpNamed(c, "parse").map().fn().cpu_work().one_element_call(), "");
  // Each file read is one of the disk a spec names, a stand-in's size until set.
  EXPECT_EQ(OpNamed(c, "load").map().fn().cpu_work().read_bytes(), 108000);
  EXPECT_EQ(OpNamed(c, "parse_sample").map().fn().cpu_work().read_bytes(), 108000);
  EXPECT_EQ(OpNamed(c, "parse").map().fn().cpu_work().read_bytes(), 0);
  EXPECT_TRUE(HasNote(c, 13,
                      "'load' reads the file each element names (tf.io.read_file), 108 KB "
                      "standing in, from memory until the disk is named: --set storage.kind=hdd"))
      << Notes(c);
  // A decode the known works do not stand for, beside a resize that takes batches
  // (Cam2BEV#14): the function is one image at a time, its cost the user's to set.
  EXPECT_EQ(OpNamed(c, "parse_sample").map().fn().cpu_work().one_element_call(),
            "tf.image.decode_png")
      << Notes(c);
  EXPECT_TRUE(HasNote(c, 13, "it calls tf.image.decode_png, which takes one element at a time"))
      << Notes(c);
  for (const char* name : {"parser_fn", "load", "parse", "parse_sample"}) {
    spec::PipelineSpec batched = c.spec;
    auto* ops = batched.mutable_ops();
    int at = 0;
    while (ops->Get(at).name() != name) ++at;
    for (int i = at; i + 1 < ops->size(); ++i) ops->SwapElements(i, i + 1);  // after the batch
    const engine::Status valid = engine::ValidateSpec(batched, "test");
    EXPECT_EQ(valid.ok(), std::string(name) == "parse") << name << ": " << valid.message();
    if (std::string(name) == "parser_fn") {
      EXPECT_NE(valid.message().find("stands for decode_jpeg, which takes one element at a time"),
                std::string::npos)
          << valid.message();
    }
  }
}

// Keras's fit over a generator bound to a name first (tensorflow#47633's
// `train_model_input = generate(...)`) is the generator's enqueuer; run in processes, the note
// says that each runs its own copy. Over arrays there is no pipeline, and the error says
// why workers and use_multiprocessing change nothing.
TEST(CodeImportTest, FitOverAGeneratorByNameAndOverArrays) {
  const auto named = Import(R"(def generate(df):
    while True:
        yield df, df
train_model_input = generate(data)
model.fit(train_model_input, steps_per_epoch=100, workers=8, use_multiprocessing=True)
)");
  ASSERT_EQ(named.framework, "keras");
  EXPECT_TRUE(OpNamed(named, "fit").keras_fit().generator());
  EXPECT_TRUE(HasNote(named, 5, "each runs its own copy, so batches repeat")) << Notes(named);
  const auto arrays = ImportCode(R"(import numpy as np
X = np.random.rand(1000, 10, 4)
model.fit(X, X, epochs=50, batch_size=64, workers=4, use_multiprocessing=True)
)",
                                 "arrays.py");
  ASSERT_FALSE(arrays.ok());
  EXPECT_NE(arrays.status().message().find(
                "fit's x is `X`, not a tf.data dataset, a keras.utils.Sequence or a generator"),
            std::string::npos)
      << arrays.status().message();
  EXPECT_NE(arrays.status().message().find("they change nothing here"), std::string::npos);
}

// num_parallel_reads where it cannot be read (files known only at run time, one file, an
// interleave's own file) is said, not dropped (tensorflow#31019 got no word of it).
TEST(CodeImportTest, ANumParallelReadsNotReadIsSaid) {
  const auto inside = Import(R"(import tensorflow as tf
files = tf.data.Dataset.list_files("/data/train-*.tfrecord")
ds = files.interleave(lambda f: tf.data.TFRecordDataset(f, num_parallel_reads=4),
                      cycle_length=4, num_parallel_calls=4)
)");
  EXPECT_TRUE(HasNote(inside, 3, "num_parallel_reads=4 is not read")) << Notes(inside);
  const auto one = Import(R"(import tensorflow as tf
ds = tf.data.TFRecordDataset(["a.tfrecord"], num_parallel_reads=8)
)");
  EXPECT_TRUE(HasNote(one, 2, "one file is read as one stream")) << Notes(one);
}

// Lightning's trainer.fit(model): the loader its train_dataloader() returns, or the one given
// as train_dataloaders=, is read as PyTorch's; the module is no Keras Sequence
// (Lightning#18862 was read as fit's enqueuer and told use_multiprocessing=True).
TEST(CodeImportTest, LightningsFitTrainsOnTheModulesTrainDataloader) {
  const std::string squares = R"(import pytorch_lightning as pl
from torch.utils.data import DataLoader, Dataset
class Squares(Dataset):
    def __len__(self):
        return 10000
    def __getitem__(self, i):
        return i * i
)";
  const std::string module = squares + R"(class MyModel(pl.LightningModule):
    def train_dataloader(self):
        return DataLoader(Squares(), batch_size=1000, num_workers=11)
    def training_step(self, batch, batch_idx):
        return batch.sum()
model = MyModel()
trainer = pl.Trainer(max_epochs=100)
)";
  const auto own = Import(module + "trainer.fit(model)\n");
  EXPECT_EQ(own.framework, "pytorch");
  ASSERT_EQ(own.spec.ops(0).kind_case(), spec::Op::kDataloader) << own.spec.DebugString();
  EXPECT_EQ(own.spec.ops(0).dataloader().num_workers(), 11);
  const auto given = Import(module +
                            "loader = DataLoader(Squares(), batch_size=64, num_workers=2)\n"
                            "other = DataLoader(Squares(), batch_size=8)\n"
                            "trainer.fit(model, train_dataloaders=loader)\n");
  ASSERT_EQ(given.spec.ops(0).kind_case(), spec::Op::kDataloader);
  EXPECT_EQ(given.spec.ops(0).dataloader().batch_size(), 64);
  // Its epochs are the Trainer's max_epochs, or Lightning's 1000 where neither max_epochs
  // nor max_steps is given; max_steps alone leaves them uncounted.
  const spec::Op& epochs = own.spec.ops(own.spec.ops_size() - 1);
  ASSERT_TRUE(epochs.has_repeat()) << own.spec.DebugString();
  EXPECT_EQ(epochs.repeat().count(), 100) << Notes(own);
  EXPECT_TRUE(HasNote(own, 14, "the Trainer's max_epochs=100: its epochs' repeat counts 100"))
      << Notes(own);
  std::string unbounded = module;
  unbounded.replace(unbounded.find("max_epochs=100"), 14, "accelerator='cpu'");
  const auto by_default = Import(unbounded + "trainer.fit(model)\n");
  EXPECT_EQ(by_default.spec.ops(by_default.spec.ops_size() - 1).repeat().count(), 1000)
      << Notes(by_default);
  // A module made with arguments: its train_dataloader() as that instance runs it.
  const auto with_arguments = Import(squares + R"(class Lit(pl.LightningModule):
    def __init__(self, batch_size=32, num_workers=4):
        super().__init__()
        self.batch_size = batch_size
        self.num_workers = num_workers
    def train_dataloader(self):
        return DataLoader(Squares(), batch_size=self.batch_size, num_workers=self.num_workers)
pl.Trainer(max_epochs=20).fit(Lit(batch_size=64, num_workers=8))
)");
  EXPECT_EQ(with_arguments.spec.ops(0).dataloader().batch_size(), 64) << Notes(with_arguments);
  EXPECT_EQ(with_arguments.spec.ops(0).dataloader().num_workers(), 8) << Notes(with_arguments);
  // Kept by self.save_hyperparameters(), read as self.hparams.x: the same arguments.
  const auto hparams = Import(squares + R"(class Lit(pl.LightningModule):
    def __init__(self, batch_size=32, num_workers=4):
        super().__init__()
        self.save_hyperparameters()
    def train_dataloader(self):
        return DataLoader(Squares(), batch_size=self.hparams.batch_size,
                          num_workers=self.hparams.num_workers, persistent_workers=True)
pl.Trainer(max_epochs=20).fit(Lit(batch_size=64, num_workers=8))
)");
  ASSERT_GE(hparams.spec.ops_size(), 1) << Notes(hparams);
  EXPECT_EQ(hparams.spec.ops(0).dataloader().batch_size(), 64) << Notes(hparams);
  EXPECT_EQ(hparams.spec.ops(0).dataloader().num_workers(), 8) << Notes(hparams);
  unbounded.replace(unbounded.find("accelerator='cpu'"), 17, "max_steps=500");
  const auto by_steps = Import(unbounded + "trainer.fit(model)\n");
  // max_steps alone: endless epochs, and a take of that many batches after them.
  const spec::Op& steps = by_steps.spec.ops(by_steps.spec.ops_size() - 1);
  ASSERT_TRUE(steps.has_take()) << by_steps.spec.DebugString();
  EXPECT_EQ(steps.take().count(), 500);
  const spec::Op& endless = by_steps.spec.ops(by_steps.spec.ops_size() - 2);
  EXPECT_FALSE(endless.repeat().has_count()) << Notes(by_steps);
  EXPECT_TRUE(HasNote(by_steps, 15, "the Trainer's max_steps=500: training ends after 500 batches"))
      << Notes(by_steps);
  // A validation loader (Lightning#10389's val_dataloader) is gone over at each epoch's end:
  // not simulated, and said; a module without one hears nothing of it.
  std::string validated = module;
  validated.replace(validated.find("    def training_step"), 0,
                    "    def val_dataloader(self):\n"
                    "        return DataLoader(Squares(), batch_size=1000, num_workers=4)\n");
  const auto with_validation = Import(validated + "trainer.fit(model)\n");
  EXPECT_TRUE(HasNote(with_validation, 17,
                      "Lightning also goes over `MyModel.val_dataloader()` at each epoch's end: "
                      "not simulated"))
      << Notes(with_validation);
  EXPECT_EQ(Notes(own).find("val_dataloader"), std::string::npos) << Notes(own);
}

// A list as the dataset (Lightning#17410's tensors in memory, `DataLoader(data[:4000])`):
// as many items as the list has, each an index into it, not a class's stand-in cost; a
// Dataset whose length is an array's made with torch.Tensor(np.arange(N)) is N long.
TEST(CodeImportTest, AListAndATensorOfAnArrayHaveTheirLengths) {
  const auto listed = Import(R"(import torch
from torch.utils.data import DataLoader
data = [torch.zeros(4), torch.zeros(4), torch.zeros(4)]
for x in DataLoader(data[:2], batch_size=1):
    pass
)");
  EXPECT_EQ(listed.spec.source().range().stop(), 2) << Notes(listed);
  const auto& getitem = listed.spec.ops(0).dataloader().getitem();
  EXPECT_FALSE(getitem.cost_is_stand_in()) << Notes(listed);
  EXPECT_EQ(getitem.output_bytes(), 16) << Notes(listed);
  const auto arrayed = Import(R"(import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
class DS(Dataset):
    def __init__(self):
        self.X = torch.Tensor(np.arange(5000))
    def __len__(self):
        return len(self.X)
    def __getitem__(self, i):
        return self.X[i]
for x in DataLoader(DS(), batch_size=100):
    pass
)");
  EXPECT_EQ(arrayed.spec.source().range().stop(), 5000) << Notes(arrayed);
  // Its rows are float32, torch.Tensor's dtype, whatever the array's was (int64).
  EXPECT_EQ(arrayed.spec.ops(0).dataloader().getitem().output_bytes(), 4) << Notes(arrayed);
}

// An IterableDataset has no __getitem__: its __iter__'s work per sample is the cost, and the
// note says how its workers differ (each runs the whole __iter__ unless it splits itself).
TEST(CodeImportTest, AnIterableDatasetsIterIsItsWork) {
  const auto c = Import(R"(import numpy as np
from torch.utils.data import IterableDataset, DataLoader
class MyIterable(IterableDataset):
    def __iter__(self):
        for _ in range(1000):
            yield np.random.rand(1000, 150)

loader = DataLoader(MyIterable(), batch_size=128, num_workers=8, prefetch_factor=4)
)");
  const auto& dl = OpNamed(c, "loader").dataloader();
  EXPECT_TRUE(dl.getitem().has_python());
  EXPECT_EQ(dl.num_workers(), 8);
  EXPECT_TRUE(HasNote(c, 8, "`MyIterable()` is an IterableDataset")) << Notes(c);
  EXPECT_FALSE(HasNote(c, 8, "is not a class this file defines")) << Notes(c);
  // Not split among the workers: PyTorch replicates it in each, 8 copies an epoch.
  EXPECT_TRUE(dl.replicated());
  EXPECT_TRUE(HasNote(c, 8, "each of the 8 workers yields all of it, so an epoch is 8 copies"))
      << Notes(c);
}

// An IterableDataset without __len__ has as many items as its __iter__'s loops yield, on the
// instance as it was made; a loop of unknown length leaves the stand-in.
TEST(CodeImportTest, AnIterableDatasetsLengthIsWhatItsIterYields) {
  const auto c = Import(R"(from torch.utils.data import IterableDataset, DataLoader
class Span(IterableDataset):
    def __init__(self, start, end):
        self.start = start
        self.end = end
    def __iter__(self):
        for i in range(self.start, self.end):
            yield i
        yield -1

loader = DataLoader(Span(10, 50), batch_size=4)
)");
  EXPECT_EQ(c.spec.source().range().stop(), 41) << Notes(c);
  EXPECT_EQ(Notes(c).find("is known only when the code runs"), std::string::npos) << Notes(c);
  const auto unknown = Import(R"(from torch.utils.data import IterableDataset, DataLoader
class Lines(IterableDataset):
    def __iter__(self):
        for line in open("data.txt"):
            yield line

loader = DataLoader(Lines(), batch_size=4)
)");
  EXPECT_NE(Notes(unknown).find("items stand in; --set dataset.stop=N"), std::string::npos)
      << Notes(unknown);
}

// huggingface/datasets#5505: batch_sampler=BatchSampler(...) batches as its batch_size says
// (not one item a batch), and a dataset with __getitems__ is given each batch's indices in
// one call, read from __getitems__ (its fix); a collate_fn that calls nothing costs a call.
TEST(CodeImportTest, ABatchSamplerBatchesAndGetitemsFetchesWholeBatches) {
  const auto sampled =
      Import(R"(from torch.utils.data import Dataset, DataLoader, BatchSampler, RandomSampler
class Rows(Dataset):
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        return i
ds = Rows()
loader = DataLoader(ds, batch_sampler=BatchSampler(RandomSampler(ds), batch_size=32, drop_last=True))
)");
  const auto& dl = OpNamed(sampled, "loader").dataloader();
  EXPECT_EQ(dl.batch_size(), 32) << Notes(sampled);
  EXPECT_TRUE(dl.drop_last());
  EXPECT_TRUE(dl.shuffle());
  EXPECT_FALSE(dl.fetch_batches());
  EXPECT_EQ(Notes(sampled).find("the loader's sampler"), std::string::npos) << Notes(sampled);
  EXPECT_TRUE(HasNote(sampled, 8,
                      "batch_sampler= hands the loader each batch's indices, and it still calls "
                      "__getitem__ once an index"))
      << Notes(sampled);

  const auto getitems = Import(R"(from torch.utils.data import Dataset, DataLoader
class Table(Dataset):
    def __getitems__(self, indices):  # one lookup for the batch
        return fast_lookup(indices)
    def __getitem__(self, i): return slow_lookup(i)
    def __len__(self): return 1000
loader = DataLoader(Table(), batch_size=32, collate_fn=lambda b: b)
)");
  const auto& batched = OpNamed(getitems, "loader").dataloader();
  EXPECT_TRUE(batched.fetch_batches());
  EXPECT_EQ(batched.batch_size(), 32);
  EXPECT_EQ(batched.collate().python().duration(), "1us");
  EXPECT_TRUE(HasNote(getitems, 7, "'loader' runs Python whose cost the code does not show"))
      << Notes(getitems);
}

// OpenCV in worker processes runs a thread pool in each (mmdetection#3306): said, unless the
// file sets cv2.setNumThreads.
TEST(CodeImportTest, OpenCvInWorkersIsSaidToCrowdTheCores) {
  const std::string code = R"(import cv2
from torch.utils.data import Dataset, DataLoader
class Images(Dataset):
    def __len__(self):
        return 100
    def __getitem__(self, i):
        return cv2.resize(cv2.imread(str(i)), (640, 640))
loader = DataLoader(Images(), batch_size=8, num_workers=8)
)";
  EXPECT_TRUE(HasNote(Import(code), 8, "Images calls OpenCV (cv2.")) << Notes(Import(code));
  const auto set = Import("import cv2\ncv2.setNumThreads(0)\n" + code.substr(11));
  EXPECT_EQ(Notes(set).find("calls OpenCV"), std::string::npos) << Notes(set);
}

// An __iter__ that splits its items by get_worker_info() yields one copy an epoch.
TEST(CodeImportTest, AnIterableDatasetSplitByWorkerInfoIsOneCopy) {
  const auto c = Import(R"(import math
import torch
from torch.utils.data import IterableDataset, DataLoader
class Shards(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end
    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        per_worker = int(math.ceil((self.end - self.start) / float(info.num_workers)))
        lo = self.start + info.id * per_worker
        for i in range(lo, min(lo + per_worker, self.end)):
            yield i

loader = DataLoader(Shards(0, 1000), batch_size=16, num_workers=4)
)");
  const auto& dl = OpNamed(c, "loader").dataloader();
  EXPECT_FALSE(dl.replicated());
  EXPECT_EQ(dl.worker_split(), spec::chunks) << "PyTorch's documentation's contiguous chunks";
  EXPECT_TRUE(HasNote(c, 8, "Shards.__iter__ asks get_worker_info(): read as splitting"))
      << Notes(c);
  // Imported by name, in a method __iter__ calls; or a worker_init_fn that configures each
  // replica (PyTorch's docs' second example): one copy too.
  const auto by_name = Import(R"(import itertools
from torch.utils.data import IterableDataset, DataLoader, get_worker_info
class Lines(IterableDataset):
    def _mine(self, it):
        info = get_worker_info()
        if info is None:
            return it
        return itertools.islice(it, info.id, None, info.num_workers)
    def __iter__(self):
        return self._mine(iter(range(1000)))

loader = DataLoader(Lines(), batch_size=16, num_workers=4)
)");
  EXPECT_FALSE(OpNamed(by_name, "loader").dataloader().replicated()) << Notes(by_name);
  EXPECT_EQ(OpNamed(by_name, "loader").dataloader().worker_split(), spec::every_nth)
      << "islice(it, id, None, num_workers)";
  const auto sliced =
      Import(R"(from torch.utils.data import IterableDataset, DataLoader, get_worker_info
class Lines(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        return iter(list(range(1000))[info.id::info.num_workers])
loader = DataLoader(Lines(), batch_size=16, num_workers=4)
)");
  EXPECT_EQ(OpNamed(sliced, "loader").dataloader().worker_split(), spec::every_nth)
      << "a slice with the workers' count as its step";
  // In a worker, get_worker_info() is not None: the branch that splits is read, not guessed
  // (pytorch#105203's __iter__, PyTorch's docs' first example).
  const auto docs = Import(R"(import math
import torch
class Docs(torch.utils.data.IterableDataset):
    def __iter__(self):
        worker_info = torch.utils.data.get_worker_info()
        if worker_info is None:
            iter_start, iter_end = 0, 40
        else:
            per_worker = int(math.ceil(40 / float(worker_info.num_workers)))
            iter_start = worker_info.id * per_worker
            iter_end = min(iter_start + per_worker, 40)
        return iter(range(iter_start, iter_end))

loader = torch.utils.data.DataLoader(Docs(), num_workers=4)
)");
  EXPECT_FALSE(OpNamed(docs, "loader").dataloader().replicated()) << Notes(docs);
  EXPECT_EQ(Notes(docs).find("is known only when the code runs: read as true"), std::string::npos)
      << Notes(docs);
  const auto init_fn = Import(R"(from torch.utils.data import IterableDataset, DataLoader
class Range(IterableDataset):
    def __init__(self):
        self.start, self.end = 0, 1000
    def __iter__(self):
        return iter(range(self.start, self.end))

def worker_init_fn(worker_id):
    worker_info = torch.utils.data.get_worker_info()
    dataset = worker_info.dataset
    per_worker = (dataset.end - dataset.start) // worker_info.num_workers
    dataset.start = dataset.start + worker_info.id * per_worker

loader = DataLoader(Range(), batch_size=16, num_workers=4, worker_init_fn=worker_init_fn)
)");
  EXPECT_FALSE(OpNamed(init_fn, "loader").dataloader().replicated()) << Notes(init_fn);
  EXPECT_EQ(OpNamed(init_fn, "loader").dataloader().worker_split(), spec::chunks);
  EXPECT_TRUE(HasNote(init_fn, 14, "may configure each worker's replica of Range"))
      << Notes(init_fn);
  // A worker_init_fn from elsewhere may do anything: one copy.
  const auto imported = Import(R"(from torch.utils.data import IterableDataset, DataLoader
from helpers import init_worker
class Range(IterableDataset):
    def __iter__(self):
        return iter(range(1000))

loader = DataLoader(Range(), batch_size=16, num_workers=4, worker_init_fn=init_worker)
)");
  EXPECT_FALSE(OpNamed(imported, "loader").dataloader().replicated()) << Notes(imported);
}

// An __iter__ that yields in a `while True` it never leaves is an endless stream: each worker
// draws its own (PyTorch seeds them apart), so nothing is a copy, and no epoch ends for the
// workers to start again (pytorch#81412's random arrays).
TEST(CodeImportTest, AnEndlessIterableDatasetIsAStreamPerWorkerNotCopies) {
  const std::string module = R"(import numpy as np
from torch.utils.data import DataLoader, IterableDataset
class MyIterable(IterableDataset):
    def __init__(self, shape=(1000, 150)):
        self.shape = shape
    def __iter__(self):
        while True:
            x = np.random.rand(*self.shape)
            yield x
)";
  const auto c =
      Import(module + "loader = DataLoader(MyIterable(), batch_size=128, num_workers=8)\n");
  const auto& dl = OpNamed(c, "loader").dataloader();
  EXPECT_FALSE(dl.replicated()) << Notes(c);
  EXPECT_GT(c.spec.source().range().stop(), 1'000'000'000) << "more items than any run takes";
  EXPECT_TRUE(HasNote(c, 10,
                      "MyIterable.__iter__ yields forever (`while True`): an endless "
                      "stream, each of the 8 workers running its own"))
      << Notes(c);
  EXPECT_FALSE(HasNote(c, 10, "again every epoch")) << Notes(c);
  EXPECT_FALSE(HasNote(c, 10, "items stand in")) << Notes(c);
  // A `while True` left by a break ends: its replicas are copies again.
  const auto ends = Import(R"(import numpy as np
from torch.utils.data import DataLoader, IterableDataset
class Lines(IterableDataset):
    def __iter__(self):
        f = open("lines.txt")
        while True:
            line = f.readline()
            if not line:
                break
            yield line
loader = DataLoader(Lines(), batch_size=128, num_workers=8)
)");
  EXPECT_TRUE(OpNamed(ends, "loader").dataloader().replicated()) << Notes(ends);
}

// The worker's id asked only to seed each replica's random numbers leaves every worker
// yielding all of the dataset: PyTorch's replicas, each an epoch's worth (pytorch#30599's
// askers seeded numpy so).
TEST(CodeImportTest, AnIterableDatasetThatAsksTheWorkerOnlyForASeedIsReplicated) {
  // An __iter__ that asks for its worker's info, then uses it as each case says.
  const std::string asks = R"(import random
import numpy as np
import torch
from torch.utils.data import IterableDataset, DataLoader
class Noise(IterableDataset):
    def __iter__(self):
        info = torch.utils.data.get_worker_info()
)";
  const auto in_iter = Import(asks + R"(        seed = 0 if info is None else info.seed % 2**32
        rng = np.random.default_rng(seed)
        random.seed(info.id if info else 0)
        for _ in range(1000):
            yield rng.random(16)

loader = DataLoader(Noise(), batch_size=16, num_workers=4)
)");
  EXPECT_TRUE(OpNamed(in_iter, "loader").dataloader().replicated()) << Notes(in_iter);
  EXPECT_TRUE(HasNote(in_iter, 14,
                      "the IterableDataset Noise asks the worker's id only to seed its random "
                      "numbers (Noise.__iter__): each of the 4 workers yields all of it"))
      << Notes(in_iter);
  // The common worker_init_fn that seeds numpy by worker_id, and one that does nothing.
  for (const char* body : {"np.random.seed(np.random.get_state()[1][0] + worker_id)", "pass"}) {
    const auto init = Import(std::string(R"(import numpy as np
from torch.utils.data import IterableDataset, DataLoader
class Range(IterableDataset):
    def __iter__(self):
        return iter(range(1000))

def worker_init_fn(worker_id):
    )") + body + R"(

loader = DataLoader(Range(), batch_size=16, num_workers=4, worker_init_fn=worker_init_fn)
)");
    EXPECT_TRUE(OpNamed(init, "loader").dataloader().replicated()) << body << Notes(init);
  }
  // The same id that also picks the items splits them.
  const auto both = Import(asks + R"(        random.seed(info.id)
        for i in range(info.id, 1000, info.num_workers):
            yield i

loader = DataLoader(Noise(), batch_size=16, num_workers=4)
)");
  EXPECT_FALSE(OpNamed(both, "loader").dataloader().replicated()) << Notes(both);
}

// A loader drained by list() in a timing loop is timed alone, as an empty `for` over it is
// (pytorch#106704 timed `for _ in range(100): list(dl_torch)`).
TEST(CodeImportTest, ALoaderDrainedByListIsTimedWithoutAStep) {
  const auto c = Import(R"(import torch
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.ones(20000, 20), torch.ones(20000, 5))
dl_torch = DataLoader(ds, batch_size=256, shuffle=False, drop_last=True)
for _ in range(100):
    list(dl_torch)
)");
  EXPECT_EQ(c.spec.train_step().step_time(), "0ms") << Notes(c);
  EXPECT_TRUE(HasNote(c, 6, "the loop does nothing with what it is given")) << Notes(c);
  // A loop that takes the first batch and leaves times it alone too (tensorflow#47687).
  const auto first = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.range(100).map(lambda x: x * 2).batch(16)
for x in ds:
    break
)");
  EXPECT_EQ(first.spec.train_step().step_time(), "0ms") << Notes(first);
}

// *shape of a tuple the file shows spreads its items as arguments (torch.randn(*shape)).
TEST(CodeImportTest, AStarredTupleOfTheFilesIsItsItemsAsArguments) {
  const auto c = Import(R"(import torch
from torch.utils.data import DataLoader, TensorDataset
shape = (500, 16)
X = torch.randn(*shape)
loader = DataLoader(TensorDataset(X), batch_size=10)
)");
  EXPECT_EQ(c.spec.source().range().stop(), 500) << Notes(c);
  EXPECT_FALSE(HasNote(c, 5, "size is not read")) << Notes(c);
}

// Compressed files the code names at run time: the plain stand-in records do not count their
// decompression, and the note says so (minigo#520's ZLIB TFRecords).
TEST(CodeImportTest, CompressedFilesReadByAnInterleaveAreSaidToBeStoodInForPlain) {
  const auto c = Import(R"(import tensorflow as tf
def read(record_list):
    return record_list.interleave(
        lambda x: tf.data.TFRecordDataset(x, compression_type='ZLIB'), cycle_length=64)
ds = read(tf.data.Dataset.from_tensor_slices(FLAGS.files))
)");
  EXPECT_TRUE(HasNote(c, 3,
                      "interleave's files are ZLIB-compressed: the synthetic records that "
                      "stand in are not"))
      << Notes(c);
}

// A filter that keeps a random share, as the code draws it: the share is read (minigo#520's
// filter_amount, passed down through a parameter), in either spelling of the comparison.
TEST(CodeImportTest, AFilterOfAUniformDrawKeepsTheShareTheCodeGives) {
  const auto c = Import(R"(import tensorflow as tf
def read(ds, filter_amount=1.0):
    return ds.filter(lambda x: tf.less(tf.random_uniform([1]), filter_amount)[0])
ds = read(tf.data.Dataset.range(1000), filter_amount=0.05)
)");
  EXPECT_DOUBLE_EQ(OpNamed(c, "filter").filter().predicate().keep_fraction().fraction(), 0.05);
  EXPECT_TRUE(HasNote(c, 3,
                      "'filter' keeps a random 0.05 of the elements, as its uniform draw "
                      "says: 20 are made before it for each one it keeps"))
      << Notes(c);
  const auto spelled =
      Import("ds = tf.data.Dataset.range(10).filter(lambda x: tf.random.uniform([]) < 0.25)\n");
  EXPECT_DOUBLE_EQ(OpNamed(spelled, "filter").filter().predicate().keep_fraction().fraction(),
                   0.25);
  const auto other = Import("ds = tf.data.Dataset.range(10).filter(lambda x: x < 5)\n");
  EXPECT_DOUBLE_EQ(OpNamed(other, "filter").filter().predicate().keep_fraction().fraction(), 1);
  EXPECT_TRUE(OpNamed(c, "filter").filter().predicate().keep_fraction().uniform_draw());
  EXPECT_FALSE(OpNamed(other, "filter").filter().predicate().keep_fraction().uniform_draw());
}

// options.deterministic = False (experimental_deterministic before TensorFlow 2.6, the fix
// models#7127 took) holds for every map and interleave of the pipeline, made before the
// with_options call or after it, that does not pass deterministic itself.
TEST(CodeImportTest, OptionsThatAreNotDeterministicHoldForEveryMapAndInterleave) {
  for (const std::string name : {"deterministic", "experimental_deterministic"}) {
    const auto c = Import(R"(import tensorflow as tf
options = tf.data.Options()
options.)" + name + R"( = False
ds = tf.data.Dataset.list_files("/data/*.tfrecord")
ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=8, num_parallel_calls=8)
ds = ds.with_options(options)
ds = ds.map(lambda x: x, num_parallel_calls=4)
ds = ds.map(lambda x: x, num_parallel_calls=4, deterministic=True)
for x in ds:
    pass
)");
    EXPECT_TRUE(OpNamed(c, "interleave").interleave().has_deterministic()) << name << Notes(c);
    EXPECT_FALSE(OpNamed(c, "interleave").interleave().deterministic()) << name << Notes(c);
    ASSERT_GE(c.spec.ops_size(), 3) << c.spec.DebugString();
    EXPECT_TRUE(c.spec.ops(1).map().has_deterministic()) << name << c.spec.DebugString();
    EXPECT_FALSE(c.spec.ops(1).map().deterministic()) << name << c.spec.DebugString();
    EXPECT_TRUE(c.spec.ops(2).map().deterministic()) << name << c.spec.DebugString();
    EXPECT_TRUE(HasNote(c, 6, "its deterministic=False is read")) << Notes(c);
  }
  // Set True, or not set: nothing changes.
  const auto kept = Import(R"(import tensorflow as tf
options = tf.data.Options()
options.deterministic = True
ds = tf.data.Dataset.range(10).map(lambda x: x, num_parallel_calls=4).with_options(options)
)");
  EXPECT_FALSE(OpNamed(kept, "map").map().has_deterministic()) << Notes(kept);
}

// Options that set filter_with_random_uniform_fusion, applied before or after the filter,
// change nothing: TensorFlow leaves that rewrite unregistered (b/131229793), so the filter of
// a uniform draw keeps its call per element, and the options are said to be left out.
TEST(CodeImportTest, OptionsAskingForTheSamplingRewriteLeaveTheFilterItsCall) {
  const std::string pipeline = R"(import tensorflow as tf
options = tf.data.Options()
options.experimental_optimization.filter_with_random_uniform_fusion = True
ds = tf.data.Dataset.range(100)
)";
  const auto plain = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.range(100).filter(lambda x: tf.random.uniform([]) < 0.1)
)");
  const auto after = Import(pipeline + R"(ds = ds.filter(lambda x: tf.random.uniform([]) < 0.1)
ds = ds.filter(lambda x: x < 50)
ds = ds.with_options(options)
)");
  EXPECT_EQ(OpNamed(after, "filter").filter().call_overhead(),
            OpNamed(plain, "filter").filter().call_overhead());
  EXPECT_TRUE(HasNote(after, 7, "filter_with_random_uniform_fusion changes nothing"))
      << Notes(after);
  const auto before = Import(pipeline + R"(ds = ds.with_options(options)
ds = ds.filter(lambda x: tf.random.uniform([]) < 0.1)
)");
  EXPECT_EQ(OpNamed(before, "filter").filter().call_overhead(),
            OpNamed(plain, "filter").filter().call_overhead());
  // Written as code again, the draw comes back and reads as it was; a call cost the code
  // cannot say is a setting of the file.
  const auto emitted = EmitCode(after.spec, "tfdata");
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  EXPECT_EQ(emitted->text.find("filter_with_random_uniform_fusion"), std::string::npos)
      << emitted->text;
  const auto read_back = Import(emitted->text);
  EXPECT_EQ(OpNamed(read_back, "filter").filter().SerializeAsString(),
            OpNamed(after, "filter").filter().SerializeAsString())
      << emitted->text;
  spec::PipelineSpec no_call = after.spec;
  for (auto& op : *no_call.mutable_ops()) {
    if (op.has_filter()) op.mutable_filter()->set_call_overhead("0us");
  }
  const auto pragma = EmitCode(no_call, "tfdata");
  ASSERT_TRUE(pragma.ok()) << pragma.status().message();
  EXPECT_NE(pragma->text.find("filter.call_overhead=0us"), std::string::npos) << pragma->text;
  // A filter named otherwise than import-code names a lambda's keeps its name, written as a
  // function of that name with its share.
  spec::PipelineSpec renamed = after.spec;
  for (auto& op : *renamed.mutable_ops()) {
    if (op.name() == "filter") op.set_name("keep");
  }
  const auto named = EmitCode(renamed, "tfdata");
  ASSERT_TRUE(named.ok()) << named.status().message();
  EXPECT_DOUBLE_EQ(
      OpNamed(Import(named->text), "keep").filter().predicate().keep_fraction().fraction(), 0.1)
      << named->text;
}

// The sampling the advice for tensorflow#23179 writes, read back as it was simulated: batch,
// a map keeping the rows below a uniform draw, unbatch is a filter of that draw whose one
// call a batch is shared by the batch's elements; a map of other work between them is not.
TEST(CodeImportTest, RowsKeptBelowAUniformDrawInABatchAreAFilterOfThatDraw) {
  const auto sampled = Import(R"(import tensorflow as tf
rate = 0.01
ds = tf.data.Dataset.range(10000).repeat()
ds = ds.batch(1024).map(lambda x: tf.boolean_mask(x, tf.random.uniform([tf.shape(x)[0]]) < rate)).unbatch()
ds = ds.shuffle(buffer_size=1000)
)");
  ASSERT_EQ(sampled.spec.ops_size(), 3) << sampled.spec.DebugString();
  const spec::Op& sample = sampled.spec.ops(1);
  ASSERT_TRUE(sample.has_filter()) << sampled.spec.DebugString();
  EXPECT_DOUBLE_EQ(sample.filter().predicate().keep_fraction().fraction(), 0.01);
  EXPECT_TRUE(sample.filter().predicate().keep_fraction().uniform_draw());
  EXPECT_EQ(sample.filter().call_overhead(), "8ns") << "9 us a call over 1,024 elements";
  EXPECT_TRUE(HasNote(sampled, 4, "read as a filter 'sample', its one call a batch shared by 1024"))
      << Notes(sampled);
  EXPECT_TRUE(HasNote(sampled, 4, "'sample' keeps a random 0.01 of the elements"))
      << Notes(sampled);
  const auto other = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.range(10000).batch(1024).map(lambda x: x * 2).unbatch()
)");
  EXPECT_TRUE(other.spec.ops(other.spec.ops_size() - 1).has_unbatch()) << other.spec.DebugString();
}

// A filter whose predicate is a modulo (tensorflow#67330's `x % 2 == 0`) keeps what it says,
// a def of one return or a lambda; a test the reader cannot follow keeps every element until
// its share is set.
TEST(CodeImportTest, AModuloFiltersKeepWhatItsCodeSays) {
  const auto c = Import(R"(import tensorflow as tf
def filter_fn(x):
    """Even ones."""
    return x % 2 == 0
ds = tf.data.Dataset.range(100).filter(filter_fn)
ds = ds.filter(lambda x: not x % 5)
ds = ds.filter(lambda x: 1 == x % 3)
ds = ds.filter(lambda x: tf.shape(x)[0] >= 64)
)");
  ASSERT_EQ(c.spec.ops_size(), 4) << c.spec.DebugString();
  const spec::Predicate& even = OpNamed(c, "filter_fn").filter().predicate();
  ASSERT_TRUE(even.has_mod_equals()) << even.DebugString();
  EXPECT_EQ(even.mod_equals().modulus(), 2);
  EXPECT_EQ(even.mod_equals().remainder(), 0);
  EXPECT_TRUE(HasNote(c, 5, "keeps the elements whose value is 0 modulo 2")) << Notes(c);
  const spec::Predicate& fifths = c.spec.ops(1).filter().predicate();
  EXPECT_EQ(fifths.mod_equals().modulus(), 5) << fifths.DebugString();
  const spec::Predicate& thirds = c.spec.ops(2).filter().predicate();
  EXPECT_EQ(thirds.mod_equals().modulus(), 3) << thirds.DebugString();
  EXPECT_EQ(thirds.mod_equals().remainder(), 1) << thirds.DebugString();
  const spec::Predicate& longer = c.spec.ops(3).filter().predicate();
  EXPECT_FALSE(longer.has_mod_equals()) << longer.DebugString();
  EXPECT_DOUBLE_EQ(longer.keep_fraction().fraction(), 1);
  EXPECT_TRUE(HasNote(c, 8, "keeps every element until the share it keeps is set")) << Notes(c);
  // Written as code again, a modulo is its test, and reads back as it was.
  const auto emitted = EmitCode(c.spec, "tfdata");
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  const auto read_back = Import(emitted->text);
  EXPECT_EQ(OpNamed(read_back, "filter_fn").filter().predicate().SerializeAsString(),
            even.SerializeAsString())
      << emitted->text;
}

// The filter the advice vectorises, written as the advice writes it (batch, a map of
// tf.boolean_mask of the predicate's rows, unbatch), reads as the filter of that predicate,
// its call shared by the batch's rows, as it was simulated: no map with a stand-in cost.
TEST(CodeImportTest, AFilterCalledOnBatchesReadsAsThatFilterWithItsCallShared) {
  const auto c = Import(R"(import tensorflow as tf
def filter_fn(x):
    return x % 2 == 0
ds = tf.data.Dataset.range(10000)
ds = ds.batch(1024).map(lambda x: tf.boolean_mask(x, filter_fn(x))).unbatch().batch(256)
)");
  ASSERT_EQ(c.spec.ops_size(), 2) << c.spec.DebugString();
  const spec::Op& filter = c.spec.ops(0);
  EXPECT_EQ(filter.name(), "filter_fn");
  ASSERT_TRUE(filter.has_filter()) << c.spec.DebugString();
  EXPECT_EQ(filter.filter().predicate().mod_equals().modulus(), 2);
  EXPECT_EQ(filter.filter().call_overhead(), "8ns") << "9 us a call over 1,024 elements";
  EXPECT_TRUE(HasNote(c, 5, "read as a filter 'filter_fn', its one call a batch shared by 1024"))
      << Notes(c);
  EXPECT_FALSE(HasNote(c, 5, "stands in")) << Notes(c);
}

// tensorflow#14448: Python that calls native code releasing the interpreter lock (NumPy's
// loads, OpenCV) is counted as holding it all its time until its share is set, which the
// note says with the knob; a DataLoader's workers are processes, each its own lock: no note.
TEST(CodeImportTest, PythonCallingLockReleasingCodeSaysHowToSetItsShare) {
  const auto threads = Import(R"(import tensorflow as tf
import numpy as np
import cv2
def load(i):
    x = np.load("/data/%d.npy" % i)
    return cv2.resize(x, (224, 224))
ds = tf.data.Dataset.range(100).map(lambda i: tf.numpy_function(load, [i], tf.float32),
                                    num_parallel_calls=8)
)");
  EXPECT_TRUE(HasNote(threads, 7,
                      "calls numpy.load, cv2.resize, native code that releases the "
                      "interpreter lock"))
      << Notes(threads);
  EXPECT_TRUE(HasNote(threads, 7, ".gil_share=F")) << Notes(threads);
  const auto processes = Import(R"(import numpy as np
from torch.utils.data import Dataset, DataLoader
class Arrays(Dataset):
    def __len__(self):
        return 100
    def __getitem__(self, i):
        return np.load("/data/%d.npy" % i)
loader = DataLoader(Arrays(), batch_size=8, num_workers=4)
)");
  EXPECT_EQ(Notes(processes).find("releases the interpreter lock"), std::string::npos)
      << Notes(processes);
}

TEST(CodeImportTest, AKeywordArgumentOfACallIsBoundToItsParameter) {
  const auto c = Import(R"(import tensorflow as tf
def make(batch_size, num_epochs=1):
    ds = tf.data.Dataset.range(100)
    ds = ds.repeat(num_epochs)
    return ds.batch(batch_size)
ds = make(8, num_epochs=300)
)");
  EXPECT_EQ(OpNamed(c, "repeat").repeat().count(), 300);
  EXPECT_EQ(OpNamed(c, "batch").batch().batch_size(), 8);
}

TEST(CodeImportTest, ADataLoaderWithoutAutomaticBatchingSaysSo) {
  const auto c = Import(R"(from torch.utils.data import Dataset, DataLoader
class Batches(Dataset):
    def __len__(self):
        return 100
    def __getitem__(self, i):
        return load_batch(i)

loader = DataLoader(Batches(), batch_size=None, num_workers=2)
)");
  EXPECT_EQ(OpNamed(c, "loader").dataloader().batch_size(), 1);
  EXPECT_TRUE(HasNote(c, 8, "batch_size=None: no automatic batching")) << Notes(c);
}

TEST(CodeImportTest, KerasFitOverASequenceWithItsWorkers) {
  const auto c = Import(R"(from tensorflow import keras
class Batches(keras.utils.Sequence):
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        return load(i)

model = keras.Sequential([])
model.fit(Batches(), epochs=3, workers=4, use_multiprocessing=True, max_queue_size=20)
)");
  EXPECT_EQ(c.framework, "keras");
  const auto& kf = OpNamed(c, "fit").keras_fit();
  EXPECT_EQ(kf.workers(), 4);
  EXPECT_TRUE(kf.use_multiprocessing());
  EXPECT_EQ(kf.max_queue_size(), 20);
  EXPECT_EQ(c.spec.source().range().stop(), 1000);
  // The note's --set for the batch's size is one the commands take.
  EXPECT_TRUE(HasNote(c, 9, "--set fit.sample_bytes=SIZE")) << Notes(c);
  auto sized = c;
  ASSERT_TRUE(SetCodeKnob(sized, "fit.sample_bytes=4800KB").ok());
  EXPECT_EQ(OpNamed(sized, "fit").keras_fit().getitem().output_bytes(), 4'800'000);
}

TEST(CodeImportTest, TensorFlowDatasetsSplitsAndInfoAreRead) {
  const auto c = Import(R"(import tensorflow_datasets as tfds
dataset, info = tfds.load('oxford_iiit_pet:3.*.*', with_info=True)
train = dataset['train'].map(load_image_train, num_parallel_calls=tf.data.AUTOTUNE)
train_dataset = train.cache().shuffle(1000).batch(64).repeat()
train_dataset = train_dataset.prefetch(buffer_size=tf.data.AUTOTUNE)
model.fit(train_dataset, epochs=20, steps_per_epoch=57)
)");
  EXPECT_EQ(c.framework, "tfdata") << "fit over a tf.data dataset is not a Keras generator";
  ASSERT_EQ(c.spec.ops_size(), 7) << c.spec.DebugString();
  EXPECT_EQ(c.spec.ops(0).name(), "load_image_train");
  EXPECT_TRUE(c.spec.ops(5).has_prefetch());
  // fit's 20 epochs of 57 steps, from one iterator over the repeating dataset.
  EXPECT_EQ(c.spec.ops(6).take().count(), 20 * 57);
  // TFDS decodes what it reads (tensorflow#47687's DIV2K PNGs), which the stand-in does not.
  EXPECT_TRUE(HasNote(c, 2, "TFDS also decodes each example as it reads it")) << Notes(c);
}

// fit over a dataset is that dataset, iterated afresh each epoch (its shuffle buffer refilled,
// tensorflow#30646): a repeat of the epochs where the dataset ends; where it repeats, one
// iterator that ends after epochs × steps_per_epoch batches (Keras's DataHandler keeps it
// across the epochs when the steps are not the dataset's cardinality).
TEST(CodeImportTest, FitOverADatasetIsThatDatasetEpochAfterEpoch) {
  const auto c =
      Import("ds = tf.data.Dataset.range(8).shuffle(8).batch(2)\nmodel.fit(ds, epochs=4)\n");
  EXPECT_EQ(c.framework, "tfdata");
  ASSERT_EQ(c.spec.ops_size(), 3);
  EXPECT_EQ(c.spec.ops(2).name(), "fit_epochs");
  EXPECT_EQ(c.spec.ops(2).repeat().count(), 4);
  EXPECT_TRUE(HasNote(c, 2, "fit's 4 epochs each iterate the dataset afresh")) << Notes(c);
  const auto emitted = EmitCode(c.spec, "tfdata");
  ASSERT_TRUE(emitted.ok());
  EXPECT_NE(emitted->text.find("model.fit(ds, epochs=4)"), std::string::npos) << emitted->text;
  EXPECT_EQ(emitted->text.find(".repeat("), std::string::npos) << emitted->text;
  const auto back = Import(emitted->text);
  EXPECT_EQ(back.spec.ops_size(), 3) << emitted->text;
  const auto once = Import("ds = tf.data.Dataset.range(8).batch(2)\nmodel.fit(ds)\n");
  EXPECT_EQ(once.spec.ops_size(), 1);
  const auto repeating = Import(
      "ds = tf.data.Dataset.range(8).batch(2).repeat()\nmodel.fit(ds, epochs=4, "
      "steps_per_epoch=2)\n");
  ASSERT_EQ(repeating.spec.ops_size(), 3);
  EXPECT_EQ(repeating.spec.ops(2).name(), "fit_steps");
  EXPECT_EQ(repeating.spec.ops(2).take().count(), 8);
  EXPECT_TRUE(HasNote(repeating, 2, "fit takes 4 epochs of 2 steps from one iterator"))
      << Notes(repeating);
  // A generator that yields forever goes on as a repeat does (tensorflow#37045): one
  // iterator, its shuffle buffer filled once.
  const auto generated = Import(R"(import tensorflow as tf
def random_gen():
    while True:
        yield 1.0
ds = tf.data.Dataset.from_generator(random_gen, output_types=tf.float32).shuffle(1000).batch(2)
model.fit(ds, steps_per_epoch=3, epochs=10)
)");
  ASSERT_EQ(generated.spec.ops_size(), 3) << generated.spec.DebugString();
  EXPECT_EQ(generated.spec.ops(2).take().count(), 30) << generated.spec.DebugString();
  EXPECT_TRUE(HasNote(generated, 6, "fit takes 10 epochs of 3 steps from one iterator"))
      << Notes(generated);
  // Written back as a fit of those steps, which reads as the same take.
  const auto steps_emitted = EmitCode(repeating.spec, "tfdata");
  ASSERT_TRUE(steps_emitted.ok());
  EXPECT_NE(steps_emitted->text.find("model.fit(ds, steps_per_epoch=8)"), std::string::npos)
      << steps_emitted->text;
  EXPECT_EQ(steps_emitted->text.find(".take("), std::string::npos) << steps_emitted->text;
  const auto steps_back = Import(steps_emitted->text);
  ASSERT_EQ(steps_back.spec.ops_size(), 3) << steps_emitted->text;
  EXPECT_EQ(steps_back.spec.ops(2).take().count(), 8);
  EXPECT_NE(Notes(steps_back).find("fit takes 1 epoch of 8 steps"), std::string::npos)
      << Notes(steps_back);
  // Without steps_per_epoch it never ends, as Keras's fit over it would not.
  const auto endless =
      Import("ds = tf.data.Dataset.range(8).batch(2).repeat()\nmodel.fit(ds, epochs=4)\n");
  EXPECT_EQ(endless.spec.ops_size(), 2);
  // A repeat of a count ends (tensorflow#24520's repeat(50) under fit(epochs=50)): each of
  // fit's epochs is all its passes, and the epochs a repeat after it.
  const auto counted =
      Import("ds = tf.data.Dataset.range(8).repeat(5).batch(2)\nmodel.fit(ds, epochs=4)\n");
  ASSERT_EQ(counted.spec.ops_size(), 3) << Notes(counted);
  EXPECT_EQ(counted.spec.ops(2).repeat().count(), 4) << Notes(counted);
  EXPECT_TRUE(HasNote(counted, 2, "fit's 4 epochs each iterate the dataset afresh"))
      << Notes(counted);
  // Given steps_per_epoch over it, one iterator, as over a repeat without end.
  const auto counted_steps = Import(
      "ds = tf.data.Dataset.range(8).repeat(5).batch(2)\nmodel.fit(ds, epochs=4, "
      "steps_per_epoch=3)\n");
  ASSERT_EQ(counted_steps.spec.ops_size(), 3) << Notes(counted_steps);
  EXPECT_EQ(counted_steps.spec.ops(2).take().count(), 12) << Notes(counted_steps);
}

TEST(CodeImportTest, WhatItCannotReadIsANoteAndTheRestIsKept) {
  const auto c = Import(R"(ds = tf.data.Dataset.range(100)
ds = ds.window(10, shift=1)
ds = ds.batch(4 +)
ds = ds.prefetch(2)
)");
  EXPECT_TRUE(HasNote(c, 2, ".window(...) is not read")) << Notes(c);
  EXPECT_TRUE(HasNote(c, 3, "could not read")) << Notes(c);
  EXPECT_EQ(OpNamed(c, "prefetch").prefetch().buffer_size(), 2);
  // The method left out rides in the spec, for advice to know its figures leave it out.
  ASSERT_EQ(c.spec.left_out_size(), 1);
  EXPECT_EQ(c.spec.left_out(0).code(), ".window(...)");
  EXPECT_EQ(c.spec.left_out(0).line(), 2);
}

// FixedLengthRecordDataset (tensorflow-triplet-loss's MNIST files): the files here are read
// as the code cuts them (a header of 16 bytes, records of 28 × 28), and written back so.
TEST(CodeImportTest, FixedLengthRecordsAreReadAsTheCodeCutsThem) {
  const std::string dir = ::testing::TempDir() + "/fixed_length";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/images.bin", std::ios::binary) << std::string(16 + 10 * 784, '\0');
  std::ofstream(dir + "/more.bin", std::ios::binary) << std::string(16 + 5 * 784, '\0');
  auto c = ImportCode(
      "ds = tf.data.FixedLengthRecordDataset('images.bin', 28 * 28, "
      "header_bytes=16)\nds = ds.batch(2)\n",
      dir + "/train.py");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const auto& read = c->spec.source().fixed_length_record();
  ASSERT_EQ(read.files_size(), 1) << c->spec.source().DebugString();
  EXPECT_EQ(read.files(0), dir + "/images.bin");
  EXPECT_EQ(read.format().record_bytes(), 784);
  EXPECT_EQ(read.format().header_bytes(), 16);
  EXPECT_EQ(read.format().footer_bytes(), 0);
  const auto emitted = EmitCode(c->spec, "tfdata");
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  EXPECT_NE(emitted->text.find("tf.data.FixedLengthRecordDataset([\"" + dir +
                               "/images.bin\"], record_bytes=784, header_bytes=16)"),
            std::string::npos)
      << emitted->text;

  // num_parallel_reads over two files: an interleave of the same cut, written back alike.
  auto parallel = ImportCode(
      "ds = tf.data.FixedLengthRecordDataset(['images.bin', 'more.bin'], 784, 16, "
      "compression_type=None, num_parallel_reads=2)\n",
      dir + "/train.py");
  ASSERT_TRUE(parallel.ok()) << parallel.status().message();
  ASSERT_EQ(parallel->spec.ops_size(), 1);
  const auto& per = parallel->spec.ops(0).interleave().per_element();
  EXPECT_EQ(per.fixed_length_record_file().header_bytes(), 16) << per.DebugString();
  EXPECT_EQ(parallel->spec.ops(0).interleave().num_parallel_calls(), 2);
  const auto parallel_emitted = EmitCode(parallel->spec, "tfdata");
  ASSERT_TRUE(parallel_emitted.ok());
  const auto back = ImportCode(parallel_emitted->text, dir + "/back.py");
  ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << parallel_emitted->text;
  EXPECT_EQ(back->spec.ops(0).DebugString(), parallel->spec.ops(0).DebugString())
      << parallel_emitted->text;
}

// Advice that reads the code's files several at once (interleave_files over a reader's
// files) goes back into the reader's own call as num_parallel_reads, added or replacing the
// one the code gives, and reads back as the same interleave.
TEST(CodeImportTest, ReadingTheFilesAtOnceIsWrittenAsNumParallelReads) {
  const std::string dir = ::testing::TempDir() + "/fixed_length_parallel";
  std::filesystem::create_directories(dir);
  for (const char* f : {"a.bin", "b.bin", "c.bin"}) {
    std::ofstream(dir + "/" + f, std::ios::binary) << std::string(4 * 100, '\0');
  }
  for (const std::string given : {"", ", num_parallel_reads=1"}) {
    const std::string code =
        "import tensorflow as tf\nds = tf.data.FixedLengthRecordDataset(['a.bin', 'b.bin', "
        "'c.bin'], 100" +
        given + ")\nds = ds.batch(4)\n";
    auto c = ImportCode(code, dir + "/train.py");
    ASSERT_TRUE(c.ok()) << c.status().message();
    ASSERT_TRUE(c->spec.source().has_fixed_length_record()) << c->spec.DebugString();
    // What the advice's spec is: the names, then the reader over them two at a time.
    spec::PipelineSpec advised = c->spec;
    spec::Source names;
    names.set_name("files");
    for (const auto& f : c->spec.source().fixed_length_record().files()) {
      names.mutable_from_tensor_slices()->add_strings(f);
    }
    spec::Op read;
    read.set_name("read");
    *read.mutable_interleave()->mutable_per_element()->mutable_fixed_length_record_file() =
        c->spec.source().fixed_length_record().format();
    read.mutable_interleave()->set_cycle_length(2);
    read.mutable_interleave()->set_num_parallel_calls(2);
    *advised.mutable_source() = names;
    advised.mutable_ops()->Add(std::move(read));
    for (int i = advised.ops_size() - 1; i > 0; --i) advised.mutable_ops()->SwapElements(i, i - 1);
    const auto written = PatchCode(*c, advised);
    ASSERT_TRUE(written.ok()) << written.status().message();
    EXPECT_NE(written->text.find("FixedLengthRecordDataset(['a.bin', 'b.bin', 'c.bin'], 100, "
                                 "num_parallel_reads=2)"),
              std::string::npos)
        << written->text;
    auto back = ImportCode(written->text, dir + "/tuned.py");
    ASSERT_TRUE(back.ok()) << back.status().message();
    ASSERT_GE(back->spec.ops_size(), 1);
    EXPECT_EQ(back->spec.ops(0).interleave().num_parallel_calls(), 2) << written->text;
  }
}

// Files the code computes, or names and that are not here: synthetic records of the code's
// own size stand in, and naming the real files reads them cut as the code cuts them.
TEST(CodeImportTest, FixedLengthRecordsOfFilesNotHereStandInUntilNamed) {
  const std::string dir = ::testing::TempDir() + "/fixed_length_named";
  std::filesystem::create_directories(dir);
  const std::string real = dir + "/real.bin";
  std::ofstream(real, std::ios::binary) << std::string(16 + 3 * 784 + 8, '\0');
  for (const std::string code :
       {"ds = tf.data.FixedLengthRecordDataset(files, 784, 16, 8)\n",
        "ds = tf.data.FixedLengthRecordDataset(['absent.bin'], 784, 16, 8)\n"}) {
    auto c = ImportCode(code, dir + "/train.py");
    ASSERT_TRUE(c.ok()) << c.status().message();
    const auto& stand_in = c->spec.source().synthetic();
    EXPECT_EQ(stand_in.record_bytes(), 784) << code;
    EXPECT_EQ(stand_in.stands_for(), spec::fixed_length_record_files) << code;
    const auto emitted = EmitCode(c->spec, "tfdata");
    ASSERT_TRUE(emitted.ok());
    EXPECT_NE(emitted->text.find("tf.data.FixedLengthRecordDataset(tf.io.gfile.glob(FILES), "
                                 "record_bytes=784)"),
              std::string::npos)
        << emitted->text;
    ASSERT_TRUE(SetCodeKnob(*c, "read.files=" + real).ok()) << code;
    EXPECT_EQ(Notes(*c).find("the stand-in is"), std::string::npos) << Notes(*c);
    const auto& cut = c->spec.source().fixed_length_record();
    EXPECT_EQ(cut.files_size(), 1) << code << c->spec.source().DebugString();
    EXPECT_EQ(cut.format().header_bytes(), 16) << code;
    EXPECT_EQ(cut.format().footer_bytes(), 8) << code;
  }
  // A size the code does not show as a number stands in, said.
  auto sized = ImportCode("ds = tf.data.FixedLengthRecordDataset(files, RECORD_BYTES)\n", "t.py");
  ASSERT_TRUE(sized.ok());
  EXPECT_TRUE(HasNote(*sized, 1, "record_bytes=RECORD_BYTES is not a size the code shows"))
      << Notes(*sized);
  EXPECT_TRUE(sized->spec.source().size_is_stand_in());
}

// tensorflow-triplet-loss's MNIST input: images and labels read from their IDX files and
// zipped. The labels' pipeline is part of the one read, not another; the images' decoding
// runs on the files' raw bytes, said so, not called stand-in records.
TEST(CodeImportTest, ZippedFixedLengthRecordsAreOnePipelineOfRealBytes) {
  const std::string dir = ::testing::TempDir() + "/fixed_length_zip";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/images", std::ios::binary) << std::string(16 + 5 * 784, '\0');
  std::ofstream(dir + "/labels", std::ios::binary) << std::string(8 + 5, '\0');
  auto c = ImportCode(R"(import tensorflow as tf
def dataset(images_file, labels_file):
    def decode_image(image):
        image = tf.io.decode_raw(image, tf.uint8)
        return tf.cast(image, tf.float32) / 255.0
    images = tf.data.FixedLengthRecordDataset(images_file, 28 * 28, header_bytes=16).map(decode_image)
    labels = tf.data.FixedLengthRecordDataset(labels_file, 1, header_bytes=8)
    return tf.data.Dataset.zip((images, labels))
ds = dataset('images', 'labels').batch(2)
for x in ds:
    pass
)",
                      dir + "/train.py");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(Notes(*c).find("another pipeline"), std::string::npos) << Notes(*c);
  EXPECT_TRUE(HasNote(*c, 6,
                      "on data the spec does not have (the raw bytes of fixed-length "
                      "records"))
      << Notes(*c);
  EXPECT_EQ(Notes(*c).find("stand-in records"), std::string::npos) << Notes(*c);
  ASSERT_GE(c->spec.ops_size(), 2);
  EXPECT_EQ(c->spec.ops(1).zip().source().fixed_length_record().format().header_bytes(), 8);
}

// File names a comprehension over a range spells are the names it spells: CIFAR-10's
// tutorial's 'data_batch_%d.bin' % i, str.format, f-strings, a tuple after %; where a part is
// not known (a flag), only their count is.
TEST(CodeImportTest, FileNamesAComprehensionSpellsAreKnown) {
  const auto names = [](const std::string& list) {
    const ImportedCode c =
        Import("import tensorflow as tf\nds = tf.data.Dataset.from_tensor_slices(" + list +
               ").interleave(tf.data.TFRecordDataset)\n");
    return c.spec.source().from_tensor_slices();
  };
  const auto cifar = names("['data_batch_%d.bin' % i for i in range(1, 6)]");
  ASSERT_EQ(cifar.strings_size(), 5) << cifar.DebugString();
  EXPECT_EQ(cifar.strings(0), "data_batch_1.bin");
  EXPECT_EQ(cifar.strings(4), "data_batch_5.bin");
  const auto formatted = names("['train-{:05d}-of-{:05d}'.format(i, 8) for i in range(0, 8, 4)]");
  ASSERT_EQ(formatted.strings_size(), 2) << formatted.DebugString();
  EXPECT_EQ(formatted.strings(1), "train-00004-of-00008");
  const auto fstring = names("[f'shard_{i:03d}.tfrecord' for i in range(3)]");
  ASSERT_EQ(fstring.strings_size(), 3) << fstring.DebugString();
  EXPECT_EQ(fstring.strings(2), "shard_002.tfrecord");
  const auto tuple = names("['%s/part-%d' % ('data', i) for i in range(2)]");
  ASSERT_EQ(tuple.strings_size(), 2) << tuple.DebugString();
  EXPECT_EQ(tuple.strings(1), "data/part-1");
  const auto flagged = names("['%s/part-%d' % (FLAGS.dir, i) for i in range(7)]");
  EXPECT_EQ(flagged.strings_size(), 0) << flagged.DebugString();
  EXPECT_EQ(flagged.count(), 7) << flagged.DebugString();
}

// A function whose work the code does not show has a stand-in cost, marked so until set.
TEST(CodeImportTest, AStandInCostIsMarkedUntilSet) {
  auto c = Import(R"(def load(path):
    return tf.py_function(read_volume, [path], tf.float32)
ds = tf.data.Dataset.range(100).map(load)
)");
  EXPECT_TRUE(OpNamed(c, "load").map().fn().cost_is_stand_in()) << OpNamed(c, "load").DebugString();
  ASSERT_TRUE(SetCodeKnob(c, "load.cost=200ms").ok());
  EXPECT_FALSE(OpNamed(c, "load").map().fn().cost_is_stand_in());
  const auto decodes = Import(R"(ds = tf.data.Dataset.range(100).map(
    lambda p: tf.image.resize(tf.io.decode_jpeg(tf.io.read_file(p)), [224, 224]))
)");
  EXPECT_FALSE(decodes.spec.ops(0).map().fn().cost_is_stand_in()) << "its cost is the decode's";
  // A generator's next() is Python the code shows but does not cost.
  auto g = Import(R"(def gen():
    for i in range(1000):
        yield load_volume(i)
ds = tf.data.Dataset.from_generator(gen, output_types=tf.float32).batch(4)
)");
  EXPECT_TRUE(g.spec.source().from_generator().cost_is_stand_in()) << g.spec.DebugString();
  auto emitted = EmitCode(g.spec, g.framework);
  ASSERT_TRUE(emitted.ok());
  EXPECT_EQ(emitted->text.find("gen.cost="), std::string::npos)
      << "a stand-in is not written as a figure:\n"
      << emitted->text;
  ASSERT_TRUE(SetCodeKnob(g, "gen.cost=20ms").ok());
  EXPECT_FALSE(g.spec.source().from_generator().cost_is_stand_in());
}

TEST(CodeImportTest, AFileWithoutAPipelineIsAnError) {
  const auto r = ImportCode("import os\nprint(os.getcwd())\n", "plain.py");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      r.status().message().find("plain.py: no input pipeline to simulate: no tf.data pipeline"),
      std::string::npos);
  EXPECT_FALSE(ImportCodeFile("/nonexistent/x.py").ok());
}

// The code written for a spec reads back to the same spec.
void ExpectRoundTrip(const std::string& source) {
  const auto first = Import(source);
  auto emitted = EmitCode(AsWritten(first), first.framework);
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  const auto second = Import(emitted->text);
  spec::PipelineSpec a = AsWritten(first), b = AsWritten(second);
  a.clear_name(), a.clear_description(), b.clear_name(), b.clear_description();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(a, b))
      << "first:\n"
      << a.DebugString() << "second:\n"
      << b.DebugString() << "code:\n"
      << emitted->text;
}

TEST(CodeEmitTest, EmittedCodeReadsBackToTheSameSpec) {
  ExpectRoundTrip(R"(import tensorflow as tf
ds = tf.data.TFRecordDataset(glob.glob("*.tfrecord"))
ds = ds.shuffle(10000).map(_parser, num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)
ds = ds.batch(512, drop_remainder=True).repeat().prefetch(2)
def _parser(r):
    return tf.io.parse_single_example(r, {"d": tf.io.FixedLenFeature([8], tf.float32)})
# pipescope: _parser.call_overhead=30us train_step.step_time=50ms
)");
  ExpectRoundTrip(R"(d = tf.data.Dataset.list_files("/x/*.tfrecord", shuffle=False, seed=3)
d = d.shard(10, 2).repeat(3)
d = d.interleave(lambda f: tf.data.TFRecordDataset(f).map(dec, num_parallel_calls=2), cycle_length=4, block_length=2, num_parallel_calls=4)
d = d.map(lambda x: tf.image.resize(x, [128, 96])).cache("/tmp/c").take(100).skip(5)
d = d.padded_batch(8, padded_shapes=[10]).unbatch()
# pipescope: dec.cost=3ms
)");
  ExpectRoundTrip(R"(from torch.utils.data import DataLoader
class D(Dataset):
    def __len__(self): return 500
    def __getitem__(self, i): return i
loader = DataLoader(D(), batch_size=16, num_workers=3, collate_fn=my_collate, pin_memory=True,
                    drop_last=True, prefetch_factor=4, persistent_workers=True, in_order=False)
# pipescope: loader.cost=4ms loader.collate_cost=1ms
)");
  ExpectRoundTrip(R"(class S(keras.utils.Sequence):
    def __len__(self): return 300
    def __getitem__(self, i): return i
model.fit(S(), workers=2, use_multiprocessing=False, max_queue_size=5)
)");
  ExpectRoundTrip("ds = tf.data.Dataset.from_generator(gen, output_types=tf.int64).batch(4)\n");
  // IterableDatasets: replicated in each worker, or split by get_worker_info() into
  // contiguous chunks or every n-th item.
  const std::string iterable = R"(import math
from torch.utils.data import DataLoader, IterableDataset, get_worker_info
class Items(IterableDataset):
    def __iter__(self):
        worker = get_worker_info()
        for i in range(300):
)";
  ExpectRoundTrip(R"(from torch.utils.data import DataLoader, IterableDataset
class Items(IterableDataset):
    def __iter__(self):
        for i in range(300):
            yield i
loader = DataLoader(Items(), batch_size=8, num_workers=3)
)");
  ExpectRoundTrip(
      iterable +
      R"(            if worker is not None and i // math.ceil(300 / worker.num_workers) != worker.id:
                continue
            yield i
loader = DataLoader(Items(), batch_size=8, num_workers=3)
)");
  ExpectRoundTrip(iterable +
                  R"(            if worker is not None and i % worker.num_workers != worker.id:
                continue
            yield i
loader = DataLoader(Items(), batch_size=8, num_workers=3, drop_last=True)
)");
}

// A map of TensorFlow ops after a batch works on every row: its stand-in cost is a row's,
// and the note says how many rows a call takes; before the batch, a call's.
TEST(CodeImportTest, AStandInCostAfterABatchIsARows) {
  const auto c = Import(R"(import tensorflow as tf
def pack(x):
    return tf.math.cumsum(tf.stack([x, x]))
ds = tf.data.Dataset.range(100).map(pack).batch(32).map(pack)
)");
  EXPECT_TRUE(HasNote(c, 4,
                      "'pack' runs TensorFlow ops whose cost the code does not show: "
                      "100us a call until set"))
      << Notes(c);
  EXPECT_TRUE(HasNote(c, 4, "100us a row, 32 rows a call (it maps batches)")) << Notes(c);
}

// A Keras Sequence's length as Keras's own example writes it, math.ceil of a true division
// (and int(np.ceil(...)), and floor division, Python's: -7 // 2 is -4).
TEST(CodeImportTest, ASequencesLengthIsRoundedAsPythonRoundsIt) {
  for (const std::string& length : std::vector<std::string>{
           "math.ceil(self.n / self.batch_size)", "int(np.ceil(self.n / float(self.batch_size)))",
           "(self.n + self.batch_size - 1) // self.batch_size"}) {
    const auto c = Import(R"(import math
import numpy as np
from tensorflow import keras
class Seq(keras.utils.Sequence):
    def __init__(self, n=20000, batch_size=32):
        self.n = n
        self.batch_size = batch_size
    def __len__(self):
        return )" + length +
                          R"(
    def __getitem__(self, i):
        return i
model.fit(Seq(), workers=2)
)");
    EXPECT_EQ(c.spec.source().range().stop(), 625) << length << "\n" << Notes(c);
    // Its __getitem__ makes a batch: the size asked for is a batch's.
    EXPECT_TRUE(HasNote(c, 12, "a batch's size is not read from the code")) << Notes(c);
  }
  const auto floor = Import("import tensorflow as tf\nds = tf.data.Dataset.range(-7 // 2, 3)\n");
  EXPECT_EQ(floor.spec.source().range().start(), -4);
}

// na_value, in each spelling that takes it: the parse counts a field of that text as
// missing, and the emitted code passes it on.
TEST(CodeImportTest, ACsvNaValueIsReadAndWrittenBack) {
  // Real files: on stand-in records the parse is a cost, not decode_csv.
  const auto dir = std::filesystem::temp_directory_path() / "pipescope_na_value_test";
  std::filesystem::create_directories(dir);
  for (const char* name : {"a.csv", "b.csv"}) std::ofstream(dir / name) << "1,?,3\n";
  const std::string a = (dir / "a.csv").string(), b = (dir / "b.csv").string();
  const auto mapped = Import("ds = tf.data.TextLineDataset(['" + a +
                             "'])\nds = ds.map(lambda l: tf.io.decode_csv(l, [[0.0]] * 3, "
                             "na_value=\"?\"))\n");
  bool read = false;
  for (const auto& op : mapped.spec.ops()) {
    if (op.has_map() && op.map().fn().has_decode_csv()) {
      read = op.map().fn().decode_csv().na_value() == "?";
    }
  }
  EXPECT_TRUE(read) << mapped.spec.DebugString();
  auto text = EmitCode(AsWritten(mapped), "tfdata");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->text.find("na_value=\"?\""), std::string::npos) << text->text;
  const auto csv = Import("ds = tf.data.experimental.CsvDataset(['" + a + "', '" + b +
                          "'], [0.0] * 3, na_value='NA')\n");
  ASSERT_GE(csv.spec.ops_size(), 1);
  EXPECT_EQ(csv.spec.ops(0).map().fn().decode_csv().na_value(), "NA");
  std::filesystem::remove_all(dir);
}

// CSV files begin with their column names: make_csv_dataset (header=True by default) and
// CsvDataset(header=True) drop each file's first line before the parse, as TensorFlow's
// readers do; a header read as a row was a row of NaN a file.
TEST(CodeImportTest, ACsvFilesHeaderLineIsDroppedBeforeTheParse) {
  const auto made =
      Import("ds = tf.data.experimental.make_csv_dataset('a.csv', batch_size=4, num_epochs=1)\n");
  const spec::InterleaveOp& il = OpNamed(made, "interleave").interleave();
  ASSERT_EQ(il.ops_size(), 2);
  EXPECT_EQ(il.ops(0).skip().count(), 1);
  EXPECT_EQ(il.ops(1).name(), "decode_csv");  // a stand-in cost here: a.csv is not there
  const auto no_header = Import(
      "ds = tf.data.experimental.make_csv_dataset('a.csv', 4, header=False, num_epochs=1)\n");
  EXPECT_EQ(OpNamed(no_header, "interleave").interleave().ops_size(), 1);

  // CsvDataset over one file: its first line is the pipeline's first.
  const auto one =
      Import("ds = tf.data.experimental.CsvDataset('a.csv', [0.0] * 3, header=True).batch(4)\n");
  ASSERT_GE(one.spec.ops_size(), 2);
  EXPECT_EQ(one.spec.ops(0).skip().count(), 1);
  EXPECT_TRUE(HasNote(one, 1, "the file's first line, the column names, is dropped")) << Notes(one);
  // Over several files, each file's first line would have to go: said, not dropped once.
  const auto two =
      Import("ds = tf.data.experimental.CsvDataset(['a.csv', 'b.csv'], [0.0] * 3, header=True)\n");
  EXPECT_FALSE(two.spec.ops(0).has_skip());
  EXPECT_TRUE(HasNote(two, 1, "each file's first line, the column names, is parsed as a row"))
      << Notes(two);
}

// tensorflow#30041: CsvDataset parses inside its reader, so a tuned parse cannot be written
// into its call: the note says how the code would make the parse its own.
TEST(CodePatchTest, AKnobOfAnOpMadeInsideAReaderSaysHowToMakeItItsOwn) {
  const auto csv = Import("ds = tf.data.experimental.CsvDataset('a.csv', [0.0] * 3).batch(4)\n");
  spec::PipelineSpec tuned = csv.spec;
  ASSERT_TRUE(tuned.ops(0).has_map()) << tuned.DebugString();
  tuned.mutable_ops(0)->mutable_map()->set_num_parallel_calls(2);
  const auto patched = PatchCode(csv, tuned);
  ASSERT_TRUE(patched.ok());
  EXPECT_TRUE(AnyHas(patched->notes,
                     "the code has no argument for it to write into; CsvDataset parses its "
                     "lines inside the reader"));
}

TEST(CodeEmitTest, StandInFilesAreWrittenAsTheReaderAndFileNamesTheCodeHad) {
  // Text files a glob finds at run time: TextLineDataset again, not TFRecordDataset.
  const auto lines = Import("ds = tf.data.TextLineDataset(csv_files).skip(1).batch(4)\n");
  auto text = EmitCode(AsWritten(lines), "tfdata");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->text.find("tf.data.TextLineDataset(tf.io.gfile.glob(FILES))"), std::string::npos)
      << text->text;
  EXPECT_EQ(text->text.find("TFRecordDataset"), std::string::npos) << text->text;

  // File names the code computes, each read by an interleave: file names again, not the
  // integers of tf.range, which TFRecordDataset cannot open.
  const auto names = Import(R"(ds = tf.data.Dataset.from_tensor_slices(filenames)
ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4)
)");
  auto files = EmitCode(AsWritten(names), "tfdata");
  ASSERT_TRUE(files.ok());
  EXPECT_NE(files->text.find("from_tensor_slices(tf.io.gfile.glob(FILES))"), std::string::npos)
      << files->text;
  EXPECT_NE(files->text.find("FILES = \"/path/to/your/*.tfrecord\""), std::string::npos);
  EXPECT_EQ(files->text.find("tf.range"), std::string::npos) << files->text;
}

TEST(CodeEmitTest, StorageOfStandInFilesAndTheBudgetRideAlongInWrittenCode) {
  // Slow remote files read by an interleave, on a budget of cores: what tf.data code cannot
  // say comes back from its pragmas.
  auto spec = engine::ParseSpecText(R"(
source { name: "list_files" range { stop: 40 } }
ops { name: "interleave" interleave {
  per_element { synthetic_file { records_per_file: 250 record_bytes: 65536 open_latency: "30ms"
                                 read_latency: "2ms" bandwidth: "50MB/s"
                                 stands_for: text_line_files } }
  cycle_length: 8 num_parallel_calls: 8 } }
ops { name: "batch" batch { batch_size: 16 } }
train_step { step_time: "20ms" }
budget { cpu_cores: 3 }
)",
                                    "storage.pbtxt");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto emitted = EmitCode(*spec, "tfdata");
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  auto back = ImportCode(emitted->text, "storage.py");
  ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << emitted->text;
  spec::PipelineSpec again = AsWritten(*back);
  again.clear_name();
  again.clear_description();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*spec, again))
      << "written:\n"
      << emitted->text << "read back:\n"
      << again.DebugString();
}

TEST(CodeImportTest, ATensorDatasetsLengthAndSampleSizeComeFromItsTensorsShapes) {
  const auto code = Import(R"(import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
x = torch.from_numpy(np.zeros((2000, 64), dtype=np.float32)).half()
y = torch.arange(2000)
loader = DataLoader(TensorDataset(x, y), batch_size=50, num_workers=2)
)");
  EXPECT_EQ(code.spec.source().range().stop(), 2000);
  const auto& python = code.spec.ops(0).dataloader().getitem().python();
  EXPECT_EQ(code.spec.ops(0).dataloader().getitem().output_bytes(),
            64 * 2 + 8);                // a float16 row of 64 and an int64
  EXPECT_EQ(python.duration(), "5us");  // a call and two tensor indexes
  EXPECT_TRUE(HasNote(code, 6, "TensorDataset's __getitem__ indexes 2 in-memory tensors"));

  // A shape the code computes: the length stands in, and says so.
  const auto unknown = Import(R"(from torch.utils.data import DataLoader, TensorDataset
loader = DataLoader(TensorDataset(load_features()), batch_size=50)
)");
  EXPECT_EQ(unknown.spec.source().range().stop(), 10000);
  EXPECT_TRUE(HasNote(unknown, 2, "is known only when the code runs"));
  EXPECT_TRUE(HasNote(unknown, 2, "a sample's size is not read from the code"));
}

// A Dataset of its own: the length of an array __init__ keeps is its shape's; a list __init__
// fills in a loop (the image-folder pattern) has a length only when the code runs.
TEST(CodeImportTest, ADatasetsLengthIsItsArraysNotAListItFillsAtRunTime) {
  const auto arrays = Import(R"(import torch
from torch.utils.data import DataLoader, Dataset
class Rows(Dataset):
    def __init__(self, n=3000):
        self.x = torch.randn(n, 4)
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return self.x[i]
loader = DataLoader(Rows(), batch_size=8)
)");
  EXPECT_EQ(arrays.spec.source().range().stop(), 3000);
  EXPECT_EQ(arrays.spec.ops(0).dataloader().getitem().output_bytes(), 16);
  EXPECT_TRUE(arrays.spec.ops(0).dataloader().indexes_batches());
  const auto filled = Import(R"(from torch.utils.data import DataLoader, Dataset
class Folder(Dataset):
    def __init__(self, paths):
        self.items = []
        for p in paths:
            self.items.append(p)
    def __len__(self):
        return len(self.items)
    def __getitem__(self, i):
        return load(self.items[i])
loader = DataLoader(Folder(["a", "b"] * 5000), batch_size=32, num_workers=2)
)");
  EXPECT_EQ(filled.spec.source().range().stop(), 10000);  // the stand-in
  EXPECT_TRUE(HasNote(filled, 11, "is known only when the code runs")) << Notes(filled);
  EXPECT_FALSE(filled.spec.ops(0).dataloader().indexes_batches());
}

// __getitem__ that decodes an image in Python costs a JPEG decode at least, in each library's
// spelling, and says so; one that decodes nothing keeps the generic stand-in.
// decode_and_crop_jpeg (ResNet's ImageNet input): a decode, whose whole image's cost stands in
// for the crop's (at most that), as decode_jpeg's does, not the cost of Python left unread.
TEST(CodeImportTest, ADecodeOfACropCostsADecode) {
  const auto decode = [](const std::string& call) {
    const auto c = Import(
        "import tensorflow as tf\nds = tf.data.TFRecordDataset(['t'])\n"
        "def parse(x):\n    return " +
        call + "\nds = ds.map(parse, num_parallel_calls=8).batch(32)\n");
    return OpNamed(c, "parse").map().fn().cpu_work();
  };
  const auto cropped = decode("tf.image.decode_and_crop_jpeg(x, [0, 0, 224, 224], channels=3)");
  const auto whole = decode("tf.io.decode_jpeg(x, channels=3)");
  EXPECT_EQ(cropped.duration(), whole.duration());
  EXPECT_FALSE(cropped.one_element_call().empty());
}

TEST(CodeImportTest, AGetItemThatDecodesAnImageCostsADecode) {
  const auto cost = [](const std::string& imports, const std::string& decode) {
    const auto c = Import(imports + R"(
from torch.utils.data import DataLoader, Dataset
class Images(Dataset):
    def __len__(self):
        return 100
    def __getitem__(self, i):
        return )" + decode +
                          R"((self.paths[i])
loader = DataLoader(Images(), batch_size=8)
)");
    return c.spec.ops(0).dataloader().getitem().python().duration();
  };
  EXPECT_EQ(cost("from PIL import Image", "Image.open"), "1080us");
  EXPECT_EQ(cost("import cv2", "cv2.imread"), "1080us");
  EXPECT_EQ(cost("from torchvision.io import read_image", "read_image"), "1080us");
  EXPECT_EQ(cost("import json", "json.load"), "100us");
  const auto noted = Import(R"(from PIL import Image
from torch.utils.data import DataLoader, Dataset
class Images(Dataset):
    def __getitem__(self, i):
        return Image.open(self.paths[i]).convert("RGB")
loader = DataLoader(Images(), batch_size=8)
)");
  EXPECT_TRUE(HasNote(noted, 6, "'loader' decodes an image (PIL.Image.open): 1080us a call"))
      << Notes(noted);
}

// torchvision's datasets read as torchvision/datasets makes them: CIFAR's and MNIST's splits
// in memory (Image.fromarray, then the transform), ImageFolder's files decoded; each
// transform costed on the image's size as it goes, and the sample the tensor ToTensor makes.
TEST(CodeImportTest, TorchvisionDatasetsAndTheirTransformsAreCostedOnTheImagesSize) {
  const auto cifar = Import(R"(import torch, torchvision
import torchvision.transforms as T
train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(),
                      T.Normalize((0.49, 0.48, 0.45), (0.25, 0.24, 0.26))])
ds = torchvision.datasets.CIFAR10(root="./data", train=True, download=True, transform=train_tf)
loader = torch.utils.data.DataLoader(ds, batch_size=128, shuffle=True, num_workers=2)
)");
  EXPECT_EQ(cifar.spec.source().range().stop(), 50000);
  const auto& cifar_item = cifar.spec.ops(0).dataloader().getitem().python();
  EXPECT_EQ(cifar.spec.ops(0).dataloader().getitem().output_bytes(),
            3 * 32 * 32 * 4);  // float32 after ToTensor
  const auto us = [](const std::string& d) { return std::stoi(d.substr(0, d.size() - 2)); };
  EXPECT_TRUE(HasNote(cifar, 6, "CIFAR10's __getitem__: Image.fromarray")) << Notes(cifar);
  EXPECT_TRUE(HasNote(cifar, 6, "+ RandomCrop ")) << Notes(cifar);
  EXPECT_TRUE(HasNote(cifar, 6, "+ Normalize ")) << Notes(cifar);

  const auto mnist = Import(R"(from torch.utils.data import DataLoader
from torchvision import datasets, transforms
test = datasets.MNIST("data", train=False, transform=transforms.ToTensor())
loader = DataLoader(test, batch_size=1000)
)");
  EXPECT_EQ(mnist.spec.source().range().stop(), 10000);
  EXPECT_EQ(mnist.spec.ops(0).dataloader().getitem().output_bytes(), 28 * 28 * 4);

  // An ImageFolder of photos: a JPEG's decode, then transforms on a 500×375 photo; the same
  // transforms on CIFAR's 32×32 images cost a small part of that.
  // pytorch/examples' ImageNet script, with its crop's name.
  const auto imagenet = [](const std::string& crop) {
    return Import(R"(import torch
from torchvision import datasets, transforms
normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
train = datasets.ImageFolder(traindir, transforms.Compose([
    transforms.)" +
                  crop + R"((224), transforms.RandomHorizontalFlip(),
    transforms.ToTensor(), normalize]))
loader = torch.utils.data.DataLoader(train, batch_size=256, shuffle=True, num_workers=4)
)");
  };
  const auto folder = imagenet("RandomResizedCrop");
  EXPECT_EQ(folder.spec.source().range().stop(), 10000);  // the stand-in for its files
  EXPECT_TRUE(HasNote(folder, 7, "the images under `traindir` are known only when the code runs"))
      << Notes(folder);
  // A folder whose path names ImageNet's training or validation images holds that many
  // (mmpretrain#196's 'data/imagenet/train'); another dataset's folder keeps the stand-in.
  const auto named = [](const std::string& root) {
    return Import(
        "from torchvision import datasets\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader(datasets.ImageFolder('" +
        root + "'), batch_size=32)\n");
  };
  const auto train = named("data/imagenet/train");
  EXPECT_EQ(train.spec.source().range().stop(), 1'281'167);
  EXPECT_TRUE(HasNote(train, 3,
                      "`'data/imagenet/train'` names ImageNet's training images: 1281167 of "
                      "them stand in for the folder's files; --set dataset.stop=N"))
      << Notes(train);
  EXPECT_EQ(named("/datasets/ILSVRC2012/val").spec.source().range().stop(), 50'000);
  EXPECT_EQ(named("/data/imagenet100/train").spec.source().range().stop(), 10'000);
  EXPECT_EQ(named("/data/places365/train").spec.source().range().stop(), 10'000);
  const auto& folder_item = folder.spec.ops(0).dataloader().getitem().python();
  EXPECT_EQ(folder.spec.ops(0).dataloader().getitem().output_bytes(), 3 * 224 * 224 * 4);
  EXPECT_GT(us(folder_item.duration()), 1080 + 300);  // the decode, then a crop's resize
  EXPECT_LT(us(cifar_item.duration()) * 10, us(folder_item.duration()) - 1080);
  // The same in torchvision's first names (pytorch#680's ImageNet script of 2017):
  // RandomSizedCrop and Scale are RandomResizedCrop and Resize.
  const auto old_names = imagenet("RandomSizedCrop");
  const auto& old_item = old_names.spec.ops(0).dataloader().getitem().python();
  EXPECT_EQ(old_names.spec.ops(0).dataloader().getitem().output_bytes(), 3 * 224 * 224 * 4)
      << Notes(old_names);
  EXPECT_EQ(old_item.duration(), folder_item.duration()) << Notes(old_names);

  // Transforms the model cannot cost are named; one kept as PIL images cannot be collated.
  const auto unknown = Import(R"(import torch
from torchvision import datasets, transforms
ds = datasets.CIFAR100("d", transform=transforms.Compose([transforms.Lambda(lambda x: x),
                                                          transforms.RandomApply([transforms.ColorJitter(0.4, 0.4)], p=0.8)]))
loader = torch.utils.data.DataLoader(ds, batch_size=64)
)");
  EXPECT_TRUE(HasNote(unknown, 5,
                      "applies `transforms.Lambda(lambda x: x)`, a transform whose "
                      "cost is not read"))
      << Notes(unknown);
  EXPECT_TRUE(HasNote(unknown, 5, "the DataLoader's default collate_fn cannot batch them"))
      << Notes(unknown);
  EXPECT_TRUE(HasNote(unknown, 5, "+ ColorJitter ")) << Notes(unknown);
}

// A Dataset of the user's own applies the transform it was made with: its __init__ read again
// with the instance's arguments, so `if self.transform:` and its cost follow the instance,
// and its __len__ too.
TEST(CodeImportTest, ADatasetsOwnTransformIsTheOneItWasMadeWith) {
  const auto made = [](const std::string& dataset) {
    return Import(R"(from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms as T
class Leaves(Dataset):
    def __init__(self, paths, transform=None, n=100):
        self.paths = paths
        self.transform = transform
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        img = Image.open(self.paths[i]).convert("RGB")
        if self.transform:
            img = self.transform(img)
        return img
train_tf = T.Compose([T.Resize((256, 256)), T.RandomHorizontalFlip(), T.ToTensor()])
loader = DataLoader()" +
                  dataset + R"(, batch_size=32, num_workers=4)
)");
  };
  const auto plain = made("Leaves(paths)");
  EXPECT_EQ(plain.spec.ops(0).dataloader().getitem().python().duration(), "1080us");
  EXPECT_EQ(plain.spec.ops(0).dataloader().getitem().output_bytes(), 0);
  EXPECT_EQ(plain.spec.source().range().stop(), 100);
  const auto transformed = made("Leaves(paths, transform=train_tf, n=5000)");
  const auto& item = transformed.spec.ops(0).dataloader().getitem().python();
  EXPECT_NE(item.duration(), "1080us");
  EXPECT_EQ(transformed.spec.ops(0).dataloader().getitem().output_bytes(), 3 * 256 * 256 * 4);
  EXPECT_EQ(transformed.spec.source().range().stop(), 5000);
  EXPECT_TRUE(HasNote(transformed, 17, "then applies its transforms: Resize "))
      << Notes(transformed);
  const auto elsewhere = made("Leaves(paths, make_transform())");
  EXPECT_TRUE(HasNote(elsewhere, 17,
                      "'loader' applies `self.transform`, a transform whose cost is not read"))
      << Notes(elsewhere);
  // Its work is in no figure: left out of the spec, so that the verdict says so, until the
  // whole call's cost is given (torchxrayvision#11's XRayResizer, a class of the file's own).
  ASSERT_EQ(elsewhere.spec.left_out_size(), 1);
  EXPECT_EQ(elsewhere.spec.left_out(0).code(), "self.transform");
  EXPECT_EQ(elsewhere.spec.left_out(0).op(), "loader");
  ImportedCode answered = elsewhere;
  ASSERT_TRUE(SetCodeKnob(answered, "loader.cost=40ms").ok());
  EXPECT_EQ(answered.spec.left_out_size(), 0);
}

// PyTorch Geometric's DataLoader is torch's with a collate of its own (Batch.from_data_list,
// Python joining a batch's graphs: pyg#811's "CPU load high, GPU load low"): a stand-in
// per batch, said, and set by --set loader.collate_cost; torch's own has none.
TEST(CodeImportTest, PyTorchGeometricsLoaderCollatesItsGraphsInPython) {
  const auto loader = [](const std::string& from) {
    return Import("from " + from + R"( import DataLoader
from my_dataset import MyDataset

dataset = MyDataset(root='data/mine')
loader = DataLoader(dataset, batch_size=128, shuffle=True)
for batch in loader:
    pass
)");
  };
  for (const char* module : {"torch_geometric.loader", "torch_geometric.data"}) {
    ImportedCode graphs = loader(module);
    const spec::WorkFunction& collate = graphs.spec.ops(0).dataloader().collate();
    EXPECT_TRUE(collate.has_python()) << module;
    EXPECT_TRUE(collate.cost_is_stand_in()) << module;
    EXPECT_TRUE(HasNote(graphs, 5,
                        "torch_geometric's DataLoader joins each batch's graphs with "
                        "Batch.from_data_list"))
        << Notes(graphs);
    ASSERT_TRUE(SetCodeKnob(graphs, "loader.collate_cost=15ms").ok());
    EXPECT_FALSE(graphs.spec.ops(0).dataloader().collate().cost_is_stand_in());
    EXPECT_FALSE(HasNote(graphs, 5, "Batch.from_data_list")) << Notes(graphs);
  }
  EXPECT_FALSE(loader("torch.utils.data").spec.ops(0).dataloader().has_collate());
}

// The order of a loader's indices is what its code says, in each of PyTorch's spellings, and
// a sampler of the user's own is named as not read.
TEST(CodeImportTest, ALoadersOrderComesFromShuffleOrItsSampler) {
  const auto order = [](const std::string& args) {
    return Import(
        "from torch.utils.data import BatchSampler, DataLoader, RandomSampler, "
        "SequentialSampler, TensorDataset\nloader = DataLoader(TensorDataset(x), " +
        args + ")\n");
  };
  EXPECT_TRUE(order("batch_size=8, shuffle=True").spec.ops(0).dataloader().shuffle());
  EXPECT_FALSE(order("batch_size=8").spec.ops(0).dataloader().shuffle());
  EXPECT_FALSE(order("batch_size=8, shuffle=False").spec.ops(0).dataloader().shuffle());
  EXPECT_TRUE(order("batch_size=8, sampler=RandomSampler(ds)").spec.ops(0).dataloader().shuffle());
  const auto sequential = order("batch_size=8, sampler=SequentialSampler(ds)");
  EXPECT_FALSE(sequential.spec.ops(0).dataloader().shuffle());
  EXPECT_FALSE(HasNote(sequential, 2, "sampler")) << Notes(sequential);
  const auto batches = order(
      "sampler=BatchSampler(RandomSampler(ds), batch_size=32, drop_last=True), "
      "batch_size=None");
  EXPECT_TRUE(batches.spec.ops(0).dataloader().shuffle());
  EXPECT_TRUE(batches.spec.ops(0).dataloader().fetch_batches());
  EXPECT_TRUE(batches.spec.ops(0).dataloader().drop_last());
  const auto own = order("batch_size=8, sampler=WeightedRandomSampler(weights, 100)");
  EXPECT_FALSE(own.spec.ops(0).dataloader().shuffle());
  EXPECT_TRUE(
      HasNote(own, 2, "the loader's sampler `WeightedRandomSampler(weights, 100)` is not read"))
      << Notes(own);
}

using testing::kThousandItems;

// A knob whose value import-code followed out of the call (`num_workers=self.num_workers`, to
// the constructor's parameter) is written where the instance is given it, and never as a
// keyword beside the call's own, which Python refuses (SyntaxError); where the instance is
// given a computed value, the call's own expression gives way to the tuned one.
TEST(CodeImportTest, AKnobFollowedOutOfTheCallIsWrittenInItsPlace) {
  const auto wrapped = [](const std::string& workers) {
    return Import(kThousandItems + R"(class Wrapper:
    def __init__(self, num_workers):
        self.num_workers = num_workers
    def loader(self):
        return DataLoader(Items(), batch_size=8, num_workers=self.num_workers)
for x in Wrapper()" +
                  workers + R"().loader():
    pass
)");
  };
  for (const std::string given : {"4", "CORES // 2"}) {
    const auto imported = wrapped(given);
    spec::PipelineSpec tuned = imported.spec;
    tuned.mutable_ops(0)->mutable_dataloader()->set_num_workers(6);
    const auto patched = PatchCode(imported, tuned);
    ASSERT_TRUE(patched.ok()) << patched.status().message();
    const bool literal = given == "4";
    EXPECT_EQ(patched->text.find("Wrapper(6)") != std::string::npos, literal) << patched->text;
    EXPECT_EQ(
        patched->text.find("DataLoader(Items(), batch_size=8, num_workers=6)") != std::string::npos,
        !literal)
        << patched->text;
    EXPECT_EQ(patched->text.find("num_workers=self.num_workers, num_workers"), std::string::npos)
        << patched->text;
  }
}

// An epochs' loop behind a progress bar counts its epochs as range's does: tqdm(range(10))
// (pytorch#12831's loop), tqdm.trange(10, desc=...), as `for epoch in range(10):`.
TEST(CodeImportTest, AProgressBarsEpochsAreCounted) {
  for (const std::string over : {"range(10)", "tqdm(range(10), desc='epochs')",
                                 "tqdm.tqdm(range(10))", "trange(10, desc='epochs')"}) {
    const auto imported = Import(kThousandItems +
                                 "from tqdm import tqdm, trange\nloader = DataLoader(Items(), "
                                 "batch_size=8)\nfor epoch in " +
                                 over + ":\n    for x in loader:\n        pass\n");
    const spec::Op& epochs = imported.spec.ops(imported.spec.ops_size() - 1);
    ASSERT_TRUE(epochs.has_repeat()) << over << "\n" << imported.spec.DebugString();
    EXPECT_EQ(epochs.repeat().count(), 10) << over << "\n" << Notes(imported);
  }
}

// A method that builds two loaders and returns both through another, unpacked where it is
// called (ConVIRT-pytorch's get_data_loaders): the one not read is said once, where it was
// made.
TEST(CodeImportTest, APipelineBoundAgainWhereItIsReturnedIsSaidOnce) {
  const auto imported = Import(kThousandItems + R"(class Wrapper:
    def loaders(self):
        return self.split(Items())
    def split(self, ds):
        train = DataLoader(ds, batch_size=8)
        valid = DataLoader(ds, batch_size=8)
        return train, valid
def main():
    train, valid = Wrapper().loaders()
    for x in train:
        pass
main()
)");
  const std::string notes = Notes(imported);
  const size_t first = notes.find("another pipeline, 'valid'");
  ASSERT_NE(first, std::string::npos) << notes;
  EXPECT_EQ(notes.find("another pipeline, 'valid'", first + 1), std::string::npos) << notes;
}

// Keras 1's samples_per_epoch (keras#2730's fit_generator(gen, samples_per_epoch=50000)): read
// as Keras 2 reads it, steps_per_epoch unchanged, and the note says Keras 1 counted samples.
TEST(CodeImportTest, KerasOnesSamplesPerEpochIsSaidToCountSamples) {
  const auto imported = Import(R"(def batches():
    while True:
        yield 1
model.fit_generator(batches(), samples_per_epoch=50000, nb_epoch=10)
)");
  EXPECT_EQ(imported.spec.source().range().stop(), 50000);
  EXPECT_TRUE(HasNote(imported, 4, "Keras 1, whose name it is, counted samples"))
      << Notes(imported);
}

// A map that gives each element a literal shape of its own (tensorflow#14480's `lambda i:
// tf.reshape(i, [1])`) has no work to speak of, but cannot follow a batch: a batch of 128
// reshaped to [1] fails. One whose shape opens with -1 may take the batch.
TEST(CodeImportTest, AMapThatFixesTheElementsShapeCannotFollowABatch) {
  const auto fn = [](const std::string& shape) {
    return Import(
               "import tensorflow as tf\nds = tf.data.Dataset.range(1000)\n"
               "ds = ds.map(lambda i: tf.reshape(i, " +
               shape + "))\nds = ds.batch(128)\n")
        .spec.ops(0)
        .map()
        .fn();
  };
  const spec::WorkFunction fixed = fn("[1]");
  ASSERT_TRUE(fixed.has_cpu_work()) << fixed.DebugString();
  EXPECT_EQ(fixed.cpu_work().one_element_call(), "tf.reshape(..., [1])");
  EXPECT_FALSE(engine::WorkFunctionHasBatchedForm(fixed));
  EXPECT_TRUE(fn("[-1, 1]").has_identity());
}

// A py_function's Python that opens and reads a file (tensorflow#15694's text files) waits on
// storage for it, as a Dataset's __getitem__ does: a stand-in's wait, marked as the file's,
// and said.
TEST(CodeImportTest, APyFunctionsFileLoadsWaitOnStorage) {
  const auto imported = Import(R"(import tensorflow as tf
def parse(path):
    with open(path.numpy(), "rb") as f:
        return len(f.read())
ds = tf.data.Dataset.from_tensor_slices(paths)
ds = ds.map(lambda p: tf.py_function(parse, [p], tf.int64), num_parallel_calls=4)
)");
  const spec::WorkFunction& fn = imported.spec.ops(0).map().fn();
  ASSERT_TRUE(fn.has_python()) << fn.DebugString();
  EXPECT_FALSE(fn.python().wait().empty()) << fn.DebugString();
  EXPECT_TRUE(fn.python().wait_loads_files());
  EXPECT_TRUE(HasNote(imported, 6, "loads 1 file an item (open)")) << Notes(imported);
}

// ImageDataGenerator's batches are float32 whatever the images (K.floatx()): batch_size ×
// height × width × channels × 4 bytes, what worker processes send back (keras-preprocessing
// #217's 32 of 224×224×3: 19.3 MB): target_size and color_mode for files, x's shape for
// flow(x).
TEST(CodeImportTest, AnImageDataGeneratorsBatchIsItsFloat32Pixels) {
  const auto bytes = [](const std::string& call) {
    const auto imported = Import(
        "import numpy as np\nfrom keras.preprocessing.image import ImageDataGenerator\n"
        "x = np.zeros((1000, 32, 32, 1))\ngen = ImageDataGenerator(horizontal_flip=True)\n"
        "it = gen." +
        call + "\nmodel.fit(it, epochs=2)\n");
    return imported.spec.ops(0).keras_fit().getitem().output_bytes();
  };
  EXPECT_EQ(bytes("flow_from_directory('d', target_size=(150, 150), batch_size=20)"),
            20 * 150 * 150 * 3 * 4);
  EXPECT_EQ(bytes("flow_from_directory('d', target_size=(150, 150), batch_size=20, "
                  "color_mode='grayscale')"),
            20 * 150 * 150 * 1 * 4);
  EXPECT_EQ(bytes("flow_from_directory('d')"), 32 * 256 * 256 * 3 * 4);
  EXPECT_EQ(bytes("flow(x, batch_size=100)"), 100 * 32 * 32 * 1 * 4);
}

// SubsetRandomSampler(indices): an epoch is its indices alone, in random order (a train
// split's 90%, ConVIRT-pytorch's); where the code does not show how many, the note says the
// whole dataset stands in and how to set the subset's size.
TEST(CodeImportTest, ASubsetRandomSamplersEpochIsItsIndices) {
  const auto subset = [](const std::string& indices) {
    return Import(kThousandItems +
                  "from torch.utils.data import SubsetRandomSampler\nds = Items()\n"
                  "loader = DataLoader(ds, batch_size=10, sampler=SubsetRandomSampler(" +
                  indices + "))\nfor x in loader:\n    pass\n");
  };
  const auto listed = subset("[0, 5, 7, 9]");
  EXPECT_TRUE(listed.spec.ops(0).dataloader().shuffle());
  EXPECT_EQ(listed.spec.source().range().stop(), 4) << listed.spec.DebugString();
  const auto split = subset("train_idx");
  EXPECT_TRUE(split.spec.ops(0).dataloader().shuffle());
  EXPECT_EQ(split.spec.source().range().stop(), 1000);
  EXPECT_TRUE(HasNote(split, 10, "an epoch takes only its indices `train_idx`")) << Notes(split);
}

// A flag's default stands for the flag (argparse's dest rules, absl's DEFINE_*), and the
// note says the job may run with another value.
TEST(CodeImportTest, AFlagsDefaultStandsForItAndSaysSo) {
  const auto torch = Import(R"(import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument('-j', '--workers', default=4, type=int)
parser.add_argument('-b', '--batch-size', default=256, type=int)
parser.add_argument('--pin', dest='pin_memory', action='store_true')
args = parser.parse_args()
sampler = None
loader = torch.utils.data.DataLoader(ds, batch_size=args.batch_size, shuffle=(sampler is None),
                                     num_workers=args.workers, pin_memory=args.pin_memory)
)");
  const auto& dl = torch.spec.ops(0).dataloader();
  EXPECT_EQ(dl.batch_size(), 256);
  EXPECT_EQ(dl.num_workers(), 4);
  EXPECT_FALSE(dl.pin_memory());
  EXPECT_TRUE(dl.shuffle());
  EXPECT_TRUE(HasNote(torch, 9,
                      "loader's batch_size is the flag `args.batch_size`: its default, "
                      "256, until set: --set loader.batch_size=N"))
      << Notes(torch);
  EXPECT_TRUE(HasNote(torch, 10,
                      "loader's pin_memory is the flag `args.pin_memory`: its default, "
                      "False"))
      << Notes(torch);
  const auto absl = Import(R"(import tensorflow as tf
from absl import flags
flags.DEFINE_integer("num_map_threads", 8, "threads of the parse map")
FLAGS = flags.FLAGS
ds = tf.data.TFRecordDataset(["a.tfrecord"]).map(parse, num_parallel_calls=FLAGS.num_map_threads)
ds = ds.batch(FLAGS.batch_size)
)");
  EXPECT_EQ(OpNamed(absl, "parse").map().num_parallel_calls(), 8);
  EXPECT_TRUE(HasNote(absl, 6,
                      "batch's batch_size is `FLAGS.batch_size`, known only when the code "
                      "runs"))
      << Notes(absl);
}

// Loader arguments people keep in a dict (PyTorch's MNIST example: train_kwargs, updated with
// cuda_kwargs, spread into the DataLoader) are read; a dict not known is said to be.
TEST(CodeImportTest, ALoadersArgumentsInADictItSpreadsAreRead) {
  const auto spread = Import(R"(import torch
train_kwargs = {'batch_size': 64}
if use_cuda:
    cuda_kwargs = dict(num_workers=1, pin_memory=True, shuffle=True)
    train_kwargs.update(cuda_kwargs)
loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)
)");
  const auto& dl = spread.spec.ops(0).dataloader();
  EXPECT_EQ(dl.batch_size(), 64);
  EXPECT_EQ(dl.num_workers(), 1);
  EXPECT_TRUE(dl.pin_memory());
  EXPECT_TRUE(dl.shuffle());
  const auto chosen = Import(R"(import torch
kwargs = {'num_workers': 2, 'pin_memory': True} if use_cuda else {}
loader = torch.utils.data.DataLoader(ds, batch_size=64, **kwargs)
)");
  EXPECT_EQ(chosen.spec.ops(0).dataloader().num_workers(), 2);
  EXPECT_TRUE(HasNote(chosen, 2,
                      "the condition `use_cuda` is known only when the code runs: read "
                      "as true, `{}` left out"))
      << Notes(chosen);
  const auto unknown = Import(R"(import torch
loader = torch.utils.data.DataLoader(ds, batch_size=64, **config.loader_args)
)");
  EXPECT_EQ(unknown.spec.ops(0).dataloader().num_workers(), 0);
  EXPECT_TRUE(HasNote(unknown, 2,
                      "the loader's `**config.loader_args` is known only when the "
                      "code runs"))
      << Notes(unknown);
}

// Of a training loader and an evaluation loader built after it, the one a loop that trains
// (loss.backward(), optimizer.step()) consumes is read, through enumerate or tqdm.
TEST(CodeImportTest, TheLoaderATrainingLoopConsumesIsTheOneRead) {
  const auto loaders = [](const std::string& loop) {
    return Import(R"(import torch
from tqdm import tqdm
big_loader = torch.utils.data.DataLoader(big_set, batch_size=32, shuffle=True)
small_loader = torch.utils.data.DataLoader(small_set, batch_size=1000)
for epoch in range(10):
    for i, (x, y) in )" +
                  loop + R"(:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
with torch.no_grad():
    for x, y in small_loader:
        correct += (model(x).argmax(1) == y).sum()
)");
  };
  EXPECT_EQ(loaders("enumerate(big_loader)").spec.ops(0).dataloader().batch_size(), 32);
  EXPECT_EQ(loaders("enumerate(tqdm(big_loader))").spec.ops(0).dataloader().batch_size(), 32);
  const auto read = loaders("enumerate(big_loader)");
  EXPECT_TRUE(HasNote(read, 4,
                      "import-code reads 'big_loader', which the training at line 6 "
                      "consumes"))
      << Notes(read);
  // A loop that does not train does not choose: the last loader built is read.
  EXPECT_EQ(loaders("enumerate([])").spec.ops(0).dataloader().batch_size(), 1000);
}

// A knob in the dict a call spreads is written there; beside a `**kwargs` whose keys are not
// known, a keyword is not written (Python would refuse a repeated one), and a note says so.
TEST(CodePatchTest, AKnobIsWrittenIntoTheDictTheCallSpreadsAndNeverBesideAnUnknownOne) {
  const std::string known = R"(import torch
kwargs = {'batch_size': 64, 'num_workers': 1}
loader = torch.utils.data.DataLoader(ds, **kwargs)
)";
  const auto original = Import(known);
  spec::PipelineSpec tuned = original.spec;
  tuned.mutable_ops(0)->mutable_dataloader()->set_num_workers(4);
  tuned.mutable_ops(0)->mutable_dataloader()->set_pin_memory(true);
  const auto patched = PatchCode(original, tuned);
  ASSERT_TRUE(patched.ok());
  EXPECT_EQ(patched->text, R"(import torch
kwargs = {'batch_size': 64, 'num_workers': 4}
loader = torch.utils.data.DataLoader(ds, **kwargs, pin_memory=True)
)");
  const std::string opaque = R"(import torch
loader = torch.utils.data.DataLoader(ds, batch_size=64, **settings())
)";
  const auto unknown = Import(opaque);
  spec::PipelineSpec more = unknown.spec;
  more.mutable_ops(0)->mutable_dataloader()->set_num_workers(4);
  const auto left = PatchCode(unknown, more);
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(left->text, opaque);
  EXPECT_TRUE(AnyHas(left->notes,
                     "loader.num_workers = 4: not written, as the call passes `**settings()`"));
}

// TensorFlow's "Load text" guide gathers a dataset per file in a list, then concatenates
// them: the list's items are read (the first file's pipeline, the concatenation noted as not
// read), where the file read as no pipeline at all.
TEST(CodeImportTest, DatasetsGatheredInAListAreItsItems) {
  const auto c = Import(R"(import tensorflow as tf
labeled_data_sets = []
for i, file_name in enumerate(FILE_NAMES):
  lines_dataset = tf.data.TextLineDataset(file_name)
  labeled_data_sets.append(lines_dataset.map(lambda ex: labeler(ex, i)))
all_labeled_data = labeled_data_sets[0]
for labeled_dataset in labeled_data_sets[1:]:
  all_labeled_data = all_labeled_data.concatenate(labeled_dataset)
all_labeled_data = all_labeled_data.shuffle(50000, reshuffle_each_iteration=False)
model.fit(all_labeled_data.padded_batch(64), epochs=3)
)");
  ASSERT_EQ(c.spec.ops_size(), 4) << c.spec.DebugString();
  EXPECT_TRUE(c.spec.ops(0).has_map());
  EXPECT_TRUE(c.spec.ops(1).has_shuffle());
  EXPECT_TRUE(c.spec.ops(2).has_padded_batch());
  EXPECT_EQ(c.spec.ops(3).repeat().count(), 3);
  EXPECT_TRUE(HasNote(c, 8, ".concatenate(...) is not read")) << Notes(c);
}

// pytorch#11929: an HDF5 file opened in __init__ is shared by the workers, which h5py does
// not support; the note says where to open it. Without workers nothing is said, until code
// written back adds them (the image-captioning tutorial's `workers = 1  # only 1 works with
// h5py`, advised 6): that says what to change before running it.
TEST(CodeImportTest, AnHdf5FileOpenedInInitIsSaidToBeSharedByWorkers) {
  const auto loader = [](int workers) {
    return Import(R"(import h5py
import torch
class H5(torch.utils.data.Dataset):
    def __init__(self, path):
        self.f = h5py.File(path, "r")
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        return self.f["x"][i]
loader = torch.utils.data.DataLoader(H5("d.h5"), batch_size=32, num_workers=)" +
                  std::to_string(workers) + ")\n");
  };
  const auto shared = loader(4);
  EXPECT_TRUE(HasNote(shared, 5,
                      "H5.__init__ opens an HDF5 file (h5py.File) that the loader's 4 "
                      "worker processes inherit"))
      << Notes(shared);
  const auto alone = loader(0);
  EXPECT_FALSE(HasNote(alone, 5, "h5py.File")) << Notes(alone);
  // A file a `with` block opens in __init__ (to read a length) is closed before any worker
  // starts: nothing to say.
  const auto closed = Import(R"(import h5py
import torch
class H5(torch.utils.data.Dataset):
    def __init__(self, path):
        with h5py.File(path, "r") as f:
            self.n = len(f["x"])
    def __len__(self):
        return self.n
loader = torch.utils.data.DataLoader(H5("d.h5"), batch_size=32, num_workers=4)
)");
  EXPECT_FALSE(HasNote(closed, 5, "inherit")) << Notes(closed);
  // Opened on a worker's first item and kept, the file is read for each item, not opened.
  const auto lazy = Import(R"(import h5py
import torch
class H5(torch.utils.data.Dataset):
    def __init__(self, path):
        self.path, self.h = path, None
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        if self.h is None:
            self.h = h5py.File(self.path, "r")
        return self.h["x"][i]
loader = torch.utils.data.DataLoader(H5("d.h5"), batch_size=32, num_workers=4)
)");
  EXPECT_TRUE(HasNote(lazy, 12,
                      "'loader' reads each item from 1 file it opens once per worker "
                      "(h5py.File), each a read from storage"))
      << Notes(lazy);
  for (const int workers : {0, 4}) {
    const auto c = loader(workers);
    spec::PipelineSpec advised = c.spec;
    advised.mutable_ops(0)->mutable_dataloader()->set_num_workers(6);
    const auto written = PatchCode(c, advised);
    ASSERT_TRUE(written.ok()) << written.status().message();
    std::string notes;
    for (const std::string& n : written->notes) notes += n + "\n";
    EXPECT_NE(notes.find("before running it with 6 workers: H5.__init__ opens an HDF5 file "
                         "(h5py.File, line 5)"),
              std::string::npos)
        << notes;
    // The copy says it too, above the line that sets the workers, as a comment.
    EXPECT_NE(written->text.find("\n# Pipescope's advice: before running it with 6 workers: "
                                 "H5.__init__ opens an HDF5 file (h5py.File, line 5)"),
              std::string::npos)
        << written->text;
  }
}

// A Python generator handed to fit is marked as one (its copies in processes repeat its
// batches), and steps_per_epoch is its epoch's length.
TEST(CodeImportTest, AGeneratorHandedToFitIsOneAndStepsPerEpochIsItsEpoch) {
  const auto c = Import(R"(def batches(x):
    while True:
        yield x, x
model.fit(batches(x_train), steps_per_epoch=200, workers=4)
)");
  EXPECT_TRUE(OpNamed(c, "fit").keras_fit().generator());
  EXPECT_EQ(c.spec.source().range().stop(), 200);
  const auto emitted = EmitCode(c.spec, "keras");
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  const auto back = Import(emitted->text);
  EXPECT_TRUE(OpNamed(back, "fit").keras_fit().generator()) << emitted->text;
  EXPECT_EQ(back.spec.source().range().stop(), 200) << emitted->text;
}

// What a note can say that the user then sets: a map's per-call part (what batching before it
// saves), and a loader's start-up where its workers spawn.
// A class whose __init__ has a default that makes an instance of it (found by the code-import
// fuzzer): its attributes are read once, not again for the instance the default makes, and
// so on without end.
TEST(CodeImportTest, AnInitWhoseDefaultMakesItsOwnClassIsReadOnce) {
  const ImportedCode c = Import(R"(from torch.utils.data import DataLoader, Dataset
class Items(Dataset):
    def __init__(self, x, other=DataLoader(Items([1]))):
        self.x = x
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return self.x[i]
loader = DataLoader(Items([1, 2, 3]), batch_size=2)
)");
  EXPECT_EQ(OpNamed(c, "loader").dataloader().batch_size(), 2);
}

TEST(CodeImportTest, NotesNameTheSettingsTheCostsTurnOn) {
  const auto map = Import(R"(import tensorflow as tf
ds = tf.data.TextLineDataset(["a.csv"]).map(parse_csv)
)");
  // A traced function's dispatch on every call stands in, and says how to set it.
  EXPECT_TRUE(HasNote(map, 2,
                      "each call of 'parse_csv' pays TensorFlow's dispatch of a map function "
                      "beside its ops, which batching before the map pays once per batch: 9us"))
      << Notes(map);
  EXPECT_TRUE(HasNote(map, 2, "--set parse_csv.call_overhead=DURATION")) << Notes(map);
  EXPECT_EQ(map.spec.ops(0).map().call_overhead(), "9us");
  const auto loader = Import(R"(import torch
loader = torch.utils.data.DataLoader(ds, batch_size=8, num_workers=4)
)");
  EXPECT_TRUE(
      HasNote(loader, 2,
              "the loader starts its worker processes again every epoch (no persistent_workers; "
              "num_workers=4 in the code)"))
      << Notes(loader);
  const auto persistent = Import(R"(import torch
loader = torch.utils.data.DataLoader(ds, batch_size=8, num_workers=4, persistent_workers=True)
)");
  EXPECT_FALSE(HasNote(persistent, 2, "again every epoch")) << Notes(persistent);
}

// A loader tuned to fetch whole batches (batch_at_source) is written as PyTorch spells it: a
// BatchSampler around its order and batch_size=None, shuffle=False beside a sampler, and the
// import; the file then reads back to the tuned loader. (PyTorch 1.13 runs the result.)
// make_csv_dataset's arguments are not the knobs they set: the tuned interleave's
// parallelism (and cycle length, the same argument) goes back as num_parallel_reads, its
// determinism as sloppy, the buffers as shuffle_buffer_size and prefetch_buffer_size.
TEST(CodePatchTest, ACsvDatasetsTunedKnobsGoBackAsItsOwnArguments) {
  const std::string source = R"(import tensorflow as tf
ds = tf.data.experimental.make_csv_dataset("a.csv", batch_size=32, shuffle_buffer_size=500)
)";
  const auto original = Import(source);
  spec::PipelineSpec tuned = original.spec;
  for (spec::Op& op : *tuned.mutable_ops()) {
    if (op.has_interleave()) {
      op.mutable_interleave()->set_num_parallel_calls(4);
      op.mutable_interleave()->set_cycle_length(4);
      op.mutable_interleave()->set_deterministic(false);
    }
    if (op.has_shuffle()) op.mutable_shuffle()->set_buffer_size(2000);
    if (op.has_prefetch()) op.mutable_prefetch()->set_buffer_size(8);
    if (op.has_batch()) op.mutable_batch()->set_batch_size(64);
  }
  const auto patched = PatchCode(original, tuned);
  ASSERT_TRUE(patched.ok());
  EXPECT_EQ(patched->text, R"(import tensorflow as tf
ds = tf.data.experimental.make_csv_dataset("a.csv", batch_size=64, shuffle_buffer_size=2000, num_parallel_reads=4, sloppy=True, prefetch_buffer_size=8)
)");
  // Read back, the written file is the tuned pipeline.
  const auto again = Import(patched->text);
  for (const spec::Op& op : again.spec.ops()) {
    if (op.has_interleave()) {
      EXPECT_EQ(op.interleave().num_parallel_calls(), 4);
      EXPECT_EQ(op.interleave().cycle_length(), 4);
      EXPECT_FALSE(op.interleave().deterministic());
    }
  }
  // Arguments that end with a comma, the ')' on a line of its own: each keyword goes after
  // the comma and keeps one, so the call stays Python.
  const std::string trailing = R"(import tensorflow as tf
ds = tf.data.experimental.make_csv_dataset(
    "a.csv",
    batch_size=32,  # small, to show it
    num_epochs=None,
)
)";
  const auto with_comma = Import(trailing);
  spec::PipelineSpec faster = with_comma.spec;
  faster.mutable_ops(0)->mutable_interleave()->set_num_parallel_calls(2);
  faster.mutable_ops(0)->mutable_interleave()->set_cycle_length(2);
  faster.mutable_ops(0)->mutable_interleave()->set_deterministic(false);
  const auto comma = PatchCode(with_comma, faster);
  ASSERT_TRUE(comma.ok());
  EXPECT_EQ(comma->text, R"(import tensorflow as tf
ds = tf.data.experimental.make_csv_dataset(
    "a.csv",
    batch_size=32,  # small, to show it
    num_epochs=None, num_parallel_reads=2, sloppy=True,
)
)");
  // Two values for one argument: the parallelism is written, the cycle length said.
  tuned.mutable_ops(0)->mutable_interleave()->set_cycle_length(2);
  const auto split = PatchCode(original, tuned);
  ASSERT_TRUE(split.ok());
  EXPECT_NE(split->text.find("num_parallel_reads=4"), std::string::npos) << split->text;
  bool said = false;
  for (const auto& n : split->notes) {
    said |= n.find(
                "interleave.cycle_length = 2: not written, as `num_parallel_reads` carries "
                "interleave.num_parallel_calls = 4") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

TEST(CodePatchTest, ALoaderTunedToFetchWholeBatchesGetsABatchSampler) {
  const std::string source = R"(import torch
from torch.utils.data import DataLoader, TensorDataset
train = TensorDataset(torch.randn(200000, 16), torch.randint(0, 2, (200000,)))
loader = DataLoader(train, batch_size=1024, shuffle=True)
)";
  const auto original = Import(source);
  spec::PipelineSpec tuned = original.spec;
  tuned.mutable_ops(0)->mutable_dataloader()->set_fetch_batches(true);
  const auto patched = PatchCode(original, tuned);
  ASSERT_TRUE(patched.ok());
  EXPECT_EQ(patched->text, R"(from torch.utils.data import BatchSampler, RandomSampler
import torch
from torch.utils.data import DataLoader, TensorDataset
train = TensorDataset(torch.randn(200000, 16), torch.randint(0, 2, (200000,)))
loader = DataLoader(train, batch_size=None, shuffle=False, sampler=BatchSampler(RandomSampler(train), batch_size=1024, drop_last=False))
)");
  const auto back = Import(patched->text);
  const auto& dl = back.spec.ops(0).dataloader();
  EXPECT_TRUE(dl.fetch_batches());
  EXPECT_TRUE(dl.shuffle());
  EXPECT_EQ(dl.batch_size(), 1024);
  for (const auto& n : patched->notes) {
    EXPECT_EQ(n.find("has no argument for it"), std::string::npos) << n;
  }
  // drop_last moves into the BatchSampler: DataLoader refuses batch_size=None beside
  // drop_last=True (pytorch#106704's loader, written back by --advice-code).
  const auto dropping = Import(R"(import torch
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.ones(20000, 20), torch.ones(20000, 5))
dl_torch = DataLoader(ds, batch_size=256, shuffle=False, drop_last=True)
)");
  spec::PipelineSpec batched = dropping.spec;
  batched.mutable_ops(0)->mutable_dataloader()->set_fetch_batches(true);
  const auto written = PatchCode(dropping, batched);
  ASSERT_TRUE(written.ok());
  EXPECT_NE(written->text.find("dl_torch = DataLoader(ds, batch_size=None, shuffle=False, "
                               "drop_last=False, sampler=BatchSampler(SequentialSampler(ds), "
                               "batch_size=256, drop_last=True))"),
            std::string::npos)
      << written->text;
  const auto again = Import(written->text);
  EXPECT_TRUE(again.spec.ops(0).dataloader().drop_last());
  EXPECT_TRUE(again.spec.ops(0).dataloader().fetch_batches());
}

TEST(CodePatchTest, TunedKnobsAreWrittenIntoTheUsersOwnFileAndNothingElseChanges) {
  const std::string source = R"(import tensorflow as tf
AUTOTUNE = tf.data.AUTOTUNE
files = tf.data.Dataset.list_files("/d/*.tfrecord")
ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4,
                      num_parallel_calls=AUTOTUNE)  # reads
ds = ds.map(parse, num_parallel_calls=FLAGS.threads)
ds = (ds.map(augment)   # decode and augment
        .batch(64))
)";
  const auto original = Import(source);
  spec::PipelineSpec tuned = original.spec;
  tuned.mutable_ops(0)->mutable_interleave()->set_num_parallel_calls(2);
  tuned.mutable_ops(1)->mutable_map()->set_num_parallel_calls(3);
  tuned.mutable_ops(2)->mutable_map()->set_num_parallel_calls(2);
  auto p = tuned.add_ops();
  p->set_name("prefetch_last");
  p->mutable_prefetch()->set_buffer_size(2);
  const auto patched = PatchCode(original, tuned);
  ASSERT_TRUE(patched.ok());
  std::string expected = source;
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = expected.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    expected.replace(at, from.size(), to);
  };
  replace("num_parallel_calls=AUTOTUNE)", "num_parallel_calls=2)");
  replace("num_parallel_calls=FLAGS.threads", "num_parallel_calls=3");
  replace("ds.map(augment)", "ds.map(augment, num_parallel_calls=2)");
  replace(".batch(64))", ".batch(64).prefetch(2))");
  EXPECT_EQ(patched->text, expected);
  bool added = false;
  for (const auto& n : patched->notes) added = added || n == "added: .prefetch(2)";
  EXPECT_TRUE(added);
  // Read back, the patched file is the tuned spec (its prefetch named as import-code names it).
  auto reread = Import(patched->text);
  tuned.mutable_ops(tuned.ops_size() - 1)->set_name("prefetch");
  reread.spec.set_name(tuned.name());
  reread.spec.set_description(tuned.description());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(reread.spec, tuned))
      << reread.spec.DebugString();
}

// Seed 001's accepted answer written into the asker's own file: the batch before the parse
// (statement lines trade places, each with its comment), parse_single_example renamed to the
// parse_example that takes the batch, the parse in parallel and a prefetch at the end; read
// back, the file is the tuned pipeline.
TEST(CodePatchTest, MovedAndAddedOpsAreWrittenWhereTheCodeMakesEachOp) {
  const std::string source = R"(import tensorflow as tf
def _parser(record):
    parsed = tf.parse_single_example(record, _keys_to_map)
    return parsed['d'], parsed['s']
ds = tf.data.TFRecordDataset(files_train)
ds = ds.shuffle(buffer_size=10000)  # select elements randomly
ds = ds.map(_parser)                # map them based on tfrecord format
ds = ds.batch(512, drop_remainder=True)  # group elements in batch
ds = ds.repeat()
)";
  const auto original = Import(source);
  spec::PipelineSpec tuned = original.spec;
  auto* ops = tuned.mutable_ops();
  ops->SwapElements(1, 2);  // batch before _parser
  ops->Mutable(2)->mutable_map()->set_num_parallel_calls(2);
  auto* p = tuned.add_ops();
  p->set_name("prefetch_last");
  p->mutable_prefetch()->set_buffer_size(2);
  const auto patched = PatchCode(original, tuned);
  ASSERT_TRUE(patched.ok());
  EXPECT_EQ(patched->text, R"(import tensorflow as tf
def _parser(record):
    parsed = tf.parse_example(record, _keys_to_map)
    return parsed['d'], parsed['s']
ds = tf.data.TFRecordDataset(files_train)
ds = ds.shuffle(buffer_size=10000)  # select elements randomly
ds = ds.batch(512, drop_remainder=True)  # group elements in batch
ds = ds.map(_parser, num_parallel_calls=2)                # map them based on tfrecord format
ds = ds.repeat().prefetch(2)
)");
  std::string notes;
  for (const auto& n : patched->notes) notes += n + "\n";
  EXPECT_NE(notes.find("'_parser' now runs on batches: parse_single_example becomes "
                       "parse_example"),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("not written"), std::string::npos) << notes;
  auto reread = Import(patched->text);
  std::vector<std::string> order;
  for (const auto& op : reread.spec.ops()) order.push_back(op.name());
  EXPECT_EQ(order, (std::vector<std::string>{"shuffle", "batch", "_parser", "repeat", "prefetch"}));
  EXPECT_EQ(reread.spec.ops(2).map().num_parallel_calls(), 2);

  // A chain on one line: the calls trade places in it.
  const auto chained = Import(R"(import tensorflow as tf
ds = tf.data.TFRecordDataset(files).map(parse).batch(32)  # one line
)");
  spec::PipelineSpec swapped = chained.spec;
  swapped.mutable_ops()->SwapElements(0, 1);
  const auto written = PatchCode(chained, swapped);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(written->text, R"(import tensorflow as tf
ds = tf.data.TFRecordDataset(files).batch(32).map(parse)  # one line
)");
}

// A tuned pipeline that reads its source otherwise (seed 000's one file split into many, an
// interleave over them) is not written around the code's source: an interleave of
// TFRecordDatasets after the records would read each record's bytes as a file's name.
TEST(CodePatchTest, ASourceReadOtherwiseIsNotWrittenAroundTheOldOne) {
  const auto original = Import(R"(import tensorflow as tf
d = tf.data.TFRecordDataset(FLAGS.input_file)
d = d.shard(10, 0)
d = d.map(parse, num_parallel_calls=FLAGS.threads)
)");
  spec::PipelineSpec split = original.spec;
  split.mutable_source()->set_name("files");
  split.mutable_source()->mutable_range()->set_stop(80);
  spec::Op read;
  read.set_name("read_files");
  read.mutable_interleave()->mutable_per_element()->mutable_synthetic_file();
  read.mutable_interleave()->set_cycle_length(8);
  read.mutable_interleave()->set_num_parallel_calls(8);
  *split.mutable_ops()->Add() = read;
  split.mutable_ops()->SwapElements(1, 2);
  split.mutable_ops(2)->mutable_map()->set_num_parallel_calls(4);
  const auto written = PatchCode(original, split);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(written->text.find("interleave"), std::string::npos) << written->text;
  std::string notes;
  for (const auto& n : written->notes) notes += n + "\n";
  EXPECT_NE(notes.find("reads its source otherwise"), std::string::npos) << notes;
  // The knob that is the code's still is, and the flag it replaces is said.
  EXPECT_NE(written->text.find("num_parallel_calls=4"), std::string::npos) << written->text;
  EXPECT_NE(notes.find("`FLAGS.threads` becomes 4"), std::string::npos) << notes;
}

// An op the code makes by no call of its own (map_and_batch makes two) cannot be moved in
// the file: nothing is written, and the note says so and points to --emit.
TEST(CodePatchTest, OpsOfOneFusedCallAreNotMovedApart) {
  const auto fused = Import(R"(import tensorflow as tf
ds = tf.data.TFRecordDataset(files)
ds = ds.apply(tf.data.experimental.map_and_batch(parse, 32))
)");
  ASSERT_EQ(fused.spec.ops_size(), 2);
  spec::PipelineSpec swapped = fused.spec;
  swapped.mutable_ops()->SwapElements(0, 1);
  const auto written = PatchCode(fused, swapped);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(written->text, fused.source_text);
  std::string notes;
  for (const auto& n : written->notes) notes += n + "\n";
  EXPECT_NE(notes.find("orders its ops otherwise: not written"), std::string::npos) << notes;
}

}  // namespace
}  // namespace pipescope::code
