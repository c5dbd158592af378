#pragma once
// torchvision's datasets and transforms as import-code reads them: ImageFolder, CIFAR, MNIST
// and SVHN (torchvision/datasets: how many items, how __getitem__ makes its image), and
// transforms.Compose of the transforms people write, each costed by what it measured in a
// DataLoader worker on this machine (scripts/measure-torchvision-costs), following the
// image's size through them.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/code/python_reader.h"

namespace pipescope::code {

// The datasets and transforms, by dotted path, for the torch dialect's function table.
std::map<std::string, Dialect::Function> TorchvisionConstructors();

// Whether `v` is a transform (or a Compose of them) that TorchvisionConstructors made.
bool IsTorchvisionTransform(const Value& v);

// Image functions whose cost is measured, called directly rather than made as a transform:
// torchvision.transforms.functional's (TF.resize(img, 256), TF.hflip(img): a segmentation
// dataset's image and mask transformed alike) and scikit-image's resize (PyTorch's data
// loading tutorial's Rescale). `path` is the call's as the code resolves it.
bool IsCostedImageFunction(const std::string& path);
// The call as a transform CostTransform costs in its place among the others.
Value ImageFunctionCall(const std::string& path, const CallArgs& args);

// An image on its way through the transforms.
struct ImageShape {
  int64_t height = 0, width = 0, channels = 3;
  // kFloat64Array: scikit-image's float64 result.
  enum class Form { kImage, kFloatTensor, kByteTensor, kFloat64Array } form = Form::kImage;
  int64_t Bytes() const {
    const int64_t each = form == Form::kFloatTensor ? 4 : form == Form::kFloat64Array ? 8 : 1;
    return height * width * channels * each;
  }
};

// What a transform costs a sample: `ns` in all, `parts` each costed transform with its cost
// ("RandomResizedCrop 846us"), `not_costed` the ones whose cost is not known (a Lambda, a
// transform not measured), and the image's shape after them.
struct TransformsCost {
  int64_t ns = 0;
  std::vector<std::string> parts;
  std::vector<std::string> not_costed;
  ImageShape shape;
};
// Applies `transform` to an image of `shape`, adding to `cost`; `times` images of that shape
// a call (a comprehension over a sample's three images), each costed alike.
void CostTransform(const Value& transform, TransformsCost& cost, int64_t times = 1);
// "RandomCrop 16us + ToTensor 16us"
std::string DescribeParts(const TransformsCost& cost);
// The note for a transform whose cost is not known, applied by `op`'s work.
std::string NotCostedNote(const std::string& op, const std::string& transform);

// A 500×375 RGB photo (a typical ImageNet JPEG): the image a file-reading __getitem__ stands
// in for, where the code cannot say what its files hold.
ImageShape StandInPhoto();

// Whether `dataset` is one of torchvision's datasets that TorchvisionItems reads.
bool IsTorchvisionDataset(const Value* dataset);
// What such a dataset keeps in memory: where it loads its split whole (CIFAR's, MNIST's and
// SVHN's arrays of images, and their labels) their bytes, and whether as torch tensors
// (MNIST's) or NumPy arrays; where it reads files by item (ImageFolder's), the entry it
// lists for each, a path and a class, as pickled. nullopt for another.
struct DatasetInMemory {
  int64_t bytes = 0;
  bool torch_tensors = false;
  int64_t bytes_per_item = 0;
};
std::optional<DatasetInMemory> TorchvisionDatasetInMemory(const Value& dataset);
// A DataLoader over such a dataset: its items as the source of `pipeline` and its
// __getitem__ (the image made, then the transform) as the loader op's work, with notes.
void TorchvisionItems(Pipeline& pipeline, const Value& dataset, spec::Op& loader, SourcePoint at);

}  // namespace pipescope::code
