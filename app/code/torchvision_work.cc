#include "app/code/torchvision_work.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/code/path_values.h"
#include "app/code/work_functions.h"
#include "engine/core/duration.h"

namespace pipescope::code {

namespace {

constexpr char kTransforms[] = "torchvision.transforms.";
constexpr char kDatasets[] = "torchvision.datasets.";

// What a transform's cost grows with: the pixels it reads (a resize filters every input
// pixel) or the ones it writes (a crop copies its output).
enum class Pixels { kInput, kOutput };

struct TransformCostRow {
  const char* name;
  double call_us;        // per call, whatever the image
  double per_mpixel_us;  // per million pixels of `basis`
  Pixels basis;
};

// scripts/measure-torchvision-costs, 9 runs, on the project's 2-core AMD EPYC machine with
// Debian's torchvision 0.14 and Pillow 9.4, quiet (2026-11-28; a second run within 10%). A
// 224×224 ToTensor costs 13.6 + 2137 × 0.050 ≈ 121 us. The same run put pil_loader's
// decode of a 500×375 JPEG at 1104 us, the engine's 1080 us (kDecodeJpegNs) within 3%.
constexpr TransformCostRow kTransformCosts[] = {
    {"ToTensor", 13.6, 2137, Pixels::kOutput},
    {"PILToTensor", 8.3, 505, Pixels::kOutput},
    {"Normalize", 13.3, 788, Pixels::kOutput},
    {"Resize", 26.2, 5513, Pixels::kInput},
    {"CenterCrop", 5.3, 84, Pixels::kOutput},
    {"RandomCrop", 15.5, 0, Pixels::kOutput},
    {"RandomResizedCrop", 19.4, 10888, Pixels::kOutput},
    {"RandomHorizontalFlip", 5.9, 240, Pixels::kOutput},
    {"RandomVerticalFlip", 5.7, 50, Pixels::kOutput},
    {"ColorJitter", 67.0, 18839, Pixels::kOutput},
    {"RandomRotation", 15.7, 1487, Pixels::kOutput},
    {"Grayscale", 3.0, 890, Pixels::kOutput},
    {"GaussianBlur", 129.7, 29218, Pixels::kOutput},
    {"RandomAffine", 17.0, 1588, Pixels::kOutput},
    {"AutoAugment", 134.7, 3424, Pixels::kOutput},
    {"RandAugment", 109.1, 6839, Pixels::kOutput},
    {"TrivialAugmentWide", 78.9, 3837, Pixels::kOutput},
    {"RandomGrayscale", 8.7, 293, Pixels::kOutput},
    {"RandomErasing", 16.7, 367, Pixels::kOutput},
};
// Image.fromarray of a 32×32 array, how CIFAR's, MNIST's and SVHN's __getitem__ make the
// image they transform (same script and run).
constexpr double kFromArrayUs = 4.3;

// torchvision.transforms.functional's functions and the transform each does the work of.
// The flips are measured as RandomHorizontalFlip's, which flips half the calls: a flip on
// every call counts its pixels twice.
struct FunctionalRow {
  const char* function;
  const char* transform;
  double pixel_share;
};
constexpr FunctionalRow kFunctionals[] = {
    {"resize", "Resize", 1},
    {"center_crop", "CenterCrop", 1},
    {"crop", "RandomCrop", 1},
    {"resized_crop", "RandomResizedCrop", 1},
    {"hflip", "RandomHorizontalFlip", 2},
    {"vflip", "RandomVerticalFlip", 2},
    {"to_tensor", "ToTensor", 1},
    {"pil_to_tensor", "PILToTensor", 1},
    {"normalize", "Normalize", 1},
    {"rotate", "RandomRotation", 1},
    {"affine", "RandomAffine", 1},
    {"gaussian_blur", "GaussianBlur", 1},
    {"rgb_to_grayscale", "Grayscale", 1},
    {"to_grayscale", "Grayscale", 1},
};
constexpr char kFunctional[] = "torchvision.transforms.functional.";

// scikit-image's transform.resize (0.19, Debian 12's) of a uint8 photo, anti-aliased as it is
// by default when it shrinks: a Gaussian over the input, then the interpolation, in float64.
// Its time grows with the input's pixels: scripts/measure-torchvision-costs 7, three runs on
// the project's 2-core machine (2026-12-05), gave 57–67 us a call and 74,575–80,259 us a
// megapixel (the medians here): 14.6 ms for a 500×375 photo, 14 times its JPEG's decode. An
// upscale costs more than its input says (36 ms for 500×375 to 683×512), which this leaves out.
constexpr char kSkimageResize[] = "skimage.transform.resize";
constexpr double kSkimageResizeCallUs = 58.9;
constexpr double kSkimageResizePerMpixelUs = 77632;

// Transforms of other transforms, and the ones that change nothing the cost model counts.
constexpr const char* kComposing[] = {"Compose", "RandomApply",       "RandomOrder",
                                      "Lambda",  "ConvertImageDtype", "ToPILImage"};

const TransformCostRow* CostRow(const std::string& name) {
  for (const TransformCostRow& row : kTransformCosts) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

std::string TransformName(const Value& v) { return v.s.substr(sizeof(kTransforms) - 1); }

// size=224 or size=(224, 160): height and width; false when the code computes it.
bool ReadSize(const Value* size, int64_t& height, int64_t& width) {
  if (!size) return false;
  if (const auto n = size->AsInt()) {
    height = width = *n;
    return true;
  }
  if (size->Is(Value::Kind::kList) && !size->items.empty()) {
    const auto h = size->items[0].AsInt();
    const auto w = size->items.size() > 1 ? size->items[1].AsInt() : h;
    if (!h || !w) return false;
    height = *h;
    width = *w;
    return true;
  }
  return false;
}

// skimage.transform.resize's output_shape: the whole array's, (rows, cols) keeping the
// channels, or three numbers with the channels first ((1, 224, 224), an X-ray's) or last
// ((224, 224, 3)), told apart by which end is at most 4; false when the code computes it.
bool ReadSkimageShape(const Value* shape, ImageShape& out) {
  if (!shape || !shape->Is(Value::Kind::kList)) return false;
  std::vector<int64_t> dims;
  for (const Value& item : shape->items) {
    const auto n = item.AsInt();
    if (!n) return false;
    dims.push_back(*n);
  }
  constexpr int64_t kMostChannels = 4;
  if (dims.size() == 2) {
    out.height = dims[0];
    out.width = dims[1];
  } else if (dims.size() == 3 && dims[0] <= kMostChannels && dims[2] > kMostChannels) {
    out.channels = dims[0];
    out.height = dims[1];
    out.width = dims[2];
  } else if (dims.size() == 3) {
    out.height = dims[0];
    out.width = dims[1];
    out.channels = dims[2];
  } else {
    return false;
  }
  return true;
}

// How a transform changes the image it is given.
void Reshape(const std::string& name, const CallArgs& args, ImageShape& shape) {
  int64_t h = 0, w = 0;
  if (name == "Resize" && args.Get(0, "size")) {
    const Value* size = args.Get(0, "size");
    if (const auto n = size->AsInt(); n && shape.height > 0 && shape.width > 0) {
      // One number: the shorter side becomes it, the aspect ratio kept.
      const double scale = static_cast<double>(*n) / std::min(shape.height, shape.width);
      shape.height = std::lround(static_cast<double>(shape.height) * scale);
      shape.width = std::lround(static_cast<double>(shape.width) * scale);
    } else if (ReadSize(size, h, w)) {
      shape.height = h;
      shape.width = w;
    }
  } else if ((name == "CenterCrop" || name == "RandomCrop" || name == "RandomResizedCrop") &&
             ReadSize(args.Get(0, "size"), h, w)) {
    shape.height = h;
    shape.width = w;
  } else if (name == "Grayscale") {
    const Value* n = args.Get(0, "num_output_channels");
    shape.channels = n && n->AsInt() ? *n->AsInt() : 1;
  } else if (name == "ToTensor") {
    // A float64 array (scikit-image's) stays float64: ToTensor divides only bytes.
    if (shape.form != ImageShape::Form::kFloat64Array) shape.form = ImageShape::Form::kFloatTensor;
  } else if (name == "PILToTensor") {
    shape.form = ImageShape::Form::kByteTensor;
  } else if (name == "ConvertImageDtype") {
    shape.form = ImageShape::Form::kFloatTensor;
  } else if (name == "ToPILImage") {
    shape.form = ImageShape::Form::kImage;
  }
}

std::string Us(double us) { return std::to_string(std::lround(us)) + "us"; }

void CostScaled(const Value& transform, double share, TransformsCost& cost);

void CostEach(const Value* list, double share, TransformsCost& cost) {
  if (!list || !list->Is(Value::Kind::kList)) {
    cost.not_costed.push_back(list ? list->Spelling() : std::string("?"));
    return;
  }
  for (const Value& t : list->items) CostScaled(t, share, cost);
}

const FunctionalRow* FunctionalOf(const std::string& path) {
  if (!path.starts_with(kFunctional)) return nullptr;
  const std::string name = path.substr(sizeof(kFunctional) - 1);
  for (const FunctionalRow& row : kFunctionals) {
    if (name == row.function) return &row;
  }
  return nullptr;
}

// An image function called on the image (ImageFunctionCall): its shape change and its cost.
void CostFunctionCall(const Value& call, double share, TransformsCost& cost) {
  const CallArgs& args = *call.call;
  const ImageShape before = cost.shape;
  if (call.s == kSkimageResize) {
    ReadSkimageShape(args.Get(1, "output_shape"), cost.shape);
    cost.shape.form = ImageShape::Form::kFloat64Array;
    const double pixels = static_cast<double>(before.height * before.width);
    const double us = share * (kSkimageResizeCallUs + kSkimageResizePerMpixelUs * pixels / 1e6);
    cost.ns += std::llround(us * 1000);
    cost.parts.push_back(std::string(kSkimageResize) + " " + Us(us));
    return;
  }
  const FunctionalRow* f = FunctionalOf(call.s);
  const std::string name = f->function;
  int64_t h = 0, w = 0;
  if (name == "resize" || name == "center_crop" || name == "resized_crop") {
    const Value* size = name == "resize"        ? args.Get(1, "size")
                        : name == "center_crop" ? args.Get(1, "output_size")
                                                : args.Get(5, "size");
    if (name == "resize" && size && size->AsInt() && before.height > 0 && before.width > 0) {
      const double scale =
          static_cast<double>(*size->AsInt()) / std::min(before.height, before.width);
      cost.shape.height = std::lround(static_cast<double>(before.height) * scale);
      cost.shape.width = std::lround(static_cast<double>(before.width) * scale);
    } else if (ReadSize(size, h, w)) {
      cost.shape.height = h;
      cost.shape.width = w;
    }
  } else if (name == "crop") {
    const auto height = args.Get(3, "height"), width = args.Get(4, "width");
    if (height && width && height->AsInt() && width->AsInt()) {
      cost.shape.height = *height->AsInt();
      cost.shape.width = *width->AsInt();
    }
  } else if (name == "rgb_to_grayscale" || name == "to_grayscale") {
    const Value* n = args.Get(1, "num_output_channels");
    cost.shape.channels = n && n->AsInt() ? *n->AsInt() : 1;
  } else if (name == "to_tensor") {
    if (cost.shape.form != ImageShape::Form::kFloat64Array) {
      cost.shape.form = ImageShape::Form::kFloatTensor;
    }
  } else if (name == "pil_to_tensor") {
    cost.shape.form = ImageShape::Form::kByteTensor;
  }
  const TransformCostRow* row = CostRow(f->transform);
  const ImageShape& measured_on = row->basis == Pixels::kInput ? before : cost.shape;
  const double pixels = static_cast<double>(measured_on.height * measured_on.width);
  const double us = share * (row->call_us + f->pixel_share * row->per_mpixel_us * pixels / 1e6);
  cost.ns += std::llround(us * 1000);
  cost.parts.push_back("TF." + name + " " + Us(us));
}

// `share`: the probability that the transform runs (RandomApply's p).
void CostScaled(const Value& transform, double share, TransformsCost& cost) {
  if (transform.Is(Value::Kind::kInstance) && transform.call &&
      IsCostedImageFunction(transform.s)) {
    CostFunctionCall(transform, share, cost);
    return;
  }
  if (!IsTorchvisionTransform(transform) || !transform.call) {
    if (!transform.Is(Value::Kind::kNone)) cost.not_costed.push_back(transform.Spelling());
    return;
  }
  const std::string name = TransformName(transform);
  const CallArgs& args = *transform.call;
  if (name == "Compose" || name == "RandomOrder") {
    CostEach(args.Get(0, "transforms"), share, cost);
    return;
  }
  if (name == "RandomApply") {
    const Value* p = args.Get(1, "p");
    const double chance = p && p->AsNumber() ? *p->AsNumber() : 0.5;
    CostEach(args.Get(0, "transforms"), share * chance, cost);
    return;
  }
  if (name == "Lambda") {
    cost.not_costed.push_back(transform.Spelling());
    return;
  }
  const ImageShape before = cost.shape;
  Reshape(name, args, cost.shape);
  const TransformCostRow* row = CostRow(name);
  if (!row) return;  // a conversion that costs nothing counted (ConvertImageDtype)
  const ImageShape& measured_on = row->basis == Pixels::kInput ? before : cost.shape;
  const double pixels = static_cast<double>(measured_on.height * measured_on.width);
  const double us = share * (row->call_us + row->per_mpixel_us * pixels / 1e6);
  cost.ns += std::llround(us * 1000);
  cost.parts.push_back(name + " " + Us(us));
}

Dialect::Function Made(const std::string& path) {
  return [path](PythonReader&, const CallArgs& a) {
    Value v{.kind = Value::Kind::kInstance, .s = path, .node = a.node};
    v.call = std::make_shared<const CallArgs>(a);
    return v;
  };
}

// A dataset of torchvision's: its length (train and test splits), the image its __getitem__
// makes before the transforms, and where its `transform` argument goes.
struct DatasetRow {
  const char* name;
  int64_t train_items, test_items;  // 0: the files under `root`, known only at run time
  int64_t height, width, channels;  // 0: a stand-in photo
  size_t transform_position;
  bool tensors;  // it keeps its images as a torch.Tensor (MNIST's), not a NumPy array
};
constexpr DatasetRow kDatasetRows[] = {
    {"ImageFolder", 0, 0, 0, 0, 3, 1, false},
    {"CIFAR10", 50000, 10000, 32, 32, 3, 2, false},
    {"CIFAR100", 50000, 10000, 32, 32, 3, 2, false},
    {"MNIST", 60000, 10000, 28, 28, 1, 2, true},
    {"FashionMNIST", 60000, 10000, 28, 28, 1, 2, true},
    {"KMNIST", 60000, 10000, 28, 28, 1, 2, true},
    {"SVHN", 73257, 26032, 32, 32, 3, 2, false},
};

const DatasetRow* DatasetOf(const Value* v) {
  if (!v || !v->Is(Value::Kind::kInstance) || !v->s.starts_with(kDatasets) || !v->call) {
    return nullptr;
  }
  const std::string name = v->s.substr(sizeof(kDatasets) - 1);
  for (const DatasetRow& row : kDatasetRows) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

// The split a dataset reads: CIFAR's and MNIST's train=, SVHN's split=.
bool TrainSplit(const DatasetRow& row, const CallArgs& args) {
  if (std::string(row.name) == "SVHN") {
    const Value* split = args.Get(1, "split");
    return !split || !split->Is(Value::Kind::kString) || split->s != "test";
  }
  const Value* train = args.Get(1, "train");
  return !train || !train->Is(Value::Kind::kBool) || train->b;
}

}  // namespace

std::map<std::string, Dialect::Function> TorchvisionConstructors() {
  std::map<std::string, Dialect::Function> functions;
  const auto add_transform = [&](const std::string& name) {
    functions["transforms." + name] = Made(kTransforms + name);
    functions["transforms.v2." + name] = Made(kTransforms + name);
  };
  for (const TransformCostRow& row : kTransformCosts) add_transform(row.name);
  for (const char* name : kComposing) add_transform(name);
  // The two names torchvision deprecated in 0.2 and later removed, which code written for its
  // first releases keeps (pytorch/examples' ImageNet script of 2017, pytorch#680): the
  // transforms they became.
  functions["transforms.RandomSizedCrop"] = Made(kTransforms + std::string("RandomResizedCrop"));
  functions["transforms.Scale"] = Made(kTransforms + std::string("Resize"));
  for (const DatasetRow& row : kDatasetRows) {
    functions[std::string("datasets.") + row.name] = Made(kDatasets + std::string(row.name));
  }
  return functions;
}

std::optional<DatasetInMemory> TorchvisionDatasetInMemory(const Value& dataset) {
  const DatasetRow* row = DatasetOf(&dataset);
  if (row == nullptr) return std::nullopt;
  // ImageFolder's samples, a (path, class) tuple each, and targets, a class each: 66 bytes
  // an item pickled with an ImageNet path (scripts/measure-python-costs).
  constexpr int64_t kFolderSampleBytes = 66;
  if (row->train_items == 0) return DatasetInMemory{.bytes_per_item = kFolderSampleBytes};
  if (row->height == 0) return std::nullopt;
  const int64_t items = TrainSplit(*row, *dataset.call) ? row->train_items : row->test_items;
  // Its images as one uint8 array, and a label of 8 bytes each (a list, or an int64 array).
  return DatasetInMemory{.bytes = items * (row->height * row->width * row->channels + 8),
                         .torch_tensors = row->tensors};
}

bool IsTorchvisionTransform(const Value& v) {
  return v.Is(Value::Kind::kInstance) && v.s.starts_with(kTransforms) &&
         !v.s.starts_with(kFunctional);
}

bool IsCostedImageFunction(const std::string& path) {
  return path == kSkimageResize || FunctionalOf(path) != nullptr;
}

Value ImageFunctionCall(const std::string& path, const CallArgs& args) {
  Value v{.kind = Value::Kind::kInstance, .s = path, .node = args.node};
  v.call = std::make_shared<const CallArgs>(args);
  return v;
}

void CostTransform(const Value& transform, TransformsCost& cost, int64_t times) {
  const size_t parts = cost.parts.size();
  CostScaled(transform, static_cast<double>(std::max<int64_t>(1, times)), cost);
  if (times <= 1) return;
  for (size_t i = parts; i < cost.parts.size(); ++i) {
    cost.parts[i] += " (" + std::to_string(times) + " images)";
  }
}

std::string DescribeParts(const TransformsCost& cost) {
  std::string text;
  for (const std::string& part : cost.parts) text += (text.empty() ? "" : " + ") + part;
  return text;
}

std::string NotCostedNote(const std::string& op, const std::string& transform) {
  return "'" + op + "' applies `" + transform +
         "`, a transform whose cost is not read: it counts nothing; --set " + op +
         ".cost=DURATION gives the whole call's";
}

ImageShape StandInPhoto() { return ImageShape{.height = 375, .width = 500, .channels = 3}; }

bool IsTorchvisionDataset(const Value* dataset) { return DatasetOf(dataset) != nullptr; }

void TorchvisionItems(Pipeline& p, const Value& dataset, spec::Op& loader, SourcePoint at) {
  const DatasetRow& row = *DatasetOf(&dataset);
  const CallArgs& args = *dataset.call;
  const std::string name = row.name;
  p.source.set_name("dataset");
  const int64_t items = TrainSplit(row, args) ? row.train_items : row.test_items;
  p.source.mutable_range()->set_stop(items > 0 ? items : kStandInRecords);
  if (items == 0) {
    const Value* root = args.Get(0, "root");
    const std::string spelled = root ? root->Spelling() : std::string("?");
    const std::optional<KnownFolder> known =
        root && root->Is(Value::Kind::kString) ? KnownDatasetFolder(root->s) : std::nullopt;
    if (known) {
      p.source.mutable_range()->set_stop(known->items);
      p.Note(at, "`" + spelled + "` names " + known->what + ": " + std::to_string(known->items) +
                     " of them stand in for the folder's files; --set dataset.stop=N where it "
                     "holds another count");
    } else {
      p.Note(at, "the images under `" + spelled + "` are known only when the code runs: " +
                     std::to_string(kStandInRecords) + " stand in; --set dataset.stop=N");
    }
  }
  TransformsCost cost;
  std::string made;
  if (row.height == 0) {
    cost.shape = StandInPhoto();
    cost.ns = kDecodeJpegNs;
    made = "pil_loader " + Us(static_cast<double>(kDecodeJpegNs) / 1000) +
           " (a 500×375 JPEG decoded, standing in for the files)";
    if (const Value* custom = args.Get(3, "loader"); custom && !custom->Is(Value::Kind::kNone)) {
      p.Note(at, name + "'s loader `" + custom->Spelling() +
                     "` is not read: PIL's decode of a JPEG stands in for it");
    }
  } else {
    cost.shape = ImageShape{.height = row.height, .width = row.width, .channels = row.channels};
    cost.ns = std::llround(kFromArrayUs * 1000);
    made = "Image.fromarray " + Us(kFromArrayUs);
  }
  if (const Value* t = args.Get(row.transform_position, "transform")) CostTransform(*t, cost);
  auto* getitem = loader.mutable_dataloader()->mutable_getitem();
  auto* python = getitem->mutable_python();
  python->set_duration(Us(static_cast<double>(cost.ns) / 1000));
  getitem->set_output_bytes(cost.shape.Bytes());
  if (row.height == 0) {
    // Each sample opens its own file: cheap from the page cache, a seek each from a hard disk.
    python->set_read_bytes(kStandInFileBytes);
    p.Note(at, name + "'s samples each read an image file, " +
                   engine::FormatBytes(kStandInFileBytes) +
                   " standing in (ImageNet's training JPEGs: 138 GB in 1,281,167 files), from "
                   "memory until the disk is named: --set storage.kind=hdd (or ssd, nvme) for "
                   "files on a disk the page cache does not hold, --set " +
                   loader.name() + ".read_bytes=SIZE for their size");
  }
  const std::string parts = DescribeParts(cost);
  p.Note(at, name + "'s __getitem__: " + made + (parts.empty() ? "" : " + " + parts) + " = " +
                 python->duration() +
                 " a sample (torchvision's costs measured by scripts/measure-torchvision-costs "
                 "on the project's 2-core machine); --set " +
                 loader.name() + ".cost=DURATION (or calibrate from a trace)");
  for (const std::string& unknown : cost.not_costed)
    p.LeaveOut(at, unknown, NotCostedNote(loader.name(), unknown), loader.name());
  if (cost.shape.form == ImageShape::Form::kImage) {
    p.Note(at, name +
                   "'s samples stay PIL images (no ToTensor or PILToTensor in its transform): "
                   "the DataLoader's default collate_fn cannot batch them");
  }
}

}  // namespace pipescope::code
