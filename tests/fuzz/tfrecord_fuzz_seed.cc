#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "engine/io/dataset_maker.h"
#include "engine/io/tfrecord_writer.h"
#include "tests/fuzz/fuzz_seed.h"

namespace pipescope::fuzz {

std::string FuzzSeed() {
  const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                           "/pipescope_tfrecord_fuzz_seed.tfrecord";
  auto writer = engine::TfRecordWriter::Create(path, engine::Compression::kNone);
  if (!writer.ok()) return {};
  std::mt19937_64 rng(1);
  for (auto kind : {engine::DatasetKind::kMnistLike, engine::DatasetKind::kChess,
                    engine::DatasetKind::kChess}) {
    (void)(*writer)->Write(engine::MakeExampleRecord(kind, rng).value());
  }
  (void)(*writer)->Close();
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::remove(path.c_str());
  return std::move(bytes).str();
}

}  // namespace pipescope::fuzz
