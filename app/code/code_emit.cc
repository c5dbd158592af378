#include "app/code/code_emit.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <string>

#include "app/code/code_values.h"
#include "app/code/path_values.h"
#include "app/code/work_functions.h"
#include "engine/spec/file_readers.h"
#include "engine/work/call_overhead.h"
#include "engine/work/work_registry.h"

namespace pipescope::code {

namespace {

// fit(..., epochs=N) as import-code reads it: a last repeat of N > 1 named kFitEpochs, which
// is written back as fit's argument (0 where the spec has none).
int64_t FitEpochs(const spec::PipelineSpec& spec) {
  if (spec.ops_size() == 0) return 0;
  const spec::Op& last = spec.ops(spec.ops_size() - 1);
  return last.name() == kFitEpochs && last.has_repeat() && last.repeat().count() > 1
             ? last.repeat().count()
             : 0;
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string Identifier(const std::string& name) {
  std::string out;
  for (const char c : name) {
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  return out;
}

std::string Knob(int64_t v) { return v == -1 ? "tf.data.AUTOTUNE" : std::to_string(v); }

std::string Bool(bool b) { return b ? "True" : "False"; }

std::string Strings(const google::protobuf::RepeatedPtrField<std::string>& items) {
  std::string out = "[";
  for (int k = 0; k < items.size(); ++k) out += (k ? ", " : "") + Quote(items[k]);
  return out + "]";
}

const char* SuffixFor(spec::StandsFor stands_for) {
  switch (stands_for) {
    case spec::text_line_files:
      return "*.txt";
    case spec::fixed_length_record_files:
      return "*.bin";
    default:
      return "*.tfrecord";
  }
}

// The arguments after the files a tf.data reader of one file takes (file_readers.h): how
// FixedLengthRecordDataset cuts them, and the compression.
std::string ReaderArguments(const spec::ElementSource& per_file) {
  std::string out;
  if (per_file.has_fixed_length_record_file()) {
    const auto& f = per_file.fixed_length_record_file();
    out += ", record_bytes=" + std::to_string(f.record_bytes());
    if (f.header_bytes() > 0) out += ", header_bytes=" + std::to_string(f.header_bytes());
    if (f.footer_bytes() > 0) out += ", footer_bytes=" + std::to_string(f.footer_bytes());
  }
  const std::string& compression = engine::CompressionOfReader(per_file);
  if (!compression.empty()) out += ", compression_type=" + Quote(compression);
  return out;
}
// The reader of a file and its arguments: "tf.data.FixedLengthRecordDataset(" + files +
// ", record_bytes=10" (no closing parenthesis: more may follow).
std::string ReaderCall(const spec::ElementSource& per_file, const std::string& files) {
  return std::string("tf.data.") + ReaderName(ReadsOf(per_file)) + "(" + files +
         ReaderArguments(per_file);
}
// The reader synthetic records stand in for, as ReaderCall: a fixed-length record's size is
// the stand-in's own.
std::string StandInReaderCall(spec::StandsFor stands_for, int64_t record_bytes,
                              const std::string& files) {
  std::string call = std::string("tf.data.") + ReaderName(stands_for) + "(" + files;
  if (stands_for == spec::fixed_length_record_files) {
    call += ", record_bytes=" + std::to_string(record_bytes);
  }
  return call;
}

// The first interleave or flat_map of the pipeline's own ops that reads a file per element:
// what the source's elements name, when it has one.
const spec::ElementSource* FileReaderOfElements(const spec::PipelineSpec& spec) {
  for (const spec::Op& op : spec.ops()) {
    const spec::ElementSource* per = op.has_interleave() ? &op.interleave().per_element()
                                     : op.has_flat_map() ? &op.flat_map().per_element()
                                                         : nullptr;
    if (per && (per->has_synthetic_file() || engine::ReadsANamedFile(*per))) {
      return per;
    }
  }
  return nullptr;
}

spec::StandsFor StandsForFiles(const spec::ElementSource& per) {
  if (engine::ReadsANamedFile(per)) return StandsForReads(ReadsOf(per));
  return per.synthetic_file().stands_for();
}

std::string FeatureDtypeCode(const std::string& dtype) {
  if (dtype == "bytes") return "tf.string";
  if (dtype == "float") return "tf.float32";
  return "tf.int64";
}

// What the emitted file needs besides the chain: stand-ins for the user's functions and the
// settings that ride along as pragmas.
// Whether import-code names a filter of a lambda so: "filter", "filter_2", ... (in order,
// as the emitted code gives them again).
bool NamedAsALambdaFilter(const std::string& name) {
  if (name == "filter") return true;
  if (!name.starts_with("filter_") || name.size() == 7) return false;
  return std::all_of(name.begin() + 7, name.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

struct Emitter {
  std::ostringstream chain;
  std::ostringstream functions;
  std::vector<std::string> pragmas;
  std::vector<std::string> notes;
  std::set<std::string> defined;
  // The source's elements are file names that the pipeline reads: a count-only
  // from_tensor_slices is written as the names a glob of FILES gives.
  bool elements_name_files = false;

  void Pragma(const std::string& setting) { pragmas.push_back(setting); }

  // What Python `fn` of op `op` costs beside the code's stand-in, as settings read back: its
  // cost (where the user's own), its wait and whether that is its loads of files, the bytes
  // and files it reads, and (`sample_bytes`) what it returns.
  void PythonPragmas(const std::string& op, const spec::WorkFunction& fn, bool sample_bytes) {
    const spec::Python& py = fn.python();
    // A stand-in is not written as a figure: read again, the code gives it again.
    if (!fn.cost_is_stand_in()) Pragma(op + ".cost=" + py.duration());
    if (!py.wait().empty()) Pragma(op + ".wait=" + py.wait());
    if (py.wait_loads_files()) Pragma(op + ".wait_loads_files=true");
    if (sample_bytes) Pragma(op + ".sample_bytes=" + std::to_string(fn.output_bytes()) + "B");
    if (py.read_bytes() > 0) Pragma(op + ".read_bytes=" + std::to_string(py.read_bytes()) + "B");
    if (py.read_files() > 1) Pragma(op + ".read_files=" + std::to_string(py.read_files()));
  }

  // A stage's function: by the op's name, a stand-in that does the spec's work. `random`: it
  // draws random numbers beside its work (a map's `random`), which the code says with a draw.
  std::string Function(const std::string& op, const spec::WorkFunction& fn, bool random = false) {
    std::string name = Identifier(op);
    if (!defined.insert(name).second) return name;
    std::ostringstream& f = functions;
    // A stage that hands its element on as it is takes any element: tf.data calls a map's
    // function with a tuple's parts as separate arguments ((image, label) pairs).
    using K = spec::WorkFunction::KindCase;
    const K kind = fn.kind_case();
    const bool passes_on = kind != K::kParseExample && kind != K::kDecodeJpeg &&
                           kind != K::kResize && kind != K::kRandomCrop && kind != K::kRandomFlip &&
                           kind != K::kNormalize && kind != K::kFill && kind != K::kPython &&
                           kind != K::kDecodeCsv;
    f << "\ndef " << name << (passes_on ? "(*x):\n" : "(x):\n");
    if (random && !engine::WorkFunctionIsRandom(fn)) {
      f << "    tf.random.uniform([])  # the augmentation's random draws\n";
    }
    switch (fn.kind_case()) {
      case spec::WorkFunction::kParseExample: {
        f << "    return tf.io.parse_single_example(x, {\n";
        for (const auto& feature : fn.parse_example().features()) {
          f << "        " << Quote(feature.name()) << ": ";
          if (feature.var_len()) {
            f << "tf.io.VarLenFeature(" << FeatureDtypeCode(feature.dtype()) << "),\n";
            continue;
          }
          f << "tf.io.FixedLenFeature([";
          for (int k = 0; k < feature.shape_size(); ++k) f << (k ? ", " : "") << feature.shape(k);
          f << "], " << FeatureDtypeCode(feature.dtype()) << "),\n";
        }
        f << "    })\n";
        break;
      }
      case spec::WorkFunction::kDecodeCsv: {
        const auto& csv = fn.decode_csv();
        const int64_t defaults =
            csv.select_cols_size() > 0 ? csv.select_cols_size() : csv.columns();
        f << "    return tf.io.decode_csv(x, record_defaults=";
        if (defaults > 0) {
          f << "[[0.0]] * " << defaults;
        } else {
          // As many fields as a line has: TensorFlow needs their defaults, the spec has none.
          f << "None";
          notes.push_back("'" + op +
                          "' parses as many fields as a file's first line has: its "
                          "record_defaults, one per column, are for you to write");
        }
        if (!csv.field_delim().empty()) f << ", field_delim=" << Quote(csv.field_delim());
        if (csv.quotes_are_text()) f << ", use_quote_delim=False";
        if (!csv.na_value().empty()) f << ", na_value=" << Quote(csv.na_value());
        if (csv.select_cols_size() > 0) {
          f << ", select_cols=[";
          for (int k = 0; k < csv.select_cols_size(); ++k)
            f << (k ? ", " : "") << csv.select_cols(k);
          f << "]";
        }
        f << ")\n";
        break;
      }
      case spec::WorkFunction::kDecodeJpeg:
        f << "    return tf.io.decode_jpeg("
          << (fn.decode_jpeg().feature().empty() ? "x"
                                                 : "x[" + Quote(fn.decode_jpeg().feature()) + "]")
          << ")\n";
        break;
      case spec::WorkFunction::kResize:
        f << "    return tf.image.resize(x, [" << fn.resize().height() << ", "
          << fn.resize().width() << "])\n";
        break;
      case spec::WorkFunction::kRandomCrop:
        f << "    return tf.image.random_crop(x, [" << fn.random_crop().height() << ", "
          << fn.random_crop().width() << ", 3], seed=" << fn.random_crop().seed() << ")\n";
        break;
      case spec::WorkFunction::kRandomFlip:
        f << "    return tf.image.random_flip_left_right(x, seed=" << fn.random_flip().seed()
          << ")\n";
        break;
      case spec::WorkFunction::kNormalize:
        f << "    return tf.image.per_image_standardization(x)\n";
        if (fn.normalize().mean() != 0 ||
            (fn.normalize().stddev() != 1 && fn.normalize().stddev() != 0)) {
          notes.push_back("'" + op +
                          "' normalizes with its own mean and stddev: written as "
                          "per_image_standardization");
        }
        break;
      case spec::WorkFunction::kFill:
        f << "    return tf.fill([x], x)\n";
        break;
      case spec::WorkFunction::kPython:
        f << "    return tf.py_function(_" << name << "_in_python, [x], tf.int64)\n\n\n"
          << "def _" << name << "_in_python(x):\n    return x\n";
        PythonPragmas(op, fn, /*sample_bytes=*/false);
        if (fn.python().has_gil_share()) {
          notes.push_back("'" + op + "' holds the interpreter lock for " +
                          std::to_string(fn.python().gil_share()) +
                          " of its time: not in the code");
        }
        break;
      case spec::WorkFunction::kIdentity:
        // Arithmetic or relabelling only: read again, it costs the call alone.
        f << "    return x if len(x) > 1 else x[0]\n";
        break;
      case spec::WorkFunction::kCpuWork:
        // Ops of a cost the code does not show (import-code reads plain arithmetic as none).
        f << "    return tf.nest.map_structure(tf.stop_gradient, x if len(x) > 1 else x[0])"
             "  # TensorFlow ops costing "
          << fn.cpu_work().duration() << " a call\n";
        if (!fn.cost_is_stand_in()) Pragma(op + ".cost=" + fn.cpu_work().duration());
        if (!fn.cpu_work().wait().empty()) Pragma(op + ".wait=" + fn.cpu_work().wait());
        // The file each call reads (tf.io.read_file's), which the function written reads not.
        if (fn.cpu_work().read_bytes() > 0) {
          Pragma(op + ".read_bytes=" + std::to_string(fn.cpu_work().read_bytes()) + "B");
        }
        if (fn.cpu_work().read_files() > 1) {
          Pragma(op + ".read_files=" + std::to_string(fn.cpu_work().read_files()));
        }
        break;
      default:
        f << "    return x if len(x) > 1 else x[0]\n";
        Pragma(op + ".cost=" + std::string(DefaultStageCost()));
        notes.push_back("'" + op +
                        "' does work tf.data code cannot name here: written as a "
                        "function of TensorFlow ops costing " +
                        DefaultStageCost());
        break;
    }
    // The size of what it returns, where the code fixed it beyond the work written (a
    // resize after a decode): read again, the spec keeps it.
    if (fn.output_bytes() > 0) {
      Pragma(op + ".sample_bytes=" + std::to_string(fn.output_bytes()) + "B");
    }
    return name;
  }

  // The source as tf.data, into `var`.
  void Source(const spec::Source& s, const std::string& var) {
    chain << var << " = ";
    std::vector<std::string> files;
    spec::ElementSource per_file;
    if (engine::FilesAndReaderOf(s, files, per_file)) {
      chain << ReaderCall(per_file, Strings({files.begin(), files.end()})) << ")\n";
      return;
    }
    switch (s.kind_case()) {
      case spec::Source::kListFiles: {
        const auto& lf = s.list_files();
        chain << "tf.data.Dataset.list_files(" << Quote(lf.pattern());
        if (lf.has_shuffle()) chain << ", shuffle=" << Bool(lf.shuffle());
        if (lf.has_seed()) chain << ", seed=" << lf.seed();
        chain << ")\n";
        break;
      }
      case spec::Source::kRange: {
        const auto& r = s.range();
        chain << "tf.data.Dataset.range(" << r.start() << ", " << r.stop();
        if (r.step() > 1 || r.step() < 0) chain << ", " << r.step();
        chain << ")\n";
        if (s.name() != "range") {
          notes.push_back("the source '" + s.name() + "' is read back as 'range'");
        }
        break;
      }
      case spec::Source::kFromTensorSlices: {
        const auto& t = s.from_tensor_slices();
        if (s.name() == "list_files" && t.strings_size() > 1) {
          // list_files of file names, as import-code reads it.
          chain << "tf.data.Dataset.list_files(" << Strings(t.strings()) << ", shuffle=False)\n";
          break;
        }
        chain << "tf.data.Dataset.from_tensor_slices(";
        if (t.strings_size() > 0) {
          chain << Strings(t.strings());
        } else if (t.values_size() > 0) {
          chain << "[";
          for (int k = 0; k < t.values_size(); ++k) chain << (k ? ", " : "") << t.values(k);
          chain << "]";
        } else if (elements_name_files) {
          chain << "tf.io.gfile.glob(FILES)";
          if (!s.size_is_stand_in() || t.count() != kStandInSlices) {
            Pragma("from_tensor_slices.count=" + std::to_string(t.count()));
          }
        } else {
          chain << "tf.range(" << t.count() << ")";
          Pragma("from_tensor_slices.count=" + std::to_string(t.count()));
          // The code states the count; that it stands in for the user's is said beside it.
          if (s.size_is_stand_in()) Pragma(s.name() + ".size_is_stand_in=true");
        }
        chain << ")\n";
        break;
      }
      case spec::Source::kFromGenerator: {
        const std::string name = Identifier(s.name());
        chain << "tf.data.Dataset.from_generator(\n    " << name
              << ", output_signature=tf.TensorSpec(shape=(), dtype=tf.int64))\n";
        functions << "\ndef " << name << "():\n    yield from range("
                  << (s.from_generator().records() < 0
                          ? std::string("10**9")
                          : std::to_string(s.from_generator().records()))
                  << ")\n";
        if (!s.from_generator().cost_is_stand_in())
          Pragma(s.name() + ".cost=" + s.from_generator().duration());
        if (!s.from_generator().wait().empty())
          Pragma(s.name() + ".wait=" + s.from_generator().wait());
        if (!s.from_generator().first_wait().empty())
          Pragma(s.name() + ".first_wait=" + s.from_generator().first_wait());
        Pragma(s.name() + ".records=" + std::to_string(s.from_generator().records()));
        break;
      }
      case spec::Source::kSynthetic: {
        // Synthetic records stand for files the code lists when it runs.
        const auto& syn = s.synthetic();
        chain << StandInReaderCall(syn.stands_for(), syn.record_bytes(), "tf.io.gfile.glob(FILES)")
              << ")  # synthetic records here\n";
        const std::string& read = s.name();
        // A stand-in's count is import-code's own: read back, it is the stand-in again.
        if (!s.size_is_stand_in() || syn.records() != kStandInRecords) {
          Pragma(read + ".records=" + std::to_string(syn.records()));
        }
        Pragma(read + ".record_bytes=" + std::to_string(syn.record_bytes()));
        if (!syn.read_latency().empty()) Pragma(read + ".read_latency=" + syn.read_latency());
        if (!syn.bandwidth().empty()) Pragma(read + ".bandwidth=" + syn.bandwidth());
        break;
      }
      default:
        chain << "None\n";
        notes.push_back("the source is of no kind tf.data code can write");
    }
  }

  // What interleave's or flat_map's function makes of an element.
  // The storage of the files an interleave reads, where it is not import-code's stand-in's.
  void SyntheticFilePragmas(const std::string& op, const spec::SyntheticFile& f) {
    if (!f.size_is_stand_in() || f.records_per_file() != kStandInRecordsPerFile) {
      Pragma(op + ".records_per_file=" + std::to_string(f.records_per_file()));
    }
    if (f.record_bytes() != StandInRecordBytes(f.stands_for())) {
      Pragma(op + ".record_bytes=" + std::to_string(f.record_bytes()));
    }
    if (!f.open_latency().empty()) Pragma(op + ".open_latency=" + f.open_latency());
    if (!f.read_latency().empty()) Pragma(op + ".read_latency=" + f.read_latency());
    if (!f.bandwidth().empty()) Pragma(op + ".bandwidth=" + f.bandwidth());
    if (f.read_request_bytes() > 0) {
      Pragma(op + ".read_request_bytes=" + std::to_string(f.read_request_bytes()));
    }
    if (f.read_latency_cv() > 0) {
      std::ostringstream cv;
      cv << f.read_latency_cv();
      Pragma(op + ".read_latency_cv=" + cv.str());
    }
  }

  std::string PerElement(const std::string& op_name, const spec::ElementSource& e,
                         const google::protobuf::RepeatedPtrField<spec::Op>& ops) {
    std::string made;
    switch (e.kind_case()) {
      case spec::ElementSource::kFromElement:
        made = "tf.data.Dataset.from_tensors(f)";
        // The rows of what the function made, as many elements of the one it was given.
        if (e.from_element().slices() > 0) {
          made += ".repeat(" + std::to_string(e.from_element().slices()) + ")";
        }
        break;
      case spec::ElementSource::kSyntheticFile:
        made = StandInReaderCall(e.synthetic_file().stands_for(), e.synthetic_file().record_bytes(),
                                 "f") +
               ")";
        SyntheticFilePragmas(op_name, e.synthetic_file());
        break;
      case spec::ElementSource::kFromGenerator: {
        // A generator of the yields' count; its Python's cost, as the op's settings.
        const auto& g = e.from_generator();
        const std::string name = Identifier(op_name + "_generator");
        made = "tf.data.Dataset.from_generator(" + name +
               ", output_signature=tf.TensorSpec(shape=(), dtype=tf.int64))";
        functions << "\ndef " << name << "():\n    yield from range(" << g.records() << ")\n";
        if (!g.cost_is_stand_in()) Pragma(op_name + ".cost=" + g.duration());
        if (!g.wait().empty()) Pragma(op_name + ".wait=" + g.wait());
        if (!g.first_wait().empty()) Pragma(op_name + ".first_wait=" + g.first_wait());
        break;
      }
      default:  // a reader of the file: TFRecordDataset (also where none is said), ...
        made = ReaderCall(e, "f") + ")";
        break;
    }
    for (const spec::Op& op : ops) made += Method(op, true);
    return "lambda f: " + made;
  }

  // `.method(...)` for one op; `inner`: inside an interleave's function.
  std::string Method(const spec::Op& op, bool inner) {
    std::ostringstream m;
    switch (op.kind_case()) {
      case spec::Op::kMap: {
        const auto& map = op.map();
        m << ".map(" << Function(op.name(), map.fn(), map.random());
        if (map.num_parallel_calls() != 0)
          m << ", num_parallel_calls=" << Knob(map.num_parallel_calls());
        if (map.has_deterministic()) m << ", deterministic=" << Bool(map.deterministic());
        m << ")";
        // import-code gives a traced function TensorFlow's dispatch (TfDataCallOverhead);
        // a map that pays another is said so, none included.
        const std::string read_back = TfDataCallOverhead();
        if (map.call_overhead() != read_back) {
          Pragma(op.name() +
                 ".call_overhead=" + (map.call_overhead().empty() ? "0us" : map.call_overhead()));
        }
        break;
      }
      case spec::Op::kInterleave: {
        const auto& il = op.interleave();
        m << ".interleave(" << PerElement(op.name(), il.per_element(), il.ops());
        if (il.has_cycle_length()) m << ", cycle_length=" << Knob(il.cycle_length());
        if (il.has_block_length()) m << ", block_length=" << il.block_length();
        if (il.num_parallel_calls() != 0)
          m << ", num_parallel_calls=" << Knob(il.num_parallel_calls());
        if (il.has_deterministic()) m << ", deterministic=" << Bool(il.deterministic());
        m << ")";
        break;
      }
      case spec::Op::kFlatMap:
        m << ".flat_map(" << PerElement(op.name(), op.flat_map().per_element(), op.flat_map().ops())
          << ")";
        break;
      case spec::Op::kFilter: {
        const auto& keep = op.filter().predicate().keep_fraction();
        if (keep.uniform_draw() && NamedAsALambdaFilter(op.name())) {
          // The draw itself, as import-code reads it (a lambda's filter is named as this
          // one is).
          char share[32];
          std::snprintf(share, sizeof share, "%g", keep.fraction());
          m << ".filter(lambda *x: tf.random.uniform([]) < " << share << ")";
          if (op.filter().call_overhead() != TfDataCallOverhead()) {
            Pragma(op.name() + ".call_overhead=" + op.filter().call_overhead());
          }
          break;
        }
        const std::string name = Identifier(op.name());
        const spec::Predicate& predicate = op.filter().predicate();
        // A modulo is its test, which import-code reads back; any other, a stand-in.
        const std::string test =
            predicate.has_mod_equals()
                ? "x % " + std::to_string(predicate.mod_equals().modulus()) +
                      " == " + std::to_string(predicate.mod_equals().remainder())
                : "True";
        if (defined.insert(name).second) {
          functions << "\ndef " << name << "(x):\n    return " << test << "\n";
        }
        m << ".filter(" << name << ")";
        if (predicate.has_keep_fraction()) {
          Pragma(op.name() + ".fraction=" + std::to_string(predicate.keep_fraction().fraction()));
        }
        // As a map's: import-code gives the traced predicate TensorFlow's dispatch.
        if (op.filter().call_overhead() != TfDataCallOverhead()) {
          Pragma(op.name() + ".call_overhead=" +
                 (op.filter().call_overhead().empty() ? "0us" : op.filter().call_overhead()));
        }
        break;
      }
      case spec::Op::kShuffle: {
        const auto& s = op.shuffle();
        m << ".shuffle(" << s.buffer_size();
        if (s.has_seed()) m << ", seed=" << s.seed();
        if (s.has_reshuffle_each_iteration())
          m << ", reshuffle_each_iteration=" << Bool(s.reshuffle_each_iteration());
        m << ")";
        break;
      }
      case spec::Op::kBatch:
        m << ".batch(" << op.batch().batch_size();
        if (op.batch().drop_remainder()) m << ", drop_remainder=True";
        m << ")";
        break;
      case spec::Op::kPaddedBatch: {
        const auto& b = op.padded_batch();
        m << ".padded_batch(" << b.batch_size();
        if (b.padded_shapes_size() > 0) {
          m << ", padded_shapes=[";
          for (int k = 0; k < b.padded_shapes_size(); ++k)
            m << (k ? ", " : "") << b.padded_shapes(k);
          m << "]";
        }
        if (b.has_padding_values()) m << ", padding_values=" << b.padding_values();
        if (b.drop_remainder()) m << ", drop_remainder=True";
        m << ")";
        break;
      }
      case spec::Op::kUnbatch:
        m << ".unbatch()";
        break;
      case spec::Op::kPrefetch:
        m << ".prefetch(" << Knob(op.prefetch().buffer_size()) << ")";
        break;
      case spec::Op::kShard:
        m << ".shard(" << op.shard().num_shards() << ", " << op.shard().index() << ")";
        break;
      case spec::Op::kCache:
        m << ".cache(" << (op.cache().filename().empty() ? "" : Quote(op.cache().filename()))
          << ")";
        break;
      case spec::Op::kRepeat:
        m << ".repeat(" << (op.repeat().has_count() ? std::to_string(op.repeat().count()) : "")
          << ")";
        break;
      case spec::Op::kTake:
        m << ".take(" << op.take().count() << ")";
        break;
      case spec::Op::kSkip:
        m << ".skip(" << op.skip().count() << ")";
        break;
      default:
        notes.push_back(std::string(inner ? "inside an interleave, " : "") + "op '" + op.name() +
                        "' has no tf.data spelling: left out");
        break;
    }
    return m.str();
  }

  std::string Text(const spec::PipelineSpec& spec, const std::string& framework,
                   const std::string& imports, const std::string& tail) {
    if (!spec.train_step().step_time().empty()) {
      Pragma("train_step.step_time=" + spec.train_step().step_time());
    }
    if (spec.train_step().device() != spec::simulated) {
      Pragma("train_step.device=" + spec::Device_Name(spec.train_step().device()));
    }
    // The loop's own Python per element (an eager loop's next()): the code written has no
    // loop of the user's to read it from.
    if (!spec.train_step().loop_python().empty()) {
      Pragma("train_step.loop_python=" + spec.train_step().loop_python());
    }
    if (spec.budget().cpu_cores() > 0) {
      Pragma("budget.cpu_cores=" + std::to_string(spec.budget().cpu_cores()));
    }
    if (spec.budget().ram_bytes() > 0) {
      Pragma("budget.ram_bytes=" + std::to_string(spec.budget().ram_bytes()));
    }
    // The disk the files are on: no Python call says it.
    if (spec.has_storage()) {
      const spec::Storage& st = spec.storage();
      if (st.kind() != spec::no_kind) Pragma("storage.kind=" + spec::StorageKind_Name(st.kind()));
      if (!st.access_time().empty()) Pragma("storage.access_time=" + st.access_time());
      if (!st.bandwidth().empty()) Pragma("storage.bandwidth=" + st.bandwidth());
      if (st.queue_depth() > 0) Pragma("storage.queue_depth=" + std::to_string(st.queue_depth()));
    }
    std::ostringstream out;
    out << "# " << spec.name() << " as " << framework << " code, written by pipescope-cli.\n";
    if (!spec.description().empty()) out << "# " << spec.description() << "\n";
    if (!pragmas.empty()) {
      out << "# Settings Python does not show, read back by pipescope-cli import-code:\n";
      std::string line = "# pipescope:";
      for (const std::string& p : pragmas) {
        if (line.size() + p.size() > 95) {
          out << line << "\n";
          line = "# pipescope:";
        }
        line += " " + p;
      }
      out << line << "\n";
    }
    out << imports;
    if (!functions.str().empty()) {
      out << "\n\n# Stand-ins for your functions, so that this file runs on its own; where your "
             "own are\n# defined, delete these.\n"
          << functions.str() << "\n";
    }
    out << "\n" << chain.str() << tail;
    return out.str();
  }
};

// import-code's stand-in for list_files of a pattern the code computes: 100 numbered names.
constexpr int64_t kListFilesStandIn = 100;
bool IsListFilesStandIn(const spec::Source& s) {
  return s.name() == "list_files" && s.has_range() && s.range().start() == 0 &&
         s.range().step() <= 1;
}

// keras.utils.image_dataset_from_directory as import-code reads it: listed images, shuffled
// or not, a load_image stage of a cost, a batch or none, a prefetch. The number of ops it
// spans; 0 when the spec does not start so.
int ImagesFromDirectoryOps(const spec::PipelineSpec& spec) {
  if (spec.source().name() != kImageFiles || !spec.source().has_range()) return 0;
  int k = 0;
  const auto named = [&](const char* name) {
    return k < spec.ops_size() && spec.ops(k).name() == name;
  };
  if (named(kShuffleFiles) && spec.ops(k).has_shuffle()) ++k;
  if (!named(kLoadImage) || !spec.ops(k).map().fn().has_cpu_work()) return 0;
  ++k;
  if (named("batch") && spec.ops(k).has_batch() && !spec.ops(k).batch().drop_remainder()) ++k;
  if (!named(kPrefetchImages) || !spec.ops(k).has_prefetch()) return 0;
  return k + 1;
}

// TFRecordDataset(files, num_parallel_reads=N), as import-code reads it: the files, then an
// interleave over them with N readers and nothing else.
bool IsParallelReads(const spec::Source& s, const spec::Op& op) {
  if (s.name() != "files" || s.from_tensor_slices().strings_size() < 2 || op.name() != "read" ||
      !op.has_interleave()) {
    return false;
  }
  const auto& il = op.interleave();
  const bool reads = engine::ReadsANamedFile(il.per_element());
  const int64_t n = il.num_parallel_calls();
  const bool cycle_matches = il.has_cycle_length() ? il.cycle_length() == n && n > 1 : n == -1;
  return reads && cycle_matches && il.ops_size() == 0 && !il.has_block_length() &&
         !il.has_deterministic();
}

// TFRecordDataset (or TextLineDataset) of files on a remote store, as import-code reads it:
// stand-in names, then an interleave over them of synthetic files read as from the store,
// one after another (cycle length 1, no parallel calls), or num_parallel_reads at a time
// (cycle length and parallelism alike, or AUTOTUNE's parallelism with no cycle length).
bool IsRemoteReads(const spec::Source& s, const spec::Op& op) {
  if (s.name() != "files" || !s.has_range() || op.name() != "read" || !op.has_interleave()) {
    return false;
  }
  const auto& il = op.interleave();
  const auto& per = il.per_element();
  if (!per.has_synthetic_file() || !per.synthetic_file().storage_is_stand_in() ||
      il.ops_size() > 0 || il.has_block_length() || il.has_deterministic()) {
    return false;
  }
  const int64_t n = il.num_parallel_calls();
  return il.has_cycle_length()
             ? (n == 0 && il.cycle_length() == 1) || (n > 1 && il.cycle_length() == n)
             : n == -1;
}

engine::Result<EmittedCode> EmitTfData(const spec::PipelineSpec& spec) {
  Emitter e;
  std::string var = "ds";
  std::string files;
  const spec::Source& source = spec.source();
  int first_op = 0;
  const spec::ElementSource* reader = FileReaderOfElements(spec);
  const spec::StandsFor stands_for = source.has_synthetic() ? source.synthetic().stands_for()
                                     : reader               ? StandsForFiles(*reader)
                                                            : spec::tfrecord_files;
  e.elements_name_files = reader && source.has_from_tensor_slices() &&
                          source.from_tensor_slices().strings_size() == 0 &&
                          source.from_tensor_slices().values_size() == 0;
  if (source.has_synthetic() || e.elements_name_files) {
    files = std::string("FILES = \"/path/to/your/") + SuffixFor(stands_for) + "\"\n";
  }
  if (const int keras_ops = ImagesFromDirectoryOps(spec); keras_ops > 0) {
    files = "import os\n\nDATA_DIR = os.environ.get(\"DATA_DIR\", \"/path/to/your/images\")\n";
    const spec::Op* shuffle = nullptr;
    const spec::Op* load = nullptr;
    const spec::Op* batch = nullptr;
    for (int k = 0; k < keras_ops; ++k) {
      const spec::Op& op = spec.ops(k);
      if (op.name() == kShuffleFiles) shuffle = &op;
      if (op.name() == kLoadImage) load = &op;
      if (op.name() == "batch") batch = &op;
    }
    e.chain << var << " = tf.keras.utils.image_dataset_from_directory(DATA_DIR, batch_size="
            << (batch ? std::to_string(batch->batch().batch_size()) : std::string("None"))
            << (shuffle ? "" : ", shuffle=False") << ")\n";
    if (!source.size_is_stand_in() || source.range().stop() != kStandInRecords) {
      e.Pragma(std::string(kImageFiles) + ".stop=" + std::to_string(source.range().stop()));
    }
    e.Pragma(std::string(kLoadImage) + ".cost=" + load->map().fn().cpu_work().duration());
    if (load->map().num_parallel_calls() != -1) {
      e.Pragma(std::string(kLoadImage) +
               ".num_parallel_calls=" + std::to_string(load->map().num_parallel_calls()));
    }
    const int64_t keras_buffer = ImageFilesShuffleBuffer(batch ? batch->batch().batch_size() : 0);
    if (shuffle && shuffle->shuffle().buffer_size() != keras_buffer) {
      e.Pragma(std::string(kShuffleFiles) +
               ".buffer_size=" + std::to_string(shuffle->shuffle().buffer_size()));
    }
    first_op = keras_ops;
  } else if (IsListFilesStandIn(source)) {
    // File names the code lists when it runs: written so again.
    files = std::string(
                "import os\n\nFILES_PATTERN = os.environ.get(\"FILES_PATTERN\", "
                "\"/path/to/your/") +
            SuffixFor(stands_for) + "\")\n";
    e.chain << var << " = tf.data.Dataset.list_files(FILES_PATTERN)\n";
    if (!source.size_is_stand_in() || source.range().stop() != kListFilesStandIn) {
      e.Pragma("list_files.stop=" + std::to_string(source.range().stop()));
    }
  } else if (spec.ops_size() > 0 && IsRemoteReads(source, spec.ops(0))) {
    // Listed where the job runs, as the code that was read lists them.
    const auto& il = spec.ops(0).interleave();
    const auto& f = il.per_element().synthetic_file();
    files = std::string("FILES = \"gs://your-bucket/") + SuffixFor(f.stands_for()) +
            "\"  # on the store (gs://, s3://, hdfs://, ...)\n";
    e.chain << var << " = "
            << StandInReaderCall(f.stands_for(), f.record_bytes(), "tf.io.gfile.glob(FILES)");
    // The store's stand-in latencies come again as the code is read; the request's size is
    // the reader's buffer (TFRecordDataset's buffer_size), where it is not the stand-in's.
    spec::SyntheticFile rest = f;
    rest.clear_open_latency();
    rest.clear_read_latency();
    rest.clear_read_latency_cv();
    if (f.read_request_bytes() == RemoteStoreStandIn::kRequestBytes) {
      rest.clear_read_request_bytes();
    } else if (f.stands_for() != spec::text_line_files) {
      e.chain << ", buffer_size=" << f.read_request_bytes();
      rest.clear_read_request_bytes();
    }
    if (il.num_parallel_calls() != 0) {
      e.chain << ", num_parallel_reads=" << Knob(il.num_parallel_calls());
    }
    e.chain << ")\n";
    if (!source.size_is_stand_in() || source.range().stop() != kStandInFiles) {
      e.Pragma("files.stop=" + std::to_string(source.range().stop()));
    }
    e.SyntheticFilePragmas("read", rest);
    first_op = 1;
  } else if (spec.ops_size() > 0 && IsParallelReads(source, spec.ops(0))) {
    const auto& il = spec.ops(0).interleave();
    e.chain << var << " = "
            << ReaderCall(il.per_element(), Strings(source.from_tensor_slices().strings()))
            << ", num_parallel_reads=" << Knob(il.num_parallel_calls()) << ")\n";
    first_op = 1;
  } else {
    e.Source(source, var);
  }
  const int64_t fit_epochs = FitEpochs(spec);  // written as the fit call
  // fit's steps from one iterator over a repeating dataset (import-code's take of epochs
  // times steps_per_epoch): the fit call too, its steps in one epoch.
  const spec::Op* fit_steps = nullptr;
  if (const int n = spec.ops_size(); n > first_op && spec.ops(n - 1).name() == kFitSteps &&
                                     spec.ops(n - 1).has_take() &&
                                     spec.ops(n - 1).take().count() > 0) {
    fit_steps = &spec.ops(n - 1);
  }
  // The training loop's epochs (`for epoch in range(N):` as import-code reads it): the loop.
  const spec::Op* loop = nullptr;
  if (const int n = spec.ops_size();
      fit_epochs == 0 && n > first_op && spec.ops(n - 1).has_repeat() &&
      spec.ops(n - 1).repeat().training_loop() && spec.ops(n - 1).repeat().count() > 1) {
    loop = &spec.ops(n - 1);
  }
  for (int k = first_op; k < spec.ops_size(); ++k) {
    const spec::Op& op = spec.ops(k);
    if (k + 1 == spec.ops_size() && (fit_epochs > 0 || loop || fit_steps)) continue;
    if (op.has_zip()) {
      const std::string second = Identifier(op.name()) + "_ds";
      e.Source(op.zip().source(), second);
      for (const spec::Op& o : op.zip().ops()) {
        const std::string m = e.Method(o, false);
        if (!m.empty()) e.chain << second << " = " << second << m << "\n";
      }
      e.chain << var << " = tf.data.Dataset.zip((" << var << ", " << second << "))\n";
      continue;
    }
    const std::string m = e.Method(op, false);
    if (!m.empty()) e.chain << var << " = " << var << m << "\n";
  }
  if (fit_epochs > 0) {
    e.chain << "\nmodel = tf.keras.Sequential()  # your model\nmodel.fit(" << var
            << ", epochs=" << fit_epochs << ")\n";
  }
  if (fit_steps) {
    e.chain << "\nmodel = tf.keras.Sequential()  # your model\nmodel.fit(" << var
            << ", steps_per_epoch=" << fit_steps->take().count() << ")\n";
  }
  if (loop) {
    e.chain << "\nfor epoch in range(" << loop->repeat().count() << "):\n    for element in " << var
            << ":\n        pass  # your training step\n";
  }
  EmittedCode code;
  code.text = e.Text(spec, "tf.data", "import tensorflow as tf\n" + files, "");
  code.notes = e.notes;
  return code;
}

engine::Result<EmittedCode> EmitLoader(const spec::PipelineSpec& spec, bool keras) {
  Emitter e;
  const spec::Op* loader = nullptr;
  for (const spec::Op& op : spec.ops()) {
    if ((keras && op.has_keras_fit()) || (!keras && op.has_dataloader())) {
      loader = &op;
    } else if (!op.has_repeat()) {
      e.notes.push_back("op '" + op.name() + "' is not part of " +
                        (keras ? "Keras's fit" : "the DataLoader") + ": left out");
    }
  }
  if (!loader) {
    return engine::InvalidArgument(std::string("the spec has no ") +
                                   (keras ? "keras_fit" : "dataloader") + " op to write as " +
                                   (keras ? "Keras" : "PyTorch") + " code");
  }
  const int64_t items = spec.source().has_range()
                            ? spec.source().range().stop() - spec.source().range().start()
                            : 10000;
  const std::string cls = keras ? "SpecSequence" : "SpecDataset";
  const int64_t fit_epochs = keras ? FitEpochs(spec) : 0;
  std::ostringstream c;
  std::string imports;
  if (keras) {
    const auto& kf = loader->keras_fit();
    imports = "from tensorflow import keras\n";
    if (kf.generator()) {
      // A generator: fit takes as many of its batches an epoch as steps_per_epoch says.
      c << "def spec_batches():\n    while True:\n        yield None  # your batch\n\n\n";
      c << "model = keras.Sequential()  # your model\n";
      c << "model.fit(\n    spec_batches(),\n    steps_per_epoch=" << items;
    } else {
      c << "class " << cls << "(keras.utils.Sequence):\n";
      c << "    def __len__(self):\n        return " << items << "\n\n";
      c << "    def __getitem__(self, index):\n        return index  # your batch\n\n\n";
      c << "model = keras.Sequential()  # your model\n";
      c << "model.fit(\n    " << cls << "()";
    }
    if (kf.has_workers()) c << ",\n    workers=" << kf.workers();
    c << ",\n    use_multiprocessing=" << Bool(kf.use_multiprocessing());
    if (kf.has_max_queue_size()) c << ",\n    max_queue_size=" << kf.max_queue_size();
    if (fit_epochs > 0) c << ",\n    epochs=" << fit_epochs;
    c << ")\n";
    if (kf.getitem().has_python()) {
      e.PythonPragmas("fit", kf.getitem(), kf.getitem().output_bytes() > 0);
    }
    if (!kf.worker_startup().empty()) e.Pragma("fit.worker_startup=" + kf.worker_startup());
    if (!kf.receive_per_mb().empty()) e.Pragma("fit.receive_per_mb=" + kf.receive_per_mb());
  } else {
    const auto& dl = loader->dataloader();
    std::string dataset = cls + "()";
    const bool iterable = dl.replicated() || dl.worker_split() != spec::not_split;
    if (iterable) {
      // An IterableDataset: each worker yields all of it (replicated), or its own share by
      // get_worker_info(), as PyTorch's documentation splits one. DataLoader takes no
      // shuffle or sampler beside one.
      imports = std::string(dl.worker_split() == spec::chunks ? "import math\n" : "") +
                "from torch.utils.data import DataLoader, IterableDataset" +
                (dl.replicated() ? "" : ", get_worker_info") + "\n";
      c << "class " << cls << "(IterableDataset):\n    def __iter__(self):\n";
      if (dl.worker_split() == spec::chunks) {
        c << "        worker = get_worker_info()\n        for index in range(" << items
          << "):\n            # each worker yields its own contiguous chunk of the items\n"
          << "            if worker is not None and index // math.ceil(" << items
          << " / worker.num_workers) != worker.id:\n                continue\n";
      } else if (dl.worker_split() == spec::every_nth) {
        c << "        worker = get_worker_info()\n        for index in range(" << items
          << "):\n            # each worker yields every num_workers-th item from its id-th\n"
          << "            if worker is not None and index % worker.num_workers != worker.id:\n"
          << "                continue\n";
      } else {
        c << "        for index in range(" << items << "):  # in every worker\n";
      }
      c << "            yield index  # your sample\n\n\n";
    } else if (dl.indexes_batches()) {
      // A dataset that indexes by a list: a TensorDataset, standing for the user's tensors.
      imports = "import torch\nfrom torch.utils.data import DataLoader, TensorDataset\n";
      c << "dataset = TensorDataset(torch.arange(" << items << "))  # your tensors\n\n";
      dataset = "dataset";
    } else {
      imports = "from torch.utils.data import DataLoader, Dataset\n";
      c << "class " << cls << "(Dataset):\n";
      c << "    def __len__(self):\n        return " << items << "\n\n";
      c << "    def __getitem__(self, index):\n        return index  # your sample\n\n\n";
    }
    const char* sampler = dl.shuffle() ? "RandomSampler" : "SequentialSampler";
    if (dl.fetch_batches() && !iterable) {
      imports += std::string("from torch.utils.data import BatchSampler, ") + sampler + "\n";
    }
    if (dl.has_collate()) {
      // A collate of a stand-in cost is PyTorch's own call, read again as work of a cost the
      // code does not show; a known cost rides along as a setting.
      if (dl.collate().cost_is_stand_in()) {
        imports += "from torch.utils.data import default_collate\n";
        c << "def collate_fn(samples):\n    return default_collate(samples)  # your collate\n\n\n";
      } else {
        c << "def collate_fn(samples):\n    return samples  # your collate\n\n\n";
        if (dl.collate().has_python())
          e.Pragma("loader.collate_cost=" + dl.collate().python().duration());
      }
    }
    c << "loader = DataLoader(\n    " << dataset;
    if (iterable) {
      c << ",\n    batch_size=" << dl.batch_size();
    } else if (dl.fetch_batches()) {
      // Each batch's indices in one call of the dataset.
      c << ",\n    sampler=BatchSampler(" << sampler << "(range(" << items
        << ")), batch_size=" << dl.batch_size() << ", drop_last=" << Bool(dl.drop_last())
        << "),\n    batch_size=None";
    } else {
      c << ",\n    batch_size=" << dl.batch_size();
      if (dl.shuffle()) c << ",\n    shuffle=True";
    }
    c << ",\n    num_workers=" << dl.num_workers();
    if (dl.has_collate()) c << ",\n    collate_fn=collate_fn";
    c << ",\n    pin_memory=" << Bool(dl.pin_memory());
    if (!dl.fetch_batches()) c << ",\n    drop_last=" << Bool(dl.drop_last());
    // PyTorch refuses both without workers (a ValueError for each).
    if (dl.num_workers() > 0) {
      if (dl.has_prefetch_factor()) c << ",\n    prefetch_factor=" << dl.prefetch_factor();
      c << ",\n    persistent_workers=" << Bool(dl.persistent_workers());
    }
    if (dl.has_in_order()) c << ",\n    in_order=" << Bool(dl.in_order());
    // Workers that spawn import this file again: its loop runs only in the main process.
    const bool spawns = dl.num_workers() > 0 && dl.start_method() != spec::fork;
    if (spawns) {
      c << ",\n    multiprocessing_context=\"" << spec::StartMethod_Name(dl.start_method()) << "\"";
    }
    c << ")\n";
    // What the dataset the code was read from keeps, which the one written here does not.
    if (dl.dataset_bytes() > 0)
      e.Pragma("loader.dataset_bytes=" + std::to_string(dl.dataset_bytes()));
    if (dl.dataset_bytes_per_item() > 0)
      e.Pragma("loader.dataset_bytes_per_item=" + std::to_string(dl.dataset_bytes_per_item()));
    if (dl.made_each_epoch()) e.Pragma("loader.made_each_epoch=true");
    // Epochs the training loop counts (`for epoch in range(N):` as import-code reads it).
    if (const spec::Op& last = *spec.ops().rbegin();
        last.has_repeat() && last.repeat().has_count() && &last != loader) {
      const std::string indent = spawns ? "    " : "";
      c << (spawns ? "\n\nif __name__ == \"__main__\":" : "\n") << "\n"
        << indent << "for epoch in range(" << last.repeat().count() << "):\n"
        << indent << "    for batch in loader:\n"
        << indent << "        pass  # your training step\n";
    }
    if (dl.getitem().has_python()) {
      e.PythonPragmas("loader", dl.getitem(),
                      dl.getitem().output_bytes() > 0 || dl.indexes_batches());
    }
    if (!dl.worker_startup().empty()) e.Pragma("loader.worker_startup=" + dl.worker_startup());
    if (!dl.receive_per_mb().empty()) e.Pragma("loader.receive_per_mb=" + dl.receive_per_mb());
  }
  if (!spec.source().has_range()) {
    e.notes.push_back("the source '" + spec.source().name() + "' is written as " +
                      std::to_string(items) + " indices");
  }
  EmittedCode code;
  code.text = e.Text(spec, keras ? "Keras" : "PyTorch", imports, c.str());
  code.notes = e.notes;
  return code;
}

}  // namespace

std::string TfDataMethod(const spec::Op& op) {
  Emitter e;
  return e.Method(op, false);
}

std::string FrameworkOf(const spec::PipelineSpec& spec) {
  for (const spec::Op& op : spec.ops()) {
    if (op.has_dataloader()) return "pytorch";
    if (op.has_keras_fit()) return "keras";
  }
  return "tfdata";
}

engine::Result<EmittedCode> EmitCode(const spec::PipelineSpec& spec, const std::string& framework) {
  const std::string f = framework == "auto" || framework.empty() ? FrameworkOf(spec) : framework;
  if (f == "tfdata") {
    if (FrameworkOf(spec) != "tfdata") {
      return engine::InvalidArgument("the spec's pipeline is a " + FrameworkOf(spec) +
                                     " one: --emit " + FrameworkOf(spec));
    }
    return EmitTfData(spec);
  }
  if (f == "pytorch") return EmitLoader(spec, false);
  if (f == "keras") return EmitLoader(spec, true);
  return engine::InvalidArgument("--emit takes tfdata, pytorch, keras or auto, not '" + framework +
                                 "'");
}

}  // namespace pipescope::code
