// The shown trace and what the window says of it, without a display: the document's one
// lock, its notes and title, its order of closing; and the figures the docks show for a
// finished run, a selection, a live run's newest seconds, an imported profiler trace and
// several hosts.
#include "ui/trace_document.h"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <thread>

#include "app/session/simulated_run.h"
#include "app/session/trace_files.h"
#include "engine/spec/spec_loader.h"
#include "ui/document_figures.h"

namespace pipescope::ui {
namespace {

// Five seconds of a pipeline, simulated (deterministic, and longer than a live view's
// newest two seconds).
std::shared_ptr<trace::Model> SimulatedRun() {
  auto spec = engine::ParseSpecText(R"(
    source { name: "read" synthetic { records: 1000000 record_bytes: 64 } }
    ops { name: "decode" map { fn { cpu_work { duration: "200us" } } } }
    ops { name: "batch" batch { batch_size: 4 } }
    train_step { step_time: "100us" device: simulated })",
                                    "document");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  auto costs = session::CostModelFor(*spec, "");
  EXPECT_TRUE(costs.ok());
  session::SimulatedRunOptions options;
  options.sim.duration_s = 5;
  auto run = session::RunSimulated(*spec, *costs, options);
  EXPECT_TRUE(run.ok() && run->run_status.ok());
  return run->model;
}

// Whether another thread could take `mu` now.
bool FreeElsewhere(std::mutex& mu) {
  return std::async(std::launch::async,
                    [&mu] {
                      if (!mu.try_lock()) return false;
                      mu.unlock();
                      return true;
                    })
      .get();
}

TEST(TraceDocumentTest, EveryModelIsReadUnderOneLockTheRunsOrItsOwn) {
  TraceDocument document;
  auto model = std::make_shared<trace::Model>();
  document.Open(model, nullptr, "saved.pstrace");
  EXPECT_FALSE(document.recording());
  {
    const auto guard = document.Lock();
    EXPECT_FALSE(FreeElsewhere(document.mutex())) << "a loaded model has a lock too";
  }
  EXPECT_TRUE(FreeElsewhere(document.mutex()));

  std::mutex run_lock;
  document.Open(model, &run_lock, "live.pbtxt");
  EXPECT_TRUE(document.recording());
  EXPECT_EQ(&document.mutex(), &run_lock) << "a live run's model is read under the run's lock";
  const auto guard = document.Lock();
  EXPECT_FALSE(FreeElsewhere(run_lock));
}

TEST(TraceDocumentTest, NotesMarkTheTitleUntilTheTraceIsSaved) {
  TraceDocument document;
  int notes_changed = 0;
  QString title;
  QObject::connect(&document, &TraceDocument::NotesChanged, [&] { ++notes_changed; });
  QObject::connect(&document, &TraceDocument::TitleChanged, [&](const QString& t) { title = t; });
  document.Open(std::make_shared<trace::Model>(), nullptr, "run.pstrace");
  EXPECT_EQ(title, "run.pstrace - Pipescope");
  EXPECT_FALSE(document.notes_unsaved());

  document.AddNote({100, 200, "decode stalls here", "ana"});
  EXPECT_EQ(notes_changed, 1);
  EXPECT_TRUE(document.notes_unsaved());
  EXPECT_EQ(title, "run.pstrace * - Pipescope");
  ASSERT_EQ(document.notes().size(), 1u);
  EXPECT_EQ(document.notes()[0].text, "decode stalls here");

  document.MarkSaved("kept.pstrace");
  EXPECT_FALSE(document.notes_unsaved());
  EXPECT_EQ(title, "kept.pstrace - Pipescope");

  document.RemoveNote(0);
  EXPECT_EQ(notes_changed, 2);
  EXPECT_TRUE(document.notes().empty());
  EXPECT_TRUE(document.notes_unsaved()) << "a removed note is a change to save too";
  EXPECT_EQ(title, "kept.pstrace * - Pipescope");
}

TEST(TraceDocumentTest, ReadersLetGoBeforeTheModelAndTheRunsLockGo) {
  TraceDocument document;
  std::mutex run_lock;
  bool model_there_when_closed = false;
  bool lock_there_when_closed = false;
  QObject::connect(&document, &TraceDocument::Closed, [&] {
    model_there_when_closed = document.model() != nullptr;
    lock_there_when_closed = &document.mutex() == &run_lock;
  });
  document.Open(std::make_shared<trace::Model>(), &run_lock, "live.pbtxt");
  document.SetHostsVerdict("worker-1 waits most");
  document.Close();
  EXPECT_TRUE(model_there_when_closed);
  EXPECT_TRUE(lock_there_when_closed);
  EXPECT_FALSE(document.is_open());
  EXPECT_FALSE(document.recording());
  EXPECT_TRUE(document.hosts_verdict().isEmpty()) << "the next trace is not of those hosts";
  EXPECT_EQ(document.WindowTitle(), "Pipescope");
}

TEST(DocumentFiguresTest, AFinishedRunIsGradedAfterItsFirstStepAndASelectionOnItsRange) {
  TraceDocument document;
  document.Open(SimulatedRun(), nullptr, "run");
  const DocumentFigures whole = FiguresOf(document, {});
  EXPECT_GT(whole.analysis.steps, 0);
  EXPECT_TRUE(whole.range.startsWith("After the first step") ||
              whole.range.startsWith("Whole trace"))
      << whole.range.toStdString();
  EXPECT_TRUE(whole.status.contains("steps/s")) << whole.status.toStdString();
  EXPECT_FALSE(whole.verdict.isEmpty());
  EXPECT_FALSE(whole.spans) << "Pipescope's own trace is shown by op";
  EXPECT_EQ(whole.bottleneck, whole.analysis.verdict.bottleneck);

  const int64_t end = document.model()->duration_ns();
  const DocumentFigures selected = FiguresOf(document, {end / 4, end / 2});
  EXPECT_TRUE(selected.range.startsWith("Selection:")) << selected.range.toStdString();
  EXPECT_EQ(selected.analysis.t0, end / 4);
  EXPECT_EQ(selected.analysis.t1, end / 2);

  FigureRange live;
  live.live = true;
  live.paused = true;
  const DocumentFigures newest = FiguresOf(document, live);
  EXPECT_TRUE(newest.range.startsWith("Live: the newest")) << newest.range.toStdString();
  EXPECT_EQ(newest.analysis.t1, end);
  ASSERT_GT(end, kLiveWindowNs);
  EXPECT_EQ(newest.analysis.t0, end - kLiveWindowNs);
  EXPECT_TRUE(newest.status.contains("PAUSED"));
}

TEST(DocumentFiguresTest, AProfilersTraceIsShownBySpanNamesAndItsFrameworksVerdict) {
  auto opened = session::OpenTraceFile(PIPESCOPE_TEST_DATA "/pytorch_input_bound.json");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  TraceDocument document;
  document.Open(opened->model, nullptr, "pytorch_input_bound.json");
  const DocumentFigures f = FiguresOf(document, {});
  ASSERT_TRUE(f.spans);
  EXPECT_GT(f.spans->spans, 0);
  EXPECT_TRUE(f.status.startsWith("imported pytorch trace")) << f.status.toStdString();
  EXPECT_TRUE(f.bottleneck.empty()) << "an imported trace's ops are its processes";
  EXPECT_FALSE(f.verdict.isEmpty());
}

TEST(DocumentFiguresTest, SeveralHostsSayWhichHostToLookAt) {
  TraceDocument document;
  document.Open(SimulatedRun(), nullptr, "2 hosts");
  document.model()->run_info().imported_from = "hosts";
  document.SetHostsVerdict("worker-1 waits for input most");
  const DocumentFigures f = FiguresOf(document, {});
  EXPECT_EQ(f.verdict, "worker-1 waits for input most");
  EXPECT_TRUE(f.status.endsWith("on one clock")) << f.status.toStdString();
  EXPECT_TRUE(f.bottleneck.empty());
}

}  // namespace
}  // namespace pipescope::ui
