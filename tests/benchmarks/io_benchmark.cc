// Real-data figures (docs/BENCHMARKS.md): reading and checking TFRecord files against
// plain reading of the same file, parse_example on MNIST-like records, decode_csv on
// numeric rows, and decode_jpeg of 500x375 JPEGs. Run with
//   build/tests/io_benchmark
// It writes its files under $TMPDIR (default /tmp): a 256 MiB TFRecord file and 64 JPEGs
// (pipescope_bench_*.jpg, for comparing with `tjbench`).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

#include "engine/io/dataset_maker.h"
#include "engine/io/fixed_length_record_reader.h"
#include "engine/io/tfrecord_reader.h"
#include "engine/io/tfrecord_writer.h"
#include "engine/runtime/allocator_tuning.h"
#include "engine/work/decode_csv.h"
#include "engine/work/image_ops.h"
#include "engine/work/jpeg_codec.h"
#include "engine/work/parse_example.h"

namespace pipescope::engine {
namespace {

std::string TmpDir() { return std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp"; }

// 256 MiB of 64 KiB records, written once per process.
const std::string& BigFile() {
  static const std::string path = [] {
    std::string p = TmpDir() + "/pipescope_bench_big.tfrecord";
    auto w = TfRecordWriter::Create(p, Compression::kNone);
    std::mt19937_64 rng(1);
    std::string record(64 * 1024, '\0');
    for (auto& c : record) c = static_cast<char>(rng());
    for (int i = 0; i < 4096; ++i) {
      record[0] = static_cast<char>(i);
      (void)(*w)->Write(record);
    }
    (void)(*w)->Close();
    return p;
  }();
  return path;
}

// What `cat FILE > /dev/null` does: read(2) the file in 128 KiB blocks.
void BM_CatFile(benchmark::State& state) {
  const std::string& path = BigFile();
  std::vector<char> buf(128 * 1024);
  size_t bytes = 0;
  for (auto _ : state) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    std::setvbuf(f, nullptr, _IONBF, 0);
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) bytes += n;
    std::fclose(f);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_CatFile)->Unit(benchmark::kMillisecond)->UseRealTime();

// Every record read and both checksums verified, in place (what `inspect` does).
void BM_TfRecordReadAndCheck(benchmark::State& state) {
  const std::string& path = BigFile();
  size_t bytes = 0;
  int64_t records = 0;
  for (auto _ : state) {
    auto r = TfRecordReader::Open(path, {});
    uint64_t length = 0;
    bool end = false;
    while ((*r)->Check(length, end).ok() && !end) {
      bytes += length + 16;
      ++records;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["records"] =
      static_cast<double>(records) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_TfRecordReadAndCheck)->Unit(benchmark::kMillisecond)->UseRealTime();

// Every record checked and copied into a string that outlives the file's bytes, as a
// pipeline's TFRecordDataset hands it on.
void BM_TfRecordReadIntoStrings(benchmark::State& state) {
  const std::string& path = BigFile();
  size_t bytes = 0;
  for (auto _ : state) {
    auto r = TfRecordReader::Open(path, {});
    std::string record;
    bool end = false;
    while ((*r)->Read(record, end).ok() && !end) bytes += record.size() + 16;
    benchmark::DoNotOptimize(record);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_TfRecordReadIntoStrings)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same file cut into fixed-length records of state.range(0) bytes and copied out, as
// FixedLengthRecordDataset hands them on: CIFAR-10's 3,073 bytes, and tensorflow#40502's 10,
// where the per-record cost is all there is. The file's last bytes are its footer, so that
// its body is whole records.
void BM_FixedLengthRecordsIntoStrings(benchmark::State& state) {
  const std::string& path = BigFile();
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const auto size = static_cast<int64_t>(in.tellg());
  FixedLengthRecordFormat format;
  format.record_bytes = state.range(0);
  format.footer_bytes = size % format.record_bytes;
  size_t bytes = 0;
  int64_t records = 0;
  for (auto _ : state) {
    auto r = FixedLengthRecordReader::Open(path, format);
    std::string record;
    bool end = false;
    while ((*r)->Read(record, end).ok() && !end) {
      bytes += record.size();
      ++records;
    }
    benchmark::DoNotOptimize(record);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(records);
}
BENCHMARK(BM_FixedLengthRecordsIntoStrings)
    ->Arg(3073)
    ->Arg(10)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_ParseExampleMnist(benchmark::State& state) {
  std::mt19937_64 rng(2);
  std::vector<std::string> records;
  records.reserve(256);
  for (int i = 0; i < 256; ++i)
    records.push_back(MakeExampleRecord(DatasetKind::kMnistLike, rng).value());
  spec::ParseExample config;
  auto* image = config.add_features();
  image->set_name("image");
  image->set_dtype("float");
  image->add_shape(784);
  auto* label = config.add_features();
  label->set_name("label");
  label->set_dtype("int64");
  auto fn = ParseExample::Create(config).value();
  CancellationToken c;
  size_t i = 0;
  for (auto _ : state) {
    Element e;
    e.value = Tensor::String(records[i++ % records.size()]);
    if (!fn->Apply(e, c).ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ParseExampleMnist);

// decode_csv on lines of 10 numeric fields (a tabular dataset's row, about 70 bytes), one
// line a call and 256 a call (tf.io.decode_csv after batch): bytes parsed per second.
void BM_DecodeCsv(benchmark::State& state) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> value(-1000, 1000);
  std::vector<std::string> lines;
  int64_t bytes = 0;
  for (int i = 0; i < 256; ++i) {
    std::string line;
    for (int f = 0; f < 10; ++f) {
      char field[32];
      std::snprintf(field, sizeof field, "%s%.3f", f ? "," : "", value(rng));
      line += field;
    }
    bytes += static_cast<int64_t>(line.size());
    lines.push_back(std::move(line));
  }
  spec::DecodeCsv config;
  config.set_columns(10);
  auto fn = DecodeCsv::Create(config).value();
  CancellationToken c;
  const bool batched = state.range(0) != 0;
  for (auto _ : state) {
    if (batched) {
      Element e;
      e.value = Tensor(DType::kString, Shape{256});
      e.value.strings() = lines;
      if (!fn->ApplyBatched(e, 256, c).ok()) state.SkipWithError("decode_csv failed");
      benchmark::DoNotOptimize(e);
    } else {
      for (const std::string& line : lines) {
        Element e;
        e.value = Tensor::String(line);
        if (!fn->Apply(e, c).ok()) state.SkipWithError("decode_csv failed");
        benchmark::DoNotOptimize(e);
      }
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
}
BENCHMARK(BM_DecodeCsv)->ArgName("batched")->Arg(0)->Arg(1);

// 64 photo-like 500x375 JPEGs at quality 90, also written out for tjbench.
const std::vector<std::string>& Jpegs() {
  static const std::vector<std::string> jpegs = [] {
    std::vector<std::string> out;
    std::mt19937_64 rng(3);
    for (int i = 0; i < 64; ++i) {
      out.push_back(EncodeJpeg(SyntheticPhoto(500, 375, rng), 90).value());
      std::ofstream(TmpDir() + "/pipescope_bench_" + std::to_string(i) + ".jpg", std::ios::binary)
          << out.back();
    }
    return out;
  }();
  return jpegs;
}

void BM_DecodeJpeg500x375(benchmark::State& state) {
  TuneAllocatorForPipelines();  // as every pipeline runs (engine/runtime/allocator_tuning.h)
  const auto& jpegs = Jpegs();
  DecodeJpegFn fn("");
  CancellationToken c;
  size_t i = 0;
  for (auto _ : state) {
    Element e;
    e.value = Tensor::String(jpegs[i++ % jpegs.size()]);
    if (!fn.Apply(e, c).ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_DecodeJpeg500x375)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace pipescope::engine

BENCHMARK_MAIN();
