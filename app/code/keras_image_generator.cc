// Keras's ImageDataGenerator (keras.preprocessing.image, tf.keras's and keras_preprocessing's):
// flow(x, y, batch_size) and flow_from_directory(directory, target_size, batch_size) make a
// keras.utils.Sequence (NumpyArrayIterator, DirectoryIterator) whose __getitem__ makes a
// batch in Python, each sample through random_transform and standardize: an affine
// transform of each channel by scipy.ndimage (order 1, fill 'nearest') wherever a rotation,
// shift, shear or zoom range is set, and a flip (keras#610: the CIFAR-10 example's shifts add
// minutes an epoch). flow_from_directory loads each image first (PIL, resized to
// target_size). The Sequence is read as the keras_fit op `flow`: iterated by the training
// loop's own thread (workers 0), or by fit's enqueuer with fit's workers.
#include "app/code/keras_image_generator.h"

#include <algorithm>
#include <string>

#include "app/code/dialects.h"
#include "app/code/work_functions.h"
#include "engine/core/duration.h"

namespace pipescope::code {
namespace {

// scipy.ndimage.affine_transform of each channel (order 1, mode 'nearest'), as Keras's
// apply_affine_transform calls it, on a float32 image of h×w×3, measured on the project's
// 2-core machine, quiet, by scripts/measure-keras-augment-costs (2026-12-02, SciPy 1.10: 230
// us at 32×32, 613 us at 64×64, 3.25 ms at 150×150, 10.7 ms at 256×256): about 80 us a call
// and 150 ns a pixel.
constexpr int64_t kAffineCallNs = 80'000;
constexpr int64_t kAffineNsPerPixel = 150;
// A sample indexed out of an array in memory and stacked into the batch, without
// augmentation: next to nothing beside the transform.
constexpr int64_t kIndexSampleNs = 5'000;
// The side of a sample flow() takes where the code does not show its arrays' shape: the
// in-memory datasets Keras's examples augment (CIFAR-10, MNIST) are this small.
constexpr int64_t kStandInSide = 32;

bool SetsRange(const CallArgs& generator, const char* name) {
  const Value* v = generator.Get(name);
  if (!v) return false;
  if (v->Is(Value::Kind::kInt)) return v->i != 0;
  if (v->Is(Value::Kind::kFloat)) return v->f != 0;
  // A list of zoom bounds, a value only the run knows: read as set.
  return !v->Is(Value::Kind::kNone) && !v->Is(Value::Kind::kBool);
}

// What random_transform does per sample, by ImageDataGenerator's arguments: the ranges that
// make an affine transform, in the words of its arguments.
std::string AffineRanges(const CallArgs& generator) {
  std::string ranges;
  for (const char* name :
       {"rotation_range", "width_shift_range", "height_shift_range", "shear_range", "zoom_range"}) {
    if (SetsRange(generator, name)) ranges += (ranges.empty() ? "" : ", ") + std::string(name);
  }
  return ranges;
}

// One sample of h×w through random_transform: the affine transform where a range is set,
// else next to nothing (a flip alone).
int64_t SampleTransformNs(const CallArgs& generator, int64_t h, int64_t w) {
  return AffineRanges(generator).empty() ? kIndexSampleNs
                                         : kAffineCallNs + kAffineNsPerPixel * h * w;
}

// A sample's height and width: x's shape where the code shows it (an array of N×H×W×C).
std::pair<int64_t, int64_t> SideOf(const Value* x, bool& known) {
  known = false;
  if (x && x->Is(Value::Kind::kTensor) && x->items.size() >= 3) {
    const auto h = x->items[1].AsInt(), w = x->items[2].AsInt();
    if (h && w) {
      known = true;
      return {*h, *w};
    }
  }
  return {kStandInSide, kStandInSide};
}

// A sample's channels: x's last dimension where the code shows it (N×H×W×C), else 3.
int64_t ChannelsOf(const Value* x) {
  if (x && x->Is(Value::Kind::kTensor) && x->items.size() == 4) {
    if (const auto c = x->items[3].AsInt(); c && *c > 0) return *c;
  }
  return 3;
}

int64_t SamplesOf(const Value* x) {
  if (x && x->Is(Value::Kind::kTensor) && !x->items.empty()) {
    if (const auto n = x->items[0].AsInt(); n && *n > 0) return *n;
  }
  return -1;
}

// The Sequence `flow` over `samples` samples (-1: not known) of h×w×channels, `load_ns` to
// load each (flow_from_directory's file read and resize) before the generator's transforms.
Value Flow(PythonReader& r, const CallArgs& a, const CallArgs& generator, int64_t samples,
           int64_t h, int64_t w, int64_t channels, bool side_known, int64_t load_ns,
           const std::string& call) {
  auto p = r.NewPipeline("keras", a.node.start());
  const std::string op_name = "flow";
  const Value* batch_arg = a.Get(call == "flow" ? 2 : 100, "batch_size");
  const int64_t batch =
      batch_arg && batch_arg->AsInt() && *batch_arg->AsInt() > 0 ? *batch_arg->AsInt() : 32;
  p->source.set_name("indices");
  const int64_t known = samples > 0 ? samples : kStandInRecords;
  p->source.mutable_range()->set_stop((known + batch - 1) / batch);
  if (samples <= 0) {
    p->source.set_size_is_stand_in(true);
    p->Note(a.node.start(),
            "the samples " + call + "() goes over are known only when the code runs: " +
                std::to_string(kStandInRecords) + " samples in batches of " +
                std::to_string(batch) + " (" + std::to_string(p->source.range().stop()) +
                " batches) stand in where fit's steps_per_epoch does not say "
                "an epoch's batches; --set indices.stop=BATCHES");
  }
  const std::string ranges = AffineRanges(generator);
  const int64_t per_sample = load_ns + SampleTransformNs(generator, h, w);
  spec::Op op;
  op.set_name(op_name);
  auto* kf = op.mutable_keras_fit();
  kf->set_workers(0);  // a loop over the Sequence fetches each batch itself
  // In whole microseconds, as a `# pipescope:` comment would write it.
  kf->mutable_getitem()->mutable_python()->set_duration(
      engine::SpecDuration(per_sample * batch / 1000 * 1000));
  if (load_ns > 0) {
    // Each sample opens its own file: cheap from the page cache, a seek each from a hard disk
    // (keras#6503's first epoch, 2.69 s a batch of 256).
    kf->mutable_getitem()->mutable_python()->set_read_bytes(batch * kStandInFileBytes);
    kf->mutable_getitem()->mutable_python()->set_read_files(batch);
    p->Note(a.node.start(),
            "each batch reads its " + std::to_string(batch) + " image files, " +
                engine::FormatBytes(kStandInFileBytes) +
                " each standing in, from memory until the disk is named: --set "
                "storage.kind=hdd (or ssd, nvme) for files on a disk the page cache does not "
                "hold, --set " +
                op_name + ".read_bytes=SIZE for a batch's");
  }
  const std::string size =
      std::to_string(h) + "×" + std::to_string(w) + (side_known ? "" : " (standing in)");
  // Its batches are float32 (K.floatx()), whatever the images were: what worker processes
  // send back through their pipe, and the main process receives (keras-preprocessing#217's
  // 32 of 224×224×3: 19.3 MB a batch).
  const int64_t batch_bytes = batch * h * w * channels * 4;
  kf->mutable_getitem()->set_output_bytes(batch_bytes);
  p->Note(a.node.start(),
          "a batch is " + std::to_string(batch) + "×" + size + "×" + std::to_string(channels) +
              " in float32, " + engine::FormatBytes(batch_bytes) +
              ", what worker processes send back; --set " + op_name + ".sample_bytes=SIZE sets it");
  p->Note(a.node.start(),
          "ImageDataGenerator." + call + "() makes each batch of " + std::to_string(batch) +
              " in Python, sample by sample" +
              (load_ns > 0 ? ", each image loaded from its file (PIL) first" : "") +
              (ranges.empty()
                   ? std::string(": no rotation, shift, shear or zoom range is set, so "
                                 "no affine transform (flips and rescaling cost next to "
                                 "nothing beside ") +
                         (load_ns > 0 ? "the load)" : "the copy)")
                   : ": " + ranges + (ranges.find(", ") == std::string::npos ? " makes" : " make") +
                         " an affine transform of each sample's channels "
                         "(scipy.ndimage), about " +
                         engine::FormatDuration(kAffineCallNs + kAffineNsPerPixel * h * w) +
                         " for " + size + " here") +
              " = " + kf->getitem().python().duration() +
              " a batch; --set flow.cost=DURATION sets it. fit(..., workers=N, "
              "use_multiprocessing=True) runs it in N processes; a tf.data pipeline with "
              "Keras's preprocessing layers (RandomRotation, RandomTranslation) runs it as "
              "TensorFlow ops");
  p->ops.push_back(op);
  return PipelineValue(std::move(p), a);
}

// flow_from_directory and flow_from_dataframe: each sample loaded from its file (PIL,
// resized to target_size, 256×256 unless given, at `target_position`), their count known
// only when the code runs.
Value FromFiles(PythonReader& r, const CallArgs& a, size_t target_position,
                const std::string& call) {
  const CallArgs empty;
  const CallArgs& generator = a.receiver && a.receiver->call ? *a.receiver->call : empty;
  int64_t h = 256, w = 256;
  bool side_known = true;
  if (const Value* size = a.Get(target_position, "target_size");
      size && size->Is(Value::Kind::kList) && size->items.size() == 2) {
    const auto sh = size->items[0].AsInt(), sw = size->items[1].AsInt();
    side_known = sh && sw;
    if (side_known) h = *sh, w = *sw;
  }
  // color_mode: "rgb" (the default) loads 3 channels, "rgba" 4, "grayscale" 1.
  int64_t channels = 3;
  if (const Value* mode = a.Get(100, "color_mode"); mode && mode->Is(Value::Kind::kString)) {
    channels = mode->s == "grayscale" ? 1 : mode->s == "rgba" ? 4 : 3;
  }
  return Flow(r, a, generator, -1, h, w, channels, side_known, kDecodeJpegNs, call);
}

}  // namespace

int64_t RandomTransformNs(const Value& generator, const Value* image, std::string& part) {
  const CallArgs empty;
  const CallArgs& args = generator.call ? *generator.call : empty;
  // x is one sample (h×w×c): its first two dimensions, where the code shows them.
  int64_t h = kStandInSide, w = kStandInSide;
  bool known = false;
  if (image && image->Is(Value::Kind::kTensor) && image->items.size() >= 2) {
    const auto sh = image->items[0].AsInt(), sw = image->items[1].AsInt();
    if (sh && sw) {
      h = *sh, w = *sw;
      known = true;
    }
  }
  const int64_t ns = SampleTransformNs(args, h, w);
  const std::string ranges = AffineRanges(args);
  part = "ImageDataGenerator.random_transform " + engine::FormatDuration(ns) + " on " +
         std::to_string(h) + "×" + std::to_string(w) + (known ? "" : " (standing in)") +
         (ranges.empty() ? " (no affine range set)" : " (" + ranges + ": scipy.ndimage)");
  return ns;
}

void AddImageDataGenerator(Dialect& keras) {
  keras.functions["ImageDataGenerator"] = [](PythonReader&, const CallArgs& a) {
    Value generator{.kind = Value::Kind::kTransform, .s = "ImageDataGenerator", .node = a.node};
    generator.call = std::make_shared<const CallArgs>(a);
    return generator;
  };
  // datagen.fit(x): the featurewise statistics, once, before training: nothing of the input
  // pipeline, and no model's fit.
  keras.functions["ImageDataGenerator.fit"] = [](PythonReader&, const CallArgs& a) {
    return Value{.kind = Value::Kind::kNone, .node = a.node};
  };
  keras.functions["ImageDataGenerator.flow"] = [](PythonReader& r, const CallArgs& a) {
    const CallArgs empty;
    const CallArgs& generator = a.receiver && a.receiver->call ? *a.receiver->call : empty;
    const Value* x = a.Get(0, "x");
    bool side_known = false;
    const auto [h, w] = SideOf(x, side_known);
    return Flow(r, a, generator, SamplesOf(x), h, w, ChannelsOf(x), side_known, 0, "flow");
  };
  // datagen.random_transform(x): a sample of x's shape (the work is costed where the
  // function that calls it is read: work_functions.cc).
  keras.functions["ImageDataGenerator.random_transform"] = [](PythonReader&, const CallArgs& a) {
    const Value* x = a.Get(0, "x");
    return x ? *x : Value{.node = a.node};
  };
  keras.functions["ImageDataGenerator.flow_from_directory"] =
      [](PythonReader& r, const CallArgs& a) { return FromFiles(r, a, 1, "flow_from_directory"); };
  // flow_from_dataframe(dataframe, directory, x_col, y_col, weight_col, target_size, ...):
  // a DataFrameIterator, which loads the files the frame names as a DirectoryIterator does
  // (keras#12683's heavy augmentation over 130,000 images).
  keras.functions["ImageDataGenerator.flow_from_dataframe"] =
      [](PythonReader& r, const CallArgs& a) { return FromFiles(r, a, 5, "flow_from_dataframe"); };
}

}  // namespace pipescope::code
