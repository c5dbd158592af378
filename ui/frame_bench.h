#pragma once
// `pipescope --bench-frames N FILE`: the GUI's figures for docs/BENCHMARKS.md — the time
// from opening a file to its first drawn frame, and the CPU time to build one frame of the
// timeline, zoomed out and at 1 ms per screen.

#include <QString>

namespace pipescope::ui {

class MainWindow;

// Prints the figures to stdout; returns the process exit code.
int BenchFrames(MainWindow& window, const QString& path, int frames);

}  // namespace pipescope::ui
