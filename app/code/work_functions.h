#pragma once
// What a function handed to map, a DataLoader's __getitem__ or Keras's Sequence does, as the
// spec's work: the known TensorFlow functions it calls get their native work
// (parse_single_example with the feature spec read from the code, decode_csv, decode_jpeg, resize,
// random_crop, random_flip_left_right, per_image_standardization), a py_function or
// numpy_function Python work, and anything else a cost the user gives (`--set STAGE.cost=`).

#include <map>
#include <string>
#include <vector>

#include "app/code/code_values.h"
#include "app/code/python_reader.h"
#include "app/code/torchvision_work.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::code {

// A stage's cost when the code cannot say it: a parameter until set.
inline constexpr int64_t kDefaultStageNs = 100'000;
inline std::string DefaultStageCost() { return std::to_string(kDefaultStageNs / 1000) + "us"; }
// What decoding a typical JPEG costs the engine on this machine (the decode_jpeg stand-in):
// the stand-in for Python that decodes an image (PIL's Image.open, cv2.imread, torchvision's
// read_image), which costs that at least.
inline constexpr int64_t kDecodeJpegNs = 1'080'000;
// What one file a sample reads holds where the code does not say (the image such a decoder
// reads, an ImageFolder sample's, a file np.load or h5py opens): ImageNet's training JPEGs'
// mean, 138 GB in 1,281,167 files. Read from the spec's disk where one is named
// (Python::read_bytes), from memory otherwise.
inline constexpr int64_t kStandInFileBytes = 108'000;

// What TensorFlow pays to call a tf.data map's function once, beside the function's own
// ops: the dispatch of the traced function on each element, which batching before the map
// pays once per batch (mrry's answer to seed 001, tf.data's guide, "Vectorizing mapping").
// From tensorflow#390's figures: parsing each Example 25,000 samples/s, batches of them
// 32,000, which is 9 µs a call beside the parse. TensorFlow is not at hand to measure here;
// the note says so and `--set OP.call_overhead=` replaces it.
inline constexpr int64_t kTfDataCallOverheadNs = 9'000;
inline std::string TfDataCallOverhead() {
  return std::to_string(kTfDataCallOverheadNs / 1000) + "us";
}

struct StageWork {
  std::string name;  // the user's function, or the known function a lambda calls
  spec::WorkFunction fn;
  bool cost_is_parameter = false;       // fn's duration is DefaultStageCost(), for the user to set
  std::vector<std::string> also_calls;  // known work the function does beside fn's
  // Calls of unknown cost beside the known work fn models (keras#15191's
  // image_preprocessing.transform beside resize): not in fn, and noted.
  std::vector<std::string> uncosted_calls;
  bool random = false;  // it draws random numbers (tf.image.random_*, tf.random.*, np.random)
  // The tf.function a tf.py_function runs (tensorflow#32454's generate_feature): TensorFlow's
  // ops already, which the map could run without the bridge into Python.
  std::string bridged_tf_function;
  // A TensorFlow call it makes that takes one element at a time (tf.io.decode_jpeg,
  // tf.io.read_file), as the code spells it: the function cannot be mapped over a batch.
  std::string one_element_call;
  // Files it reads that it is given (tf.io.read_file), a call: its calls of the read, as
  // many as its loops say (an image and its pair: 2).
  int64_t files_read = 0;
  // Python that loads files each call (np.load, torch.load, h5py.File, pickle.load, open),
  // as many as its loops say, and those calls as the code spells them.
  int64_t file_loads = 0;
  std::vector<std::string> file_load_calls;
  // Of those, files a worker opens on its first item and keeps (`if self.h is None: self.h =
  // h5py.File(...)`): each item's load a read of the file, not an open.
  int64_t files_opened_once = 0;
  // Its calls whose batched form has another name (parse_single_example: parse_example),
  // which the function must call instead once it is mapped over batches.
  std::vector<Rename> batched_renames;
  // Python that decodes an image, by the call that does ("PIL.Image.open"): its cost stands
  // at kDecodeJpegNs instead of DefaultStageCost().
  std::string decodes_image;
  int64_t images = 0;  // how many a call, where it decodes in a loop of known count (3 paths)
  // Its costed work (a decode, a transform) runs in a loop or comprehension whose count only
  // the run knows (`[pil_loader(p) for p in paths]`): counted once a call, and said.
  bool repeats_uncounted = false;
  // It calls time.sleep for seconds only the run knows (a sleep of known seconds is the
  // Python's wait, in fn).
  bool sleeps_unknown = false;
  // A sleep of known seconds under a condition, as written: counted on every call where the
  // code does not say how often it holds (`if i > 10:`), averaged where it does (`if idx %
  // 10 == 0:`, sleep_one_in 10).
  std::string sleep_condition;
  int64_t sleep_one_in = 0;
  // torchvision transforms it applies (a Compose it builds, or the Dataset's own
  // self.transform where the instance was made with one): their cost is in fn's, and the
  // image they make is its output.
  TransformsCost transforms;
  // Its transforms include Keras's random_transform of arrays in memory, not only images
  // decoded from files (whose transforms are costed on a stand-in photo).
  bool augments_arrays = false;
  // It does nothing but sleep (IsPlainPython): its Python is taken as nothing beside the wait.
  bool only_sleeps = false;
  // TensorFlow math an accelerator runs (tf.signal.rfft, tf.linalg.matmul, tf.nn.conv2d), as
  // the code calls it, once each: in a tf.data map it runs on the CPU (tensorflow#40755).
  std::vector<std::string> accelerator_math;
  bool asks_a_device = false;  // it calls tf.device, which a map's function runs without
  // What it returns, where a method read with its instance's attributes shows it (a sample
  // __getitem__ makes in memory, `return torch.randn(3, 64, 64), 0`).
  Value returned;
  // Native calls that release the interpreter lock while they work (OpenCV's, PIL's decodes
  // and transforms, NumPy's file loads), as the code calls them, once each: where threads of
  // one process share it, only the rest of a call's time takes turns (its gil_share).
  std::vector<std::string> lock_releasing_calls;
};

// Python whose own cost is next to nothing beside its sleeps: no loop, and no call but of
// builtins (len, range, print, int, ...), time's clocks and sleeps, and py_function's bridge
// to a function that is itself plain (the tf.data guide's mapped_function, which only
// sleeps). Its Python is then not a stand-in: the call's overhead is the cost.
bool IsPlainPython(PythonReader& reader, const SyntaxNode& node, int depth = 0);

// `fallback` names the stage when the function has no name and calls nothing known. With
// `python` the work is Python whatever it calls (a DataLoader's or Keras's getitem).
// `self_attributes`: what a method's `self.x` is for the instance the work runs on (a
// Dataset made with transform=...), where it differs from the class's defaults.
StageWork ReadWork(PythonReader& reader, const Value& function, const std::string& fallback,
                   bool python = false,
                   const std::map<std::string, Value>* self_attributes = nullptr);

// tf.io.decode_csv's work from its arguments as the code gives them (any may be null):
// record_defaults (a list: its length is the columns a line has, or the selected ones with
// select_cols), field_delim, use_quote_delim and select_cols. CsvDataset and
// make_csv_dataset parse their lines with the same.
spec::WorkFunction CsvWork(const Value* record_defaults, const Value* field_delim,
                           const Value* na_value, const Value* use_quote_delim,
                           const Value* select_cols);

// tf.string -> "bytes", tf.int64 -> "int64", tf.float32 -> "float"; empty when unknown.
std::string FeatureDtype(const Value& dtype);

}  // namespace pipescope::code
