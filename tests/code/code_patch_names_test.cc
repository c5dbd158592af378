// Code written back where the code sets a knob by a name: the literal the name stands for
// changes (a module's constant, a config class's attribute, the argument a constructor keeps),
// so the user's own setting still sets the knob, unless the literal sets another knob that
// keeps its value.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "app/code/code_patch.h"
#include "tests/code/imported_code_helpers.h"

namespace pipescope::code {
namespace {

using testing::ImportAs;
using testing::kThousandItems;

EmittedCode Patched(const ImportedCode& original, const spec::PipelineSpec& tuned) {
  auto patched = PatchCode(original, tuned);
  EXPECT_TRUE(patched.ok()) << patched.status().message();
  return patched.ok() ? *patched : EmittedCode{};
}

// The file with its loader's num_workers tuned to `workers`.
EmittedCode WithWorkers(const std::string& source, int64_t workers) {
  const ImportedCode original = ImportAs(source, "train.py");
  spec::PipelineSpec tuned = original.spec;
  for (spec::Op& op : *tuned.mutable_ops()) {
    if (op.has_dataloader()) op.mutable_dataloader()->set_num_workers(workers);
  }
  return Patched(original, tuned);
}

bool AnyHas(const std::vector<std::string>& notes, const std::string& part) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(CodePatchNamesTest, AModuleConstantChangesWhereItIsWritten) {
  const std::string source = kThousandItems + R"(NUM_WORKERS = 0
loader = DataLoader(Items(), batch_size=32, num_workers=NUM_WORKERS)
for x in loader:
    pass
)";
  const EmittedCode patched = WithWorkers(source, 4);
  EXPECT_EQ(patched.text, Replaced(source, "NUM_WORKERS = 0", "NUM_WORKERS = 4"));
  EXPECT_TRUE(AnyHas(patched.notes,
                     "loader.num_workers: `NUM_WORKERS` is `0` as line 8 writes "
                     "it, which becomes 4, so `NUM_WORKERS` still sets it"))
      << ::testing::PrintToString(patched.notes);
}

TEST(CodePatchNamesTest, AConfigClassAttributeChangesInTheClass) {
  const std::string source = kThousandItems + R"(class Config:
    batch_size = 32
    num_workers = 1
cfg = Config()
loader = DataLoader(Items(), batch_size=cfg.batch_size, num_workers=cfg.num_workers)
for x in loader:
    pass
)";
  EXPECT_EQ(WithWorkers(source, 4).text, Replaced(source, "num_workers = 1", "num_workers = 4"));
}

// Lightning's DataModule, and any class that keeps its constructor's arguments: the argument
// the instance is made with changes, not the call inside the class, which would then ignore it.
TEST(CodePatchNamesTest, TheArgumentAConstructorKeepsChangesWhereTheInstanceIsMade) {
  const std::string source = kThousandItems + R"(class Data:
    def __init__(self, batch_size=32, num_workers=0):
        self.batch_size = batch_size
        self.num_workers = num_workers
    def train_dataloader(self):
        return DataLoader(Items(), batch_size=self.batch_size, num_workers=self.num_workers)
data = Data(batch_size=64, num_workers=2)
for x in data.train_dataloader():
    pass
)";
  EXPECT_EQ(WithWorkers(source, 6).text, Replaced(source, "Data(batch_size=64, num_workers=2)",
                                                  "Data(batch_size=64, num_workers=6)"));
  // Made with the constructor's default: the default changes.
  const std::string by_default =
      Replaced(source, "Data(batch_size=64, num_workers=2)", "Data(batch_size=64)");
  EXPECT_EQ(WithWorkers(by_default, 6).text,
            Replaced(by_default, "num_workers=0):", "num_workers=6):"));
}

// A flag handed on (`Data(args.workers)`, kept as self.n_workers): its default changes, and
// the note names the flag, not the name the call reads it by.
TEST(CodePatchNamesTest, AFlagHandedOnIsNamedByItself) {
  const std::string source = kThousandItems + R"(import argparse
parser = argparse.ArgumentParser()
parser.add_argument('--workers', default=2, type=int)
args = parser.parse_args()
class Data:
    def __init__(self, n_workers):
        self.n_workers = n_workers
    def train_dataloader(self):
        return DataLoader(Items(), batch_size=8, num_workers=self.n_workers)
for x in Data(args.workers).train_dataloader():
    pass
)";
  const EmittedCode patched = WithWorkers(source, 6);
  EXPECT_EQ(patched.text, Replaced(source, "default=2", "default=6"));
  EXPECT_TRUE(AnyHas(patched.notes, "loader.num_workers: `args.workers`'s default (line 10)"))
      << ::testing::PrintToString(patched.notes);
}

TEST(CodePatchNamesTest, AConfigDictChangesInTheDict) {
  const std::string source = kThousandItems + R"(config = {"batch_size": 32, "num_workers": 0}
loader = DataLoader(Items(), batch_size=config["batch_size"], num_workers=config["num_workers"])
for x in loader:
    pass
)";
  EXPECT_EQ(WithWorkers(source, 4).text,
            Replaced(source, "\"num_workers\": 0}", "\"num_workers\": 4}"));
}

// A value the name does not hold as it is written (an item of a list the loop goes over, a
// branch of a condition, a product) is not the place: the call takes the tuned value.
TEST(CodePatchNamesTest, AValueTheCodeComputesOrDrawsFromAListIsWrittenInTheCall) {
  const std::string drawn = kThousandItems + R"(for workers in [0, 2]:
    loader = DataLoader(Items(), batch_size=32, num_workers=workers)
for x in loader:
    pass
)";
  const EmittedCode from_list = WithWorkers(drawn, 4);
  EXPECT_EQ(from_list.text.find("[0, 2]") != std::string::npos, true) << from_list.text;
  EXPECT_NE(from_list.text.find("num_workers=4)"), std::string::npos) << from_list.text;
  // A branch of a condition known only at run time, read as true: the job may take the other.
  const std::string branch = kThousandItems + R"(WORKERS = 4 if torch.cuda.is_available() else 0
loader = DataLoader(Items(), batch_size=32, num_workers=WORKERS)
for x in loader:
    pass
)";
  EXPECT_EQ(WithWorkers(branch, 8).text, Replaced(branch, "num_workers=WORKERS", "num_workers=8"));
  const std::string computed = kThousandItems + R"(CORES = 2
loader = DataLoader(Items(), batch_size=32, num_workers=CORES * 2)
for x in loader:
    pass
)";
  EXPECT_EQ(WithWorkers(computed, 8).text, Replaced(computed, "CORES * 2", "8"));
}

// deeplab's NUM_READERS, both its reader count and its parallel reads: where tuning changes
// one knob a literal sets and keeps the other, the literal stays and the call takes the value.
TEST(CodePatchNamesTest, ALiteralThatSetsAnotherKnobKeepingItsValueStays) {
  const std::string source = R"(import tensorflow as tf
CALLS = 2
ds = tf.data.TFRecordDataset(["a.tfrecord"])
ds = ds.map(parse, num_parallel_calls=CALLS)
ds = ds.batch(CALLS)
ds = ds.prefetch(1)
for x in ds:
    pass
)";
  const ImportedCode original = ImportAs(source, "train.py");
  spec::PipelineSpec tuned = original.spec;
  int maps = 0;
  for (spec::Op& op : *tuned.mutable_ops()) {
    if (op.has_map()) {
      op.mutable_map()->set_num_parallel_calls(8);
      ++maps;
    }
  }
  ASSERT_EQ(maps, 1) << original.spec.DebugString();
  const EmittedCode patched = Patched(original, tuned);
  EXPECT_EQ(patched.text, Replaced(source, "num_parallel_calls=CALLS", "num_parallel_calls=8"));
  // Both knobs given the same value: the literal takes it, once.
  for (spec::Op& op : *tuned.mutable_ops()) {
    if (op.has_batch()) op.mutable_batch()->set_batch_size(8);
  }
  EXPECT_EQ(Patched(original, tuned).text, Replaced(source, "CALLS = 2", "CALLS = 8"));
}

// A loader tuned to fetch whole batches keeps what its config sets (pytorch#106704's loader,
// written with a config): the sampler takes the batch size and the shuffle by their names,
// and a dataset the call makes is made once, named where the loader is given it.
TEST(CodePatchNamesTest, ABatchSamplerWrittenInKeepsTheConfigsNames) {
  const std::string source = R"(import torch
from dataclasses import dataclass
from torch.utils.data import DataLoader, TensorDataset
@dataclass
class Config:
    batch_size: int = 256
    shuffle: bool = True
cfg = Config()
loader = DataLoader(TensorDataset(torch.ones(20000, 20)), batch_size=cfg.batch_size,
                    shuffle=cfg.shuffle, drop_last=True)
for x, in loader:
    x = x.cuda()
)";
  const ImportedCode original = ImportAs(source, "train.py");
  spec::PipelineSpec tuned = original.spec;
  tuned.mutable_ops(0)->mutable_dataloader()->set_fetch_batches(true);
  const EmittedCode patched = Patched(original, tuned);
  EXPECT_NE(
      patched.text.find("loader = DataLoader(dataset := TensorDataset(torch.ones(20000, 20)), "
                        "batch_size=None,\n                    shuffle=False, drop_last=False, "
                        "sampler=BatchSampler(RandomSampler(dataset) if cfg.shuffle else "
                        "SequentialSampler(dataset), batch_size=cfg.batch_size, drop_last=True))"),
      std::string::npos)
      << patched.text;
  EXPECT_NE(patched.text.find("from torch.utils.data import BatchSampler, RandomSampler, "
                              "SequentialSampler"),
            std::string::npos)
      << patched.text;
  // Read back: the same loader, fetching whole batches of the same dataset.
  const ImportedCode back = ImportAs(patched.text, "train.py");
  const auto& dl = back.spec.ops(0).dataloader();
  EXPECT_TRUE(dl.fetch_batches());
  EXPECT_TRUE(dl.shuffle());
  EXPECT_TRUE(dl.drop_last());
  EXPECT_EQ(dl.batch_size(), 256);
  EXPECT_EQ(back.spec.source().range().stop(), 20000) << back.spec.DebugString();
}

}  // namespace
}  // namespace pipescope::code
