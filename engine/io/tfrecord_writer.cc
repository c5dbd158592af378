#include "engine/io/tfrecord_writer.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "engine/io/tfrecord_format.h"

namespace pipescope::engine {

struct TfRecordWriter::Deflater {
  z_stream z{};
  std::string out;
};

Result<std::unique_ptr<TfRecordWriter>> TfRecordWriter::Create(const std::string& path,
                                                               Compression compression) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f)
    return Status(StatusCode::kNotFound, "cannot create \"" + path + "\": " + std::strerror(errno));
  std::unique_ptr<TfRecordWriter> w(new TfRecordWriter(f, path));
  if (compression != Compression::kNone) {
    w->deflater_ = std::make_unique<Deflater>();
    const int window = compression == Compression::kGzip ? 16 + MAX_WBITS : MAX_WBITS;
    if (deflateInit2(&w->deflater_->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      return Status(StatusCode::kInternal, "cannot start compressing \"" + path + "\"");
    }
  }
  return w;
}

TfRecordWriter::TfRecordWriter(std::FILE* file, std::string path)
    : file_(file), path_(std::move(path)) {}

TfRecordWriter::~TfRecordWriter() { (void)Close(); }

Status TfRecordWriter::Emit(const char* data, size_t n, bool finish) {
  if (!file_) return Status(StatusCode::kInternal, "\"" + path_ + "\" is closed");
  if (!deflater_) {
    if (n > 0 && std::fwrite(data, 1, n, file_) != n) {
      return Status(StatusCode::kDataLoss, "writing \"" + path_ + "\": " + std::strerror(errno));
    }
    bytes_written_ += n;
    return Status::Ok();
  }
  z_stream& z = deflater_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
  z.avail_in = static_cast<uInt>(n);
  std::string& out = deflater_->out;
  int rc;
  do {
    out.resize(64 * 1024);
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    rc = deflate(&z, finish ? Z_FINISH : Z_NO_FLUSH);
    const size_t produced = out.size() - z.avail_out;
    if (produced > 0 && std::fwrite(out.data(), 1, produced, file_) != produced) {
      return Status(StatusCode::kDataLoss, "writing \"" + path_ + "\": " + std::strerror(errno));
    }
    bytes_written_ += produced;
  } while (z.avail_out == 0 || (finish && rc != Z_STREAM_END));
  return Status::Ok();
}

Status TfRecordWriter::Write(std::string_view record) {
  std::string head;
  AppendLe64(head, record.size());
  AppendLe32(head, MaskedCrc(head.data(), 8));
  std::string tail;
  AppendLe32(tail, MaskedCrc(record.data(), record.size()));
  RETURN_IF_ERROR(Emit(head.data(), head.size(), false));
  RETURN_IF_ERROR(Emit(record.data(), record.size(), false));
  return Emit(tail.data(), tail.size(), false);
}

Status TfRecordWriter::Close() {
  if (!file_) return Status::Ok();
  Status s = Status::Ok();
  if (deflater_) {
    s = Emit(nullptr, 0, true);
    deflateEnd(&deflater_->z);
    deflater_.reset();
  }
  if (std::fclose(file_) != 0 && s.ok())
    s = Status(StatusCode::kDataLoss, "closing \"" + path_ + "\"");
  file_ = nullptr;
  return s;
}

}  // namespace pipescope::engine
