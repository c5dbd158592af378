#include "app/session/raster.h"

#include <stb_easy_font.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace pipescope::session {

Raster::Raster(int width, int height, Rgb background)
    : width_(std::max(1, width)),
      height_(std::max(1, height)),
      pixels_(static_cast<size_t>(width_) * static_cast<size_t>(height_) * 3) {
  for (size_t i = 0; i < pixels_.size(); i += 3) {
    pixels_[i] = background.r;
    pixels_[i + 1] = background.g;
    pixels_[i + 2] = background.b;
  }
}

Rgb Raster::At(int x, int y) const {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return {};
  const size_t i =
      (static_cast<size_t>(y) * static_cast<size_t>(width_) + static_cast<size_t>(x)) * 3;
  return {pixels_[i], pixels_[i + 1], pixels_[i + 2]};
}

void Raster::FillRect(double x0, double y0, double x1, double y1, Rgb color) {
  const int a = std::max(0, static_cast<int>(std::floor(std::min(x0, x1))));
  const int b = std::min(width_, static_cast<int>(std::ceil(std::max(x0, x1))));
  const int c = std::max(0, static_cast<int>(std::floor(std::min(y0, y1))));
  const int d = std::min(height_, static_cast<int>(std::ceil(std::max(y0, y1))));
  for (int y = c; y < d; ++y) {
    for (int x = a; x < b; ++x) {
      const size_t i =
          (static_cast<size_t>(y) * static_cast<size_t>(width_) + static_cast<size_t>(x)) * 3;
      pixels_[i] = color.r;
      pixels_[i + 1] = color.g;
      pixels_[i + 2] = color.b;
    }
  }
}

void Raster::Line(double x0, double y0, double x1, double y1, Rgb color, double thickness) {
  // Square stamps along the line, one per pixel of its longer extent.
  const double steps = std::max({std::fabs(x1 - x0), std::fabs(y1 - y0), 1.0});
  const double half = thickness / 2;
  for (int i = 0; i <= static_cast<int>(steps); ++i) {
    const double t = i / steps;
    const double x = x0 + (x1 - x0) * t, y = y0 + (y1 - y0) * t;
    FillRect(x - half, y - half, x + half, y + half, color);
  }
}

void Raster::Dot(double x, double y, double radius, Rgb color) {
  for (int dy = static_cast<int>(-radius); dy <= static_cast<int>(radius); ++dy) {
    const double w = std::sqrt(std::max(0.0, radius * radius - dy * dy));
    FillRect(x - w, y + dy - 0.5, x + w, y + dy + 0.5, color);
  }
}

void Raster::Text(double x, double y, const std::string& text, Rgb color, int scale) {
  // stb_easy_font writes quads of 4 vertices, 16 bytes each (x, y, z, rgba).
  // About 270 bytes a character on average, more for some (a "0" alone needs over 300).
  std::vector<char> quads(text.size() * 1024 + 1024);
  std::string copy = text;
  const int count =
      stb_easy_font_print(0, 0, copy.data(), nullptr, quads.data(), static_cast<int>(quads.size()));
  for (int q = 0; q < count; ++q) {
    float corner[2][2];
    std::memcpy(corner[0], quads.data() + static_cast<size_t>(q) * 64, sizeof(float) * 2);
    std::memcpy(corner[1], quads.data() + static_cast<size_t>(q) * 64 + 32, sizeof(float) * 2);
    FillRect(x + corner[0][0] * scale, y + corner[0][1] * scale, x + corner[1][0] * scale,
             y + corner[1][1] * scale, color);
  }
}

int Raster::TextWidth(const std::string& text, int scale) {
  std::string copy = text;
  return stb_easy_font_width(copy.data()) * scale;
}

int Raster::TextHeight(int scale) { return 7 * scale; }

engine::Status Raster::WritePng(const std::string& path) const {
  if (stbi_write_png(path.c_str(), width_, height_, 3, pixels_.data(), width_ * 3) == 0) {
    return engine::InvalidArgument("cannot write " + path + ": " + std::strerror(errno));
  }
  return engine::Status::Ok();
}

}  // namespace pipescope::session
