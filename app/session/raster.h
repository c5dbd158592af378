#pragma once
// A small RGB canvas for charts the CLI writes as PNG (grid --plot): filled rectangles,
// lines, dots and text, without a GUI toolkit, so that the CLI writes its charts on a
// machine without Qt. Text is stb_easy_font's ASCII bitmap font drawn at `scale` pixels a
// dot; the PNG is written with stb_image_write.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/status.h"

namespace pipescope::session {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

class Raster {
 public:
  Raster(int width, int height, Rgb background);
  int width() const { return width_; }
  int height() const { return height_; }
  Rgb At(int x, int y) const;
  const uint8_t* pixels() const { return pixels_.data(); }  // RGB, row by row, width * 3 a row

  // Pixels outside the canvas are left out, never written.
  void FillRect(double x0, double y0, double x1, double y1, Rgb color);
  void Line(double x0, double y0, double x1, double y1, Rgb color, double thickness = 1);
  void Dot(double x, double y, double radius, Rgb color);
  // Text whose top-left corner is (x, y); `scale` pixels per font dot.
  void Text(double x, double y, const std::string& text, Rgb color, int scale = 2);
  static int TextWidth(const std::string& text, int scale = 2);
  static int TextHeight(int scale = 2);

  // Errors name the file.
  engine::Status WritePng(const std::string& path) const;

 private:
  int width_, height_;
  std::vector<uint8_t> pixels_;  // RGB, row by row
};

}  // namespace pipescope::session
