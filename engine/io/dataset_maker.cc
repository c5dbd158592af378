#include "engine/io/dataset_maker.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/io/example.pb.h"
#include "engine/io/tfrecord_writer.h"
#include "engine/work/jpeg_codec.h"

namespace pipescope::engine {
namespace {

void SetBytes(tf::Example& e, const std::string& name, std::string value) {
  (*e.mutable_features()->mutable_feature())[name].mutable_bytes_list()->add_value(
      std::move(value));
}
void SetInt64(tf::Example& e, const std::string& name, int64_t value) {
  (*e.mutable_features()->mutable_feature())[name].mutable_int64_list()->add_value(value);
}
void SetFloat(tf::Example& e, const std::string& name, float value) {
  (*e.mutable_features()->mutable_feature())[name].mutable_float_list()->add_value(value);
}

// A photo-like picture: smooth gradients, a few discs and some noise, so that JPEG sizes
// vary as real photos' do.
}  // namespace

RgbImage SyntheticPhoto(int width, int height, std::mt19937_64& rng) {
  RgbImage img;
  img.width = width;
  img.height = height;
  img.pixels.resize(static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * 3);
  const double fx = std::uniform_real_distribution<double>(0.01, 0.08)(rng);
  const double fy = std::uniform_real_distribution<double>(0.01, 0.08)(rng);
  const int noise = static_cast<int>(rng() % 40);
  struct Disc {
    double x, y, r;
    uint8_t c[3];
  };
  std::vector<Disc> discs(1 + rng() % 5);
  for (auto& d : discs) {
    d = {static_cast<double>(rng() % static_cast<uint64_t>(img.width)),
         static_cast<double>(rng() % static_cast<uint64_t>(img.height)),
         8.0 + static_cast<double>(rng() % 60),
         {static_cast<uint8_t>(rng()), static_cast<uint8_t>(rng()), static_cast<uint8_t>(rng())}};
  }
  uint64_t n = rng();
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      uint8_t* p = &img.pixels[(static_cast<size_t>(y) * static_cast<size_t>(img.width) +
                                static_cast<size_t>(x)) *
                               3];
      p[0] = static_cast<uint8_t>(127 + 120 * std::sin(x * fx));
      p[1] = static_cast<uint8_t>(127 + 120 * std::cos(y * fy));
      p[2] = static_cast<uint8_t>((x + y) & 0xff);
      for (const auto& d : discs) {
        if ((x - d.x) * (x - d.x) + (y - d.y) * (y - d.y) < d.r * d.r) std::copy(d.c, d.c + 3, p);
      }
      if (noise > 0) {
        n ^= n << 13;
        n ^= n >> 7;
        n ^= n << 17;
        for (int c = 0; c < 3; ++c)
          p[c] = static_cast<uint8_t>(std::clamp(
              p[c] + static_cast<int>(n >> (8 * c) & 0xff) % (2 * noise + 1) - noise, 0, 255));
      }
    }
  }
  return img;
}

namespace {

RgbImage Picture(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> side(64, 320);
  const int w = side(rng);
  return SyntheticPhoto(w, side(rng), rng);
}

std::string ShardPath(const MakeDatasetOptions& o, int shard) {
  char name[128];
  std::snprintf(name, sizeof name, "%s-%05d-of-%05d.tfrecord%s", DatasetKindName(o.kind).c_str(),
                shard, o.shards,
                o.compression == Compression::kGzip   ? ".gz"
                : o.compression == Compression::kZlib ? ".zz"
                                                      : "");
  return (std::filesystem::path(o.out_dir) / name).string();
}

}  // namespace

Result<DatasetKind> ParseDatasetKind(const std::string& name) {
  if (name == "imagenet-like") return DatasetKind::kImagenetLike;
  if (name == "mnist-like") return DatasetKind::kMnistLike;
  if (name == "chess") return DatasetKind::kChess;
  return InvalidArgument("unknown dataset kind \"" + name +
                         "\" (imagenet-like, mnist-like or chess)");
}

std::string DatasetKindName(DatasetKind kind) {
  switch (kind) {
    case DatasetKind::kImagenetLike:
      return "imagenet-like";
    case DatasetKind::kMnistLike:
      return "mnist-like";
    case DatasetKind::kChess:
      break;
  }
  return "chess";
}

Result<std::string> MakeExampleRecord(DatasetKind kind, std::mt19937_64& rng) {
  tf::Example e;
  switch (kind) {
    case DatasetKind::kImagenetLike: {
      const RgbImage img = Picture(rng);
      ASSIGN_OR_RETURN(std::string jpeg, EncodeJpeg(img, 60 + static_cast<int>(rng() % 36)));
      SetBytes(e, "image/encoded", std::move(jpeg));
      SetBytes(e, "image/format", "jpeg");
      SetInt64(e, "image/height", img.height);
      SetInt64(e, "image/width", img.width);
      SetInt64(e, "image/class/label", static_cast<int64_t>(rng() % 1000));
      break;
    }
    case DatasetKind::kMnistLike: {
      // 28x28 grey levels in [0, 1] as floats, as MNIST is usually stored for training.
      auto* image = (*e.mutable_features()->mutable_feature())["image"].mutable_float_list();
      const int cx = 8 + static_cast<int>(rng() % 12), cy = 8 + static_cast<int>(rng() % 12);
      for (int y = 0; y < 28; ++y) {
        for (int x = 0; x < 28; ++x) {
          const int d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
          image->add_value(d2 < 30 ? static_cast<float>(255 - d2 * 8) / 255.0f : 0.0f);
        }
      }
      SetInt64(e, "label", static_cast<int64_t>(rng() % 10));
      break;
    }
    case DatasetKind::kChess: {
      // 12 planes (6 piece types x 2 colours) of 64 squares; each square holds at most one
      // piece, about 16-32 pieces in all.
      std::string board(96, '\0');
      const int pieces = 16 + static_cast<int>(rng() % 17);
      for (int i = 0; i < pieces; ++i) {
        const int square = static_cast<int>(rng() % 64), plane = static_cast<int>(rng() % 12);
        const int bit = plane * 64 + square;
        board[static_cast<size_t>(bit / 8)] =
            static_cast<char>(board[static_cast<size_t>(bit / 8)] | (1 << (bit % 8)));
      }
      SetBytes(e, "board", std::move(board));
      SetFloat(e, "result", static_cast<float>(static_cast<int>(rng() % 3) - 1));
      SetInt64(e, "move_count", static_cast<int64_t>(rng() % 120));
      break;
    }
  }
  return e.SerializeAsString();
}

Result<MadeDataset> MakeDataset(const MakeDatasetOptions& o) {
  if (o.records < 0) return InvalidArgument("make-dataset: --records must not be negative");
  if (o.shards < 1 || o.shards > 100000)
    return InvalidArgument("make-dataset: --shards must be 1 to 100000");
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec)
    return InvalidArgument("make-dataset: cannot create \"" + o.out_dir + "\": " + ec.message());
  MadeDataset made;
  std::mt19937_64 rng(o.seed);
  int64_t written = 0;
  for (int shard = 0; shard < o.shards; ++shard) {
    const std::string path = ShardPath(o, shard);
    ASSIGN_OR_RETURN(auto writer, TfRecordWriter::Create(path, o.compression));
    // Shard i holds records [i*N/K, (i+1)*N/K): sizes differ by at most one.
    const int64_t end = o.records * (shard + 1) / o.shards;
    for (; written < end; ++written) {
      ASSIGN_OR_RETURN(std::string record, MakeExampleRecord(o.kind, rng));
      RETURN_IF_ERROR(writer->Write(record));
      if (o.progress) o.progress(written + 1, o.records);
    }
    RETURN_IF_ERROR(writer->Close());
    made.bytes += writer->bytes_written();
    made.files.push_back(path);
  }
  return made;
}

}  // namespace pipescope::engine
