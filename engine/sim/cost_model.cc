#include "engine/sim/cost_model.h"

#include <algorithm>
#include <cmath>

#include "engine/core/duration.h"
#include "engine/core/file_glob.h"
#include "engine/io/byte_source.h"
#include "engine/runtime/fixed_length_format.h"
#include "engine/runtime/storage_device.h"
#include "engine/sim/normal_draw.h"
#include "engine/sim/tfrecord_stats.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "engine/spec/work_bytes.h"
#include "engine/work/call_overhead.h"

namespace pipescope::sim {

double Rng::Normal() { return NormalFromBits(Next()); }

namespace {

// exp(mu + sigma * N(0, 1)), capped at a day: a long tail must not overflow virtual time.
int64_t LogNormalDraw(double mu, double sigma, Rng& rng) {
  return static_cast<int64_t>(std::min(std::exp(mu + sigma * rng.Normal()), 8.64e13));
}

}  // namespace

int64_t Dist::Sample(Rng& rng) const { return DistSampler(*this).Sample(rng); }

DistSampler::DistSampler(const Dist& d)
    : mean_ns_(d.mean_ns), log_normal_(d.mean_ns > 0 && d.cv > 0), cv2_(d.cv * d.cv) {
  if (!log_normal_) return;
  // A log-normal with this mean and cv: sigma^2 = ln(1 + cv^2), mu = ln(mean) - sigma^2/2.
  const double sigma2 = std::log1p(d.cv * d.cv);
  mu_ = std::log(d.mean_ns) - sigma2 / 2;
  sigma_ = std::sqrt(sigma2);
}

int64_t DistSampler::Sample(Rng& rng) const {
  if (mean_ns_ <= 0) return 0;
  if (!log_normal_) return static_cast<int64_t>(mean_ns_);
  return LogNormalDraw(mu_, sigma_, rng);
}

int64_t DistSampler::SampleSum(Rng& rng, int64_t n) const {
  if (n <= 1) return n == 1 ? Sample(rng) : 0;
  const double mean = mean_ns_ * static_cast<double>(n);
  if (mean_ns_ <= 0) return 0;
  if (!log_normal_) return static_cast<int64_t>(mean);
  SumParams uncached;
  SumParams* p = &uncached;
  if (n < static_cast<int64_t>(kKeptSums)) {
    if (n >= static_cast<int64_t>(sum_params_.size())) sum_params_.resize(n + 1);
    p = &sum_params_[n];
  }
  if (p->sigma < 0) {
    const double sigma2 = std::log1p(cv2_ / static_cast<double>(n));
    p->mu = std::log(mean) - sigma2 / 2;
    p->sigma = std::sqrt(sigma2);
  }
  return LogNormalDraw(p->mu, p->sigma, rng);
}

const OpCost& CostModel::Of(const std::string& op) const {
  static const OpCost kFree;
  auto it = ops.find(op);
  return it == ops.end() ? kFree : it->second;
}

namespace {

// Typical costs of the engine's work functions on one core of a current x86 machine
// (pipescope-cli run of the example pipelines); calibration replaces them with measured ones.
// A map call's own CPU, apart from its function's work and the hand-off between threads:
// the engine's bookkeeping around one call. chess_unpack shows it, its function's work being
// 96 bytes: in a recorded run unpack takes 0.35 us an element (the trace's self time,
// recording included), and calibration fits 0.1 us to a call and its row together. (On the
// other maps, whose functions take 2 us to 2 ms, a calibrated call cost is no measurement:
// calibration scales call and rows together, keeping this model's split.) It was 1 us, three
// to ten times that: chess_unpack's simulated groups were 18 elements where the engine's rule
// makes 32 of its run's, and its simulation made 2.5 times the events of one calibrated.
constexpr double kMapCallNs = 200;
constexpr double kSourceRecordNs = 1000;  // a source producing one record
constexpr double kCheapOpNs = 300;        // filter, shuffle, shard, take, ... per element

Dist Fixed(double ns) { return Dist{ns, 0}; }

struct FileStats {
  int64_t files = 0;
  int64_t records = 0;
  int64_t bytes = 0;
  std::vector<int64_t> by_file;  // each file's records, in order (0 for one not readable)
  // Records a file has on average, rounded up; `none` where no file is readable.
  int64_t RecordsPerFile(int64_t none) const {
    return files > 0 ? (records + files - 1) / files : none;
  }
};

// Records and bytes of the files a source reads, each counted by `stats_of_file` (a file's
// TfRecordFileStats: each file read once per version).
template <class StatsOfFile>
FileStats ScanFiles(const std::vector<std::string>& files, const StatsOfFile& stats_of_file) {
  FileStats s;
  for (const auto& f : files) {
    const TfRecordFileStats file = stats_of_file(f);
    s.by_file.push_back(file.readable ? file.records : 0);
    if (!file.readable) continue;
    ++s.files;
    s.records += file.records;
    s.bytes += file.bytes;
  }
  return s;
}
// The same for a format read by its compression alone (StatsOfTfRecordFile or
// StatsOfTextLineFile).
using StatsOf = TfRecordFileStats (*)(const std::string&, engine::Compression);
FileStats ScanFiles(const std::vector<std::string>& files, const std::string& compression,
                    StatsOf stats_of) {
  auto c = engine::ParseCompression(compression);
  return ScanFiles(files, [&](const std::string& f) {
    return stats_of(f, c.ok() ? c.value() : engine::Compression::kNone);
  });
}
// The same for fixed-length record files cut by `format`. A file the engine's reader refuses
// when it opens it (a body of no whole records) is the simulation's error too, not a file of
// no records: `stage` names the reader in it.
engine::Result<FileStats> ScanFiles(const std::vector<std::string>& files,
                                    const spec::FixedLengthRecordFile& format,
                                    const std::string& stage) {
  ASSIGN_OR_RETURN(const engine::FixedLengthRecordFormat cut, engine::FixedLengthFormatOf(format));
  engine::Status refused;
  const FileStats stats = ScanFiles(files, [&](const std::string& f) {
    auto file = StatsOfFixedLengthRecordFile(f, cut);
    if (!file.ok() && refused.ok()) refused = file.status();
    return file.ok() ? file.value() : TfRecordFileStats{};
  });
  if (!refused.ok()) return refused.WithContext("fixed_length_record '" + stage + "'");
  return stats;
}

engine::Result<double> DurationOr0(const std::string& text) {
  ASSIGN_OR_RETURN(int64_t ns, engine::OptionalDurationNs(text));
  return static_cast<double>(ns);
}

// Wait per record of storage with this latency and bandwidth.
engine::Result<double> StorageWaitNs(const std::string& latency, const std::string& bandwidth,
                                     int64_t record_bytes) {
  ASSIGN_OR_RETURN(double wait, DurationOr0(latency));
  if (!bandwidth.empty()) {
    ASSIGN_OR_RETURN(double bps, engine::ParseBytesPerSecond(bandwidth));
    if (bps > 0) wait += static_cast<double>(record_bytes) / bps * 1e9;
  }
  return wait;
}

class DefaultsBuilder {
 public:
  DefaultsBuilder(CostModel& m, bool spec_has_storage) : m_(m), disk_(spec_has_storage) {}

  // The pipeline's source, or a zip's second source (its stage named `stage`).
  engine::Status Source(const spec::Source& s, int64_t& bytes) {
    return Source(s, s.name(), bytes);
  }
  engine::Status Source(const spec::Source& s, const std::string& stage, int64_t& bytes) {
    OpCost& c = m_.ops[stage];
    switch (s.kind_case()) {
      case spec::Source::kRange: {
        const auto& r = s.range();
        c.records = engine::RangeLength(r.start(), r.stop(), engine::RangeStep(r));
        c.cpu = Fixed(200);
        bytes = 8;
        break;
      }
      case spec::Source::kFromGenerator:
        RETURN_IF_ERROR(Generator(s.from_generator(), c));
        bytes = 8;
        break;
      case spec::Source::kListFiles: {
        const auto files = engine::GlobFiles(s.list_files().pattern());
        c.records = static_cast<int64_t>(files.size());
        c.cpu = Fixed(kSourceRecordNs);
        files_ = files;
        bytes = 64;
        break;
      }
      case spec::Source::kSynthetic: {
        const auto& y = s.synthetic();
        c.records = y.records();
        bytes = std::max<int64_t>(1, y.record_bytes());
        c.cpu = Fixed(kSourceRecordNs + kCopyNsPerByte * static_cast<double>(bytes));
        ASSIGN_OR_RETURN(double wait, StorageWaitNs(y.read_latency(), y.bandwidth(), bytes));
        c.wait = Fixed(wait);
        c.records_from_disk =
            engine::RecordsReadFromTheDisk(disk_, y.read_latency(), y.bandwidth());
        break;
      }
      case spec::Source::kTfrecord: {
        const auto& t = s.tfrecord();
        const FileStats f =
            ScanFiles({t.files().begin(), t.files().end()}, t.compression(), StatsOfTfRecordFile);
        c.records = f.records;
        bytes = f.records > 0 ? f.bytes / f.records : 1024;
        c.records_from_disk = disk_;  // on the spec's disk where it names one
        c.cpu = Fixed(kSourceRecordNs + static_cast<double>(bytes));  // read + CRC
        break;
      }
      case spec::Source::kTextLine: {
        const auto& t = s.text_line();
        const FileStats f =
            ScanFiles({t.files().begin(), t.files().end()}, t.compression(), StatsOfTextLineFile);
        c.records = f.records;
        bytes = f.records > 0 ? std::max<int64_t>(1, f.bytes / f.records) : 64;
        c.cpu = Fixed(kSourceRecordNs + kCopyNsPerByte * static_cast<double>(bytes));
        break;
      }
      case spec::Source::kFixedLengthRecord: {
        const auto& f = s.fixed_length_record();
        ASSIGN_OR_RETURN(const FileStats stats,
                         ScanFiles({f.files().begin(), f.files().end()}, f.format(), stage));
        c.records = stats.records;
        bytes = std::max<int64_t>(1, f.format().record_bytes());
        c.cpu = Fixed(kSourceRecordNs + kCopyNsPerByte * static_cast<double>(bytes));
        c.records_from_disk = disk_;  // on the spec's disk where it names one
        break;
      }
      case spec::Source::kFromTensorSlices: {
        const auto& f = s.from_tensor_slices();
        c.records = engine::SliceCount(f);
        c.cpu = Fixed(200);
        int64_t text = 0;
        for (const std::string& v : f.strings()) text += static_cast<int64_t>(v.size());
        bytes = f.strings_size() > 0    ? std::max<int64_t>(1, text / f.strings_size())
                : f.element_bytes() > 0 ? f.element_bytes()
                                        : 8;
        // Strings are most often file names an interleave opens (from_tensor_slices(files)).
        files_.assign(f.strings().begin(), f.strings().end());
        break;
      }
      case spec::Source::KIND_NOT_SET:
        return engine::InvalidArgument("the pipeline has no source");
    }
    c.out_bytes = bytes;
    return engine::Status::Ok();
  }

  // A Python generator's costs (the source, or an interleave's per element).
  engine::Status Generator(const spec::FromGeneratorSource& g, OpCost& c) {
    c.records = g.records();
    ASSIGN_OR_RETURN(double ns, DurationOr0(g.duration()));
    // tf.data's own work around each next() (engine/work/call_overhead.h) once a yield,
    // the generator's Python by the rows it makes: a model of one-row yields costs a
    // batch-yielding generator's candidate right (generator_batches_advice.h).
    ASSIGN_OR_RETURN(const int64_t overhead, engine::GeneratorCallOverheadNs(g));
    c.cpu = Fixed(kSourceRecordNs + static_cast<double>(overhead));
    c.cpu_per_row = Fixed(ns / static_cast<double>(std::max<int64_t>(1, g.rows_per_yield())));
    c.gil_share = engine::PythonGilShare(g);
    ASSIGN_OR_RETURN(const double wait, DurationOr0(g.wait()));
    c.wait = Fixed(wait);
    ASSIGN_OR_RETURN(const double first_wait, DurationOr0(g.first_wait()));
    c.open_wait = Fixed(first_wait);
    c.out_bytes = 8;
    return engine::Status::Ok();
  }

  engine::Status ElementSource(const spec::ElementSource& es, const std::string& op,
                               int64_t& bytes) {
    switch (es.kind_case()) {
      case spec::ElementSource::kFromGenerator:
        RETURN_IF_ERROR(Generator(es.from_generator(), m_.ops[op + ".generator"]));
        bytes = 8;
        break;
      case spec::ElementSource::kFromElement:
        m_.ops[op + ".from_element"].cpu = Fixed(kCheapOpNs);
        break;
      case spec::ElementSource::kSyntheticFile: {
        const auto& f = es.synthetic_file();
        OpCost& c = m_.ops[op + ".read"];
        c.records = f.records_per_file();
        bytes = std::max<int64_t>(1, f.record_bytes());
        c.out_bytes = bytes;
        c.cpu = Fixed(kSourceRecordNs + kCopyNsPerByte * static_cast<double>(bytes));
        if (f.read_request_bytes() > 0 || f.read_latency_cv() > 0) {
          // Latency by request, the bandwidth by record.
          ASSIGN_OR_RETURN(double transfer, StorageWaitNs("", f.bandwidth(), bytes));
          c.wait = Fixed(transfer);
          ASSIGN_OR_RETURN(double latency, DurationOr0(f.read_latency()));
          c.request_wait = Dist{latency, latency > 0 ? f.read_latency_cv() : 0};
          c.request_bytes = f.read_request_bytes() > 0 ? f.read_request_bytes() : bytes;
        } else {
          ASSIGN_OR_RETURN(double wait, StorageWaitNs(f.read_latency(), f.bandwidth(), bytes));
          c.wait = Fixed(wait);
        }
        ASSIGN_OR_RETURN(double open, DurationOr0(f.open_latency()));
        c.open_wait = Fixed(open);
        c.records_from_disk =
            engine::RecordsReadFromTheDisk(disk_, f.read_latency(), f.bandwidth());
        break;
      }
      case spec::ElementSource::kTfrecordFile: {
        OpCost& c = m_.ops[op + ".read"];
        const FileStats f =
            ScanFiles(files_, es.tfrecord_file().compression(), StatsOfTfRecordFile);
        c.records = f.RecordsPerFile(100);
        c.records_by_file = f.by_file;
        bytes = f.records > 0 ? f.bytes / f.records : 1024;
        c.out_bytes = bytes;
        c.cpu = Fixed(kSourceRecordNs + static_cast<double>(bytes));
        c.open_wait = Fixed(50'000);  // opening a local file
        c.records_from_disk = disk_;  // on the spec's disk where it names one
        break;
      }
      case spec::ElementSource::kTextLineFile: {
        OpCost& c = m_.ops[op + ".read"];
        const FileStats f =
            ScanFiles(files_, es.text_line_file().compression(), StatsOfTextLineFile);
        c.records = f.RecordsPerFile(100);
        c.records_by_file = f.by_file;
        bytes = f.records > 0 ? std::max<int64_t>(1, f.bytes / f.records) : 64;
        c.out_bytes = bytes;
        c.cpu = Fixed(kSourceRecordNs + kCopyNsPerByte * static_cast<double>(bytes));
        c.open_wait = Fixed(50'000);  // opening a local file
        break;
      }
      case spec::ElementSource::kFixedLengthRecordFile: {
        OpCost& c = m_.ops[op + ".read"];
        const auto& format = es.fixed_length_record_file();
        ASSIGN_OR_RETURN(const FileStats f, ScanFiles(files_, format, op + ".read"));
        c.records = f.RecordsPerFile(100);
        c.records_by_file = f.by_file;
        bytes = std::max<int64_t>(1, format.record_bytes());
        c.out_bytes = bytes;
        c.cpu = Fixed(kSourceRecordNs + kCopyNsPerByte * static_cast<double>(bytes));
        c.open_wait = Fixed(50'000);  // opening a local file
        c.records_from_disk = disk_;  // on the spec's disk where it names one
        break;
      }
      case spec::ElementSource::KIND_NOT_SET:
        return engine::InvalidArgument("interleave '" + op + "' needs per_element");
    }
    return engine::Status::Ok();
  }

  engine::Status Ops(const google::protobuf::RepeatedPtrField<spec::Op>& ops, int64_t& bytes) {
    for (const auto& op : ops) RETURN_IF_ERROR(Op(op, bytes));
    return engine::Status::Ok();
  }

 private:
  engine::Status Op(const spec::Op& op, int64_t& bytes) {
    OpCost& c = m_.ops[op.name()];
    if (const spec::ElementSource* per_element = engine::PerElementSourceOf(op)) {
      RETURN_IF_ERROR(ElementSource(*per_element, op.name(), bytes));
      RETURN_IF_ERROR(Ops(*engine::SubPipelineOf(op), bytes));
      m_.ops[op.name()].cpu = Fixed(kCheapOpNs);
      return engine::Status::Ok();
    }
    if (const spec::Source* second = engine::SecondSourceOf(op)) {
      // The second pipeline's files are its own: an interleave after the zip opens the
      // input's.
      const std::vector<std::string> files = files_;
      int64_t second_bytes = 0;
      RETURN_IF_ERROR(Source(*second, op.name() + "." + second->name(), second_bytes));
      RETURN_IF_ERROR(Ops(*engine::SubPipelineOf(op), second_bytes));
      files_ = files;
      bytes += second_bytes;
      m_.ops[op.name()].cpu = Fixed(kCheapOpNs);
      return engine::Status::Ok();
    }
    if (op.has_dataloader()) return DataLoader(op.dataloader(), c, bytes);
    if (op.has_keras_fit()) {  // sequence[i] makes a batch: one call per element, as a map's
      c.cpu = Fixed(kMapCallNs);
      return Work(op.keras_fit().getitem(), c, bytes);
    }
    if (const engine::OpKindDescription* kind = engine::DescribeOp(op);
        kind && kind->ratio == engine::OutputRatio::kOneOverBatch) {  // copies its rows
      c.cpu = Fixed(1000);
      c.cpu_per_row = Fixed(kCopyNsPerByte * static_cast<double>(bytes));
      return engine::Status::Ok();
    }
    switch (op.kind_case()) {
      case spec::Op::kMap: {
        c.cpu = Fixed(kMapCallNs);
        RETURN_IF_ERROR(Work(op.map().fn(), c, bytes));
        // The framework's dispatch per call (engine/work/call_overhead.h); on a Python
        // function's lock share like the rest of its CPU (the engine runs it outside the
        // lock: the default, under a microsecond, makes no difference).
        ASSIGN_OR_RETURN(const int64_t overhead, engine::MapCallOverheadNs(op.map()));
        c.cpu.mean_ns += static_cast<double>(overhead);
        return engine::Status::Ok();
      }
      case spec::Op::kFilter: {
        // Each element looked at: the op's own step and the predicate's call
        // (engine/work/call_overhead.h).
        ASSIGN_OR_RETURN(const int64_t overhead, engine::FilterCallOverheadNs(op.filter()));
        c.cpu = Fixed(kCheapOpNs + static_cast<double>(overhead));
        if (op.filter().predicate().has_keep_fraction()) {
          c.keep_fraction =
              std::clamp(op.filter().predicate().keep_fraction().fraction(), 0.0, 1.0);
        } else if (op.filter().predicate().has_mod_equals()) {
          const int64_t m = op.filter().predicate().mod_equals().modulus();
          c.keep_fraction = m > 0 ? 1.0 / static_cast<double>(m) : 1.0;
        }
        return engine::Status::Ok();
      }
      default:
        c.cpu = Fixed(kCheapOpNs);
        return engine::Status::Ok();
    }
  }

  // A DataLoader: getitem per item (a row) with the stacking's copy, collate per batch;
  // the lock's share is getitem's (Python's unless it says otherwise).
  engine::Status DataLoader(const spec::DataLoaderOp& d, OpCost& c, int64_t& bytes) {
    OpCost getitem;
    RETURN_IF_ERROR(Work(d.getitem(), getitem, bytes));
    c.cpu_per_row = Fixed(getitem.cpu.mean_ns + getitem.cpu_per_row.mean_ns +
                          kCopyNsPerByte * static_cast<double>(bytes));
    c.wait = getitem.wait;
    c.read_bytes = getitem.read_bytes;
    c.read_files = getitem.read_files;
    c.gil_share = getitem.gil_share;
    c.cpu = Fixed(kMapCallNs);
    if (d.has_collate()) {
      OpCost collate;
      RETURN_IF_ERROR(Work(d.collate(), collate, bytes));
      c.cpu = Fixed(kMapCallNs + collate.cpu.mean_ns + collate.cpu_per_row.mean_ns);
    }
    c.out_bytes = bytes;
    return engine::Status::Ok();
  }

  // Per-row costs of a map's function and the size of what it makes: the spec's where it
  // fixes it (work_bytes.h), else a typical one (a decoded JPEG is about 8 times its file).
  engine::Status Work(const spec::WorkFunction& fn, OpCost& c, int64_t& bytes) {
    const double in = static_cast<double>(bytes);
    const std::optional<int64_t> fixed = engine::BytesAfterWork(fn, bytes);
    switch (fn.kind_case()) {
      case spec::WorkFunction::kCpuWork: {
        ASSIGN_OR_RETURN(double ns, DurationOr0(fn.cpu_work().duration()));
        ASSIGN_OR_RETURN(double wait, DurationOr0(fn.cpu_work().wait()));
        c.cpu_per_row = Fixed(ns);
        c.wait = Fixed(wait);
        c.read_bytes = fn.cpu_work().read_bytes();
        c.read_files = engine::FilesReadByACall(fn.cpu_work());
        break;
      }
      case spec::WorkFunction::kIoWait: {
        ASSIGN_OR_RETURN(double ns, DurationOr0(fn.io_wait().duration()));
        c.wait = Fixed(ns);
        break;
      }
      case spec::WorkFunction::kPython: {  // per call, a batch's included
        ASSIGN_OR_RETURN(double ns, DurationOr0(fn.python().duration()));
        ASSIGN_OR_RETURN(double wait, DurationOr0(fn.python().wait()));
        c.cpu = Fixed(kMapCallNs + ns);
        // The files' stand-in wait gives way to the disk the spec names.
        c.wait = Fixed(engine::FileLoadsReadTheDisk(fn.python(), disk_) ? 0 : wait);
        c.gil_share = engine::PythonGilShare(fn.python());
        c.read_bytes = fn.python().read_bytes();
        c.read_files = engine::FilesReadByACall(fn.python());
        break;
      }
      case spec::WorkFunction::kUnpackBits:
      case spec::WorkFunction::kNormalize:
      case spec::WorkFunction::kRandomFlip:
        c.cpu_per_row = Fixed(in * (fn.has_random_flip() ? 0.5 : 1.0));
        break;
      case spec::WorkFunction::kParseExample:
        c.cpu_per_row = Fixed(1000 + in * 0.5);
        break;
      case spec::WorkFunction::kDecodeCsv:
        // io_benchmark BM_DecodeCsv on the project's machine: 2.2 ns a byte of numeric fields
        // over a batch of lines, a few tens of ns more for a line on its own; where the
        // fields are not counted, one float32 for every 8 bytes of text.
        c.cpu_per_row = Fixed(80 + in * 2.2);
        bytes = fixed.value_or(4 * std::max<int64_t>(1, bytes / 8));
        break;
      case spec::WorkFunction::kDecodeJpeg:
        c.cpu_per_row = Fixed(in * 20);
        bytes = std::max<int64_t>(bytes * 8, 1);
        break;
      case spec::WorkFunction::kResize:
        c.cpu_per_row = Fixed(static_cast<double>(*fixed) * 2);
        break;
      case spec::WorkFunction::kRandomCrop:
        c.cpu_per_row = Fixed(static_cast<double>(*fixed) * 0.5);
        break;
      default:
        break;
    }
    if (fn.output_bytes() > 0) {  // a new array, written (sized_output.h)
      c.cpu_per_row.mean_ns += kCopyNsPerByte * static_cast<double>(fn.output_bytes());
    }
    if (fixed) bytes = *fixed;
    c.out_bytes = bytes;
    return engine::Status::Ok();
  }

  CostModel& m_;
  const bool disk_;                 // the spec names a disk (spec::Storage)
  std::vector<std::string> files_;  // list_files' matches, for tfrecord_file sub-pipelines
};

}  // namespace

engine::Result<CostModel> DefaultCostModel(const spec::PipelineSpec& spec, double cores) {
  CostModel m;
  m.cores = cores > 0 ? cores : 2;
  m.origin = "spec";
  ASSIGN_OR_RETURN(double step, DurationOr0(spec.train_step().step_time()));
  m.step = Fixed(step);
  ASSIGN_OR_RETURN(double loop_python, DurationOr0(spec.train_step().loop_python()));
  m.loop_python = Fixed(loop_python);
  DefaultsBuilder builder(m, spec.has_storage());
  int64_t bytes = 0;
  RETURN_IF_ERROR(builder.Source(spec.source(), bytes));
  RETURN_IF_ERROR(builder.Ops(spec.ops(), bytes));
  return m;
}

}  // namespace pipescope::sim
