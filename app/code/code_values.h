#pragma once
// What import-code knows of a Python expression without running it: literals, names it
// could not bind (FLAGS.num_map_threads, tf.data.AUTOTUNE), and the values that build a
// pipeline (a dataset so far, a function, a Dataset or Sequence class, a DataLoader).

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/code/python_tree.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::code {

// What stands in for data the code names but that is not at hand (files from a glob or a
// flag, files not on this machine): synthetic records, in one place for every dialect.
inline constexpr int64_t kStandInRecords = 10000;
inline constexpr int64_t kStandInRecordBytes = 10240;
inline constexpr int64_t kStandInFiles = 100;
// Elements of from_tensor_slices over what the code computes (an array, a list of names).
inline constexpr int64_t kStandInSlices = 1000;
inline constexpr int64_t kStandInRecordsPerFile = 1000;
// A file a __getitem__ loads (np.load, h5py.File, open): an SSD's random read, a stand-in.
inline constexpr int64_t kFileLoadStandInNs = 100'000;

// keras.utils.image_dataset_from_directory's pipeline as import-code reads it and --emit
// writes it back: its ops' names, and the shuffle buffer Keras gives the image paths
// (batch_size × 8, or 1024 when it does not batch: 0).
inline constexpr char kImageFiles[] = "image_files";
inline constexpr char kShuffleFiles[] = "shuffle_files";
inline constexpr char kLoadImage[] = "load_image";
inline constexpr char kPrefetchImages[] = "prefetch_images";
inline int64_t ImageFilesShuffleBuffer(int64_t batch_size) {
  return batch_size > 0 ? batch_size * 8 : 1024;
}

// The repeat Keras's fit(ds, epochs=N) makes of a dataset that ends, as import-code reads
// it and --emit writes it back (as the fit call).
inline constexpr char kFitEpochs[] = "fit_epochs";
// The take Keras's fit(ds, epochs=E, steps_per_epoch=S) makes of a dataset that repeats:
// E × S batches from one iterator.
inline constexpr char kFitSteps[] = "fit_steps";

// The reader whose files stand-in records replace, from a pipeline's `reads` ("tfrecord",
// "text_line", "fixed_length_record"), so that code written from the spec calls it again.
inline spec::StandsFor StandsForReads(const std::string& reads) {
  if (reads == "text_line") return spec::text_line_files;
  if (reads == "fixed_length_record") return spec::fixed_length_record_files;
  return spec::tfrecord_files;
}
// tf.data's name of that reader.
inline const char* ReaderName(spec::StandsFor stands_for) {
  switch (stands_for) {
    case spec::text_line_files:
      return "TextLineDataset";
    case spec::fixed_length_record_files:
      return "FixedLengthRecordDataset";
    default:
      return "TFRecordDataset";
  }
}
inline const char* ReaderName(const std::string& reads) {
  return ReaderName(StandsForReads(reads));
}
// A stand-in record's size for what it stands for: a TFRecord's example, or a text file's
// line (a CSV row of a dozen numbers is about 100 bytes). A fixed-length record's size is the
// code's own (record_bytes), not a stand-in's.
inline constexpr int64_t kStandInLineBytes = 100;
inline int64_t StandInRecordBytes(spec::StandsFor stands_for) {
  return stands_for == spec::text_line_files ? kStandInLineBytes : kStandInRecordBytes;
}
inline int64_t StandInRecordBytes(const std::string& reads) {
  return StandInRecordBytes(StandsForReads(reads));
}
// The `reads` of a reader of named files (file_readers.h's ReadsANamedFile).
inline std::string ReadsOf(const spec::ElementSource& per_file) {
  if (per_file.has_text_line_file()) return "text_line";
  if (per_file.has_fixed_length_record_file()) return "fixed_length_record";
  return "tfrecord";
}
// The size of a record standing in for one a reader of files reads: a fixed-length record is
// the size its reader cuts, any other a stand-in's.
inline int64_t StandInRecordBytes(const spec::ElementSource& reader) {
  return reader.has_fixed_length_record_file() ? reader.fixed_length_record_file().record_bytes()
                                               : StandInRecordBytes(ReadsOf(reader));
}
// How the spec reads one file of a format (file_readers.h): `cut` is how
// FixedLengthRecordDataset cuts its files, for that reader alone.
inline spec::ElementSource FileReaderOf(const std::string& reads, const std::string& compression,
                                        const spec::FixedLengthRecordFile& cut) {
  spec::ElementSource per_file;
  if (reads == "text_line") {
    per_file.mutable_text_line_file()->set_compression(compression);
  } else if (reads == "fixed_length_record") {
    *per_file.mutable_fixed_length_record_file() = cut;
    per_file.mutable_fixed_length_record_file()->set_compression(compression);
  } else {
    per_file.mutable_tfrecord_file()->set_compression(compression);
  }
  return per_file;
}

// Something the code leaves out or that import-code assumed, with where and, when a
// setting completes it, the `--set` that does.
struct CodeNote {
  SourcePoint at;
  std::string message;
};

// A pipeline as far as the code has built it. Methods copy it and append: the code's
// variables keep their own versions, and only the pipeline the file ends with is read.
struct CallArgs;

// Where the code sets one knob of an op, so a tuned value can be written back into the
// user's own file: the value's bytes when the call passes it, else where a keyword argument
// goes (before the call's closing parenthesis).
struct TextSpan {
  size_t begin = 0, end = 0;  // byte offsets into the file's text
};
struct Rename {
  TextSpan at;  // the name as the code spells it (the last part of tf.io.parse_single_example)
  std::string to;
};

// A map's reads of the files its elements name (tf.io.read_file): the remote store they come
// from (empty: local files) and how many a call reads.
struct NamedFileReads {
  std::string store;
  int64_t files = 1;
};

struct KnobSite {
  size_t value_begin = 0, value_end = 0;  // value_end == 0: the call leaves the knob out
  size_t insert_at = 0;
  bool call_has_arguments = false;
  // The arguments end with a comma (`num_epochs=None,` before the `)` on a line of its
  // own): a keyword goes after it, and takes one of its own.
  bool trailing_comma = false;
  // The call passes `**kwargs` whose keys are not known: a keyword written in may repeat one
  // of them, which Python refuses (TypeError: got multiple values for keyword argument).
  std::string unknown_splat;
  bool in_splat = false;  // the value is in the dict the call spreads (**loader_kwargs)
  // The value is a command-line flag's (`num_workers=args.workers`) whose default is a literal
  // in the file (`add_argument('-j', '--workers', default=4)`): the default's bytes, which
  // code written back changes, so that the flag still sets the knob.
  size_t default_begin = 0, default_end = 0;
  std::string flag;  // the flag as the code reads it (`args.workers`), where it is one
  // The value is a name whose value the file writes as a literal (`NUM_WORKERS = 4`, a config
  // class's `workers = 4`, `Data(workers=4)` whose constructor keeps it): that literal's
  // bytes, where code written back changes it, so that the name still sets the knob.
  size_t written_begin = 0, written_end = 0;
  // The value is a name (`NUM_READERS`, `args.workers`), which code written back replaces in
  // this call only: whatever else reads it keeps its value.
  bool value_is_name = false;
  // The call's own name for the knob where it is not the knob's (make_csv_dataset's
  // num_parallel_reads for its interleave's num_parallel_calls), and whether the argument
  // says the opposite of the knob (sloppy=True for deterministic false).
  std::string keyword;
  bool inverted = false;
  // An argument the knob's cannot stand beside, where the call passes one: map_and_batch's
  // num_parallel_batches, as TensorFlow raises a ValueError where it and num_parallel_calls
  // are both given. The knob written takes its place: a keyword argument's whole bytes
  // (`num_parallel_batches=2`), a positional one's value becoming None.
  size_t excludes_begin = 0, excludes_end = 0;  // excludes_end == 0: none
  bool excludes_positional = false;
  std::string excludes;  // as the call spells it, for the note
  // The order sites were recorded in: of two knobs one argument carries, the first recorded
  // is written.
  size_t order = 0;
};

struct Pipeline {
  std::string framework;  // "tfdata", "pytorch" or "keras"
  // How the source reads each of its files (file_readers.h: TFRecordDataset's, TextLine's,
  // FixedLengthRecord's, with their compression and cut; none for other sources), and whether
  // its files are a stand-in: the code computes them when it runs, so synthetic records take
  // their place until `--set SOURCE.files=PATTERN` names real ones, read so.
  std::optional<spec::ElementSource> reader;
  // The remote store its source's files are on (path_values.h: "Cloud Storage" for gs://),
  // empty for local files or ones the code does not show; and the read buffer the code
  // gives its reader (TFRecordDataset's buffer_size; -1 where it gives none).
  std::string remote_store;
  int64_t read_buffer_bytes = -1;
  bool stand_in = false;
  std::string stand_in_note;  // said when this pipeline is the one read (not inside another)
  // The source is synthetic records standing in for files the code computes: their count and
  // size are said in a note of their own, made once their size is known (example_size.h).
  bool stand_in_records = false;
  // Interleaves and flat_maps whose synthetic files stand in for files, and the reader of
  // each file they stand in for.
  std::map<std::string, spec::ElementSource> stand_in_readers;
  // What must change in the code before a loader (by op name) takes more worker processes
  // than it has (an HDF5 handle opened in its Dataset's __init__), said where code written
  // back adds them.
  std::map<std::string, std::string> before_more_workers;
  // How the file spells AUTOTUNE where it passes it (`tf.data.experimental.AUTOTUNE`, a
  // TF 1 file's `tf.contrib.data.AUTOTUNE`): code written back spells it alike, as
  // `tf.data.AUTOTUNE` exists only from TensorFlow 2.4. Empty where the file passes none.
  std::string autotune_spelling;
  // The code is TensorFlow 1's: it makes a one-shot or initializable iterator of the dataset,
  // or uses tf.contrib.data, which TensorFlow 2 has not. Code written back then takes what
  // TensorFlow 1 takes (tf.data.Options' experimental_deterministic; no deterministic
  // argument, which came in 2.2).
  bool tensorflow_1 = false;
  // with_options(options) whose options.deterministic (or experimental_deterministic) is
  // False: tf.data's options hold for the whole pipeline, so each map and interleave that
  // does not say deterministic itself, before the call or after it, is not deterministic.
  bool options_not_deterministic = false;
  std::map<std::string, KnobSite> sites;     // by "op.knob"
  std::map<std::string, SourcePoint> op_at;  // where each op is made
  // Each op's own method call in the text, from the end of the dataset it is called on to
  // the call's end (`.map(parse, num_parallel_calls=4)`), and where the source's call ends:
  // what --apply moves, and inserts after, when a tuned pipeline orders its ops otherwise.
  std::map<std::string, TextSpan> op_spans;
  size_t source_end = 0;
  // Where the statement that makes the source begins (after its indentation): statements
  // the tuned pipeline needs before it (a tf.data.Options) go there.
  size_t source_statement = 0;
  // Maps that read the files their elements name (tf.io.read_file), by op.
  std::map<std::string, NamedFileReads> file_reads;
  // By map: TensorFlow calls in its function that have a batched form under another name
  // (parse_single_example's is parse_example), which --apply renames when it batches first.
  std::map<std::string, std::vector<Rename>> batched_renames;
  // Maps whose function keeps some of each batch's rows (`lambda x: tf.boolean_mask(x,
  // filter_fn(x))`, or a uniform draw's share of them): between a batch and an unbatch they
  // are a filter, its call a batch's. By the map's name, that filter (its name, predicate).
  std::map<std::string, spec::Op> masked_rows;
  // Ops a call makes inside itself, with no argument for their knobs (CsvDataset's parse):
  // how the code would make the op its own, for a tuned knob it cannot write.
  std::map<std::string, std::string> made_inside;
  // The tensors each element holds where the code shows them (a tuple or dict given to
  // from_tensor_slices, a generator's output_signature), kept by ops that keep the element's
  // structure; 0: not known. An eager loop's next() makes each a tensor for Python.
  int64_t components = 0;
  // The source yields forever by its code (a generator's `while True:` around its yield), not
  // only as far as the reader can tell (records -1 where its loops are not read).
  bool source_goes_on = false;
  spec::Source source;
  std::vector<spec::Op> ops;
  std::vector<CodeNote> notes;  // this pipeline's, so a branch the file drops drops them
  SourcePoint at;               // where it was last extended
  SourcePoint source_at;        // where its source was made
  int id = 0;
  int parent = -1;
  // Which of the file's two readings built it (PythonReader::Read): a def read in the second
  // sees the names the first bound, so a global it loops over is the first reading's copy.
  int reading = 0;

  // A name for a new op that no op or source of this pipeline has: `base`, `base_2`, ...
  std::string FreshName(const std::string& base) const;
  void Note(SourcePoint where, std::string message) {
    notes.push_back({where, std::move(message)});
  }
  // Code with work of its own that no dialect reads (`.window(...)`): noted, and carried into
  // the spec's left_out so that advice knows its figures leave that work out.
  std::vector<spec::LeftOutCode> left_out;
  // `op`: the op whose work it is part of, where it is (LeftOutCode.op).
  void LeaveOut(SourcePoint where, const std::string& code, std::string message,
                const std::string& op = "") {
    spec::LeftOutCode& c = left_out.emplace_back();
    c.set_code(code);
    c.set_line(where.line);
    c.set_file(std::string(where.file_name()));
    c.set_op(op);
    Note(where, std::move(message));
  }
};

struct Value;

// A list's or a tensor's items, shared between copies of the value until one is changed
// (copy on write). A Value is copied into every scope, argument list and attribute map it
// passes through, and a comprehension of 50,000 file names (keras_sequence_cifar's
// `["img_%05d.png" % i for i in range(50000)]`) copied item by item made import-code 25
// times slower; shared, a copy is a reference count.
class ValueList {
 public:
  using Vector = std::vector<Value>;
  ValueList() = default;
  ValueList(Vector items);  // NOLINT(google-explicit-constructor): a list is its items
  ValueList(std::initializer_list<Value> items);
  // n copies of `item`, made only when something iterates or changes them: a comprehension
  // is read for its length and an item far more often than walked.
  static ValueList Repeated(size_t n, Value item);

  size_t size() const;
  bool empty() const { return size() == 0; }
  // (Defined after Value: a vector's members need it complete.)
  const Value& operator[](size_t k) const;
  const Value& front() const;
  const Value& back() const;
  Vector::const_iterator begin() const;
  Vector::const_iterator end() const;
  const Vector& view() const;
  operator const Vector&() const { return view(); }  // NOLINT(google-explicit-constructor)

  // Changing: the items are this list's own first.
  Vector& own();
  Value& operator[](size_t k);
  Vector::iterator begin();
  Vector::iterator end();
  void push_back(Value v);
  template <typename It>
  Vector::iterator insert(Vector::const_iterator at, It first, It last);
  Vector::iterator erase(Vector::const_iterator first, Vector::const_iterator last);

 private:
  // Mutable: a repeated list's items are made on the first walk, which a reader of a const
  // list may be the one to do.
  mutable std::shared_ptr<Vector> items_;
  mutable std::shared_ptr<const Value> repeated_;
  mutable size_t repeats_ = 0;
};

struct Value {
  enum class Kind {
    kUnknown,  // computed at run time (a glob, a call import-code does not know)
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kSymbol,     // a dotted name bound to nothing in the file: a module's constant or a flag
    kList,       // list or tuple
    kDict,       // items alternate key, value
    kPipeline,   // a tf.data dataset, a DataLoader or a fit(...) so far
    kFunction,   // def or lambda (node)
    kClass,      // class definition (node)
    kInstance,   // a call of a class defined in the file (s: the class's name)
    kFeature,    // tf.io.FixedLenFeature / VarLenFeature
    kTransform,  // what Dataset.apply takes: map_and_batch(...) (s: its name; call: its args)
    kTensor,     // an array a known constructor makes (torch.randn(N, 3, 32, 32), np.zeros):
                 // items its dimensions (unknown ones kUnknown), s its dtype ("float32"),
                 // b whether it is a torch.Tensor (not a NumPy or TensorFlow array)
  };
  Kind kind = Kind::kUnknown;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;  // string, symbol path, function or class name
  ValueList items;
  std::shared_ptr<const Pipeline> pipeline;
  std::shared_ptr<const spec::FeatureSpec> feature;  // kFeature (a message: shared, not copied)
  // kTransform: its arguments; kUnknown made by a call of a def of the file's: that call.
  std::shared_ptr<const CallArgs> call;
  SyntaxNode node;  // the expression; for functions and classes their definition
  // What a value known only where the code runs stands in for, as a note says it: a
  // command-line flag's default ("the flag `args.batch_size`: its default"), or os.cpu_count()
  // as this machine's cores. The job may run with another value.
  std::string run_time;
  // A path known only where the code runs, built from one on a remote store
  // (`os.path.join('gs://bucket', name)`): that store (path_values.h); empty otherwise.
  std::string remote_store;
  // kList: made by a comprehension ([path(i) for i in range(1024)]), so its items are one
  // list's, never a tuple's parts (filenames, labels).
  bool comprehension = false;
  // kList: a list or tuple the file writes out item by item (`files = ["a.npy", "b.npy"]`),
  // or names a comprehension spells out over a known range, not changed since: its length is
  // its items'.
  bool written_out = false;
  // A command-line flag's value (`args.workers`): its default as the file writes it, a
  // literal (`default=4`), and the flag as the code reads it; null and empty otherwise.
  SyntaxNode flag_default;
  std::string flag;
  // The literal the file writes this value as, where it reached here through names alone
  // (`NUM_WORKERS = 4`, a config class's `workers = 4`, a constructor's `Data(workers=4)` or
  // its default): code written back changes it there, so the name still sets the knob. Null
  // where the value is computed, or written where a tuned value cannot go (a list's item).
  SyntaxNode written_at;

  bool Is(Kind k) const { return kind == k; }
  // An integer: ints, bools, integral floats; nullopt otherwise.
  std::optional<int64_t> AsInt() const;
  std::optional<double> AsNumber() const;
  // time.sleep(this): the nanoseconds, where this is a number of seconds the code gives
  // (more than 0, less than a day); nullopt otherwise.
  std::optional<int64_t> AsSleepNs() const;
  // The last part of a symbol's path ("AUTOTUNE" for tf.data.experimental.AUTOTUNE).
  std::string SymbolTail() const;
  // How the code spells it, for notes: the expression's own text.
  std::string Spelling() const;
  // Where a tuned value would be written for it: written_at, else its own node where that is
  // such a literal (an instance's attribute is the literal its constructor was given); null
  // where there is none.
  SyntaxNode WrittenAt() const;
};

inline ValueList::ValueList(Vector items)
    : items_(items.empty() ? nullptr : std::make_shared<Vector>(std::move(items))) {}
inline ValueList::ValueList(std::initializer_list<Value> items) : ValueList(Vector(items)) {}
inline const Value& ValueList::operator[](size_t k) const {
  if (repeated_) return *repeated_;
  return (*items_)[k];
}
inline ValueList ValueList::Repeated(size_t n, Value item) {
  ValueList list;
  if (n == 0) return list;
  list.repeated_ = std::make_shared<const Value>(std::move(item));
  list.repeats_ = n;
  return list;
}
inline const ValueList::Vector& ValueList::view() const {
  static const Vector kNone;
  if (repeated_) {
    items_ = std::make_shared<Vector>(repeats_, *repeated_);
    repeated_.reset();
    repeats_ = 0;
  }
  return items_ ? *items_ : kNone;
}
inline ValueList::Vector& ValueList::own() {
  view();
  if (!items_) {
    items_ = std::make_shared<Vector>();
  } else if (items_.use_count() > 1) {
    items_ = std::make_shared<Vector>(*items_);
  }
  return *items_;
}
inline void ValueList::push_back(Value v) { own().push_back(std::move(v)); }
inline size_t ValueList::size() const { return repeated_ ? repeats_ : items_ ? items_->size() : 0; }
inline const Value& ValueList::front() const { return (*this)[0]; }
inline const Value& ValueList::back() const { return (*this)[size() - 1]; }
inline ValueList::Vector::const_iterator ValueList::begin() const { return view().begin(); }
inline ValueList::Vector::const_iterator ValueList::end() const { return view().end(); }
inline Value& ValueList::operator[](size_t k) { return own()[k]; }
inline ValueList::Vector::iterator ValueList::begin() { return own().begin(); }
inline ValueList::Vector::iterator ValueList::end() { return own().end(); }
template <typename It>
ValueList::Vector::iterator ValueList::insert(Vector::const_iterator at, It first, It last) {
  return own().insert(at, first, last);
}
inline ValueList::Vector::iterator ValueList::erase(Vector::const_iterator first,
                                                    Vector::const_iterator last) {
  return own().erase(first, last);
}

// What argparse's parse_args() gives: its attributes are the flags' defaults.
inline constexpr char kParsedArguments[] = "argparse.Namespace";
// A namespace the code fills itself (argparse.Namespace(batch_size=64), SimpleNamespace):
// a kDict of that `s`, its attributes the keywords it was made with.
inline constexpr char kKeywordNamespace[] = "namespace";

// A dict's value for a string key (its items are key, value, key, value, ...); null where it
// has none.
const Value* ItemOf(const Value& dict, const std::string& key);
// The dict with `key` holding `value`: in place of the key's value where it has one, else
// added after the others.
void PutItem(Value& dict, const Value& key, const Value& value);

// Arguments of a call, by position and keyword.
struct CallArgs {
  std::vector<Value> positional;
  std::map<std::string, Value> keyword;
  SyntaxNode node;
  // Keywords a `**dict` of known keys passes (`**train_kwargs`), and the spelling of the
  // first `**x` (or `*x`) whose contents are not known.
  std::vector<std::string> from_splat;
  std::string unknown_splat;
  // A method's object, where a dialect reads methods of an object it made (an
  // ImageDataGenerator's flow); null for a plain call.
  std::shared_ptr<const Value> receiver;

  // The argument at `position` or named `name`; nullptr when the call leaves it out.
  const Value* Get(size_t position, const std::string& name) const;
  const Value* Get(const std::string& name) const;
};

}  // namespace pipescope::code
