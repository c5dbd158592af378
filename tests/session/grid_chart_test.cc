// grid --plot's chart (grid_plot.h) drawn on a known grid: each point in its line's colour
// where PlaceOf says, higher rates higher, the best ringed, and the PNG read back whole.
#include "app/session/grid_chart.h"

#include <gtest/gtest.h>
#include <stb_image.h>
#include <unistd.h>

#include <string>

namespace pipescope::session {
namespace {

// Parallelism 1, 2, 4 against buffer 1 and 8: the rate doubles with parallelism up to 2.
GridChart KnownGrid() {
  GridChart c;
  c.title = "steps/s by decode.num_parallel_calls: demo";
  c.knobs = {"decode.num_parallel_calls", "prefetch.buffer_size"};
  c.knob_values = {{1, 2, 4}, {1, 8}};
  c.points = {{{1, 1}, 50, 2},  {{1, 8}, 55, 2},  {{2, 1}, 100, 3},
              {{2, 8}, 110, 3}, {{4, 1}, 101, 4}, {{4, 8}, 108, 4}};
  c.best = 3;
  return c;
}

TEST(GridPlotTest, EachPointIsDrawnInItsLinesColourWhereItsRateSays) {
  const GridChart chart = KnownGrid();
  const Raster r = DrawGridChart(chart);
  ASSERT_EQ(r.width(), kGridPlotWidth);
  for (size_t i = 0; i < chart.points.size(); ++i) {
    const GridChartPlace at = PlaceOf(chart, i);
    const size_t series = chart.points[i].values[1] == 1 ? 0 : 1;
    EXPECT_EQ(r.At(static_cast<int>(at.x), static_cast<int>(at.y)), SeriesColor(series))
        << "point " << i;
  }
  // Higher rates are higher up, more parallelism further right.
  EXPECT_LT(PlaceOf(chart, 2).y, PlaceOf(chart, 0).y);
  EXPECT_LT(PlaceOf(chart, 0).x, PlaceOf(chart, 2).x);
  EXPECT_LT(PlaceOf(chart, 2).x, PlaceOf(chart, 4).x);
  EXPECT_EQ(PlaceOf(chart, 0).x, PlaceOf(chart, 1).x) << "the same parallelism, one column";
  // The best is ringed in orange, 9 px from its centre.
  const GridChartPlace best = PlaceOf(chart, chart.best);
  const Rgb ring = r.At(static_cast<int>(best.x + 9), static_cast<int>(best.y));
  EXPECT_EQ(ring, (Rgb{230, 150, 0}));
  EXPECT_NE(r.At(static_cast<int>(PlaceOf(chart, 0).x + 9), static_cast<int>(PlaceOf(chart, 0).y)),
            (Rgb{230, 150, 0}))
      << "only the best";
}

TEST(GridPlotTest, ThePngReadsBackAsDrawn) {
  const GridChart chart = KnownGrid();
  const Raster r = DrawGridChart(chart);
  const std::string path = ::testing::TempDir() + "/grid_plot_" + std::to_string(getpid()) + ".png";
  ASSERT_TRUE(r.WritePng(path).ok());
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &w, &h, &channels, 3);
  ASSERT_NE(pixels, nullptr);
  EXPECT_EQ(w, kGridPlotWidth);
  EXPECT_EQ(h, kGridPlotHeight);
  const GridChartPlace at = PlaceOf(chart, 2);
  const size_t i =
      (static_cast<size_t>(at.y) * static_cast<size_t>(w) + static_cast<size_t>(at.x)) * 3;
  EXPECT_EQ((Rgb{pixels[i], pixels[i + 1], pixels[i + 2]}), SeriesColor(0));
  stbi_image_free(pixels);
  EXPECT_FALSE(r.WritePng("/nonexistent/dir/grid.png").ok()) << "an unwritable path is an error";
}

TEST(GridPlotTest, TextIsDrawnWholeAndOnlyInsideTheCanvas) {
  // Every half character has ink: a "0" alone once lost its right side (the font's quads
  // ran past the buffer given for them).
  for (const std::string text : {"0", "200"}) {
    Raster r(200, 40, {255, 255, 255});
    r.Text(4, 4, text, {0, 0, 0});
    const int halves = 2 * static_cast<int>(text.size());
    const int width = Raster::TextWidth(text);
    for (int c = 0; c < halves; ++c) {
      int ink = 0;
      for (int x = 4 + c * width / halves; x < 4 + (c + 1) * width / halves; ++x) {
        for (int y = 0; y < 40; ++y) ink += r.At(x, y) == Rgb{0, 0, 0};
      }
      EXPECT_GT(ink, 4) << text << ", half character " << c;
    }
  }
  Raster r(200, 40, {255, 255, 255});
  r.Text(190, 30, "off the edge", {0, 0, 0});  // clipped, never written out of bounds
  r.Line(-50, -50, 500, 500, {0, 0, 0}, 3);
}

}  // namespace
}  // namespace pipescope::session
