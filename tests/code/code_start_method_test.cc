// How a DataLoader's workers start, read from the code (app/code/start_method.h): the
// multiprocessing_context it is given, else the start method the program sets; and what its
// dataset keeps, which workers that spawn are each sent pickled (pytorch#139792, #153594:
// workers of a large dataset then start one after another).
#include <gtest/gtest.h>

#include <string>

#include "app/code/code_emit.h"
#include "app/code/code_import.h"
#include "app/code/code_patch.h"

namespace pipescope::code {
namespace {

ImportedCode Import(const std::string& source) {
  auto c = ImportCode(source, "start.py");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : ImportedCode{};
}

const spec::DataLoaderOp& Loader(const ImportedCode& c) {
  for (const spec::Op& op : c.spec.ops()) {
    if (op.has_dataloader()) return op.dataloader();
  }
  ADD_FAILURE() << "no DataLoader read";
  return spec::DataLoaderOp::default_instance();
}

bool Says(const ImportedCode& c, int line, const std::string& part) {
  for (const auto& n : c.notes) {
    if (n.at.line == line && n.message.find(part) != std::string::npos) return true;
  }
  return false;
}

std::string Notes(const ImportedCode& c) {
  std::string text;
  for (const auto& n : c.notes) text += std::to_string(n.at.line) + ": " + n.message + "\n";
  return text;
}

// A dataset of 20,000 frames of 3×64×64 float32 (983,040,000 bytes) and int64 labels
// (160,000), its loader made in main() with `workers`, and `after` (the program's start) at
// the end of the file.
std::string Frames(const std::string& loader_arguments, const std::string& after) {
  return R"(import numpy as np
import torch
import torch.multiprocessing as mp
from torch.utils.data import Dataset, DataLoader

class Frames(Dataset):
    def __init__(self, n):
        self.frames = np.zeros((n, 3, 64, 64), dtype=np.float32)
        self.labels = np.zeros(n, dtype=np.int64)
    def __len__(self):
        return len(self.frames)
    def __getitem__(self, i):
        return torch.from_numpy(self.frames[i]), int(self.labels[i])

def main():
    loader = DataLoader(Frames(20000), batch_size=64, num_workers=8)" +
         loader_arguments + R"()
    for epoch in range(10):
        for x, y in loader:
            pass

if __name__ == "__main__":
)" + after +
         "    main()\n";
}

constexpr int64_t kFramesBytes = 983'040'000 + 160'000;

// The start method set below the def that makes the loader, as the program runs it first:
// the loader's workers spawn, and its dataset is sized from the arrays __init__ keeps.
TEST(CodeStartMethodTest, TheProgramsStartMethodReachesALoaderMadeAboveIt) {
  const ImportedCode c = Import(Frames("", "    mp.set_start_method(\"spawn\", force=True)\n"));
  EXPECT_EQ(Loader(c).start_method(), spec::spawn);
  EXPECT_EQ(Loader(c).dataset_bytes(), kFramesBytes);
  EXPECT_TRUE(Says(c, 16,
                   "the loader's 8 worker processes start with spawn (set_start_method(\"spawn\"), "
                   "line 22): each that starts is sent the dataset pickled (its `self.frames`, "
                   "`self.labels`, 983 MB), and the main process waits until each has started "
                   "and read it before it starts the next"))
      << Notes(c);
  // The standard library's, under its own name.
  const ImportedCode plain =
      Import("import multiprocessing\n" +
             Frames("", "    multiprocessing.set_start_method('forkserver')\n"));
  EXPECT_EQ(Loader(plain).start_method(), spec::forkserver);
}

// multiprocessing_context as a name or as a context: it wins over the program's method.
TEST(CodeStartMethodTest, TheLoadersOwnContextIsItsStartMethod) {
  EXPECT_EQ(Loader(Import(Frames(", multiprocessing_context=\"forkserver\"", ""))).start_method(),
            spec::forkserver);
  const ImportedCode context = Import(Frames(", multiprocessing_context=mp.get_context('spawn')",
                                             "    mp.set_start_method(\"fork\")\n"));
  EXPECT_EQ(Loader(context).start_method(), spec::spawn);
  EXPECT_TRUE(Says(context, 16, "multiprocessing_context `mp.get_context('spawn')`"))
      << Notes(context);
  // No context and no method set: fork, Linux's default before Python 3.14. Its large dataset
  // is sized all the same, and a note says how to simulate spawning.
  const ImportedCode unset = Import(Frames("", ""));
  EXPECT_EQ(Loader(unset).start_method(), spec::fork);
  EXPECT_EQ(Loader(unset).dataset_bytes(), kFramesBytes);
  EXPECT_TRUE(Says(unset, 16, "--set loader.start_method=spawn simulates that")) << Notes(unset);
  // Persistent workers are sent it once: nothing to say.
  EXPECT_FALSE(Says(Import(Frames(", persistent_workers=True", "")), 16, "start_method=spawn"));
}

// What the dataset keeps: CIFAR10's training images and labels as NumPy arrays (50,000 of
// 32×32×3 bytes and 8), pickled; ImageFolder's list of samples, an entry for each file; torch
// tensors (a TensorDataset's, MNIST's, arrays made tensors with torch.from_numpy), which
// torch.multiprocessing sends through shared memory as handles, not pickled; and attributes loaded
// when the code runs, which a note names for the user to size.
TEST(CodeStartMethodTest, TheDatasetIsSizedFromWhatTheCodeShows) {
  const ImportedCode tensors = Import(R"(import torch
from torch.utils.data import TensorDataset, DataLoader
ds = TensorDataset(torch.randn(1000, 3, 32, 32), torch.zeros(1000, dtype=torch.long))
loader = DataLoader(ds, batch_size=10, num_workers=2, multiprocessing_context="spawn")
)");
  EXPECT_EQ(Loader(tensors).dataset_bytes(), 0);
  EXPECT_TRUE(Says(tensors, 4,
                   "its torch tensors (12 MB) go to each worker through shared memory, as "
                   "handles, not pickled"))
      << Notes(tensors);
  const ImportedCode mnist = Import(R"(import torch
from torchvision import datasets, transforms
train = datasets.MNIST("../data", train=True, transform=transforms.ToTensor())
loader = torch.utils.data.DataLoader(train, batch_size=64, num_workers=4,
                                     multiprocessing_context="spawn")
)");
  EXPECT_EQ(Loader(mnist).dataset_bytes(), 0) << "its images are a uint8 tensor";
  const ImportedCode arrays = Import(R"(import numpy as np
import torch
class Rows(torch.utils.data.Dataset):
    def __init__(self):
        self.x = torch.from_numpy(np.zeros((100000, 16), dtype=np.float32))
        self.y = np.zeros(100000, dtype=np.int64)
        self.z = torch.from_numpy(np.zeros((100000, 16), dtype=np.float32)).numpy()
    def __len__(self):
        return 100000
    def __getitem__(self, i):
        return self.x[i], self.y[i]
loader = torch.utils.data.DataLoader(Rows(), batch_size=4, num_workers=2,
                                     multiprocessing_context="spawn")
)");
  EXPECT_EQ(Loader(arrays).dataset_bytes(), 100000 * 8 + 100000 * 16 * 4)
      << "the NumPy arrays, not the tensor";
  const ImportedCode cifar = Import(R"(import torch, torchvision
import torchvision.transforms as T
train = torchvision.datasets.CIFAR10("./data", train=True, download=True, transform=T.ToTensor())
loader = torch.utils.data.DataLoader(train, batch_size=128, num_workers=4,
                                     multiprocessing_context="spawn")
)");
  EXPECT_EQ(Loader(cifar).dataset_bytes(), 50000 * (32 * 32 * 3 + 8));
  EXPECT_TRUE(Says(cifar, 5, "CIFAR10's images and labels, 154 MB")) << Notes(cifar);
  // ImageFolder lists a path and a class for each file, however many the folder holds.
  const ImportedCode folder = Import(R"(import torch
from torchvision import datasets, transforms
train = datasets.ImageFolder("train", transforms.ToTensor())
loader = torch.utils.data.DataLoader(train, batch_size=256, num_workers=8,
                                     multiprocessing_context="spawn")
)");
  EXPECT_EQ(Loader(folder).dataset_bytes(), 0);
  EXPECT_EQ(Loader(folder).dataset_bytes_per_item(), 66);
  EXPECT_TRUE(Says(folder, 5,
                   "ImageFolder's list of samples, a path and a class for each file: 66 B and "
                   "Python objects to pickle for each"))
      << Notes(folder);
  EXPECT_TRUE(Says(folder, 5, "waits until each has started and read it")) << Notes(folder);
  // Forked, its workers are sent nothing; the note says what spawning them would send.
  const ImportedCode forked = Import(R"(import torch
from torchvision import datasets, transforms
train = datasets.ImageFolder("train", transforms.ToTensor())
loader = torch.utils.data.DataLoader(train, batch_size=256, num_workers=8)
)");
  EXPECT_EQ(Loader(forked).dataset_bytes_per_item(), 66);
  EXPECT_TRUE(Says(forked, 4,
                   "is sent the dataset pickled (ImageFolder's list of samples, a path and a "
                   "class for each file"))
      << Notes(forked);
  EXPECT_TRUE(Says(forked, 4, "--set loader.start_method=spawn simulates that")) << Notes(forked);
  const ImportedCode loaded = Import(R"(import numpy as np
import torch
class Table(torch.utils.data.Dataset):
    def __init__(self, path):
        self.rows = np.load(path)
    def __len__(self):
        return 100
    def __getitem__(self, i):
        return self.rows[i]
loader = torch.utils.data.DataLoader(Table("rows.npy"), batch_size=4, num_workers=2,
                                     multiprocessing_context="spawn")
)");
  EXPECT_EQ(Loader(loaded).dataset_bytes(), 0);
  EXPECT_TRUE(Says(loaded, 11,
                   "what `self.rows` (np.load(path)) holds is not sized from the code: --set "
                   "loader.dataset_bytes=SIZE"))
      << Notes(loaded);
}

// A worker that spawns imports the file again: one whose program runs unguarded would run
// it again, which Python refuses; the note says where the guard goes. A guarded file (and
// one whose workers fork) hears nothing of it.
TEST(CodeStartMethodTest, AFileWhoseWorkersSpawnNeedsItsMainGuarded) {
  const std::string loader = R"(import torch
from torch.utils.data import TensorDataset, DataLoader
ds = TensorDataset(torch.randn(1000, 8))
)";
  const std::string loop =
      R"(    loader = DataLoader(ds, batch_size=10, num_workers=2, multiprocessing_context="%s")
    for x, in loader:
        pass
)";
  auto with = [&](const std::string& method, bool guarded) {
    std::string body = loop;
    body.replace(body.find("%s"), 2, method);
    return Import(loader + (guarded ? "if __name__ == \"__main__\":\n" : "if True:\n") + body);
  };
  const std::string refused =
      "which Python refuses (\"An attempt has been made to start a new "
      "process before the current process has finished its "
      "bootstrapping phase\"); put the training under that guard";
  EXPECT_TRUE(Says(with("spawn", false), 5, refused)) << Notes(with("spawn", false));
  EXPECT_TRUE(
      Says(with("forkserver", false), 5, "workers started with forkserver import this file"));
  EXPECT_FALSE(Says(with("spawn", true), 5, refused)) << Notes(with("spawn", true));
  EXPECT_FALSE(Says(with("fork", false), 5, refused));
}

// Written back as code, a loader whose workers spawn keeps its context, its loop runs only in
// the main process (spawned workers import the file again), and its dataset's size goes with
// it as a setting of the file: read again, the same loader.
TEST(CodeStartMethodTest, ALoaderWhoseWorkersSpawnIsWrittenBackWithItsContext) {
  const ImportedCode c = Import(Frames("", "    mp.set_start_method(\"spawn\")\n"));
  const auto emitted = EmitCode(c.spec, "pytorch");
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  EXPECT_NE(emitted->text.find("multiprocessing_context=\"spawn\""), std::string::npos)
      << emitted->text;
  EXPECT_NE(emitted->text.find("if __name__ == \"__main__\":\n    for epoch in range(10):"),
            std::string::npos)
      << emitted->text;
  const ImportedCode back = Import(emitted->text);
  EXPECT_EQ(Loader(back).start_method(), spec::spawn);
  EXPECT_EQ(Loader(back).dataset_bytes(), kFramesBytes);
  EXPECT_EQ(back.spec.ops(back.spec.ops_size() - 1).repeat().count(), 10);
}

}  // namespace
}  // namespace pipescope::code

namespace pipescope::code {
namespace {

// pytorch#12831's answer, no workers: PyTorch's DataLoader raises a ValueError where
// num_workers=0 is given a multiprocessing_context, persistent_workers=True or a
// prefetch_factor. The user's file written with num_workers=0 takes each out (None, False),
// and code written from the spec leaves them out.
TEST(CodeStartMethodTest, ALoaderWrittenWithoutWorkersDropsWhatOnlyWorkersTake) {
  const ImportedCode c = Import(R"(import torch
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.arange(1000))
if __name__ == "__main__":
    loader = DataLoader(ds, batch_size=100, num_workers=1, multiprocessing_context="spawn",
                        persistent_workers=True, prefetch_factor=4)
    for epoch in range(200):
        for x, in loader:
            pass
)");
  spec::PipelineSpec none = c.spec;
  for (spec::Op& op : *none.mutable_ops()) {
    if (op.has_dataloader()) op.mutable_dataloader()->set_num_workers(0);
  }
  const auto patched = PatchCode(c, none);
  ASSERT_TRUE(patched.ok()) << patched.status().message();
  EXPECT_NE(patched->text.find("num_workers=0, multiprocessing_context=None,\n"
                               "                        persistent_workers=False, "
                               "prefetch_factor=None)"),
            std::string::npos)
      << patched->text;
  const auto emitted = EmitCode(none, "pytorch");
  ASSERT_TRUE(emitted.ok()) << emitted.status().message();
  for (const char* refused : {"multiprocessing_context", "persistent_workers", "prefetch_factor"}) {
    EXPECT_EQ(emitted->text.find(refused), std::string::npos) << refused << "\n" << emitted->text;
  }
}

}  // namespace
}  // namespace pipescope::code
