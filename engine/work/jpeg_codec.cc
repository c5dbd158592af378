#include "engine/work/jpeg_codec.h"

#include <turbojpeg.h>

#include <memory>

namespace pipescope::engine {
namespace {

struct TjDeleter {
  void operator()(void* handle) const { tjDestroy(handle); }
};
using TjHandle = std::unique_ptr<void, TjDeleter>;

constexpr int64_t kMaxPixels = int64_t{64} << 20;

}  // namespace

Result<std::string> EncodeJpeg(const RgbImage& image, int quality) {
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() !=
          static_cast<size_t>(image.width) * static_cast<size_t>(image.height) * 3) {
    return InvalidArgument("encode_jpeg: the image's size does not match its pixels");
  }
  TjHandle tj(tjInitCompress());
  if (!tj) return Internal("encode_jpeg: cannot start libjpeg-turbo");
  unsigned char* out = nullptr;
  unsigned long size = 0;
  if (tjCompress2(tj.get(), image.pixels.data(), image.width, 0, image.height, TJPF_RGB, &out,
                  &size, TJSAMP_420, quality, TJFLAG_FASTDCT) != 0) {
    if (out) tjFree(out);
    return Internal(std::string("encode_jpeg: ") + tjGetErrorStr2(tj.get()));
  }
  std::string jpeg(reinterpret_cast<const char*>(out), size);
  tjFree(out);
  return jpeg;
}

namespace {

// A decompressor per thread: creating one costs more than decoding a small image.
tjhandle ThreadDecompressor() {
  thread_local TjHandle handle(tjInitDecompress());
  return handle.get();
}

}  // namespace

Result<JpegSize> ReadJpegSize(std::string_view jpeg) {
  tjhandle tj = ThreadDecompressor();
  if (!tj) return Internal("decode_jpeg: cannot start libjpeg-turbo");
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(tj, reinterpret_cast<const unsigned char*>(jpeg.data()),
                          static_cast<unsigned long>(jpeg.size()), &width, &height, &subsampling,
                          &colorspace) != 0) {
    return InvalidArgument(std::string("decode_jpeg: not a JPEG image (") + tjGetErrorStr2(tj) +
                           ", " + std::to_string(jpeg.size()) + " bytes)");
  }
  if (width <= 0 || height <= 0 || static_cast<int64_t>(width) * height > kMaxPixels) {
    return InvalidArgument("decode_jpeg: a " + std::to_string(width) + "x" +
                           std::to_string(height) + " image is beyond the 64 Mpixel limit");
  }
  return JpegSize{width, height};
}

Status DecodeJpegInto(std::string_view jpeg, JpegSize size, uint8_t* rgb) {
  tjhandle tj = ThreadDecompressor();
  if (tjDecompress2(tj, reinterpret_cast<const unsigned char*>(jpeg.data()),
                    static_cast<unsigned long>(jpeg.size()), rgb, size.width, 0, size.height,
                    TJPF_RGB, TJFLAG_FASTDCT) != 0 &&
      tjGetErrorCode(tj) == TJERR_FATAL) {
    return InvalidArgument(std::string("decode_jpeg: corrupt JPEG data (") + tjGetErrorStr2(tj) +
                           ")");
  }
  return Status::Ok();
}

Result<RgbImage> DecodeJpeg(std::string_view jpeg) {
  ASSIGN_OR_RETURN(JpegSize size, ReadJpegSize(jpeg));
  RgbImage image;
  image.width = size.width;
  image.height = size.height;
  image.pixels.resize(static_cast<size_t>(size.width) * static_cast<size_t>(size.height) * 3);
  RETURN_IF_ERROR(DecodeJpegInto(jpeg, size, image.pixels.data()));
  return image;
}

}  // namespace pipescope::engine
