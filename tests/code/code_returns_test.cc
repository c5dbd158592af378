// Where a def returns (python_reader.cc ReadBlock): a return that nothing guessed leads to
// ends the def's reading, as Python leaves the def there; one under a condition read as true
// for want of its value, in a loop or in an except clause leaves the rest read.
#include <gtest/gtest.h>

#include <string>

#include "app/code/code_import.h"
#include "tests/code/imported_code_helpers.h"

namespace pipescope::code {
namespace {

ImportedCode Import(const std::string& source) { return testing::ImportAs(source, "returns.py"); }
std::string Notes(const ImportedCode& c) { return testing::NotesAs(c, "returns.py"); }

// `if self.cfg.training: return ds.shuffle(1000).batch(...)` before `return ds.batch(8)`, the
// config's training true: the first return is the pipeline, shuffle and all.
TEST(CodeReturnsTest, AReturnInABranchTakenEndsTheDef) {
  const auto imported = Import(R"(import tensorflow as tf
class Config:
    batch_size = 64
    training = True
class InputPipeline:
    def __init__(self, cfg):
        self.cfg = cfg
        self.batch_size = cfg.batch_size
    def make_dataset(self):
        ds = tf.data.Dataset.range(10000)
        if self.cfg.training:
            return ds.shuffle(1000).batch(self.batch_size).prefetch(2)
        return ds.batch(8)
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.fit(InputPipeline(Config()).make_dataset(), epochs=3)
)");
  ASSERT_GE(imported.spec.ops_size(), 3) << imported.spec.DebugString();
  EXPECT_TRUE(imported.spec.ops(0).has_shuffle()) << imported.spec.DebugString();
  EXPECT_EQ(imported.spec.ops(1).batch().batch_size(), 64) << Notes(imported);
  // A function called with the value that takes the branch, as well.
  const auto called = Import(R"(import tensorflow as tf
def make(n):
    if n > 0:
        return tf.data.Dataset.range(100).batch(64)
    return tf.data.Dataset.range(100).batch(2)
for x in make(1):
    pass
)");
  EXPECT_EQ(called.spec.ops(0).batch().batch_size(), 64) << Notes(called);
}

// A __getitem__ whose first lines return a cached item where the run has one (`if i in
// self.cache:`, not known here) and a loop's (which may not turn): the decode after them is
// still the item's work, not left out.
TEST(CodeReturnsTest, AReturnUnderAGuessLeavesTheRestRead) {
  const auto imported = Import(R"(import torch
from PIL import Image
from torch.utils.data import Dataset, DataLoader
class Photos(Dataset):
    def __init__(self, paths):
        self.paths = paths
        self.cache = {}
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        if i in self.cache:
            return self.cache[i]
        for other in self.paths[:0]:
            return other
        return Image.open(self.paths[i]).convert("RGB")
for x in DataLoader(Photos(["a.jpg"] * 1000), batch_size=8, num_workers=2):
    pass
)");
  const auto& getitem = imported.spec.ops(0).dataloader().getitem();
  EXPECT_FALSE(getitem.cost_is_stand_in()) << Notes(imported);
  EXPECT_NE(Notes(imported).find("Image.open"), std::string::npos) << Notes(imported);
}

}  // namespace
}  // namespace pipescope::code
