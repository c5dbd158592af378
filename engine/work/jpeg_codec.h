#pragma once
// JPEG encoding and decoding with libjpeg-turbo: real pixels for the imagenet-like
// dataset maker and the decode_jpeg work function.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"

namespace pipescope::engine {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // height x width x 3, row-major
};

Result<std::string> EncodeJpeg(const RgbImage& image, int quality);
// Errors name what is wrong with the bytes; images over 64 Mpixel are refused.
Result<RgbImage> DecodeJpeg(std::string_view jpeg);

// The two halves of DecodeJpeg, for decoding straight into a buffer the caller owns
// (a tensor): the size first, then the pixels, height x width x 3 RGB.
struct JpegSize {
  int width = 0;
  int height = 0;
};
Result<JpegSize> ReadJpegSize(std::string_view jpeg);
Status DecodeJpegInto(std::string_view jpeg, JpegSize size, uint8_t* rgb);

}  // namespace pipescope::engine
