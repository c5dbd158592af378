// What import-code costs a DataLoader's image transforms at: torchvision's functions called
// directly (torchvision.transforms.functional), scikit-image's resize, and a transform class
// of the file's own (PyTorch's data loading tutorial's Rescale), read through its __call__.
#include <gtest/gtest.h>

#include <string>

#include "app/code/code_import.h"

namespace pipescope::code {
namespace {

ImportedCode Import(const std::string& source) {
  auto c = ImportCode(source, "transforms.py");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? std::move(c).value() : ImportedCode{};
}

std::string Notes(const ImportedCode& c) {
  std::string s;
  for (const CodeNote& n : c.notes) s += FormatNote("transforms.py", n) + "\n";
  return s;
}

// `code` read with its one `%s` replaced by `part`: a file tried with a line's variants.
ImportedCode ImportWith(std::string code, const std::string& part) {
  code.replace(code.find("%s"), 2, part);
  return Import(code);
}

const spec::Python& Getitem(const ImportedCode& c) {
  return c.spec.ops(0).dataloader().getitem().python();
}

// What a sample is, in bytes, as its __getitem__ returns it.
int64_t SampleBytes(const ImportedCode& c) {
  return c.spec.ops(0).dataloader().getitem().output_bytes();
}

// "1766us" as microseconds.
int64_t Micros(const std::string& duration) { return std::stoll(duration); }

// The tutorial's dataset: io.imread, then `self.transform(sample)` with the transform given.
std::string FaceLandmarks(const std::string& classes, const std::string& transform) {
  return R"(import numpy as np
import torch
from skimage import io, transform
from torch.utils.data import Dataset, DataLoader
from torchvision import transforms

class Faces(Dataset):
    def __init__(self, n, transform=None):
        self.n = n
        self.transform = transform
    def __len__(self):
        return self.n
    def __getitem__(self, idx):
        image = io.imread("face_%d.jpg" % idx)
        sample = {'image': image}
        if self.transform:
            sample = self.transform(sample)
        return sample
)" + classes +
         "\nloader = DataLoader(Faces(69, transform=" + transform +
         "), batch_size=4, shuffle=True, num_workers=4)\nfor batch in loader:\n    pass\n";
}

// The tutorial's Rescale resizes with scikit-image, whose cost grows with the input's pixels
// (77,632 us a megapixel, measured): on the 500×375 stand-in photo about 14.6 ms, 14 times the
// JPEG's decode, where before the class was read it counted nothing. Called alone or inside a
// Compose, it is the same work.
TEST(CodeTransformsTest, ATransformClassOfTheFilesOwnIsCostedByWhatItsCallDoes) {
  const std::string rescale = R"(
class Rescale(object):
    def __init__(self, output_size):
        self.output_size = output_size
    def __call__(self, sample):
        image = sample['image']
        img = transform.resize(image, (self.output_size, self.output_size))
        return {'image': img}
)";
  const ImportedCode alone = Import(FaceLandmarks(rescale, "Rescale(256)"));
  // 1080 us of decode, then 58.9 + 0.1875 Mpixel × 77,632 us of resize.
  EXPECT_NEAR(Micros(Getitem(alone).duration()), 1080 + 14615, 2) << Notes(alone);
  EXPECT_EQ(SampleBytes(alone), 256 * 256 * 3 * 8) << "float64, as skimage gives";
  // ToTensor after it keeps the float64 (it divides only bytes).
  EXPECT_NE(Notes(alone).find("skimage.transform.resize 14615us"), std::string::npos)
      << Notes(alone);
  EXPECT_EQ(alone.spec.left_out_size(), 0) << Notes(alone);
  const ImportedCode composed =
      Import(FaceLandmarks(rescale, "transforms.Compose([Rescale(256), transforms.ToTensor()])"));
  EXPECT_GT(Micros(Getitem(composed).duration()), 1080 + 14615) << Notes(composed);
  EXPECT_EQ(composed.spec.left_out_size(), 0) << Notes(composed);
  EXPECT_EQ(SampleBytes(composed), 256 * 256 * 3 * 8);

  // output_shape is the whole array's: (1, 224, 224) puts the channel first (an X-ray's,
  // mlmed/torchxrayvision#11), (224, 224, 3) last; not one row of 224 three-channel pixels.
  for (const auto& [shape, bytes] : std::vector<std::pair<std::string, int64_t>>{
           {"(1, 224, 224)", 224 * 224 * 8}, {"(224, 224, 3)", 224 * 224 * 3 * 8}}) {
    const ImportedCode resized = Import(FaceLandmarks(R"(
class Resizer(object):
    def __call__(self, sample):
        return {'image': transform.resize(sample['image'], )" +
                                                          shape +
                                                          R"(, mode='constant')}
)",
                                                      "Resizer()"));
    EXPECT_EQ(SampleBytes(resized), bytes) << shape << "\n" << Notes(resized);
  }

  // A class whose call does work of unknown cost is left out, as before it was read.
  const ImportedCode unknown = Import(FaceLandmarks(R"(
class Warp(object):
    def __call__(self, sample):
        return {'image': cv2.warpAffine(sample['image'], M, (224, 224))}
)",
                                                    "Warp()"));
  ASSERT_EQ(unknown.spec.left_out_size(), 1) << Notes(unknown);
  EXPECT_EQ(unknown.spec.left_out(0).code(), "Warp()");
  // Random draws are not unknown work: the tutorial's RandomCrop (a slice at a random place).
  const ImportedCode crop = Import(FaceLandmarks(R"(
class RandomCrop(object):
    def __call__(self, sample):
        image = sample['image']
        top = np.random.randint(0, 32)
        return {'image': image[top: top + 224]}
)",
                                                 "RandomCrop()"));
  EXPECT_EQ(crop.spec.left_out_size(), 0) << Notes(crop);

  // The tutorial's own Rescale takes an int or a tuple: on Rescale(256) its isinstance branch
  // is the one read, with no guess said; its ToTensor (a transpose and torch.from_numpy, views
  // of the same memory) is no unknown work.
  const ImportedCode tutorial =
      Import(FaceLandmarks(R"(
class Rescale(object):
    def __init__(self, output_size):
        assert isinstance(output_size, (int, tuple))
        self.output_size = output_size
    def __call__(self, sample):
        image = sample['image']
        h, w = image.shape[:2]
        if isinstance(self.output_size, int):
            new_h, new_w = self.output_size, self.output_size * w / h
        else:
            new_h, new_w = self.output_size
        img = transform.resize(image, (int(new_h), int(new_w)))
        return {'image': img}

class ToTensor(object):
    def __call__(self, sample):
        image = sample['image'].transpose((2, 0, 1))
        return {'image': torch.from_numpy(image)}
)",
                           "transforms.Compose([Rescale(256), ToTensor()])"));
  EXPECT_EQ(Notes(tutorial).find("isinstance"), std::string::npos) << Notes(tutorial);
  EXPECT_EQ(tutorial.spec.left_out_size(), 0) << Notes(tutorial);
  EXPECT_NEAR(Micros(Getitem(tutorial).duration()), 1080 + 14615, 2) << Notes(tutorial);
}

// A segmentation dataset transforms its image and mask alike with torchvision's functions:
// each is costed as the transform it does the work of (TF.resize as Resize on the photo's
// 187,500 pixels, TF.to_tensor as ToTensor of the 256×256 result).
TEST(CodeTransformsTest, TorchvisionsFunctionsAreCostedAsTheirTransforms) {
  const ImportedCode c = Import(R"(import torch
import torchvision.transforms.functional as TF
from PIL import Image
from torch.utils.data import Dataset, DataLoader

class Pairs(Dataset):
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        image = Image.open("img_%d.jpg" % i).convert("RGB")
        image = TF.resize(image, (256, 256))
        image = TF.hflip(image)
        return TF.to_tensor(image)

loader = DataLoader(Pairs(), batch_size=8, num_workers=2)
for x in loader:
    pass
)");
  const std::string notes = Notes(c);
  EXPECT_NE(notes.find("TF.resize"), std::string::npos) << notes;
  EXPECT_NE(notes.find("TF.hflip"), std::string::npos) << notes;
  EXPECT_NE(notes.find("TF.to_tensor"), std::string::npos) << notes;
  EXPECT_EQ(SampleBytes(c), 256 * 256 * 3 * 4);
  // Resize: 26.2 + 5513 × 0.1875 us; hflip: 5.9 + 2 × 240 × 0.0655 us; to_tensor: 13.6 +
  // 2137 × 0.0655 us; after the decode's 1080.
  const double expected =
      1080 + (26.2 + 5513 * 0.1875) + (5.9 + 2 * 240 * 0.065536) + (13.6 + 2137 * 0.065536);
  EXPECT_NEAR(static_cast<double>(Micros(Getitem(c).duration())), expected, 3) << notes;
}

// A sample of several images (a video clip's frames, a triplet's three photos): each frame's
// decode and transforms count once a frame, in a comprehension or a loop over a known count
// of them, and the `with Image.open(f) as img:` of torchvision's pil_loader is a decode
// (discuss.pytorch.org's "how to speed up the data loader": three pil_loader calls a sample,
// read before as 100 us of unknown Python). A count only the run knows is counted once, and
// said.
TEST(CodeTransformsTest, EachImageOfASampleOfSeveralIsCosted) {
  const std::string code = R"(import torch
from PIL import Image
import torchvision.transforms as transforms
from torch.utils.data import Dataset, DataLoader

def pil_loader(path):
    with open(path, 'rb') as f:
        with Image.open(f) as img:
            return img.convert('RGB')

class Frames(Dataset):
    def __init__(self, n, paths):
        self.n = n
        self.paths = paths
        self.t = transforms.Compose([transforms.CenterCrop(224), transforms.ToTensor()])
    def __len__(self):
        return self.n
    def __getitem__(self, i):
%s
        return torch.stack(frames)

loader = DataLoader(Frames(1000, []), batch_size=4, num_workers=2)
)";
  const auto read = [&](const std::string& part) { return ImportWith(code, part); };
  const ImportedCode one = read("        frames = [self.t(pil_loader('a.jpg'))]");
  const ImportedCode eight =
      read("        frames = [self.t(pil_loader('clip%d_%d.jpg' % (i, k))) for k in range(8)]");
  const ImportedCode looped = read(
      "        frames = []\n"
      "        for k in range(8):\n"
      "            frames.append(self.t(pil_loader('clip%d_%d.jpg' % (i, k))))");
  const ImportedCode unknown =
      read("        frames = [self.t(pil_loader(p)) for p in self.paths[i]]");
  ASSERT_FALSE(one.spec.ops().empty());
  EXPECT_NE(Notes(one).find("decodes an image (PIL.Image.open"), std::string::npos) << Notes(one);
  const int64_t single = Micros(Getitem(one).duration());
  EXPECT_NE(Notes(eight).find("decodes 8 images (PIL.Image.open, 8 × 1080us"), std::string::npos)
      << Notes(eight);
  EXPECT_NE(Notes(eight).find("CenterCrop"), std::string::npos) << Notes(eight);
  EXPECT_NEAR(static_cast<double>(Micros(Getitem(eight).duration())),
              8.0 * static_cast<double>(single), 8.0)
      << Notes(eight);
  EXPECT_EQ(Getitem(looped).duration(), Getitem(eight).duration()) << Notes(looped);
  EXPECT_EQ(Getitem(unknown).duration(), Getitem(one).duration()) << Notes(unknown);
  EXPECT_NE(Notes(unknown).find("in a loop or comprehension whose count only the run knows"),
            std::string::npos)
      << Notes(unknown);
  EXPECT_EQ(Notes(eight).find("whose count only the run knows"), std::string::npos);
}

// keras.utils.Sequence as Keras's documentation writes it: a batch of file names sliced by
// bounds only the run knows (`self.x[low:high]`, high = min(low + self.batch_size, ...)),
// each decoded and resized. The slice is as long as the bounds differ by, the batch size the
// instance was made with, so every image of the batch is costed; a slice of bounds whose
// difference is unknown is counted once and said, and a slice of known bounds is the list's.
TEST(CodeTransformsTest, ABatchSlicedByItsIndexIsCostedImageByImage) {
  const std::string code = R"(import math
import numpy as np
from skimage.io import imread
from skimage.transform import resize
from tensorflow import keras

class Batches(keras.utils.Sequence):
    def __init__(self, x_set, y_set, batch_size):
        self.x, self.y = x_set, y_set
        self.batch_size = batch_size
    def __len__(self):
        return math.ceil(len(self.x) / self.batch_size)
    def __getitem__(self, idx):
%s
        return np.array([resize(imread(f), (200, 200)) for f in batch_x]), np.array([0])

x = ['img_%05d.png' % i for i in range(5000)]
model = keras.Sequential([keras.layers.Dense(1)])
model.fit(Batches(x, [0] * 5000, 32), epochs=1, workers=4)
)";
  const auto notes = [&](const std::string& part) { return Notes(ImportWith(code, part)); };
  for (const char* slice :
       {"        low = idx * self.batch_size\n"
        "        high = min(low + self.batch_size, len(self.x))\n"
        "        batch_x = self.x[low:high]",
        "        batch_x = self.x[idx * self.batch_size:(idx + 1) * self.batch_size]"}) {
    const std::string said = notes(slice);
    EXPECT_NE(said.find("decodes 32 images (skimage.io.imread, 32 × "), std::string::npos)
        << slice << "\n"
        << said;
    EXPECT_EQ(said.find("whose count only the run knows"), std::string::npos) << said;
  }
  const std::string unknown = notes("        batch_x = self.x[idx:idx * 2]");
  EXPECT_NE(unknown.find("whose count only the run knows"), std::string::npos) << unknown;
  EXPECT_NE(notes("        batch_x = self.x[2:5]").find("decodes 3 images"), std::string::npos);
}

// The image-captioning tutorial's __getitem__ indexes an HDF5 dataset (work whose cost the
// code does not show), then applies Normalize: the transform is costed, but the Python beside
// it stays a stand-in, so the verdict says it rests on one. With a decode instead, the cost
// is read.
TEST(CodeTransformsTest, TransformsBesideUnknownWorkLeaveTheCostAStandIn) {
  const std::string code = R"(import torch
import h5py
import torchvision.transforms as transforms
from PIL import Image
from torch.utils.data import Dataset, DataLoader

class Captions(Dataset):
    def __init__(self):
        self.t = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        img = %s
        return self.t(img)

loader = DataLoader(Captions(), batch_size=32, num_workers=1)
)";
  const auto read = [&](const std::string& part) { return ImportWith(code, part); };
  const ImportedCode indexed = read("torch.FloatTensor(self.imgs[i] / 255.)");
  ASSERT_FALSE(indexed.spec.ops().empty());
  EXPECT_TRUE(indexed.spec.ops(0).dataloader().getitem().cost_is_stand_in()) << Notes(indexed);
  const ImportedCode decoded = read("Image.open('a%d.jpg' % i)");
  EXPECT_FALSE(decoded.spec.ops(0).dataloader().getitem().cost_is_stand_in()) << Notes(decoded);
}

}  // namespace
}  // namespace pipescope::code
