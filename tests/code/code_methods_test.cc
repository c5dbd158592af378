// Methods of the file's own classes called on an instance (python_reader.cc CallMethodOf):
// read with what the instance's constructor was given, their return the call's value, so a
// pipeline a wrapper's method builds carries the constructor's knobs and goes round the
// epochs loop it is iterated in; config objects (an instance's attributes, a dataclass's
// fields, a dict's keys) give their values; a sample __getitem__ makes in memory has its
// size.
#include <gtest/gtest.h>

#include <string>

#include "app/code/code_import.h"
#include "tests/code/imported_code_helpers.h"

namespace pipescope::code {
namespace {

ImportedCode Import(const std::string& source) { return testing::ImportAs(source, "methods.py"); }
std::string Notes(const ImportedCode& c) { return testing::NotesAs(c, "methods.py"); }

const std::string& kItems = testing::kThousandItems;

// `Wrapper(4).loader()`, whose DataLoader takes num_workers=self.num_workers: 4, the
// constructor's, not the class's reading, where __init__'s parameter has no value.
TEST(CodeMethodsTest, AMethodSeesWhatTheConstructorWasGiven) {
  const auto imported = Import(kItems + R"(class Wrapper:
    def __init__(self, num_workers, batch_size=8):
        self.num_workers = num_workers
        self.batch_size = batch_size
    def loader(self):
        return DataLoader(Items(), batch_size=self.batch_size, num_workers=self.num_workers)
w = Wrapper(4, batch_size=16)
train_loader = w.loader()
for x in train_loader:
    pass
)");
  const spec::Op& loader = imported.spec.ops(0);
  ASSERT_TRUE(loader.has_dataloader()) << imported.spec.DebugString();
  EXPECT_EQ(loader.dataloader().num_workers(), 4) << Notes(imported);
  EXPECT_EQ(loader.dataloader().batch_size(), 16) << Notes(imported);
  EXPECT_EQ(Notes(imported).find("known only when the code runs"), std::string::npos)
      << Notes(imported);
}

// A loader a method makes inside the epochs' loop (`train_loader = data.train_loader()` under
// `for epoch in range(200)`): the loop's epochs are its repeat's count.
TEST(CodeMethodsTest, ALoaderAMethodMakesGoesRoundTheEpochsLoop) {
  const auto imported = Import(kItems + R"(class Data:
    def __init__(self, workers):
        self.workers = workers
    def train_loader(self):
        return DataLoader(Items(), batch_size=8, num_workers=self.workers)
data = Data(2)
for epoch in range(200):
    train_loader = data.train_loader()
    for x in train_loader:
        pass
)");
  const spec::Op& epochs = imported.spec.ops(imported.spec.ops_size() - 1);
  ASSERT_TRUE(epochs.has_repeat()) << imported.spec.DebugString();
  EXPECT_EQ(epochs.repeat().count(), 200) << Notes(imported);
  EXPECT_EQ(imported.spec.ops(0).dataloader().num_workers(), 2) << Notes(imported);
}

// A method of the instance that calls a helper of its own (`Trainer(batch_size=256,
// ...).fit(model)`, whose fit calls self.get_loaders()): the helper sees the constructor's
// arguments too, not __init__'s defaults.
TEST(CodeMethodsTest, AHelperTheMethodCallsSeesTheConstructorsArgumentsToo) {
  const auto imported = Import(kItems + R"(class Trainer:
    def __init__(self, batch_size=32, num_workers=2, epochs=5):
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.epochs = epochs
    def get_loaders(self):
        return DataLoader(Items(), batch_size=self.batch_size, num_workers=self.num_workers,
                          persistent_workers=self.num_workers > 0)
    def fit(self, model):
        train_loader = self.get_loaders()
        for epoch in range(self.epochs):
            for x in train_loader:
                model(x)
Trainer(batch_size=256, num_workers=8, epochs=30).fit(torch.nn.Identity())
)");
  const auto& loader = imported.spec.ops(0).dataloader();
  EXPECT_EQ(loader.batch_size(), 256) << Notes(imported);
  EXPECT_EQ(loader.num_workers(), 8) << Notes(imported);
  EXPECT_TRUE(loader.persistent_workers()) << Notes(imported);
  const spec::Op& epochs = imported.spec.ops(imported.spec.ops_size() - 1);
  EXPECT_EQ(epochs.repeat().count(), 30) << Notes(imported);
}

// The loop of a def or a method read where it is defined and again for its call is one
// training loop: no "other pipeline handed straight to a call" at its own line.
TEST(CodeMethodsTest, ALoopReadAgainForItsCallIsNotAnotherPipeline) {
  const std::string method = R"(class Trainer:
    def __init__(self, dataset, batch_size=64):
        self.dataset = dataset
        self.batch_size = batch_size
    def train(self):
        loader = DataLoader(self.dataset, batch_size=self.batch_size, num_workers=4)
        for epoch in range(3):
            for x in loader:
                pass
Trainer(Items()).train()
)";
  const std::string function = R"(def train(dataset, batch_size=64):
    loader = DataLoader(dataset, batch_size=batch_size, num_workers=4)
    for epoch in range(3):
        for x in loader:
            pass
train(Items())
)";
  for (const std::string& code : {method, function}) {
    const auto imported = Import(kItems + code);
    EXPECT_EQ(Notes(imported).find("other pipeline"), std::string::npos) << code << "\n"
                                                                         << Notes(imported);
    EXPECT_EQ(imported.spec.ops(0).dataloader().batch_size(), 64) << code;
  }
}

// A dataset handed to a method of the instance (`self.finish(ds)`) is followed through it:
// the map's parallelism and the batch size are the constructor's.
TEST(CodeMethodsTest, ADatasetHandedToAMethodIsFollowedThroughIt) {
  const auto imported = Import(R"(import tensorflow as tf
class Input:
    def __init__(self, batch_size, parallel):
        self.batch_size = batch_size
        self.parallel = parallel
    def finish(self, ds):
        ds = ds.map(lambda x: x * 2, num_parallel_calls=self.parallel)
        return ds.batch(self.batch_size)
    def make(self):
        return self.finish(tf.data.Dataset.range(1000))
ds = Input(64, 8).make()
for x in ds:
    pass
)");
  ASSERT_EQ(imported.spec.ops_size(), 2) << imported.spec.DebugString();
  EXPECT_EQ(imported.spec.ops(0).map().num_parallel_calls(), 8) << Notes(imported);
  EXPECT_EQ(imported.spec.ops(1).batch().batch_size(), 64) << Notes(imported);
}

// A config object's attributes (`cfg.workers` of Config(6), `Config.batch_size` of its
// body): what the constructor given those arguments, or the class body, binds.
TEST(CodeMethodsTest, AnInstancesAttributesAreWhatItsConstructorBinds) {
  const std::string config = kItems + R"(class Config:
    batch_size = 64
    def __init__(self, workers=2):
        self.workers = workers
cfg = Config(6)
)";
  const auto imported = Import(
      config + R"(loader = DataLoader(Items(), batch_size=cfg.batch_size, num_workers=cfg.workers)
for x in loader:
    pass
)");
  EXPECT_EQ(imported.spec.ops(0).dataloader().num_workers(), 6) << Notes(imported);
  EXPECT_EQ(imported.spec.ops(0).dataloader().batch_size(), 64) << Notes(imported);
  const auto of_class =
      Import(config + R"(for x in DataLoader(Items(), batch_size=Config.batch_size):
    pass
)");
  EXPECT_EQ(of_class.spec.ops(0).dataloader().batch_size(), 64) << Notes(of_class);
}

// A @dataclass config made with arguments (transformers' TrainingArguments, written as
// `Args(batch_size=64, num_train_epochs=7)`): its fields are the arguments, by name or in
// order, not their defaults; a field not given keeps its default.
TEST(CodeMethodsTest, ADataclassesFieldsAreWhatItWasMadeWith) {
  for (const std::string made : {"Args(batch_size=64, num_train_epochs=7)", "Args(64, 7)"}) {
    const auto imported = Import(kItems + R"(from dataclasses import dataclass
@dataclass
class Args:
    batch_size: int = 8
    num_train_epochs: int = 3
    num_workers: int = 2
args = )" + made + R"(
loader = DataLoader(Items(), batch_size=args.batch_size, num_workers=args.num_workers)
for epoch in range(args.num_train_epochs):
    for x in loader:
        pass
)");
    const auto& loader = imported.spec.ops(0).dataloader();
    EXPECT_EQ(loader.batch_size(), 64) << made << "\n" << Notes(imported);
    EXPECT_EQ(loader.num_workers(), 2) << made << "\n" << Notes(imported);
    const spec::Op& epochs = imported.spec.ops(imported.spec.ops_size() - 1);
    EXPECT_EQ(epochs.repeat().count(), 7) << made << "\n" << Notes(imported);
  }
}

// A field whose default dataclasses.field gives (`num_workers: int = field(default=4)`, as
// transformers' TrainingArguments writes every field) has that default.
TEST(CodeMethodsTest, ADataclassFieldsDefaultIsItsValue) {
  const auto imported = Import(kItems + R"(from dataclasses import dataclass, field
import dataclasses
@dataclass
class Args:
    batch_size: int = field(default=48, metadata={"help": "per device"})
    num_workers: int = dataclasses.field(default=3)
args = Args()
loader = DataLoader(Items(), batch_size=args.batch_size, num_workers=args.num_workers)
for x in loader:
    pass
)");
  EXPECT_EQ(imported.spec.ops(0).dataloader().batch_size(), 48) << Notes(imported);
  EXPECT_EQ(imported.spec.ops(0).dataloader().num_workers(), 3) << Notes(imported);
}

// A config's @property (transformers' TrainingArguments.train_batch_size, the per-device
// size times max(1, n_gpu)): what its method returns for the instance.
TEST(CodeMethodsTest, AConfigsPropertyIsWhatItsMethodReturns) {
  const auto imported = Import(kItems + R"(from dataclasses import dataclass
@dataclass
class Args:
    per_device_train_batch_size: int = 8
    n_gpu: int = 1
    @property
    def train_batch_size(self):
        return self.per_device_train_batch_size * max(1, self.n_gpu)
args = Args(per_device_train_batch_size=32, n_gpu=2)
for x in DataLoader(Items(), batch_size=args.train_batch_size):
    pass
)");
  EXPECT_EQ(imported.spec.ops(0).dataloader().batch_size(), 64) << Notes(imported);
}

// A dict config (`config["batch_size"]`): the value the file writes for the key.
TEST(CodeMethodsTest, ADictConfigsValuesAreReadByKey) {
  const auto imported = Import(kItems + R"(config = {"batch_size": 64, "num_workers": 4}
loader = DataLoader(Items(), batch_size=config["batch_size"], num_workers=config["num_workers"])
for x in loader:
    pass
)");
  EXPECT_EQ(imported.spec.ops(0).dataloader().batch_size(), 64) << Notes(imported);
  EXPECT_EQ(imported.spec.ops(0).dataloader().num_workers(), 4) << Notes(imported);
}

// A dict config changed after it is written (`config["num_workers"] = 8`) holds the new value
// from there on; `config.get(key, default)` is the key's value, else the default.
TEST(CodeMethodsTest, ADictConfigHoldsWhatIsWrittenIntoItAndGetsItsDefault) {
  const auto imported = Import(kItems + R"(config = {"batch_size": 64, "num_workers": 4}
config["num_workers"] = 8
config["pin_memory"] = True
loader = DataLoader(Items(), batch_size=config.get("batch_size", 2),
                    num_workers=config["num_workers"], pin_memory=config["pin_memory"],
                    drop_last=config.get("drop_last", True))
for x in loader:
    pass
)");
  const auto& loader = imported.spec.ops(0).dataloader();
  EXPECT_EQ(loader.batch_size(), 64) << Notes(imported);
  EXPECT_EQ(loader.num_workers(), 8) << Notes(imported);
  EXPECT_TRUE(loader.pin_memory()) << Notes(imported);
  EXPECT_TRUE(loader.drop_last()) << Notes(imported);
}

// A sample __getitem__ makes in memory (a benchmark's `return torch.randn(3, 64, 64), 0`) is
// as big as it is: 3·64·64 float32 and an int64 label, what crosses from the workers.
TEST(CodeMethodsTest, ASampleMadeInMemoryHasItsSize) {
  const auto imported = Import(R"(import torch
from torch.utils.data import Dataset, DataLoader
class Images(Dataset):
    def __len__(self):
        return 5000
    def __getitem__(self, i):
        return torch.randn(3, 64, 64), 0
for x, y in DataLoader(Images(), batch_size=8, num_workers=2):
    pass
)");
  const auto& getitem = imported.spec.ops(0).dataloader().getitem();
  EXPECT_EQ(getitem.output_bytes(), 3 * 64 * 64 * 4 + 8) << imported.spec.DebugString();
  EXPECT_EQ(Notes(imported).find("a sample's size is not read"), std::string::npos)
      << Notes(imported);
}

// A __getitem__ whose default makes a loader of its own class (found by the code-import
// fuzzer): its sample is read in the one reading of its work, not in a second that read the
// default's loader twice again, and so on, doubling at each level. It reads at once
// (ctest's timeout is what fails here).
TEST(CodeMethodsTest, AGetItemWhoseDefaultMakesItsOwnLoaderIsReadAtOnce) {
  const auto imported = Import(R"(from torch.utils.data import DataLoader, Dataset
class Items(Dataset):
    def __init__(self, x):
        self.x = x
    def __len__(self):
        return 100
    def __getitem__(self, i=DataLoader(Items(list(range(100))), batch_size=4)):
        return self.x[i]
loader = DataLoader(Items(list(range(100))), batch_size=4, num_workers=2)
)");
  EXPECT_EQ(imported.spec.ops(0).dataloader().num_workers(), 2) << Notes(imported);
}

// Methods each calling the one below five times, eight deep: 5^8 readings with the
// arguments, were each followed. Past a budget the calls take their defs' own reading, the
// file reads at once, and a note says so.
TEST(CodeMethodsTest, CallsTooWideToFollowEachAreReadAsTheirDefs) {
  std::string code = kItems + R"(class Wide:
    def __init__(self, n):
        self.n = n
    def m0(self, x):
        return DataLoader(Items(), batch_size=8, num_workers=self.n)
)";
  for (int k = 1; k <= 8; ++k) {
    code += "    def m" + std::to_string(k) + "(self, x):\n";
    for (int j = 0; j < 5; ++j) {
      code += "        y" + std::to_string(j) + " = self.m" + std::to_string(k - 1) + "(x)\n";
    }
    code += "        return y0\n";
  }
  const auto imported = Import(code + "for x in Wide(2).m8(1):\n    pass\n");
  EXPECT_NE(Notes(imported).find("nest too deep and wide to follow each with its arguments"),
            std::string::npos)
      << Notes(imported);
  ASSERT_GE(imported.spec.ops_size(), 1) << Notes(imported);
  EXPECT_TRUE(imported.spec.ops(0).has_dataloader()) << imported.spec.DebugString();
}

// A Dataset whose __len__ is `len(self.files)` of the list it was made with: as long as the
// list the file writes out, or the names a comprehension spells out; a list the code fills
// at run time (appended to in a loop over a directory) is not counted.
TEST(CodeMethodsTest, ADatasetIsAsLongAsTheListItWasMadeWith) {
  const auto length = [](const std::string& files) {
    const auto imported = Import(R"(import torch
from torch.utils.data import DataLoader, Dataset
class Lazy(Dataset):
    def __init__(self, files):
        self.files = files
    def __len__(self):
        return len(self.files)
    def __getitem__(self, i):
        return torch.zeros(4)
)" + files + R"(
for x in DataLoader(Lazy(files), batch_size=4):
    x = x.cuda()
)");
    return imported.spec.source().range().stop();
  };
  EXPECT_EQ(length(R"(files = ["a.npy", "b.npy", "c.npy"])"), 3);
  EXPECT_EQ(length(R"(files = ["d_%d.npy" % i for i in range(2000)])"), 2000);
  EXPECT_EQ(length("files = [\"a.npy\"]\nfor f in os.listdir(d):\n    files.append(f)"), 10000)
      << "a stand-in";
  EXPECT_EQ(length("files = [\"a.npy\"]\nfiles.extend(more)"), 10000) << "a stand-in";
}

// A config class that overrides its base's attribute (`class Exp(Base): num_workers = 4`)
// has its own; what it does not set, the base's.
TEST(CodeMethodsTest, AConfigSubclassesAttributeTakesThePlaceOfItsBases) {
  const auto imported = Import(kItems + R"(class BaseConfig:
    num_workers = 2
    batch_size = 16
class ExpConfig(BaseConfig):
    num_workers = 4
cfg = ExpConfig()
for x in DataLoader(Items(), batch_size=cfg.batch_size, num_workers=cfg.num_workers):
    x = x.cuda()
)");
  EXPECT_EQ(imported.spec.ops(0).dataloader().num_workers(), 4) << Notes(imported);
  EXPECT_EQ(imported.spec.ops(0).dataloader().batch_size(), 16) << Notes(imported);
}

}  // namespace
}  // namespace pipescope::code
