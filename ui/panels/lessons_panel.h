#pragma once
// The Lessons docks, for workshops: pick a lesson and read its explanation (this panel),
// edit its pipeline beside it (editor_panel(), docked on its own so that both have room to
// read), run it (in the simulator, the same on every laptop, or for real) and see each goal
// met or not, with the figure the trace gave. Hints come one at a time; Reset brings back
// the starting pipeline, Show Solution the lesson's answer. An error in the pipeline is
// shown at its line. The learner's pipeline and the lesson are remembered between sessions.

#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <vector>

#include "app/session/lesson_check.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;

namespace pipescope::ui {

class PictureText;
class SpecEditor;

class LessonsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LessonsPanel(QWidget* parent = nullptr);
  ~LessonsPanel() override;

  // Shows the lesson named (folder name, number, or the part after the number); false,
  // with the reason in `error`, when there is none.
  bool SelectLesson(const QString& name, QString* error = nullptr);
  // Runs the pipeline in the editor and checks the goals (Ctrl+Return).
  void RunCheck();
  bool checking() const;
  // What the goal list shows now (tests).
  QStringList GoalLines() const;
  bool passed() const { return passed_; }
  QString spec_text() const;
  // The pipeline's editor with its buttons and the goals: the main window docks it.
  QWidget* editor_panel() const { return editor_panel_; }
  SpecEditor* editor() const { return spec_; }
  PictureText* explanation() const { return explanation_; }
  void ShowSolution();  // without asking (the button asks first)
  void Reset();

 signals:
  // A check ran: its (first worker's) trace, for the timeline and the other docks.
  void TraceReady(std::shared_ptr<trace::Model> model, const QString& title);
  void Message(const QString& text);

 protected:
  void changeEvent(QEvent* e) override;

 private:
  struct Outcome {
    engine::Result<session::LessonCheck> check = engine::Internal("not run");
    bool real = false;  // as asked when the check started
  };
  QWidget* BuildEditorPanel();
  void FitGoalsHeight();
  void ShowError(const std::string& message);
  void ShowLesson(int index);
  void ShowHint();
  void ShowOutcome(const Outcome& outcome);
  void SaveLearnerSpec();
  const session::Lesson* current() const;

  std::vector<session::Lesson> lessons_;
  int current_ = -1;
  int hints_shown_ = 0;
  bool passed_ = false;
  QComboBox* list_;
  PictureText* explanation_;
  QWidget* editor_panel_;
  SpecEditor* spec_;
  QCheckBox* real_;
  QPushButton* check_;
  QPushButton* hint_button_;
  QProgressBar* progress_;
  QListWidget* goals_;
  QLabel* result_;
  QLabel* hint_;
  QFutureWatcher<Outcome> watcher_;
  std::shared_ptr<std::atomic<double>> progress_value_ = std::make_shared<std::atomic<double>>(0);
};

}  // namespace pipescope::ui
