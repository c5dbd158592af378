// import-code follows the file's own modules (python_reader.h, ReadModulesFrom): `import
// utils`, `from utils import f`, a package's module and its relative imports are read for
// their definitions, their notes name the module, and code written back leaves a module's
// calls as they are, saying where the op is made.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/code/code_import.h"
#include "app/code/code_patch.h"

namespace pipescope::code {
namespace {

// A project: train.py's helpers in utils.py and in the package data/.
std::filesystem::path Project() {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "code_modules";
  std::filesystem::create_directories(dir / "data");
  std::ofstream(dir / "utils.py") << R"(import tensorflow as tf

IMG_SIZE = 224
AUTOTUNE = tf.data.AUTOTUNE

def load_image(path):
    image = tf.io.read_file(path)
    image = tf.io.decode_jpeg(image, channels=3)
    return tf.image.resize(image, [IMG_SIZE, IMG_SIZE])

if __name__ == "__main__":
    check = tf.data.Dataset.range(3).batch(1)
    for x in check:
        pass
)";
  std::ofstream(dir / "data" / "__init__.py") << "";
  std::ofstream(dir / "data" / "augment.py") << R"(import tensorflow as tf
def flip(x):
    return tf.image.random_flip_left_right(x)
)";
  std::ofstream(dir / "data" / "pipeline.py") << R"(import tensorflow as tf
from .augment import flip

def make_dataset(files, batch_size=32):
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.map(flip, num_parallel_calls=4)
    return ds.batch(batch_size)
)";
  return dir;
}

TEST(CodeModulesTest, AModulesFunctionsAndConstantsAreReadWhereTheFileImportsThem) {
  const std::filesystem::path dir = Project();
  auto c = ImportCode(R"(import tensorflow as tf
import utils
from utils import load_image as load

ds = tf.data.Dataset.from_tensor_slices(["a.jpg", "b.jpg"])
ds = ds.map(utils.load_image, num_parallel_calls=utils.AUTOTUNE)
ds = ds.map(load)
ds = ds.batch(2)
)",
                      (dir / "train.py").string());
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->spec.ops_size(), 3) << c->spec.DebugString();
  for (int k : {0, 1}) {
    EXPECT_EQ(c->spec.ops(k).map().fn().cpu_work().one_element_call(), "decode_jpeg")
        << c->spec.ops(k).DebugString();
  }
  EXPECT_EQ(c->spec.ops(0).map().num_parallel_calls(), -1) << "utils.AUTOTUNE";
  EXPECT_EQ(c->spec.ops(1).map().num_parallel_calls(), 0);
  EXPECT_EQ(c->spec.source().from_tensor_slices().strings_size(), 2)
      << "the file's pipeline, not the one utils.py builds when run as a script";
}

TEST(CodeModulesTest, APackagesModuleBuildsThePipelineItsNotesNameIt) {
  const std::filesystem::path dir = Project();
  auto c = ImportCode(R"(import tensorflow as tf
from data.pipeline import make_dataset
ds = make_dataset(["a.jpg"] * 100, batch_size=64)
model.fit(ds, epochs=2)
)",
                      (dir / "train.py").string());
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_GE(c->spec.ops_size(), 2) << c->spec.DebugString();
  EXPECT_EQ(c->spec.ops(0).name(), "flip");
  EXPECT_EQ(c->spec.ops(0).map().num_parallel_calls(), 4);
  EXPECT_EQ(c->spec.ops(1).batch().batch_size(), 64);
  bool noted_there = false;
  for (const CodeNote& n : c->notes) {
    if (n.at.file_name() != "data/pipeline.py") continue;
    noted_there = true;
    EXPECT_EQ(n.at.line, 6) << n.message;
    EXPECT_EQ(FormatNote((dir / "train.py").string(), n)
                  .rfind((dir / "data" / "pipeline.py").string() + ":6:", 0),
              0u);
  }
  EXPECT_TRUE(noted_there) << "the map's notes are at its line in data/pipeline.py";

  // A tuned knob of an op the module makes is not written into train.py's bytes.
  spec::PipelineSpec tuned = c->spec;
  tuned.mutable_ops(0)->mutable_map()->set_num_parallel_calls(8);
  auto patched = PatchCode(*c, tuned);
  ASSERT_TRUE(patched.ok()) << patched.status().message();
  EXPECT_EQ(patched->text, c->source_text);
  bool said = false;
  for (const std::string& n : patched->notes) {
    said |= n.find("flip.num_parallel_calls = 8") != std::string::npos &&
            n.find("made in data/pipeline.py (line 6)") != std::string::npos;
  }
  EXPECT_TRUE(said) << "the note says where to set it";
}

// `from . import dataset` inside a package, and `from loaders import dataset` from a folder
// without an __init__.py (a namespace package): the module by its names.
TEST(CodeModulesTest, SubmodulesImportedByNameAreRead) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "code_submodules";
  std::filesystem::create_directories(dir / "data");
  std::filesystem::create_directories(dir / "loaders");
  std::ofstream(dir / "data" / "__init__.py") << "";
  const std::string dataset = R"(import cv2
cv2.setNumThreads(0)
from torch.utils.data import Dataset
class Faces(Dataset):
    def __len__(self):
        return 4000
    def __getitem__(self, i):
        return cv2.imread(f"{i}.jpg")
)";
  std::ofstream(dir / "data" / "dataset.py") << dataset;
  std::ofstream(dir / "loaders" / "dataset.py") << dataset;
  std::ofstream(dir / "data" / "loader.py") << R"(from torch.utils.data import DataLoader
from . import dataset as D
def build():
    return DataLoader(D.Faces(), batch_size=16, num_workers=2)
)";
  auto relative =
      ImportCode("from data.loader import build\nloader = build()\n", (dir / "train.py").string());
  ASSERT_TRUE(relative.ok()) << relative.status().message();
  EXPECT_EQ(relative->spec.source().range().stop(), 4000) << relative->spec.DebugString();
  auto namespace_package = ImportCode(R"(from torch.utils.data import DataLoader
from loaders import dataset
loader = DataLoader(dataset.Faces(), batch_size=16, num_workers=2)
)",
                                      (dir / "train.py").string());
  ASSERT_TRUE(namespace_package.ok()) << namespace_package.status().message();
  EXPECT_EQ(namespace_package->spec.source().range().stop(), 4000);
  // The module sets OpenCV's threads when imported: nothing to advise about them.
  for (const CodeNote& n : namespace_package->notes) {
    EXPECT_EQ(n.message.find("setNumThreads"), std::string::npos) << n.message;
  }
}

// TensorFlow's Estimator trains on what its input_fn makes: a lambda calling a module's
// function (tensorflow-triplet-loss's `estimator.train(lambda: train_input_fn(...))`).
TEST(CodeModulesTest, AnEstimatorTrainsOnWhatItsInputFunctionMakes) {
  const std::filesystem::path dir = Project();
  auto c = ImportCode(R"(import tensorflow as tf
from data.pipeline import make_dataset
estimator = tf.estimator.Estimator(model_fn=model_fn)
estimator.train(lambda: make_dataset(["a.jpg"] * 10, batch_size=5))
model.train()
)",
                      (dir / "train.py").string());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->spec.ops(0).name(), "flip");
  EXPECT_EQ(c->spec.ops(1).batch().batch_size(), 5);
}

TEST(CodeModulesTest, AModuleThatImportsTheFileBackIsReadOnce) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "code_cycle";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a.py") << "from b import g\nimport tensorflow as tf\nN = 4\n";
  std::ofstream(dir / "b.py") << "from a import N\ndef g(x):\n    return x\n";
  auto c = ImportCode(R"(import tensorflow as tf
from a import N, g
ds = tf.data.Dataset.range(10).map(g, num_parallel_calls=N)
)",
                      (dir / "a.py").string());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->spec.ops(0).map().num_parallel_calls(), 4);
}

}  // namespace
}  // namespace pipescope::code
