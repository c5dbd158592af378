// What the loops of a file say about its pipeline (python_reader.cc): the epochs of
// `for epoch in range(N):` around the loop over it, a benchmark's loop that only counts,
// and numbers compared where the code gives them (`4 if num_workers > 0 else None`).
#include <gtest/gtest.h>

#include <string>

#include "app/code/code_emit.h"
#include "app/code/code_import.h"
#include "tests/code/imported_code_helpers.h"

namespace pipescope::code {
namespace {

using testing::kThousandItems;

ImportedCode Import(const std::string& source) {
  auto c = ImportCode(source, "loops.py");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : ImportedCode{};
}

// pytorch#23642's loop: ten epochs of a loader, in the loop or in a def the loop calls.
TEST(CodeLoopsTest, ALoaderInsideARangeOfEpochsRunsThatMany) {
  const std::string made = R"(import torch
from torch.utils.data import TensorDataset, DataLoader
dataset = TensorDataset(torch.randn(10240, 2))
loader = DataLoader(dataset, batch_size=128, num_workers=2)
)";
  const ImportedCode direct = Import(made + R"(for epoch in range(10):
    for idx, data in enumerate(loader):
        data = data[0].cuda()
)");
  ASSERT_EQ(direct.spec.ops_size(), 2);
  EXPECT_EQ(direct.spec.ops(1).repeat().count(), 10);
  const ImportedCode called = Import(made + R"(def train_one_epoch(model, loader):
    for x, in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()

for epoch in range(1, 4):
    train_one_epoch(model, loader)
)");
  EXPECT_EQ(called.spec.ops(1).repeat().count(), 3);
  // A def over the loader as a global, called with nothing it knows (pyg#811's `train()`,
  // `train(epoch)`): its loop goes over the loader as many times too.
  for (const char* call : {"train()", "train(epoch)"}) {
    const ImportedCode global = Import(made + R"(def train(*args):
    for x, in loader:
        x = x.cuda()

for epoch in range(1, 201):
    )" + call + "\n");
    EXPECT_EQ(global.spec.ops(1).repeat().count(), 200) << call;
  }
  const ImportedCode endless = Import(made + R"(while True:
    for x, in loader:
        x = x.cuda()
)");
  EXPECT_FALSE(endless.spec.ops(1).repeat().has_count());
  // Written as code, the epochs are the loop's again.
  auto emitted = EmitCode(direct.spec, "pytorch");
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  EXPECT_NE(emitted->text.find("for epoch in range(10):"), std::string::npos) << emitted->text;
}

// A loader made in the epochs' loop (`loader = DataLoader(..., persistent_workers=True)` under
// `for epoch in range(10):`, itself or through a method the loop calls) is a new loader each
// epoch: its workers start again each time, whatever persistent_workers says; one made before
// the loop keeps them.
TEST(CodeLoopsTest, ALoaderMadeEachEpochStartsItsWorkersEachEpoch) {
  const std::string dataset = R"(import torch
from torch.utils.data import TensorDataset, DataLoader
dataset = TensorDataset(torch.randn(10240, 2))
def make():
    return DataLoader(dataset, batch_size=128, num_workers=8, persistent_workers=True)
)";
  for (const std::string made : {"DataLoader(dataset, batch_size=128, num_workers=8, "
                                 "persistent_workers=True)",
                                 "make()"}) {
    const ImportedCode each = Import(dataset + "for epoch in range(10):\n    loader = " + made +
                                     "\n    for x, in loader:\n        x = x.cuda()\n");
    ASSERT_EQ(each.spec.ops_size(), 2) << made;
    EXPECT_EQ(each.spec.ops(1).repeat().count(), 10) << made;
    EXPECT_TRUE(each.spec.ops(0).dataloader().made_each_epoch()) << made;
    EXPECT_TRUE(each.spec.ops(0).dataloader().persistent_workers()) << made;  // as written
    bool said = false;
    for (const auto& n : each.notes)
      said |= n.message.find("made anew each epoch") != std::string::npos;
    EXPECT_TRUE(said) << made;
  }
  const ImportedCode once = Import(dataset + R"(loader = make()
for epoch in range(10):
    for x, in loader:
        x = x.cuda()
)");
  EXPECT_TRUE(once.spec.ops(0).dataloader().persistent_workers());
  EXPECT_FALSE(once.spec.ops(0).dataloader().made_each_epoch());
}

// A loader the epochs' loop goes over as a call makes it (`for x in self.train_loader():`,
// `for x in make_loader():`) is made each epoch, and its epochs are the loop's: the call is
// made once for both, so the loader read is the one given the instance's arguments.
TEST(CodeLoopsTest, ALoaderACallMakesInTheEpochsLoopCountsItsEpochs) {
  const std::string runner = kThousandItems + R"(class Runner:
    def __init__(self, workers):
        self.workers = workers
    def train_loader(self):
        return DataLoader(Items(), batch_size=8, num_workers=self.workers)
    def fit(self):
        for epoch in range(5):
            for x in %s:
                x = x.cuda()
Runner(2).fit()
)";
  for (const std::string over :
       {"self.train_loader()", "tqdm(self.train_loader())", "enumerate(self.train_loader())"}) {
    std::string source = runner;
    source.replace(source.find("%s"), 2, over);
    const ImportedCode each = Import(source);
    ASSERT_EQ(each.spec.ops_size(), 2) << over << "\n" << each.spec.DebugString();
    EXPECT_EQ(each.spec.ops(1).repeat().count(), 5) << over;
    EXPECT_TRUE(each.spec.ops(0).dataloader().made_each_epoch()) << over;
    EXPECT_EQ(each.spec.ops(0).dataloader().num_workers(), 2) << over;
  }
  const ImportedCode made = Import(kThousandItems + R"(def make_loader():
    return DataLoader(Items(), batch_size=8, num_workers=2)
for epoch in range(5):
    for x in make_loader():
        x = x.cuda()
)");
  ASSERT_EQ(made.spec.ops_size(), 2) << made.spec.DebugString();
  EXPECT_EQ(made.spec.ops(1).repeat().count(), 5);
  EXPECT_TRUE(made.spec.ops(0).dataloader().made_each_epoch());
  // Written as code, where the loader is made once, a pragma keeps it.
  const auto emitted = EmitCode(made.spec, "pytorch");
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  EXPECT_TRUE(Import(emitted->text).spec.ops(0).dataloader().made_each_epoch()) << emitted->text;
}

// Where nothing trains, a loop that takes a pipeline's batches (a benchmark's `x = x.cuda()`,
// an evaluation's `model(x)`) says which the file uses, rather than the last one built; a
// loop that trains still comes first.
TEST(CodeLoopsTest, ALoopThatTakesTheBatchesChoosesWhereNothingTrains) {
  const std::string two = kThousandItems + R"(loader = DataLoader(Items(), batch_size=4)
other = DataLoader(Items(), batch_size=8)
for x in loader:
    x = x.cuda()
)";
  const ImportedCode taken = Import(two);
  ASSERT_GE(taken.spec.ops_size(), 1);
  EXPECT_EQ(taken.spec.ops(0).dataloader().batch_size(), 4);
  bool said = false;
  for (const auto& n : taken.notes) {
    said |= n.message.find("import-code reads 'loader', which the loop at line 10 goes over") !=
            std::string::npos;
  }
  EXPECT_TRUE(said);
  // One built after the loop, never taken, is not it either.
  EXPECT_EQ(Import(two + "later = DataLoader(Items(), batch_size=16)\n")
                .spec.ops(0)
                .dataloader()
                .batch_size(),
            4);
  const ImportedCode trained = Import(two + R"(for x in other:
    loss = model(x.cuda()).sum()
    loss.backward()
)");
  EXPECT_EQ(trained.spec.ops(0).dataloader().batch_size(), 8);
}

// A loader made in the epochs' loop reads its __getitem__ as one item's work: the loop turns
// the loader, not each item's decode (10 epochs read as 10 decodes an item, 10800us).
TEST(CodeLoopsTest, ALoaderMadeInTheEpochsLoopHasOneItemsWork) {
  const std::string frames = R"(import torch
from PIL import Image
from torch.utils.data import Dataset, DataLoader
class Frames(Dataset):
    def __len__(self):
        return 12000
    def __getitem__(self, i):
        return Image.open(f"{i}.jpg").convert("RGB")
)";
  const ImportedCode inside = Import(frames + R"(for epoch in range(10):
    loader = DataLoader(Frames(), batch_size=32, num_workers=6)
    for x in loader:
        x = x.cuda()
)");
  const ImportedCode before =
      Import(frames + R"(loader = DataLoader(Frames(), batch_size=32, num_workers=6)
for epoch in range(10):
    for x in loader:
        x = x.cuda()
)");
  const auto& made_inside = inside.spec.ops(0).dataloader().getitem();
  const auto& made_before = before.spec.ops(0).dataloader().getitem();
  EXPECT_EQ(made_inside.python().duration(), made_before.python().duration());
  EXPECT_EQ(made_inside.python().read_files(), made_before.python().read_files());
}

// The def defined above the loader it loops over, the loader made later in main: the file is
// read twice, so the def's loop holds the first reading's loader and main binds the second's.
// They are one pipeline, not another one to name, and its epochs are the calls'. The dataset's
// __len__ is a comprehension's length, which its range fixes.
TEST(CodeLoopsTest, ADefAboveItsLoaderGoesOverTheLoaderMainMakes) {
  const ImportedCode c = Import(R"(import torch
from torch.utils.data import DataLoader, Dataset

class Rows(Dataset):
    def __init__(self, files):
        self.files = files
    def __len__(self):
        return len(self.files)
    def __getitem__(self, i):
        return torch.zeros(3)

def train(model):
    for x in loader:
        loss = model(x.cuda()).sum()
        loss.backward()

if __name__ == "__main__":
    files = [f"img{i}.jpg" for i in range(5000)]
    loader = DataLoader(Rows(files), batch_size=64, num_workers=2)
    model = torch.nn.Linear(3, 1).cuda()
    for epoch in range(20):
        train(model)
)");
  std::string notes;
  for (const CodeNote& n : c.notes) notes += n.message + "\n";
  EXPECT_EQ(notes.find("another pipeline"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("known only when the code runs"), std::string::npos) << notes;
  EXPECT_EQ(c.spec.source().range().stop(), 5000) << c.spec.DebugString();
  ASSERT_GE(c.spec.ops_size(), 2);
  EXPECT_EQ(c.spec.ops(c.spec.ops_size() - 1).repeat().count(), 20) << c.spec.DebugString();
}

// tf.data's performance guide times a dataset over `for epoch_num in range(num_epochs)`:
// each epoch iterates it afresh, a repeat of that many.
TEST(CodeLoopsTest, ADatasetInsideARangeOfEpochsIsRepeated) {
  const ImportedCode c = Import(R"(import tensorflow as tf
def benchmark(dataset, num_epochs=2):
    for epoch_num in range(num_epochs):
        for sample in dataset:
            pass

benchmark(tf.data.Dataset.range(100).map(lambda x: x + 1), 3)
)");
  ASSERT_EQ(c.spec.ops_size(), 2);
  EXPECT_EQ(c.spec.ops(1).repeat().count(), 3);
}

// keras#15191's timing loop binds and counts: the input alone is timed, as with `pass`.
TEST(CodeLoopsTest, ALoopThatOnlyCountsTimesTheInputAlone) {
  const ImportedCode c = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.range(1000).batch(32)
count = 0
for i in ds:
    _ = i
    count += 1
)");
  EXPECT_EQ(c.spec.train_step().step_time(), "0ms");
  const ImportedCode works = Import(R"(import tensorflow as tf
ds = tf.data.Dataset.range(1000).batch(32)
for i in ds:
    y = model(i)
    count += 1
)");
  EXPECT_NE(works.spec.train_step().step_time(), "0ms");
}

// torchgeo#102's loop prints each batch of a loader timed alone, under the main guard: the
// input alone, one pass over it (no endless epochs).
TEST(CodeLoopsTest, ALoopThatOnlyPrintsTimesTheInputAloneOnce) {
  const ImportedCode c = Import(R"(import time
from torch.utils.data import DataLoader, TensorDataset
import torch
if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.randn(10, 1)), batch_size=1, num_workers=1)
    start = time.time()
    for batch in loader:
        print(batch)
    print(time.time() - start)
)");
  EXPECT_EQ(c.spec.train_step().step_time(), "0ms");
  ASSERT_EQ(c.spec.ops_size(), 2);
  EXPECT_EQ(c.spec.ops(1).repeat().count(), 1);
}

// PyTorch's own idiom: a prefetch_factor only where there are workers.
TEST(CodeLoopsTest, NumbersTheCodeGivesAreComparedInOrder) {
  const ImportedCode none = Import(R"(import torch
from torch.utils.data import TensorDataset, DataLoader
num_workers = 0
loader = DataLoader(TensorDataset(torch.randn(1024, 16)), batch_size=128,
                    num_workers=num_workers,
                    prefetch_factor=4 if num_workers > 0 else None)
)");
  ASSERT_GE(none.spec.ops_size(), 1);
  EXPECT_FALSE(none.spec.ops(0).dataloader().has_prefetch_factor());
  const ImportedCode four = Import(R"(import torch
from torch.utils.data import TensorDataset, DataLoader
num_workers = 2
loader = DataLoader(TensorDataset(torch.randn(1024, 16)), batch_size=128,
                    num_workers=num_workers,
                    prefetch_factor=4 if num_workers >= 1 else None)
)");
  EXPECT_EQ(four.spec.ops(0).dataloader().prefetch_factor(), 4);
}

// The TensorFlow segmentation tutorial's fit (tensorflow#38473): steps_per_epoch computed
// from TFDS's info, known only when the code runs, over a dataset that repeats: its epochs
// are not counted, which a note says rather than dropping them silently.
TEST(CodeLoopsTest, AFitsStepsKnownOnlyWhenTheCodeRunsAreSaid) {
  const ImportedCode c = Import(R"(import tensorflow as tf
TRAIN_LENGTH = info.splits['train'].num_examples
STEPS_PER_EPOCH = TRAIN_LENGTH // 64
ds = tf.data.TFRecordDataset(['a.tfrecord']).batch(64).repeat()
model.fit(ds, epochs=20, steps_per_epoch=STEPS_PER_EPOCH)
)");
  bool said = false;
  for (const auto& n : c.notes) {
    said |= n.message.find(
                "fit's steps_per_epoch is `STEPS_PER_EPOCH`, known only when the "
                "code runs: fit's 20 epochs are not counted") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

// pytorch#106704 times its loader as `for _ in range(100): list(dl_torch)`: each turn an
// epoch, the loader's epochs 100; `list(dl)` at the top level is one pass.
TEST(CodeLoopsTest, ALoaderDrainedByListInTheEpochsLoopRunsItsEpochs) {
  const std::string made = R"(import torch
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.ones(20000, 20), torch.ones(20000, 5))
dl_torch = DataLoader(ds, batch_size=256, shuffle=False, drop_last=True)
)";
  const ImportedCode timed = Import(made + "for _ in range(100):\n    list(dl_torch)\n");
  EXPECT_EQ(timed.spec.ops(timed.spec.ops_size() - 1).repeat().count(), 100)
      << timed.spec.DebugString();
  const ImportedCode once = Import(made + "list(dl_torch)\n");
  EXPECT_EQ(once.spec.ops(once.spec.ops_size() - 1).repeat().count(), 1) << once.spec.DebugString();
}

}  // namespace
}  // namespace pipescope::code
