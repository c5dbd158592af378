#include "app/code/work_functions.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "app/code/filter_predicates.h"
#include "app/code/keras_image_generator.h"
#include "engine/core/duration.h"
#include "engine/spec/work_bytes.h"

namespace pipescope::code {

namespace {

bool EndsWithName(const std::string& path, const std::string& key) {
  return path == key || (path.size() > key.size() && path.ends_with("." + key));
}

int64_t IntOr(const Value* v, int64_t fallback) {
  if (!v) return fallback;
  const auto n = v->AsInt();
  return n ? *n : fallback;
}

// [h, w] or [h, w, c] from a size argument; false when not written as numbers.
bool ReadSize(const Value* size, int64_t& height, int64_t& width) {
  if (!size || !size->Is(Value::Kind::kList) || size->items.size() < 2) return false;
  const auto h = size->items[0].AsInt(), w = size->items[1].AsInt();
  if (!h || !w) return false;
  height = *h;
  width = *w;
  return true;
}

// A TensorFlow function with native work in the spec. `rank` orders them by cost, so that a
// function calling several is modelled by its heaviest: decoding an image costs more than
// resizing it, and both more than a flip.
struct KnownWork {
  const char* name;
  int rank;
  std::function<void(const CallArgs&, spec::WorkFunction&)> build;
};

void BuildParse(const CallArgs& args, spec::WorkFunction& fn) {
  auto* parse = fn.mutable_parse_example();
  const Value* features = args.Get(1, "features");
  if (!features || !features->Is(Value::Kind::kDict)) return;
  for (size_t k = 0; k + 1 < features->items.size(); k += 2) {
    const Value& key = features->items[k];
    const Value& feature = features->items[k + 1];
    if (!key.Is(Value::Kind::kString) || !feature.Is(Value::Kind::kFeature) || !feature.feature) {
      continue;
    }
    spec::FeatureSpec f = *feature.feature;
    f.set_name(key.s);
    *parse->add_features() = f;
  }
}

void BuildToFloat(const CallArgs&, spec::WorkFunction& fn) {
  fn.mutable_normalize()->set_mean(0);
  fn.mutable_normalize()->set_stddev(1);
}

// decode_jpeg(example["image"]): the feature the bytes come from, where the code names it.
void BuildDecode(const CallArgs& args, spec::WorkFunction& fn) {
  auto* decode = fn.mutable_decode_jpeg();
  const Value* contents = args.Get(0, "contents");
  if (!contents || !contents->node.Is("subscript")) return;
  const SyntaxNode key = contents->node.field("subscript");
  if (!key.Is("string")) return;
  std::string_view text = key.text();
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
      text.back() == text.front()) {
    decode->set_feature(std::string(text.substr(1, text.size() - 2)));
  }
}

void BuildResize(const CallArgs& args, spec::WorkFunction& fn) {
  int64_t h = 224, w = 224;
  ReadSize(args.Get(1, "size"), h, w);
  fn.mutable_resize()->set_height(h);
  fn.mutable_resize()->set_width(w);
}

void BuildCsv(const CallArgs& args, spec::WorkFunction& fn) {
  // tf.io.decode_csv(records, record_defaults, field_delim, use_quote_delim, ...): the later
  // positions differ between TensorFlow 1 and 2, so na_value and select_cols by keyword only.
  fn = CsvWork(args.Get(1, "record_defaults"), args.Get(2, "field_delim"), args.Get("na_value"),
               args.Get(3, "use_quote_delim"), args.Get("select_cols"));
}

const std::vector<KnownWork>& KnownWorks() {
  static const std::vector<KnownWork> works = {
      {"decode_jpeg", 5, BuildDecode},
      {"decode_image", 5, BuildDecode},
      // Only the crop's rows and blocks are decoded (jpeg_crop_scanline): a whole image's
      // decode is what it costs at most, and stands in.
      {"decode_and_crop_jpeg", 5, BuildDecode},
      {"parse_single_example", 4, BuildParse},
      {"decode_csv", 4, BuildCsv},
      {"parse_example", 4, BuildParse},
      {"resize", 3, BuildResize},
      {"resize_images", 3, BuildResize},
      {"random_crop", 2,
       [](const CallArgs& args, spec::WorkFunction& fn) {
         int64_t h = 224, w = 224;
         ReadSize(args.Get(1, "size"), h, w);
         fn.mutable_random_crop()->set_height(h);
         fn.mutable_random_crop()->set_width(w);
         fn.mutable_random_crop()->set_seed(IntOr(args.Get(2, "seed"), 0));
       }},
      {"random_flip_left_right", 1,
       [](const CallArgs& args, spec::WorkFunction& fn) {
         fn.mutable_random_flip()->set_seed(IntOr(args.Get(1, "seed"), 0));
       }},
      {"per_image_standardization", 1, BuildToFloat},
      // tf.cast(x, tf.float32): every value as float32, what normalize(0, 1) does (a cast
      // to an integer type is no work of the spec's).
      {"cast", 0, BuildToFloat},
      // tf.fill([x], x): the variable-length elements of tf.data's padded_batch examples.
      {"fill", 2, [](const CallArgs&, spec::WorkFunction& fn) { fn.mutable_fill(); }},
  };
  return works;
}

const KnownWork* FindKnown(const std::string& path, const CallArgs& args) {
  // Only TensorFlow's: a user's own `resize` is not tf.image.resize.
  if (path.rfind("tf.", 0) != 0) return nullptr;
  for (const KnownWork& k : KnownWorks()) {
    if (!EndsWithName(path, k.name)) continue;
    if (std::string(k.name) == "cast") {
      const Value* dtype = args.Get(1, "dtype");
      if (!dtype || FeatureDtype(*dtype) != "float") return nullptr;
    }
    return &k;
  }
  return nullptr;
}

// Python's image decoders, as a DataLoader's __getitem__ calls them.
bool DecodesImage(const std::string& path) {
  for (const char* name :
       {"PIL.Image.open", "cv2.imread", "torchvision.io.read_image", "torchvision.io.decode_image",
        "torchvision.io.decode_jpeg", "imageio.imread", "imageio.v3.imread", "skimage.io.imread"}) {
    if (path == name) return true;
  }
  return false;
}

// Native code that releases the interpreter lock while it works: every OpenCV function,
// PIL's decodes and transforms (ImagingSectionEnter), NumPy's file loads and FFTs, SciPy's
// ndimage filters. h5py is not among them: it holds a lock of its own around every call.
bool ReleasesTheLock(const std::string& path) {
  for (const char* prefix : {"cv2.", "PIL.", "numpy.fft.", "np.fft.", "scipy.ndimage."}) {
    if (path.starts_with(prefix)) return true;
  }
  for (const char* name : {"numpy.load", "np.load", "numpy.fromfile", "np.fromfile"}) {
    if (path == name) return true;
  }
  return false;
}

// Of those, the ones that read the image from a file they are given the name of (the others
// decode bytes already read).
bool ReadsImageFile(const std::string& path) {
  return DecodesImage(path) && !path.starts_with("torchvision.io.decode_");
}

// Python's calls that load a file from storage, whole or in part, as a Dataset's __getitem__
// calls them (images apart: DecodesImage). A file object's own reads (pickle.load(f),
// json.load(f)) are its open's.
bool LoadsAFile(const std::string& path) {
  for (const char* name :
       {"open", "io.open", "numpy.load", "numpy.fromfile", "numpy.loadtxt", "numpy.genfromtxt",
        "torch.load", "h5py.File", "pandas.read_csv", "pandas.read_parquet", "pandas.read_pickle",
        "scipy.io.loadmat", "soundfile.read", "librosa.load", "nibabel.load", "SimpleITK.ReadImage",
        "zarr.open"}) {
    if (path == name) return true;
  }
  return false;
}

// `self.h = h5py.File(path)` under `if self.h is None:` (or `if not hasattr(self, "h"):`) in
// __getitem__: a file each worker opens on its first item and keeps (pytorch#11929's advice),
// each item then a read of it rather than an open.
bool OpenedOncePerWorker(const SyntaxNode& call) {
  SyntaxNode made = call;
  while (made.parent().Is("subscript") || made.parent().Is("attribute")) made = made.parent();
  const SyntaxNode assignment = made.parent();
  if (!assignment.Is("assignment") || assignment.field("right").index() != made.index()) {
    return false;
  }
  const SyntaxNode target = assignment.field("left");
  if (!target.Is("attribute") || target.field("object").text() != "self") return false;
  const std::string attribute(target.field("attribute").text());
  const auto names = [&attribute](std::string_view condition) {
    for (const std::string& spelled :
         {"self." + attribute, "'" + attribute + "'", "\"" + attribute + "\""}) {
      for (size_t at = condition.find(spelled); at != std::string_view::npos;
           at = condition.find(spelled, at + 1)) {
        const size_t after = at + spelled.size();
        if (after == condition.size() ||
            !(std::isalnum(static_cast<unsigned char>(condition[after])) ||
              condition[after] == '_')) {
          return true;
        }
      }
    }
    return false;
  };
  for (SyntaxNode up = assignment.parent(); !up.null() && !up.Is("function_definition");
       up = up.parent()) {
    if (up.Is("if_statement") && names(up.field("condition").text())) return true;
  }
  return false;
}

// A call whose first argument names the file object a `with open(...) as f:` around it
// made (`Image.open(f)` in torchvision's pil_loader).
bool OfAnOpenedFile(const CallArgs& args) {
  const auto arguments = args.node.field("arguments").code_children();
  if (arguments.empty() || !arguments[0].Is("identifier")) return false;
  const std::string_view file = arguments[0].text();
  for (SyntaxNode up = args.node.parent(); !up.null(); up = up.parent()) {
    if (!up.Is("with_statement")) continue;
    for (const SyntaxNode& clause : up.code_children()) {
      if (!clause.Is("with_clause")) continue;
      for (const SyntaxNode& item : clause.code_children()) {
        const SyntaxNode value = item.field("value");
        const auto parts = value.code_children();
        if (!value.Is("as_pattern") || parts.empty() || !parts[0].Is("call")) continue;
        const std::string_view opener = parts[0].field("function").text();
        const auto alias = value.field("alias").code_children();
        if ((opener == "open" || opener == "io.open") && !alias.empty() &&
            alias[0].text() == file) {
          return true;
        }
      }
    }
  }
  return false;
}

// tf.io.read_file (tf.read_file in TF 1): a map's read of the file its element names.
bool ReadsTheNamedFile(const std::string& path) {
  return path.rfind("tf.", 0) == 0 && EndsWithName(path, "read_file");
}

// TensorFlow's calls that take one element, a scalar string: an image's encoded bytes, a
// file's name, a WAV's bytes. A function that calls one cannot be mapped after batch
// (parse_single_example can: its batched form is parse_example).
bool TakesOneElement(const std::string& path) {
  if (path.rfind("tf.", 0) != 0) return false;
  for (const char* name : {"decode_jpeg", "decode_png", "decode_image", "decode_gif", "decode_bmp",
                           "decode_and_crop_jpeg", "decode_webp", "read_file", "decode_wav",
                           "decode_audio", "encode_jpeg", "encode_png"}) {
    if (EndsWithName(path, name)) return true;
  }
  return false;
}

// TensorFlow's parsers of one record whose batched form is another function: the name to call
// once the map takes batches (mrry's answer to seed 001: "Use tf.parse_example() to operate
// on batches of records"); null for any other call.
const char* BatchedName(const std::string& path) {
  if (path.rfind("tf.", 0) != 0) return nullptr;
  if (EndsWithName(path, "parse_single_example")) return "parse_example";
  if (EndsWithName(path, "parse_single_sequence_example")) return "parse_sequence_example";
  return nullptr;
}

bool IsPythonBridge(const std::string& path) {
  return EndsWithName(path, "py_function") || EndsWithName(path, "numpy_function") ||
         EndsWithName(path, "py_func");
}

constexpr std::string_view kPlainBuiltins[] = {"range",     "len",  "print", "int", "float",
                                               "str",       "bool", "min",   "max", "abs",
                                               "enumerate", "zip",  "tuple", "list"};

}  // namespace

namespace {

bool PlainPythonWalk(PythonReader& reader, const SyntaxNode& node, int depth) {
  if (node.null()) return true;
  if (depth > 16) return false;
  if (node.Is("for_statement") || node.Is("while_statement") || node.Is("list_comprehension") ||
      node.Is("generator_expression")) {
    return false;
  }
  if (node.Is("call")) {
    const SyntaxNode callee = node.field("function");
    const std::string_view name = callee.text();
    const bool builtin = callee.Is("identifier") &&
                         std::find(std::begin(kPlainBuiltins), std::end(kPlainBuiltins), name) !=
                             std::end(kPlainBuiltins);
    if (!builtin) {
      const Value f = reader.Evaluate(callee);
      const std::string path = f.Is(Value::Kind::kSymbol) ? CanonicalPath(f.s) : "";
      if (f.Is(Value::Kind::kFunction)) {
        // A def of the file's it calls: plain where its body is.
        if (!PlainPythonWalk(reader, f.node.field("body"), depth + 1)) {
          return false;
        }
      } else if (IsPythonBridge(path)) {
        // The bridge's own function, by name (a lambda is walked below as a child).
        const auto args = node.field("arguments").code_children();
        if (!args.empty() && args[0].Is("identifier")) {
          const Value bridged = reader.Evaluate(args[0]);
          if (!bridged.Is(Value::Kind::kFunction) ||
              !PlainPythonWalk(reader, bridged.node.field("body"), depth + 1)) {
            return false;
          }
        }
      } else if (!path.starts_with("time.")) {
        return false;
      }
    }
  }
  for (const SyntaxNode& c : node.named_children()) {
    if (!PlainPythonWalk(reader, c, depth + 1)) return false;
  }
  return true;
}

}  // namespace

// A walk started while another is under way (evaluating a call's callee built a pipeline
// whose map read its function, which walks again) answers "not plain" at once: each level
// evaluated whole chains again, and a file whose def maps itself took minutes to read (the
// fuzzer's).
bool IsPlainPython(PythonReader& reader, const SyntaxNode& node, int depth) {
  if (reader.plain_walks_under_way > 0) return false;
  ++reader.plain_walks_under_way;
  const bool plain = PlainPythonWalk(reader, node, depth);
  --reader.plain_walks_under_way;
  return plain;
}

namespace {

// The image a TensorFlow function makes, as its calls decide in the order they run: a
// decode's channels (3 unless channels= says) in uint8, a resize's height and width in
// float32 (tf.image.resize's), a crop's or a pad's height and width, float32 after
// convert_image_dtype or per_image_standardization. Where a function makes an image and a
// mask, the last one made counts.
struct ImageMade {
  int64_t channels = 3;
  int64_t value_bytes = 1;
  int64_t height = 0;  // 0: no call fixed it
  int64_t width = 0;
  std::optional<int64_t> Bytes() const {
    if (height <= 0 || width <= 0) return std::nullopt;
    return height * width * channels * value_bytes;
  }
};

// The bytes of a value of the dtype `dtype` names (tf.float32: 4); 0 where it names none.
int64_t DtypeBytes(const Value* dtype) {
  if (!dtype) return 0;
  const std::string t = dtype->Is(Value::Kind::kSymbol)   ? dtype->SymbolTail()
                        : dtype->Is(Value::Kind::kString) ? dtype->s
                                                          : std::string();
  if (t == "uint8" || t == "int8" || t == "bool") return 1;
  if (t == "float16" || t == "bfloat16" || t == "uint16" || t == "int16") return 2;
  if (t == "float32" || t == "int32" || t == "uint32") return 4;
  if (t == "float64" || t == "int64" || t == "uint64") return 8;
  return 0;
}

void TrackImage(const std::string& path, const CallArgs& args, ImageMade& image) {
  if (path.rfind("tf.", 0) != 0) return;
  const auto positive = [](const Value* v) -> int64_t {
    const auto n = v ? v->AsInt() : std::nullopt;
    return n && *n > 0 ? *n : 0;
  };
  if (EndsWithName(path, "decode_jpeg") || EndsWithName(path, "decode_png") ||
      EndsWithName(path, "decode_image") || EndsWithName(path, "decode_bmp")) {
    const int64_t channels = positive(args.Get(1, "channels"));
    image = ImageMade{.channels = channels > 0 ? channels : 3};
  } else if (EndsWithName(path, "resize") || EndsWithName(path, "resize_images")) {
    int64_t h = 0, w = 0;
    ReadSize(args.Get(1, "size"), h, w);
    image.height = h;
    image.width = w;
    image.value_bytes = 4;
  } else if (EndsWithName(path, "random_crop")) {
    const Value* size = args.Get(1, "size");
    int64_t h = 0, w = 0;
    ReadSize(size, h, w);
    image.height = h;
    image.width = w;
    if (h > 0 && size->items.size() >= 3) {
      if (const int64_t c = positive(&size->items[2])) image.channels = c;
    }
  } else if (EndsWithName(path, "resize_with_crop_or_pad") ||
             EndsWithName(path, "resize_image_with_crop_or_pad")) {
    image.height = positive(args.Get(1, "target_height"));
    image.width = positive(args.Get(2, "target_width"));
  } else if (EndsWithName(path, "convert_image_dtype")) {
    if (const int64_t bytes = DtypeBytes(args.Get(1, "dtype"))) image.value_bytes = bytes;
  } else if (EndsWithName(path, "per_image_standardization")) {
    image.value_bytes = 4;
  }
}

struct Found {
  const KnownWork* heaviest = nullptr;
  CallArgs heaviest_args;
  std::string heaviest_path;         // as the code calls it ("tf.image.resize")
  std::vector<std::string> known;    // every known function called, in order, once each
  std::string bridged;               // the function a py_function runs, when named
  bool bridged_tf_function = false;  // and that function is a tf.function
  bool python = false;
  bool random = false;
  std::vector<std::string> user_functions;    // the file's own functions it calls
  std::string decodes_image;                  // the first Python image decoder it calls
  std::string one_element_call;               // the first TensorFlow call taking one element
  std::string fixed_shape_call;               // the first giving the element a literal shape
  int64_t files_read = 0;                     // its tf.io.read_file calls, times counted
  std::vector<Rename> batched_renames;        // calls whose batched form is named otherwise
  std::vector<std::string> accelerator_math;  // IsAcceleratorMath calls, once each
  std::vector<std::string> lock_releasing;    // ReleasesTheLock calls, once each
  bool asks_a_device = false;                 // a call of tf.device
  // torchvision transforms it applies, in order, and how often each runs a call (`times`).
  std::vector<std::pair<Value, int64_t>> transforms;
  // How often the call being read runs a call of the function: the loops and comprehensions
  // around it and around the calls that led to it (RecordedCall::times), and whether one's
  // count is known only when the code runs (then counted once, and said).
  int64_t times = 1;
  bool times_unknown = false;
  int64_t images = 0;                           // images it decodes a call, counted so
  bool repeats_uncounted = false;               // costed work in a loop whose count is not known
  std::vector<std::string> unknown_transforms;  // self.x it calls, bound to what is not known
  // Keras's ImageDataGenerator.random_transform calls: their cost, times counted, and what
  // each says of it.
  int64_t augment_ns = 0;
  std::vector<std::string> augment_parts;
  const std::map<std::string, Value>* self_attributes = nullptr;
  Value returned;            // the function's, read with self_attributes
  int cheap_calls = 0;       // TensorFlow calls on small values (IsCheapTfCall)
  bool other_calls = false;  // calls neither known, cheap, the file's own nor builtins
  std::vector<std::string> other_call_paths;  // those calls, as the code spells them, once each
  // Its time.sleep(seconds) calls of known seconds, each once, averaged over the calls where
  // a condition says how often it runs (`if idx % 10 == 0:`: one call in 10).
  int64_t sleeps_ns = 0;
  // Files it loads whole or in part each call (np.load, torch.load, h5py.File, ...), counted
  // as often as its loops turn, and the calls as the code spells them, once each.
  int64_t file_loads = 0;
  std::vector<std::string> file_load_calls;
  int64_t opened_once = 0;  // of those, files a worker opens on its first item and keeps
  // The first sleep under a condition (`if i > 10:`), as written, for the note.
  std::string sleep_condition;
  int64_t sleep_one_in = 0;      // how often that condition holds, one call in this; 0: unsaid
  std::set<size_t> sleeps_read;  // where those calls are: a def's, read again, counts once
  bool sleeps_unknown = false;   // a time.sleep whose seconds only the run knows
  ImageMade image;               // what its image calls make of the image, in order
};

// TensorFlow calls that reshape, relabel or convert small values (a label's tf.cast to
// int64, tf.one_hot, tf.expand_dims, TensorFlow 1's tf.to_int32, a fixed-length record's
// bytes read as numbers by tf.decode_raw): next to nothing beside a map's call itself, where
// the stand-in for work the code does not show is 100 us (tensorflow#30646's labeler, and
// MNIST's one-byte label decoded, each blamed for the whole pipeline's wait).
bool IsCheapTfCall(const std::string& path) {
  if (path.rfind("tf.", 0) != 0) return false;
  for (const char* name : {"cast",      "constant",     "reshape",    "expand_dims",
                           "squeeze",   "identity",     "one_hot",    "convert_to_tensor",
                           "shape",     "size",         "ones_like",  "zeros_like",
                           "zeros",     "ones",         "stack",      "unstack",
                           "transpose", "ensure_shape", "decode_raw", "to_int32",
                           "to_int64",  "to_float",     "to_double",  "bitcast"}) {
    if (EndsWithName(path, name)) return true;
  }
  return false;
}

// tf.reshape(x, [1]), tf.ensure_shape(x, [28, 28]): a literal shape of one element's (its
// first dimension a number, not -1 or None): after a batch the call meets a batch of them
// and fails (tensorflow#14480's `lambda i: tf.reshape(i, [1])`). The call as the code spells
// it, or "".
std::string FixesTheElementsShape(const RecordedCall& call) {
  if (!EndsWithName(call.path, "reshape") && !EndsWithName(call.path, "ensure_shape")) return {};
  const Value* shape = call.args.Get(1, "shape");
  if (!shape || !shape->Is(Value::Kind::kList) || shape->items.empty()) return {};
  const auto first = shape->items[0].AsInt();
  if (!first || *first < 0) return {};  // -1 (or a name) may well be the batch's
  return call.path + "(..., " + shape->Spelling() + ")";
}

// TensorFlow's math that an accelerator does far faster than a core: Fourier transforms,
// matrix products, convolutions, a whole network's forward pass. tf.data places a map's
// function on the CPU whatever devices the machine has, tf.device inside it included
// (tensorflow#40755: an rfft mapped over a dataset against the same function called on the
// GPU in a loop; tensorflow#13610: VGG-16's features extracted in a map, 0% GPU).
bool IsAcceleratorMath(const std::string& path) {
  // A network of keras.applications (VGG16, ResNet50: its constructor's capital, not
  // preprocess_input, which is input work) or of slim's nets.
  if (path.starts_with("keras.applications.") || path.starts_with("tf.keras.applications.")) {
    const size_t last = path.rfind('.') + 1;
    return last < path.size() && std::isupper(static_cast<unsigned char>(path[last])) != 0;
  }
  if (path.starts_with("tf.contrib.slim.nets.")) return true;
  if (path.rfind("tf.", 0) != 0) return false;
  for (const char* name : {"fft",
                           "fft2d",
                           "fft3d",
                           "ifft",
                           "ifft2d",
                           "ifft3d",
                           "rfft",
                           "rfft2d",
                           "rfft3d",
                           "irfft",
                           "irfft2d",
                           "irfft3d",
                           "stft",
                           "inverse_stft",
                           "matmul",
                           "einsum",
                           "tensordot",
                           "conv1d",
                           "conv2d",
                           "conv3d",
                           "convolution",
                           "conv2d_transpose",
                           "depthwise_conv2d"}) {
    if (EndsWithName(path, name)) return true;
  }
  return false;
}

// Calls that give a view of an array or a tensor over the same memory (the tutorial's
// ToTensor: image.transpose((2, 0, 1)), torch.from_numpy): next to nothing beside an image's
// transforms.
bool CopiesNothing(const std::string& path) {
  // np.empty allocates without writing: its pages cost when the samples are written in.
  for (const char* name : {"from_numpy", "as_tensor", "asarray", "transpose", "reshape", "view",
                           "permute", "squeeze", "unsqueeze", "expand_dims", "empty"}) {
    if (EndsWithName(path, name)) return true;
  }
  return false;
}

// tf.image.random_flip_left_right, tf.random.uniform, np.random.rand, random.random...
bool DrawsRandomNumbers(const std::string& path) {
  return path.find("random") != std::string::npos;
}

// The condition a call runs under within its def, where one does: how often it holds, one
// call in `one_in` (`x % N == k`, `not x % N`), 0 where the code does not say.
struct SleepCondition {
  std::string text;  // empty: the call runs on every call of its def
  int64_t one_in = 0;
};

// N where `condition` is `x % N == k` (or `k == x % N`, `not x % N`) for a constant N > 0.
int64_t OneInModulo(const SyntaxNode& condition) {
  const std::optional<spec::ModEquals> modulo = ModuloCondition(condition);
  return modulo ? modulo->modulus() : 0;
}

SleepCondition ConditionOf(const SyntaxNode& call) {
  for (SyntaxNode up = call.parent(); !up.null(); up = up.parent()) {
    if (up.Is("function_definition") || up.Is("lambda")) return {};
    if (up.Is("if_statement") || up.Is("elif_clause")) {
      const SyntaxNode condition = up.field("condition");
      if (call.start_byte() >= condition.start_byte() && call.end_byte() <= condition.end_byte()) {
        continue;  // the call is the condition itself
      }
      // In the `if` branch of a modulo condition: one call in N; anywhere else, unsaid.
      const SyntaxNode branch = up.field("consequence");
      const bool in_branch =
          call.start_byte() >= branch.start_byte() && call.end_byte() <= branch.end_byte();
      const int64_t n = in_branch ? OneInModulo(condition) : 0;
      return {std::string(condition.text()), n};
    }
  }
  return {};
}

void CollectCalls(PythonReader& reader, const std::vector<RecordedCall>& calls, Found& found,
                  int depth);

// A transform class of the file's own (PyTorch's data loading tutorial's Rescale, called as
// `self.transform(sample)` or inside a Compose): its __call__ read on the instance as it was
// made, the image functions and transforms it calls costed in their place. A call in it
// whose cost is not known (beside random draws) leaves the class out, as before it was read:
// its work counts nothing, and the note says so. False where `instance` is no such class's.
bool CollectTransformClass(PythonReader& reader, const Value& instance, Found& found, int depth) {
  if (depth > 4 || !instance.Is(Value::Kind::kInstance)) return false;
  const ClassInfo* cls = reader.FindClass(instance.s);
  if (!cls) return false;
  const auto call = cls->methods.find("__call__");
  if (call == cls->methods.end()) return false;
  const std::map<std::string, Value> attributes =
      instance.call ? reader.InstanceAttributes(*cls, *instance.call) : cls->attributes;
  const size_t others = found.other_call_paths.size();
  CollectCalls(reader, reader.CallsIn(call->second, attributes), found, depth + 1);
  const bool unknown_work = std::any_of(
      found.other_call_paths.begin() + static_cast<std::ptrdiff_t>(others),
      found.other_call_paths.end(),
      [](const std::string& path) { return !DrawsRandomNumbers(path) && !CopiesNothing(path); });
  if (unknown_work) {
    found.unknown_transforms.push_back(instance.call ? std::string(instance.call->node.text())
                                                     : instance.s);
  }
  return true;
}

// A torchvision transform applied, in order: a Compose's own transforms each, so that a
// class of the file's among them is read.
void AddTransform(PythonReader& reader, const Value& transform, Found& found, int depth) {
  const Value* list = transform.call && transform.s == "torchvision.transforms.Compose"
                          ? transform.call->Get(0, "transforms")
                          : nullptr;
  if (list && list->Is(Value::Kind::kList)) {
    for (const Value& t : list->items) {
      if (!CollectTransformClass(reader, t, found, depth)) AddTransform(reader, t, found, depth);
    }
    return;
  }
  found.transforms.emplace_back(transform, found.times);
  found.repeats_uncounted |= found.times_unknown;
  found.random |= transform.s.find("Random") != std::string::npos;
}

void Collect(PythonReader& reader, const Value& function, Found& found, int depth) {
  if (depth > 4) return;
  // A Dataset's method on its instance: read again with the instance's own attributes.
  CollectCalls(reader,
               depth == 0 && found.self_attributes && function.node.Is("function_definition")
                   ? reader.CallsIn(function.node, *found.self_attributes, &found.returned)
                   : reader.CallsIn(function),
               found, depth);
}

// TensorFlow's calls that run functions handed to them: tf.cond's branches, tf.case's and
// tf.switch_case's, tf.while_loop's body, tf.map_fn's fn. A decode in a branch is the map's
// work all the same (deeplab's _decode_image picks decode_jpeg or decode_png by tf.cond):
// each branch is read, and the heaviest is the map's cost, as for calls side by side.
bool RunsFunctionArguments(const std::string& path) {
  if (path.rfind("tf.", 0) != 0) return false;
  for (const char* name :
       {"cond", "case", "switch_case", "while_loop", "map_fn", "vectorized_map", "scan"}) {
    if (EndsWithName(path, name)) return true;
  }
  return false;
}

// The functions among a call's arguments: each given, and those in a list, a tuple or a dict
// (tf.case's [(pred, fn), ...], tf.switch_case's {0: fn, ...}).
void FunctionArguments(const Value& v, std::vector<Value>& out, int depth = 0) {
  if (v.Is(Value::Kind::kFunction)) {
    out.push_back(v);
  } else if ((v.Is(Value::Kind::kList) || v.Is(Value::Kind::kDict)) && depth < 2) {
    for (const Value& item : v.items) FunctionArguments(item, out, depth + 1);
  }
}

void CollectCall(PythonReader& reader, const RecordedCall& call, Found& found, int depth);

void CollectCalls(PythonReader& reader, const std::vector<RecordedCall>& calls, Found& found,
                  int depth) {
  for (const RecordedCall& call : calls) {
    const int64_t outer_times = found.times;
    const bool outer_unknown = found.times_unknown;
    found.times = TimesOver(found.times, call.times);
    found.times_unknown |= call.times_unknown;
    CollectCall(reader, call, found, depth);
    found.times = outer_times;
    found.times_unknown = outer_unknown;
  }
}

// One call the function makes, at found.times a call of the function.
void CollectCall(PythonReader& reader, const RecordedCall& call, Found& found, int depth) {
  if (RunsFunctionArguments(call.path)) {
    std::vector<Value> functions;
    for (const Value& a : call.args.positional) FunctionArguments(a, functions);
    for (const auto& [name, a] : call.args.keyword) FunctionArguments(a, functions);
    for (const Value& f : functions) Collect(reader, f, found, depth + 1);
    return;
  }
  if (call.callee.Is(Value::Kind::kFunction)) {
    if (!call.callee.s.empty()) found.user_functions.push_back(call.callee.s);
    if (!call.inner.empty() && depth < 4) {
      CollectCalls(reader, call.inner, found, depth + 1);
    } else {
      Collect(reader, call.callee, found, depth + 1);
    }
    return;
  }
  // A torchvision transform applied: one the function builds, or the instance's own
  // (self.transform) as the Dataset was made.
  if (IsTorchvisionTransform(call.callee)) {
    AddTransform(reader, call.callee, found, depth);
    return;
  }
  if (CollectTransformClass(reader, call.callee, found, depth)) return;
  // Keras's datagen.random_transform(x), a sample augmented as flow() would (keras#12120).
  if (call.callee.Is(Value::Kind::kTransform) &&
      call.path == "ImageDataGenerator.random_transform") {
    std::string part;
    const int64_t ns = RandomTransformNs(call.callee, call.args.Get(0, "x"), part);
    found.augment_ns += ns * found.times;
    found.augment_parts.push_back(
        found.times > 1 ? part + " (" + std::to_string(found.times) + " samples)" : part);
    found.repeats_uncounted |= found.times_unknown;
    return;
  }
  if (IsCostedImageFunction(call.path)) {
    found.transforms.emplace_back(ImageFunctionCall(call.path, call.args), found.times);
    found.repeats_uncounted |= found.times_unknown;
    return;
  }
  const std::string callee_text(call.args.node.field("function").text());
  if (found.self_attributes && found.self_attributes->count(callee_text) &&
      call.callee.Is(Value::Kind::kUnknown)) {
    found.unknown_transforms.push_back(callee_text);
  }
  found.random |= DrawsRandomNumbers(call.path);
  if (IsAcceleratorMath(call.path) &&
      std::find(found.accelerator_math.begin(), found.accelerator_math.end(), call.path) ==
          found.accelerator_math.end()) {
    found.accelerator_math.push_back(call.path);
  }
  found.asks_a_device |= call.path == "tf.device";
  if (ReleasesTheLock(call.path) &&
      std::find(found.lock_releasing.begin(), found.lock_releasing.end(), call.path) ==
          found.lock_releasing.end()) {
    found.lock_releasing.push_back(call.path);
  }
  if (DecodesImage(call.path)) {
    if (found.decodes_image.empty()) found.decodes_image = call.path;
    found.images += found.times;
    found.repeats_uncounted |= found.times_unknown;
    // Image.open(f) of a file the function opened (torchvision's pil_loader: `with
    // open(path, "rb") as f: Image.open(f)`) reads that file: the open is the image's read,
    // no load of its own.
    if (ReadsImageFile(call.path) && OfAnOpenedFile(call.args)) {
      found.file_loads = std::max<int64_t>(0, found.file_loads - found.times);
    }
  }
  if (ReadsTheNamedFile(call.path)) found.files_read += found.times;
  // The first, a decode named over the read_file it is given (decode_png(read_file(f))).
  if (TakesOneElement(call.path) &&
      (found.one_element_call.empty() || EndsWithName(found.one_element_call, "read_file"))) {
    found.one_element_call = call.path;
  }
  if (const char* batched = BatchedName(call.path)) {
    SyntaxNode name = call.args.node.field("function");
    if (name.Is("attribute")) name = name.field("attribute");
    if (name.Is("identifier") && name.file().empty()) {
      found.batched_renames.push_back({{name.start_byte(), name.end_byte()}, batched});
    }
  }
  if (LoadsAFile(call.path)) {
    found.file_loads += found.times;
    const std::string spelled(call.args.node.field("function").text());
    if (OpenedOncePerWorker(call.args.node)) found.opened_once += found.times;
    if (std::find(found.file_load_calls.begin(), found.file_load_calls.end(), spelled) ==
        found.file_load_calls.end()) {
      found.file_load_calls.push_back(spelled);
    }
  }
  if (call.path == "time.sleep") {
    // Seconds the call blocks, the interpreter lock released: a wait, not work.
    const Value* secs = call.args.Get(0, "secs");
    const auto ns = secs ? secs->AsSleepNs() : std::nullopt;
    if (!ns) {
      found.sleeps_unknown = true;
    } else if (found.sleeps_read.insert(call.args.node.start_byte()).second) {
      const SleepCondition when = ConditionOf(call.args.node);
      found.sleeps_ns += *ns * found.times / std::max<int64_t>(1, when.one_in);
      if (!when.text.empty() && found.sleep_condition.empty()) {
        found.sleep_condition = when.text;
        found.sleep_one_in = when.one_in;
      }
    }
    return;
  }
  if (IsPythonBridge(call.path)) {
    found.python = true;
    if (const Value* f = call.args.Get(0, "func"); f && found.bridged.empty()) {
      found.bridged = f->Is(Value::Kind::kFunction) ? f->s : f->SymbolTail();
      found.bridged_tf_function = f->Is(Value::Kind::kFunction) &&
                                  f->node.Is("function_definition") &&
                                  InsideTfFunction(f->node.field("body"));
      // What the Python it runs does: its sleeps, its image decoding.
      if (f->Is(Value::Kind::kFunction)) Collect(reader, *f, found, depth + 1);
    }
    return;
  }
  TrackImage(call.path, call.args, found.image);
  const KnownWork* known = FindKnown(call.path, call.args);
  if (!known && IsCheapTfCall(call.path)) {
    ++found.cheap_calls;
    if (found.fixed_shape_call.empty()) found.fixed_shape_call = FixesTheElementsShape(call);
  } else if (!known && call.path.find('.') != std::string::npos) {
    found.other_calls = true;  // a builtin (len, int, print) has no dot
    if (std::find(found.other_call_paths.begin(), found.other_call_paths.end(), call.path) ==
        found.other_call_paths.end()) {
      found.other_call_paths.push_back(call.path);
    }
  }
  if (const KnownWork* k = known) {
    // Once each: a def read where it is defined and again where a lambda applies it
    // records its calls twice.
    if (std::find(found.known.begin(), found.known.end(), k->name) == found.known.end()) {
      found.known.emplace_back(k->name);
    }
    if (!found.heaviest || k->rank > found.heaviest->rank) {
      found.heaviest = k;
      found.heaviest_args = call.args;
      found.heaviest_path = call.path;
    }
  }
}

void SetCost(spec::WorkFunction& fn, bool python) {
  if (python) {
    fn.mutable_python()->set_duration(DefaultStageCost());
  } else {
    fn.mutable_cpu_work()->set_duration(DefaultStageCost());
  }
  fn.set_cost_is_stand_in(true);
}

}  // namespace

std::string FeatureDtype(const Value& dtype) {
  const std::string t = dtype.Is(Value::Kind::kSymbol)   ? dtype.SymbolTail()
                        : dtype.Is(Value::Kind::kString) ? dtype.s
                                                         : std::string();
  if (t == "string") return "bytes";
  if (t == "int64" || t == "int32" || t == "int16" || t == "int8" || t == "uint8" || t == "bool") {
    return "int64";
  }
  if (t == "float32" || t == "float64" || t == "float" || t == "float16" || t == "bfloat16") {
    return "float";
  }
  return {};
}

StageWork ReadWork(PythonReader& reader, const Value& function, const std::string& fallback,
                   bool python, const std::map<std::string, Value>* self_attributes) {
  StageWork work;
  Found found;
  found.self_attributes = self_attributes;
  if (function.Is(Value::Kind::kSymbol)) {
    // map(tf.io.decode_jpeg): a known function handed over by name.
    const std::string path = CanonicalPath(function.s);
    work.random = DrawsRandomNumbers(path);
    if (TakesOneElement(path)) work.one_element_call = path;
    work.files_read = ReadsTheNamedFile(path) ? 1 : 0;
    if (const KnownWork* k = FindKnown(path, CallArgs{}); k && !python) {
      work.name = k->name;
      k->build(CallArgs{}, work.fn);
      return work;
    }
    work.name = function.SymbolTail().empty() ? fallback : function.SymbolTail();
  } else {
    Collect(reader, function, found, 0);
    work.returned = found.returned;
    work.accelerator_math = found.accelerator_math;
    work.lock_releasing_calls = found.lock_releasing;
    work.asks_a_device = found.asks_a_device;
    work.name = function.s;  // a def's name
    if (work.name.empty() && found.user_functions.size() == 1) work.name = found.user_functions[0];
    if (work.name.empty() && !found.bridged.empty()) work.name = found.bridged;
    if (found.bridged_tf_function) work.bridged_tf_function = found.bridged;
    if (work.name.empty() && found.heaviest) work.name = found.heaviest->name;
    if (work.name.empty()) work.name = fallback;
    work.random = found.random;
    work.one_element_call = found.one_element_call;
    work.files_read = found.files_read;
    work.batched_renames = found.batched_renames;
  }
  if (python || found.python) {
    SetCost(work.fn, true);
    work.cost_is_parameter = true;
    work.also_calls = found.known;
    work.sleeps_unknown = found.sleeps_unknown;
    work.sleep_condition = found.sleep_condition;
    work.sleep_one_in = found.sleep_one_in;
    if (found.sleeps_ns > 0) {
      work.fn.mutable_python()->set_wait(engine::SpecDuration(found.sleeps_ns));
    }
    work.file_loads = found.file_loads;
    work.file_load_calls = found.file_load_calls;
    work.files_opened_once = found.opened_once;
    int64_t ns = 0;
    work.repeats_uncounted = found.repeats_uncounted;
    if (!found.decodes_image.empty()) {
      work.decodes_image = found.decodes_image;
      work.images = std::max<int64_t>(1, found.images);
      ns = kDecodeJpegNs * work.images;
      work.fn.mutable_python()->set_duration(std::to_string(ns / 1000) + "us");
      // Each image a file of its own, read from the disk the spec names (a hard disk's seek).
      if (ReadsImageFile(found.decodes_image)) {
        work.fn.mutable_python()->set_read_bytes(kStandInFileBytes * work.images);
        if (work.images > 1) work.fn.mutable_python()->set_read_files(work.images);
      }
    }
    if (!found.transforms.empty()) {
      // What the transforms cost on the image the function makes: a stand-in photo, as the
      // code does not say what its files hold.
      work.transforms.shape = StandInPhoto();
      for (const auto& [t, times] : found.transforms) CostTransform(t, work.transforms, times);
      if (ns == 0) ns = kDefaultStageNs;
      auto* py = work.fn.mutable_python();
      py->set_duration(std::to_string((ns + work.transforms.ns) / 1000) + "us");
      // One image's size is no call's where it makes an unknown count of them; a call that
      // decodes several (a clip's frames, a Keras Sequence's batch) returns them all.
      if (work.transforms.shape.form != ImageShape::Form::kImage && !found.repeats_uncounted) {
        work.fn.set_output_bytes(work.transforms.shape.Bytes() *
                                 std::max<int64_t>(1, found.images));
      }
    }
    if (found.augment_ns > 0) {
      // Augmented arrays from memory: no photo, each part says its own images.
      if (ns == 0) ns = kDefaultStageNs;
      for (const std::string& part : found.augment_parts) work.transforms.parts.push_back(part);
      work.transforms.ns += found.augment_ns;
      work.augments_arrays = true;
      work.fn.mutable_python()->set_duration(std::to_string((ns + work.transforms.ns) / 1000) +
                                             "us");
    }
    for (const std::string& t : found.unknown_transforms) work.transforms.not_costed.push_back(t);
    // Its cost is read from what it calls (an image's decode, its transforms): no stand-in.
    // Where they run an unknown count of times a call, once is counted, and a note says so.
    // Transforms beside calls whose cost is not known, and no decode (an HDF5 dataset
    // indexed, then Normalize: the image-captioning tutorial's), leave the Python's own
    // 100 us a stand-in, which the verdict says it rests on.
    const bool unknown_beside = std::any_of(
        found.other_call_paths.begin(), found.other_call_paths.end(),
        [](const std::string& path) { return !DrawsRandomNumbers(path) && !CopiesNothing(path); });
    if (!found.decodes_image.empty() ||
        ((!found.transforms.empty() || found.augment_ns > 0) && !unknown_beside)) {
      work.fn.clear_cost_is_stand_in();
    }
    // It only sleeps (the tf.data guide's mapped_function): its Python beside the sleep is
    // next to nothing, and the call's overhead is said apart.
    if (found.sleeps_ns > 0 && !found.sleeps_unknown && found.known.empty() &&
        found.decodes_image.empty() && found.transforms.empty() &&
        found.unknown_transforms.empty() && !found.other_calls &&
        function.Is(Value::Kind::kFunction) && IsPlainPython(reader, function.node)) {
      work.fn.mutable_python()->set_duration("0us");
      work.fn.clear_cost_is_stand_in();
      work.cost_is_parameter = false;
      work.only_sleeps = true;
    }
    return work;
  }
  // A call that takes one element (decode_png, read_file) beside known work that takes
  // batches (resize) makes the whole function one element at a time: the known work alone
  // would read as a function batching could vectorise (Cam2BEV#14: decode_png, then resize).
  // Its cost is then the user's to set, as the decode's is not known.
  const bool one_element_beside_known =
      found.heaviest && !work.one_element_call.empty() && !TakesOneElement(found.heaviest_path);
  // The image its calls make, where they fix its size and the work modelled does not make
  // it (a decode modelled, a resize after it): each element's bytes from then on.
  const auto size_the_image = [&] {
    const std::optional<int64_t> made = found.image.Bytes();
    if (made && engine::BytesAfterWork(work.fn, std::nullopt) != made) {
      work.fn.set_output_bytes(*made);
    }
  };
  if (found.heaviest && !one_element_beside_known) {
    found.heaviest->build(found.heaviest_args, work.fn);
    size_the_image();
    for (const std::string& k : found.known) {
      if (k != found.heaviest->name) work.also_calls.push_back(k);
    }
    work.uncosted_calls = found.other_call_paths;
    return work;
  }
  if (found.cheap_calls > 0 && !found.other_calls) {
    if (!found.fixed_shape_call.empty()) {
      // No work of its own, but it cannot follow a batch: none, saying which call.
      work.fn.mutable_cpu_work()->set_duration("0s");
      work.fn.mutable_cpu_work()->set_one_element_call(found.fixed_shape_call);
      return work;
    }
    work.fn.mutable_identity();  // only relabels or reshapes: no work of its own
    return work;
  }
  // Arithmetic on the element and nothing else (the tf.data guide's `increment`, `x + 1`):
  // no work beside the call itself, whose overhead the map carries; a stand-in of 100 us
  // would hide what vectorising it gains.
  if (!found.other_calls && found.known.empty() && function.Is(Value::Kind::kFunction) &&
      IsPlainPython(reader, function.node)) {
    work.fn.mutable_identity();
    return work;
  }
  SetCost(work.fn, false);
  work.fn.mutable_cpu_work()->set_one_element_call(work.one_element_call);
  work.cost_is_parameter = true;
  size_the_image();
  return work;
}

spec::WorkFunction CsvWork(const Value* record_defaults, const Value* field_delim,
                           const Value* na_value, const Value* use_quote_delim,
                           const Value* select_cols) {
  spec::WorkFunction fn;
  auto* csv = fn.mutable_decode_csv();
  const bool selects = select_cols && select_cols->Is(Value::Kind::kList);
  if (selects) {
    for (const Value& c : select_cols->items) {
      if (const auto i = c.AsInt()) csv->add_select_cols(*i);
    }
  }
  // One default per column of the line, or per selected column: a line's own count of
  // fields is then known only from the file.
  if (record_defaults && record_defaults->Is(Value::Kind::kList) && !selects) {
    csv->set_columns(static_cast<int64_t>(record_defaults->items.size()));
  }
  if (field_delim && field_delim->Is(Value::Kind::kString) && field_delim->s != ",") {
    csv->set_field_delim(field_delim->s);
  }
  if (use_quote_delim && use_quote_delim->Is(Value::Kind::kBool) && !use_quote_delim->b) {
    csv->set_quotes_are_text(true);
  }
  if (na_value && na_value->Is(Value::Kind::kString)) csv->set_na_value(na_value->s);
  return fn;
}

}  // namespace pipescope::code
