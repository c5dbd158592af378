// pipescope: the desktop application. `pipescope [FILE]` opens a trace (.pstrace) or runs a
// pipeline spec (.pbtxt) and shows its timeline, statistics and verdict.
//
// Headless use: `pipescope --screenshot OUT.png [--after SECONDS] [--size WxH] FILE` runs a
// spec live for SECONDS (default 5) and stops it, or opens a trace, renders the window at WxH
// (default 1280x800), saves a PNG and exits (under xvfb-run on machines without a display).
//
// Workshops: `pipescope --lesson NAME` opens the Lessons dock on a lesson (its number or
// name) and runs its starting pipeline in the simulator; `--presenter` turns presenter mode
// on (large, high contrast). With --screenshot and no FILE, the lesson's run is shown.
//
// `--view 2.5:2.52` shows that range of the run (from its start) instead of all of it: a
// zoomed-in screenshot, or a time a colleague pointed at.
//
// What-if: `pipescope --whatif num_workers=4,cores=5 TRACE` opens a PyTorch trace and
// Compare with the prediction at those DataLoader settings (with --screenshot, the Compare
// window is what is saved).
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QThread>
#include <cstdio>
#include <optional>

#include "engine/core/duration.h"
#include "ui/compare/compare_window.h"
#include "ui/compare_controller.h"
#include "ui/frame_bench.h"
#include "ui/gl_format.h"
#include "ui/main_window.h"
#include "ui/panels/lessons_panel.h"
#include "ui/run_controller.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/view_controller.h"

int main(int argc, char** argv) {
  pipescope::ui::SetDefaultGlFormat();
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Pipescope");
  QApplication::setApplicationName("Pipescope");
  QApplication::setApplicationVersion("0.1.0");

  QCommandLineParser parser;
  parser.setApplicationDescription("Find and fix bottlenecks in ML input pipelines.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("file",
                               "A trace (.pstrace) to open or a pipeline spec (.pbtxt) to run.");
  QCommandLineOption screenshot("screenshot", "Render FILE, save a PNG to OUT and exit.", "OUT");
  QCommandLineOption after("after", "Seconds to run a spec before showing it (default 5).",
                           "SECONDS", "5");
  QCommandLineOption size("size", "Window size for --screenshot (default 1280x800).", "WxH",
                          "1280x800");
  QCommandLineOption bench(
      "bench-frames",
      "Open FILE, draw N frames zoomed out and N at 1 ms per screen, print the CPU "
      "time per frame and the time to the first frame, and exit.",
      "N");
  QCommandLineOption lesson("lesson", "Open the Lessons dock on lesson NAME (or its number).",
                            "NAME");
  QCommandLineOption presenter("presenter", "Presenter mode: large, high contrast, less chrome.");
  QCommandLineOption whatif(
      "whatif",
      "On a PyTorch trace FILE: What If at these DataLoader settings, KNOB=VALUE,... "
      "(num_workers, prefetch_factor, batch_size, pin_memory, persistent_workers; cores=N the "
      "traced process's cores; given.KNOB=VALUE what the trace does not show).",
      "SETTINGS");
  QCommandLineOption view(
      "view", "Show T0 to T1 of the run, not all of it: seconds from its start, e.g. 2.5:2.52.",
      "T0:T1");
  parser.addOptions({screenshot, after, size, bench, lesson, presenter, whatif, view});
  parser.process(app);

  pipescope::ui::MainWindow window;
  if (parser.isSet(presenter)) window.view()->SetPresenterMode(true);
  bool seconds_ok = false;
  const double seconds = parser.value(after).toDouble(&seconds_ok);
  if (!seconds_ok || seconds <= 0) {
    std::fprintf(stderr, "pipescope: --after needs a positive number of seconds\n");
    return 2;
  }
  const QStringList files = parser.positionalArguments();
  pipescope::session::WhatIfOptions whatif_options;
  for (const QString& item : parser.value(whatif).split(',', Qt::SkipEmptyParts)) {
    const qsizetype eq = item.indexOf('=');
    const QString key = item.left(eq).trimmed(), value = item.mid(eq + 1).trimmed();
    if (eq <= 0 || value.isEmpty()) {
      std::fprintf(stderr, "pipescope: --whatif expects KNOB=VALUE,..., got '%s'\n",
                   qPrintable(item));
      return 2;
    }
    if (key == "cores") {
      whatif_options.cores = value.toDouble();
    } else if (key.startsWith("given.")) {
      whatif_options.given.emplace_back(key.mid(6).toStdString(), value.toStdString());
    } else {
      whatif_options.sets.emplace_back(key.toStdString(), value.toStdString());
    }
  }
  std::optional<pipescope::engine::TimeRange> view_range;
  if (parser.isSet(view)) {
    auto range = pipescope::engine::ParseTimeRange(parser.value(view).toStdString());
    if (!range.ok()) {
      std::fprintf(stderr, "pipescope: --view: %s\n", range.status().message().c_str());
      return 2;
    }
    view_range = range.value();
  }
  auto apply_view = [&] {
    if (!view_range) return;
    const int64_t end = window.timeline()->trace_duration_ns();
    window.timeline()->SetView(view_range->t0_ns, view_range->t1_ns != 0 ? view_range->t1_ns : end);
  };
  // Opens What If on the shown trace; the Compare window, or null after an error.
  auto open_whatif = [&]() -> QWidget* {
    return parser.isSet(whatif) ? static_cast<QWidget*>(window.compare()->WhatIf(whatif_options))
                                : nullptr;
  };

  if (parser.isSet(bench)) {
    const int frames = parser.value(bench).toInt();
    if (files.isEmpty() || frames <= 0) {
      std::fprintf(stderr, "pipescope: --bench-frames needs a positive N and a FILE\n");
      return 2;
    }
    return pipescope::ui::BenchFrames(window, files.first(), frames);
  }

  if (parser.isSet(screenshot)) {
    const QStringList wh = parser.value(size).split('x');
    const int w = wh.size() == 2 ? wh[0].toInt() : 0, h = wh.size() == 2 ? wh[1].toInt() : 0;
    if ((files.isEmpty() && !parser.isSet(lesson)) || w < 320 || h < 200) {
      std::fprintf(stderr,
                   "pipescope: --screenshot needs a FILE (or --lesson) and a --size of at least "
                   "320x200\n");
      return 2;
    }
    window.resize(w, h);
    window.show();
    if (parser.isSet(lesson)) {
      if (!window.OpenLesson(parser.value(lesson))) return 1;
      while (window.lessons()->checking()) {
        QApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(10);
      }
      QApplication::processEvents();
    }
    if (!files.isEmpty() && !window.OpenFile(files.first())) return 1;
    if (window.run()->is_live()) {
      // A spec runs live for --after seconds; the screenshot shows the whole run.
      QElapsedTimer clock;
      clock.start();
      while (clock.elapsed() < static_cast<qint64>(seconds * 1000) && window.run()->is_live()) {
        QApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(10);
      }
      window.run()->StopRunAndWait();
      window.timeline()->ZoomToFit();
      window.Refresh();
    }
    apply_view();
    // The advice, tried in the simulator in the background, under the verdict.
    QElapsedTimer advising;
    advising.start();
    while (window.advising() && advising.elapsed() < 60'000) {
      QApplication::processEvents(QEventLoop::AllEvents, 50);
      QThread::msleep(10);
    }
    QWidget* shown = &window;
    if (parser.isSet(whatif)) {
      shown = open_whatif();
      if (!shown) return 1;
      shown->resize(w, h);
    }
    // Let a few frames render before grabbing, so the timeline is drawn.
    for (int i = 0; i < 10; ++i) {
      window.timeline()->update();
      shown->update();
      QApplication::processEvents();
      QThread::msleep(20);
    }
    if (!shown->grab().save(parser.value(screenshot))) {
      std::fprintf(stderr, "pipescope: cannot write %s\n", qPrintable(parser.value(screenshot)));
      return 1;
    }
    return 0;
  }

  window.show();
  if (parser.isSet(lesson) && !window.OpenLesson(parser.value(lesson))) return 1;
  if (!files.isEmpty() && window.OpenFile(files.first())) {
    apply_view();
    open_whatif();
  }
  return QApplication::exec();
}
