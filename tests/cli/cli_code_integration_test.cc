// import-code and code out as a user runs them: from the seed questions' own code to a spec,
// advice on it, and tuned knobs written back into their file.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/cli/cli_runner.h"

namespace pipescope::testing {
namespace {

std::string Corpus(const std::string& name) {
  return std::string(PIPESCOPE_SOURCE_DIR) + "/tests/code/corpus/" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string TempDir() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("pipescope_code_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

// `simulate` on a PyTorch training file holding `code`, its step taking 1 ms.
CliOutput SimulateLoaderCode(const std::string& name, const std::string& code) {
  const std::string path = TempDir() + "/" + name;
  std::ofstream(path) << code;
  return Cli("simulate " + path + " --set train_step.step_time=1ms --duration 5");
}

TEST(CliCodeTest, AFileThatCannotBeReadOrBuildsNoPipelineExitsTwo) {
  const auto missing = Cli("import-code /nonexistent/train.py");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.out.find("/nonexistent/train.py"), std::string::npos) << missing.out;
  const std::string plain = TempDir() + "/plain.py";
  std::ofstream(plain) << "import os\nprint(os.getcwd())\n";
  const auto none = Cli("import-code " + plain);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.out.find("no input pipeline to simulate: no tf.data pipeline, no DataLoader, "
                          "no fit(...) over a generator, Sequence or dataset"),
            std::string::npos)
      << none.out;
  // A spec given for code: said what it is, and which command writes code from it.
  const auto spec = Cli("import-code " + Pipeline("cpu_bound.pbtxt"));
  EXPECT_EQ(spec.exit_code, 2);
  EXPECT_NE(spec.out.find("is a pipeline spec, not Python"), std::string::npos) << spec.out;
}

TEST(CliCodeTest, SeedOnesCodeWithAPerCallCostGetsBatchBeforeTheParseWithAPredictedGain) {
  const std::string spec = TempDir() + "/seed_001.pbtxt";
  const auto imported = Cli("import-code " + Corpus("seed_001_init_tfrecord_dataset.py") +
                            " --set _parser.call_overhead=30us --out " + spec);
  ASSERT_EQ(imported.exit_code, 0) << imported.out;
  // Where the code leaves something to run time, the note says where and how to set it.
  EXPECT_NE(imported.out.find("seed_001_init_tfrecord_dataset.py:26:10: TFRecordDataset's files "
                              "are `files_train`"),
            std::string::npos)
      << imported.out;
  // A step of 2 ms (the stand-in's 10 ms would bound the run at 100 steps/s, which batching
  // first and prefetching reach without the parallel parse).
  const auto advice = Cli("simulate " + spec + " --duration 5 --set train_step.step_time=2ms");
  ASSERT_EQ(advice.exit_code, 0) << advice.out;
  EXPECT_NE(advice.out.find("[vectorise, high] batch before map '_parser' (vectorise it): "),
            std::string::npos)
      << advice.out;
  // The accepted answer does both, batching first and parsing in parallel, and tf.data's
  // guide prefetches: together, as the simulator adds them up.
  EXPECT_NE(advice.out.find("Together, batch before map '_parser' (vectorise it), "
                            "_parser.num_parallel_calls=2 and add prefetch(2) at the end add up"),
            std::string::npos)
      << advice.out;
  // A cache of the stand-in's 10000 records would gain what a 0.5 TB dataset never would: not
  // tried, and said so.
  EXPECT_EQ(advice.out.find("[cache"), std::string::npos) << advice.out;
  EXPECT_NE(advice.out.find("Not tried: a cache: it holds a whole epoch in memory, and the "
                            "data's size is not in the code (read is a stand-in); --set "
                            "read.records=N"),
            std::string::npos)
      << advice.out;
}

// Seed 003 as its asker wrote it: fit's 4 workers are threads (use_multiprocessing=False)
// over a Python generator. The accepted answer, use_multiprocessing=True, with the gain the
// simulator confirms, at the workers the cores allow, and what Keras warns of for a
// generator: write it as a Sequence.
TEST(CliCodeTest, SeedThreesCodeGetsProcessesNotThreads) {
  const std::string code = TempDir() + "/seed_003.py";
  std::ofstream(code) << R"(def batch_generator(x, batch_size=32):
    while True:
        idx = np.random.randint(0, len(x), batch_size)
        yield x[idx], x[idx]

model.fit(batch_generator(x_train), steps_per_epoch=200, epochs=10,
          workers=4, use_multiprocessing=False, max_queue_size=20)
)";
  const auto out = Cli("simulate " + code + " --set fit.cost=20ms");
  ASSERT_EQ(out.exit_code, 0) << out.out;
  EXPECT_NE(out.out.find("[use_processes, high] run fit's workers as processes (its threads "
                         "take turns at the generator's next(), which Keras runs one call at a "
                         "time, so more threads make no more batches): write the generator as a "
                         "keras.utils.Sequence, then use_multiprocessing=True, workers 2 (each "
                         "process gets a pickled copy of the Sequence: nothing it holds may be "
                         "unpicklable"),
            std::string::npos)
      << out.out;
  // A generator's copies in processes repeat its batches, as Keras warns.
  EXPECT_NE(out.out.find("Each worker process runs its own copy of the generator"),
            std::string::npos)
      << out.out;
  // So the tuner, which changes settings only, never takes that step.
  const auto tuned = Cli("autotune " + code + " --simulate --set fit.cost=20ms");
  ASSERT_EQ(tuned.exit_code, 0) << tuned.out;
  EXPECT_EQ(tuned.out.find("use_multiprocessing"), std::string::npos) << tuned.out;
  EXPECT_EQ(out.out.find("[more_workers"), std::string::npos) << out.out;
}

// pytorch#106704 and #4959: in-memory tensors in a TensorDataset, a small row each, loaded
// item by item. The answer PyTorch's maintainers give, fetching whole batches with a
// BatchSampler and batch_size=None, comes first, with the gain the simulator confirms.
TEST(CliCodeTest, ATensorDatasetOfSmallRowsIsToldToFetchWholeBatches) {
  const auto out = SimulateLoaderCode("tabular.py", R"(import torch
from torch.utils.data import DataLoader, TensorDataset
X = torch.randn(1000000, 20)
y = torch.randint(0, 2, (1000000,))
loader = DataLoader(TensorDataset(X, y), batch_size=256, shuffle=True, num_workers=0)
)");
  ASSERT_EQ(out.exit_code, 0) << out.out;
  const size_t first = out.out.find("  [");
  EXPECT_EQ(out.out.find("[batch_at_source, high] fetch whole batches from loader's dataset, "
                         "which indexes by a list of indices: sampler=BatchSampler("
                         "RandomSampler(dataset), batch_size=256, drop_last=False), "
                         "batch_size=None in place of batch_size=256; shuffle=True goes, as "
                         "the sampler shuffles: "),
            first + 2)
      << out.out;
  EXPECT_NE(out.out.find("--set loader.fetch_batches=true"), std::string::npos) << out.out;
}

// A small in-memory dataset with worker processes that start again every epoch: keeping
// them (persistent_workers) or loading in the main process (num_workers=0) are both offered,
// each with the gain the simulator gives it; the verdict names the workers' start-ups.
TEST(CliCodeTest, ASmallInMemoryDatasetIsToldToKeepItsWorkersOrDoWithout) {
  const auto out = SimulateLoaderCode("small.py", R"(import torch
from torch.utils.data import DataLoader, TensorDataset
X = torch.randn(5000, 16)
y = torch.randint(0, 2, (5000,))
loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True, num_workers=2)
)");
  ASSERT_EQ(out.exit_code, 0) << out.out;
  EXPECT_NE(out.out.find("[persistent_workers, high] set loader's persistent_workers=True"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("[fewer_workers, high] lower loader's num_workers 2 → 0 (load in the "
                         "main process"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("--set loader.num_workers=0"), std::string::npos) << out.out;
}

TEST(CliCodeTest, SeedZerosShardingExampleReadsAsTheDocumentationWritesIt) {
  const auto out = Cli("import-code " + Corpus("seed_000_efficient_sharding.py") + " --json");
  ASSERT_EQ(out.exit_code, 0) << out.out;
  EXPECT_NE(out.out.find(R"("ops": [
    "shard",
    "repeat",
    "shuffle",
    "repeat_2",
    "interleave",
    "parser_fn"
  ])"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find(R"("source": "list_files")"), std::string::npos) << out.out;
}

// The advice, as the asker would apply it: written into a copy of their own file, the
// batch before the parse, parse_example for parse_single_example (mrry's answer), the parse
// in parallel and a prefetch; the copy reads back to the advised pipeline.
TEST(CliCodeTest, AdviceIsWrittenIntoACopyOfTheUsersCode) {
  const std::string written = TempDir() + "/seed_001_advised.py";
  const auto out = Cli("simulate " + Corpus("seed_001_init_tfrecord_dataset.py") +
                       " --set _parser.call_overhead=30us --set train_step.step_time=2ms "
                       "--advice-code " +
                       written);
  ASSERT_EQ(out.exit_code, 0) << out.out;
  EXPECT_NE(out.out.find("Together's changes written into a copy of"), std::string::npos)
      << out.out;
  // Every change written is said, a keyword added as well as a value replaced.
  EXPECT_NE(out.out.find("  _parser.num_parallel_calls: num_parallel_calls=2 added\n"),
            std::string::npos)
      << out.out;
  // A parallelism tuned on this machine, where the code gives no budget, is said to be its.
  EXPECT_NE(out.out.find("(the spec sets no budget): --set budget.cpu_cores=N advises for the "
                         "machine that trains"),
            std::string::npos)
      << out.out;
  std::ifstream in(written);
  const std::string code((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(code.find("parsed = tf.parse_example(record, _keys_to_map)"), std::string::npos)
      << code;
  const size_t batch = code.find("    ds = ds.batch(BATCH_SIZE, drop_remainder=True)");
  const size_t parse = code.find("    ds = ds.map(_parser, num_parallel_calls=2)");
  ASSERT_NE(batch, std::string::npos) << code;
  ASSERT_NE(parse, std::string::npos) << code;
  EXPECT_LT(batch, parse) << code;
  EXPECT_NE(code.find("ds = ds.repeat().prefetch(2)"), std::string::npos) << code;
  const auto back = Cli("import-code " + written);
  ASSERT_EQ(back.exit_code, 0) << back.out;
  EXPECT_LT(back.out.find("name: \"batch\""), back.out.find("name: \"_parser\"")) << back.out;
  // With --json the code is written all the same, and the JSON says so.
  std::filesystem::remove(written);
  const auto json = Cli("simulate " + Corpus("seed_001_init_tfrecord_dataset.py") +
                        " --set _parser.call_overhead=30us --set train_step.step_time=2ms "
                        "--json --advice-code " +
                        written);
  ASSERT_EQ(json.exit_code, 0) << json.out;
  EXPECT_NE(json.out.find(R"("written": true)"), std::string::npos) << json.out;
  EXPECT_TRUE(std::filesystem::exists(written));
  // Without advice there is nothing to write: refused, not silent.
  const auto none = Cli("simulate " + Corpus("seed_001_init_tfrecord_dataset.py") +
                        " --no-advice --advice-code " + written);
  EXPECT_NE(none.exit_code, 0) << none.out;
  EXPECT_NE(none.out.find("excludes --advice-code"), std::string::npos) << none.out;
  // A spec has no code to write into.
  const auto spec = Cli("simulate " + Pipeline("cpu_bound.pbtxt") + " --advice-code " + written);
  EXPECT_EQ(spec.exit_code, 2) << spec.out;
  EXPECT_NE(spec.out.find("is a spec"), std::string::npos) << spec.out;
}

// --advice-piece N writes the N-th piece of advice as listed, not the first: a knob of the
// map's (tensorflow#30646's shape, whose first piece is a cache). A piece past the list's end
// is refused with the list's length, and the option needs --advice-code.
TEST(CliCodeTest, AdvicePieceWritesThePieceAsked) {
  const std::string path = TempDir() + "/pieces.py";
  std::ofstream(path) << R"(import tensorflow as tf

def parse(x):
  return tf.io.parse_single_example(x, {"x": tf.io.FixedLenFeature([8], tf.float32)})

ds = tf.data.TFRecordDataset("/data/train.tfrecord")
ds = ds.map(parse)
ds = ds.shuffle(50000)
ds = ds.batch(64).prefetch(2)
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(ds, epochs=3)
)";
  const std::string costs = " --set read.records=200000 --set parse.cost=50us --duration 120";
  const auto listed = Cli("simulate " + path + costs + " --json");
  ASSERT_EQ(listed.exit_code, 0) << listed.out;
  const auto advice = nlohmann::json::parse(JsonPart(listed.out))["advice"];
  int piece = 0;
  std::string setting;
  for (size_t i = 0; i < advice.size() && piece == 0; ++i) {
    const auto& settings = advice[i]["settings"];
    if (i > 0 && settings.size() == 1) {
      piece = static_cast<int>(i) + 1;
      setting = settings[0].get<std::string>();
    }
  }
  ASSERT_GT(piece, 1) << listed.out;
  ASSERT_EQ(setting.rfind("parse.num_parallel_calls=", 0), 0u) << setting;
  const std::string written = TempDir() + "/pieces_advised.py";
  std::filesystem::remove(written);
  const auto out = Cli("simulate " + path + costs + " --advice-code " + written +
                       " --advice-piece " + std::to_string(piece));
  ASSERT_EQ(out.exit_code, 0) << out.out;
  EXPECT_NE(out.out.find("piece " + std::to_string(piece) + " of the advice (" + setting + ")"),
            std::string::npos)
      << out.out;
  std::ifstream in(written);
  const std::string code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(
      code.find("ds.map(parse, num_parallel_calls=" + setting.substr(setting.find('=') + 1) + ")"),
      std::string::npos)
      << code;
  EXPECT_EQ(code.find(".cache()"), std::string::npos) << code;

  const auto past = Cli("simulate " + path + costs + " --advice-code " + written +
                        " --advice-piece " + std::to_string(advice.size() + 1));
  EXPECT_EQ(past.exit_code, 2) << past.out;
  EXPECT_NE(past.out.find("the advice has " + std::to_string(advice.size()) + " pieces"),
            std::string::npos)
      << past.out;
  const auto alone = Cli("simulate " + path + costs + " --advice-piece 2");
  EXPECT_NE(alone.exit_code, 0) << alone.out;
  EXPECT_NE(alone.out.find("--advice-piece requires --advice-code"), std::string::npos)
      << alone.out;
}

// keras#2730's generator read from an HDF5 file on 4 of Keras's threads: they take turns at
// its next(), and the advice runs it in processes (the accepted fix, pickle_safe=True), saying
// why, never more threads, which make no more batches.
TEST(CliCodeTest, AGeneratorOnKerassThreadsIsAdvisedProcessesNotMoreThreads) {
  const auto out = Cli("simulate " + Pipeline("questions/keras_2730_generator_threads.py"));
  ASSERT_EQ(out.exit_code, 0) << out.out;
  EXPECT_NE(out.out.find("its threads take turns at the generator's next()"), std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("[use_processes, "), std::string::npos) << out.out;
  EXPECT_EQ(out.out.find("[more_workers"), std::string::npos) << out.out;
}

// tensorflow#40502's eager loop: the advice batches before the loop, whose body must take
// batches then, so --advice-code writes nothing and says so in the loop's words (exit 3).
TEST(CliCodeTest, BatchingForTheLoopIsLeftToTheLoopsAuthor) {
  const std::string written = TempDir() + "/loop_advised.py";
  const auto out = Cli("simulate " + Pipeline("questions/tf_40502_eager_fixed_length_loop.py") +
                       " --advice-code " + written);
  EXPECT_EQ(out.exit_code, 3) << out.out;
  EXPECT_NE(out.out.find("Loop-bound: "), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("before the loop' changes the training loop's own code"),
            std::string::npos)
      << out.out;
  EXPECT_FALSE(std::filesystem::exists(written));
}

// The tf.data guide's naive pipeline as its reader runs it: a generator that sleeps to open a
// file and to read each sample, iterated afresh for each of two epochs. It waits with the
// interpreter lock released, so the lock is not blamed; the program ends after six steps, so
// its rates are of its whole run (0.21 s, start-up and both epochs' starts included); the
// prefetch goes at the end of the dataset, before the loop that no call can follow, and both
// it and the cache are written into the user's code.
TEST(CliCodeTest, TheGuidesNaivePipelineGetsAPrefetchBeforeItsTrainingLoop) {
  const std::string written = TempDir() + "/naive_advised.py";
  const auto out = Cli("simulate " + Corpus("perf_guide_naive.py") + " --advice-code " + written);
  ASSERT_EQ(out.exit_code, 0) << out.out;
  EXPECT_NE(out.out.find("it waits (a sleep, a read, a request) with the interpreter lock "
                         "released"),
            std::string::npos)
      << out.out;
  EXPECT_EQ(out.out.find("under the interpreter lock"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("the program ends within the advisor's simulation (6 steps in "),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find(" simulated), so rates are its steps over its whole time"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("[prefetch, high] add prefetch(2) at the end of the dataset, before the "
                         "training loop: 28.5 → 35.3 steps/s predicted, over the whole run"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("[cache, high] cache the elements after _generator"), std::string::npos)
      << out.out;
  const std::string code = ReadFile(written);
  EXPECT_NE(code.find("            args=(num_samples,)\n        ).cache().prefetch(2)\n"),
            std::string::npos)
      << code;
  const auto back = Cli("import-code " + written);
  ASSERT_EQ(back.exit_code, 0) << back.out;
  const size_t cache = back.out.find("name: \"cache\""), prefetch = back.out.find("prefetch {"),
               repeat = back.out.find("name: \"repeat\"");
  ASSERT_NE(cache, std::string::npos) << back.out;
  EXPECT_LT(cache, prefetch) << back.out;
  EXPECT_LT(prefetch, repeat) << back.out;
}

// Advice that changes what reaches the step says so again where it is written into code: a
// DataLoader's IterableDataset replicated in 4 workers, loaded in the main process instead (one
// pass over it: no workers to start).
TEST(CliCodeTest, WrittenAdviceThatChangesTheOutputSaysSo) {
  const std::string path = TempDir() + "/numbers.py";
  std::ofstream(path) << R"(from torch.utils.data import IterableDataset, DataLoader


class Numbers(IterableDataset):
    def __iter__(self):
        for i in range(100000):
            yield i


loader = DataLoader(Numbers(), batch_size=64, num_workers=4, persistent_workers=True)
for batch in loader:
    pass
)";
  const std::string written = TempDir() + "/numbers_advised.py";
  const auto out = Cli("simulate " + path + " --set loader.cost=5us --advice-code " + written);
  ASSERT_EQ(out.exit_code, 0) << out.out;
  // Under the rate, how many times each batch comes and the rate of new ones.
  EXPECT_NE(out.out.find("  every batch comes 4 times an epoch (each worker yields the whole "
                         "IterableDataset): "),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("(loader.num_workers=0, loader.persistent_workers=false) written"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("  it changes the output: Each worker yields the whole IterableDataset"),
            std::string::npos)
      << out.out;
}

// tensorflow#13101: a generator of one row a next() before a batch is advised to yield whole
// batches, a change of the generator's own code: --advice-code says what to write by hand,
// not that it found no op 'batch' in the tuned pipeline.
TEST(CliCodeTest, AdviceThatChangesAFunctionsCodeIsLeftToItsAuthorAndSaidSo) {
  const std::string path = TempDir() + "/rows.py";
  std::ofstream(path) << R"(import numpy as np
import tensorflow as tf


def rows():
    for _ in range(100000):
        yield np.zeros(16, np.float32)


ds = tf.data.Dataset.from_generator(rows, output_signature=tf.TensorSpec((16,), tf.float32))
ds = ds.batch(128).prefetch(4)
for x in ds:
    time.sleep(0.001)
)";
  const std::string written = TempDir() + "/rows_advised.py";
  std::filesystem::remove(written);
  const auto out = Cli("simulate " + path + " --set rows.cost=10us --advice-code " + written);
  EXPECT_EQ(out.exit_code, 3) << out.out;  // the simulation ran; the code has nothing to take
  EXPECT_NE(out.out.find("[batch_at_source, high] make rows yield whole batches of 128"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("changes the code of 'rows' itself, which --advice-code does not write "
                         "(it writes knobs and the order of calls); by hand: make rows yield "
                         "whole batches of 128"),
            std::string::npos)
      << out.out;
  EXPECT_EQ(out.out.find("has no op"), std::string::npos) << out.out;
  EXPECT_FALSE(std::filesystem::exists(written));
}

TEST(CliCodeTest, SimulateTakesAPythonFileWithItsCostsSet) {
  const auto out = Cli("simulate " + Corpus("seed_001_init_tfrecord_dataset.py") +
                       " --set _parser.cost=40us --duration 2");
  ASSERT_EQ(out.exit_code, 0) << out.out;
  EXPECT_NE(out.out.find("_parser"), std::string::npos);
  const auto wrong =
      Cli("simulate " + Corpus("seed_001_init_tfrecord_dataset.py") + " --set nothing.cost=40us");
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_NE(wrong.out.find("nothing"), std::string::npos) << wrong.out;
}

TEST(CliCodeTest, AutotuneOnAPythonFileWritesTheTunedKnobsIntoItAndNothingElse) {
  const std::string dir = TempDir();
  const std::string code = dir + "/train.py";
  std::ofstream(code) << R"(import tensorflow as tf
ds = tf.data.Dataset.range(100000)
ds = ds.map(decode)  # the slow part
ds = ds.batch(16)
# pipescope: decode.cost=2ms train_step.step_time=5ms
)";
  const auto tuned = Cli("autotune " + code + " --simulate --budget-s 5 --emit auto --out " + dir +
                         "/tuned.pbtxt");
  ASSERT_EQ(tuned.exit_code, 0) << tuned.out;
  const std::string written = ReadFile(dir + "/tuned.py");
  ASSERT_FALSE(written.empty()) << tuned.out;
  std::string expected = ReadFile(code);
  const std::string from = "ds.map(decode)";
  const size_t at = expected.find(from);
  ASSERT_NE(at, std::string::npos);
  // Only the knob: num_parallel_calls added where the code left it out.
  const std::string tuned_map = written.substr(at, written.find(')', at) - at + 1);
  EXPECT_NE(tuned_map.find("ds.map(decode, num_parallel_calls="), std::string::npos) << written;
  expected.replace(at, from.size(), tuned_map);
  EXPECT_EQ(written, expected);
}

// The costs a file leaves open are set on autotune's and grid's command lines as on
// import-code's, and a --set that names nothing in the file is an error naming it.
TEST(CliCodeTest, AutotuneAndGridTakeTheCostsAFileLeavesOpenFromSet) {
  const std::string dir = TempDir();
  const std::string code = dir + "/open_costs.py";
  std::ofstream(code) << R"(import tensorflow as tf
ds = tf.data.Dataset.range(100000)
ds = ds.map(decode)
ds = ds.batch(16)
)";
  const std::string costs = " --set decode.cost=2ms --set train_step.step_time=5ms";
  const auto tuned = Cli("autotune " + code + costs +
                         " --simulate --budget-s 5 --emit auto --out " + dir + "/open_tuned.pbtxt");
  ASSERT_EQ(tuned.exit_code, 0) << tuned.out;
  EXPECT_NE(ReadFile(dir + "/open_tuned.py").find("ds.map(decode, num_parallel_calls="),
            std::string::npos)
      << tuned.out;
  const auto grid = Cli("grid " + code + costs + " --knobs decode.num_parallel_calls --json");
  ASSERT_EQ(grid.exit_code, 0) << grid.out;
  EXPECT_NE(grid.out.find("\"decode.num_parallel_calls\""), std::string::npos) << grid.out;
  const auto wrong = Cli("autotune " + code + " --set nosuch.cost=1ms --simulate --budget-s 1");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.out.find("nosuch"), std::string::npos) << wrong.out;
  // A figure a --set makes wrong is said as the --set's, not the code's.
  const auto bad_disk = Cli("simulate " + code + costs + " --set storage.bandwidth=fast");
  EXPECT_EQ(bad_disk.exit_code, 2);
  EXPECT_NE(bad_disk.out.find(code + " (with --set): storage: bandwidth expected a rate"),
            std::string::npos)
      << bad_disk.out;
}

// A DataLoader job's code and its PyTorch profile (the ResNet-50 trace of tests/trace/data/
// real, num_workers 0): the costs fitted to the trace, the advice of more workers, and the
// loop's time as the step.
TEST(CliCodeTest, CalibratingADataLoadersCodeFromItsPyTorchTraceReproducesTheTrace) {
  const std::string dir = TempDir();
  const std::string code = dir + "/resnet.py";
  std::ofstream(code) << R"(from torch.utils.data import DataLoader
import torchvision.datasets as datasets
train_dataset = datasets.ImageFolder("/data/imagenet/train")
train_loader = DataLoader(train_dataset, batch_size=32, shuffle=True, num_workers=0)
)";
  const std::string trace =
      std::string(PIPESCOPE_SOURCE_DIR) +
      "/tests/trace/data/real/kineto_resnet50_w0_1623143089861.pt.trace.json.gz";
  const std::string spec = dir + "/resnet.pbtxt";
  const auto imported = Cli("import-code " + code + " --calibrate " + trace + " --out " + spec);
  ASSERT_EQ(imported.exit_code, 0) << imported.out;
  EXPECT_NE(imported.out.find("calibrated from"), std::string::npos) << imported.out;
  const auto simulated = Cli("simulate " + spec + " --duration 10 --json");
  ASSERT_EQ(simulated.exit_code, 0) << simulated.out;
  const auto j = nlohmann::json::parse(JsonPart(simulated.out));
  // The trace's steady steps: 5.72 a second (174.8 ms each), from its raw JSON.
  EXPECT_NEAR(j["steps_per_s"].get<double>(), 5.72, 0.57) << simulated.out;
  const auto advice = Cli("simulate " + spec + " --duration 5");
  EXPECT_NE(advice.out.find("raise loader's num_workers 0 → 1"), std::string::npos) << advice.out;
  EXPECT_EQ(advice.out.find("add prefetch(2)"), std::string::npos)
      << "a DataLoader's workers fetch ahead; tf.data's prefetch is not its code";

  const auto tfdata =
      Cli("import-code " + Corpus("seed_001_init_tfrecord_dataset.py") + " --calibrate " + trace);
  EXPECT_EQ(tfdata.exit_code, 1);
  EXPECT_NE(tfdata.out.find("Iterator:: events"), std::string::npos) << tfdata.out;
}

// Advice the code has no place for (one iterator over every epoch: a sampler the code would
// have to build) is said with why, and no copy that is the file itself is written; a later
// piece the code can take would be written instead (WriteAdviceIntoCode's choices).
TEST(CliCodeTest, AdviceTheCodeHasNoPlaceForIsSaidAndNothingIsWritten) {
  const std::string path = TempDir() + "/epochs.py";
  std::ofstream(path) << R"(import time
from torch.utils.data import Dataset, DataLoader


class Items(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        time.sleep(0.002)
        return i


loader = DataLoader(Items(), batch_size=8, num_workers=4, persistent_workers=True,
                    prefetch_factor=1)
for epoch in range(50):
    for batch in loader:
        time.sleep(0.01)
)";
  const std::string written = TempDir() + "/epochs_advised.py";
  std::filesystem::remove(written);
  const auto out = Cli("simulate " + path + " --set budget.cpu_cores=4 --advice-code " + written);
  EXPECT_EQ(out.exit_code, 3) << out.out;
  EXPECT_NE(out.out.find("[reorder, high] use one iterator for every epoch"), std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("--advice-code: the first piece of advice (move 'epochs' before "
                         "'loader') cannot be written into "),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("the tuned pipeline orders its ops otherwise"), std::string::npos)
      << out.out;
  EXPECT_FALSE(std::filesystem::exists(written));
}

}  // namespace
}  // namespace pipescope::testing
