#pragma once
// Helpers of the GUI tests: recorded runs of the shipped pipelines, frames drawn before
// looking, pixel counts in one lane of the timeline's framebuffer, and message boxes that
// close themselves.
#include <QImage>
#include <QString>
#include <memory>
#include <string>

#include "instrumentation/trace/model.h"

namespace pipescope::ui {

class MainWindow;
class TimelineWidget;

std::string ResourcePath(const std::string& relative);
// Records a shipped pipeline (resources/pipelines/NAME.pbtxt) for `seconds`, with
// "op.knob=value" overrides.
std::shared_ptr<trace::Model> RecordPipeline(const std::string& name, double seconds,
                                             const std::vector<std::string>& overrides = {});
// Simulates a shipped pipeline for `seconds` of virtual time on its spec's cost model (seed
// 1): the same timeline on any machine, however busy.
std::shared_ptr<trace::Model> SimulatePipeline(const std::string& name, double seconds,
                                               const std::vector<std::string>& overrides = {});
// Shows the window at 1280x800 and waits until it is on screen.
bool ShowWindow(MainWindow& window);
// Lets the window lay out and the timeline draw a few frames.
void DrawFrames(MainWindow& window, int frames = 8);
// Pixels of rows [y0, y1) of `image` (all rows by default) that satisfy `match`.
int CountPixels(const QImage& image, bool (*match)(QColor), int y0 = 0, int y1 = 1 << 30);
// Pixels of lane `lane` in the timeline's framebuffer that satisfy `match`.
int CountLanePixels(TimelineWidget& timeline, size_t lane, bool (*match)(QColor));
bool IsWaitRed(QColor c);
// Closes any message box that opens in the next `ms` milliseconds (they would wait for a
// click).
void CloseMessageBoxesSoon(int ms = 300);

}  // namespace pipescope::ui
