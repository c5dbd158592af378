#include "ui/panels/lessons_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "engine/core/text_file.h"
#include "engine/spec/spec_loader.h"
#include "ui/panels/picture_text.h"
#include "ui/panels/spec_editor.h"

namespace pipescope::ui {
namespace {

// A lesson's spec text for the editor; the reason in its place if it cannot be read.
QString ReadFile(const std::string& path) {
  auto text = engine::ReadWholeFile(path, "lesson spec");
  return QString::fromStdString(text.ok() ? text.value() : "# " + text.status().message());
}

// The name the pipeline's errors give it ("your pipeline:LINE:COLUMN: ...").
const char* const kSpecSource = "your pipeline";

// The lesson's title and what it teaches, then its explanation without the explanation's
// own title (the same words).
QString LessonText(const session::Lesson& l) {
  QString explanation = QString::fromStdString(l.explanation);
  if (explanation.startsWith("# ")) explanation = explanation.section('\n', 1);
  return "## " + QString::fromStdString(l.title) + "\n\n*" + QString::fromStdString(l.teaches) +
         "*\n\n" + explanation;
}

QString SettingsKey(const session::Lesson& l) {
  return "lessons/" + QString::fromStdString(l.name) + "/spec";
}

QString Figure(const session::GoalResult& g) {
  if (!g.measured) return "not measured: " + QString::fromStdString(g.note);
  // Shares read best as percentages, the rest as numbers.
  return session::MetricIsShare(g.goal.metric) ? QString("%1%").arg(100 * g.value, 0, 'f', 1)
                                               : QString::number(g.value, 'g', 3);
}

}  // namespace

LessonsPanel::LessonsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  list_ = new QComboBox(this);
  list_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  list_->setMinimumContentsLength(16);
  // The title, what it teaches and the explanation in one wrapped text: every line of the
  // dock's height goes to reading.
  explanation_ = new PictureText(this);
  explanation_->setObjectName("lesson_text");
  explanation_->setOpenExternalLinks(false);
  hint_button_ = new QPushButton("Hint", this);
  hint_ = new QLabel(this);
  hint_->setWordWrap(true);
  hint_->setTextFormat(Qt::MarkdownText);
  layout->addWidget(list_);
  layout->addWidget(explanation_, 1);
  auto* hint_row = new QHBoxLayout;
  hint_row->addWidget(hint_button_);
  hint_row->addStretch(1);
  layout->addLayout(hint_row);
  layout->addWidget(hint_);
  editor_panel_ = BuildEditorPanel();

  auto lessons = session::LoadLessons(session::LessonsFolder());
  if (lessons.ok()) {
    lessons_ = std::move(lessons).value();
  } else {
    result_->setText(QString::fromStdString(lessons.status().message()));
  }
  for (const auto& l : lessons_) {
    list_->addItem(QString::fromStdString(l.name.substr(0, 2) + ". " + l.title));
  }
  connect(list_, &QComboBox::currentIndexChanged, this, [this](int i) { ShowLesson(i); });
  connect(hint_button_, &QPushButton::clicked, this, [this] { ShowHint(); });
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this,
          [this] { ShowOutcome(watcher_.result()); });
  auto* poll = new QTimer(this);
  connect(poll, &QTimer::timeout, this, [this] {
    if (checking()) progress_->setValue(static_cast<int>(100 * progress_value_->load()));
  });
  poll->start(100);

  const QString last = QSettings().value("lessons/last").toString();
  if (!lessons_.empty() && !(last.size() && SelectLesson(last))) ShowLesson(0);
}

LessonsPanel::~LessonsPanel() { watcher_.waitForFinished(); }

QWidget* LessonsPanel::BuildEditorPanel() {
  // Parented here until the main window docks it (setWidget reparents it).
  auto* panel = new QWidget(this);
  panel->setObjectName("lesson_pipeline_panel");
  auto* layout = new QVBoxLayout(panel);
  spec_ = new SpecEditor(panel);
  spec_->setObjectName("lesson_spec");
  check_ = new QPushButton("Run && Check", panel);
  check_->setToolTip("Run the pipeline above and check the goals (Ctrl+Return)");
  real_ = new QCheckBox("Run for real", panel);
  real_->setToolTip(
      "Run the engine on this machine instead of the simulator (results then "
      "depend on the machine)");
  auto* reset = new QPushButton("Reset", panel);
  reset->setToolTip("Back to the lesson's starting pipeline");
  auto* solution = new QPushButton("Show Solution", panel);
  // Two rows of buttons: the dock stays narrow enough for the timeline in presenter mode.
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(check_);
  buttons->addWidget(real_);
  buttons->addStretch(1);
  auto* buttons2 = new QHBoxLayout;
  buttons2->addWidget(reset);
  buttons2->addWidget(solution);
  buttons2->addStretch(1);
  progress_ = new QProgressBar(panel);
  progress_->setRange(0, 100);
  progress_->hide();
  goals_ = new QListWidget(panel);
  goals_->setObjectName("lesson_goals");
  goals_->setWordWrap(true);
  goals_->setToolTip("The lesson's goals: \u2611 met, \u2610 not yet, with the run's figure");
  result_ = new QLabel(panel);
  result_->setWordWrap(true);
  layout->addWidget(spec_, 1);
  layout->addLayout(buttons);
  layout->addLayout(buttons2);
  layout->addWidget(progress_);
  layout->addWidget(goals_);
  layout->addWidget(result_);
  FitGoalsHeight();

  connect(check_, &QPushButton::clicked, this, [this] { RunCheck(); });
  connect(reset, &QPushButton::clicked, this, [this] { Reset(); });
  connect(solution, &QPushButton::clicked, this, [this] {
    if (QMessageBox::question(this, "Show the solution",
                              "Replace your pipeline with the lesson's solution?") ==
        QMessageBox::Yes) {
      ShowSolution();
    }
  });
  connect(spec_, &QPlainTextEdit::textChanged, this, [this] { SaveLearnerSpec(); });
  for (QWidget* scope : {static_cast<QWidget*>(this), panel}) {
    auto* run_shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), scope);
    run_shortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(run_shortcut, &QShortcut::activated, this, [this] { RunCheck(); });
  }
  return panel;
}

// The goals take the lines they need, up to four: the rest of the height is the editor's.
void LessonsPanel::FitGoalsHeight() {
  const int lines = std::clamp(2 * goals_->count(), 2, 4);
  goals_->setMaximumHeight(lines * goals_->fontMetrics().lineSpacing() + 2 * goals_->frameWidth() +
                           6);
}

void LessonsPanel::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  if (e->type() == QEvent::FontChange) FitGoalsHeight();
}

const session::Lesson* LessonsPanel::current() const {
  return current_ >= 0 && current_ < static_cast<int>(lessons_.size()) ? &lessons_[current_]
                                                                       : nullptr;
}

bool LessonsPanel::SelectLesson(const QString& name, QString* error) {
  auto found = session::FindLesson(lessons_, name.toStdString());
  if (!found.ok()) {
    if (error) *error = QString::fromStdString(found.status().message());
    return false;
  }
  for (size_t i = 0; i < lessons_.size(); ++i) {
    if (lessons_[i].name == found->name) {
      if (list_->currentIndex() == static_cast<int>(i)) {
        ShowLesson(static_cast<int>(i));
      } else {
        list_->setCurrentIndex(static_cast<int>(i));  // shows it
      }
    }
  }
  return true;
}

void LessonsPanel::ShowLesson(int index) {
  if (index < 0 || index >= static_cast<int>(lessons_.size())) return;
  current_ = index;
  const session::Lesson& l = lessons_[index];
  QSettings().setValue("lessons/last", QString::fromStdString(l.name));
  explanation_->ShowMarkdown(LessonText(l));
  const QString saved = QSettings().value(SettingsKey(l)).toString();
  spec_->blockSignals(true);
  spec_->setPlainText(saved.isEmpty() ? ReadFile(l.start_path) : saved);
  spec_->blockSignals(false);
  goals_->clear();
  for (const auto& g : l.goals) goals_->addItem("\u2610  " + QString::fromStdString(g.text));
  FitGoalsHeight();
  result_->setText(
      l.workers > 1
          ? QString("Runs as %1 workers (shard index 0..%2).").arg(l.workers).arg(l.workers - 1)
          : QString());
  hints_shown_ = 0;
  hint_->clear();
  hint_button_->setText(QString("Hint (%1)").arg(l.hints.size()));
  hint_button_->setEnabled(!l.hints.empty());
  passed_ = false;
}

void LessonsPanel::ShowHint() {
  const session::Lesson* l = current();
  if (!l || hints_shown_ >= static_cast<int>(l->hints.size())) return;
  ++hints_shown_;
  QString text;
  for (int i = 0; i < hints_shown_; ++i) {
    text += QString("**Hint %1.** %2\n\n").arg(i + 1).arg(QString::fromStdString(l->hints[i]));
  }
  hint_->setText(text);
  hint_button_->setText(QString("Hint (%1 left)").arg(l->hints.size() - hints_shown_));
  hint_button_->setEnabled(hints_shown_ < static_cast<int>(l->hints.size()));
}

void LessonsPanel::Reset() {
  const session::Lesson* l = current();
  if (!l) return;
  spec_->setPlainText(ReadFile(l->start_path));
}

void LessonsPanel::ShowSolution() {
  const session::Lesson* l = current();
  if (!l) return;
  spec_->setPlainText(ReadFile(l->solution_path));
}

void LessonsPanel::SaveLearnerSpec() {
  if (const session::Lesson* l = current())
    QSettings().setValue(SettingsKey(*l), spec_->toPlainText());
}

QString LessonsPanel::spec_text() const { return spec_->toPlainText(); }
bool LessonsPanel::checking() const { return watcher_.isRunning(); }

QStringList LessonsPanel::GoalLines() const {
  QStringList lines;
  for (int i = 0; i < goals_->count(); ++i) lines << goals_->item(i)->text();
  return lines;
}

void LessonsPanel::RunCheck() {
  const session::Lesson* l = current();
  if (!l || checking()) return;
  auto spec = engine::ParseSpecText(spec_->toPlainText().toStdString(), kSpecSource);
  if (!spec.ok()) return ShowError(spec.status().message());
  spec_->MarkError(0, QString());
  result_->setText(real_->isChecked() ? "Running for real..." : "Simulating...");
  progress_value_->store(0);
  progress_->setValue(0);
  progress_->show();
  check_->setEnabled(false);
  session::LessonCheckOptions options;
  options.real = real_->isChecked();
  auto progress = progress_value_;
  options.progress = [progress](double done) {
    progress->store(done);
    return true;
  };
  watcher_.setFuture(QtConcurrent::run([lesson = *l, s = *spec, options] {
    Outcome o;
    o.check = session::CheckLesson(lesson, s, options);
    o.real = options.real;
    return o;
  }));
}

void LessonsPanel::ShowError(const std::string& message) {
  const QString text = QString::fromStdString(message);
  spec_->MarkError(SpecEditor::ErrorLineOf(text, kSpecSource), text);
  result_->setText("<span style='color:#e05050'>" +
                   QString::fromStdString(message).toHtmlEscaped() + "</span>");
}

void LessonsPanel::ShowOutcome(const Outcome& outcome) {
  progress_->hide();
  check_->setEnabled(true);
  const session::Lesson* l = current();
  if (!outcome.check.ok()) return ShowError(outcome.check.status().message());
  const session::LessonCheck& c = outcome.check.value();
  goals_->clear();
  for (const auto& g : c.goals) {
    auto* item = new QListWidgetItem(QString("%1  %2: %3")
                                         .arg(g.met ? "\u2611" : "\u2610")
                                         .arg(QString::fromStdString(g.goal.text))
                                         .arg(Figure(g)));
    item->setForeground(g.met ? QColor(70, 180, 90) : QColor(220, 80, 80));
    goals_->addItem(item);
  }
  FitGoalsHeight();
  passed_ = c.passed;
  result_->setText(c.passed ? "<b style='color:#46b45a'>Goal reached: every goal is met.</b>"
                            : "Not yet: some goals are not met. The timeline shows this run.");
  if (!c.traces.empty() && l) {
    emit TraceReady(c.traces.front(), QString("Lesson %1 (%2)")
                                          .arg(QString::fromStdString(l->title))
                                          .arg(outcome.real ? "real run" : "simulated"));
  }
}

}  // namespace pipescope::ui
