#include "ui/panels/lessons_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "engine/core/text_file.h"
#include "engine/spec/spec_loader.h"

namespace pipescope::ui {
namespace {

// A lesson's spec text for the editor; the reason in its place if it cannot be read.
QString ReadFile(const std::string& path) {
  auto text = engine::ReadWholeFile(path, "lesson spec");
  return QString::fromStdString(text.ok() ? text.value() : "# " + text.status().message());
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
  teaches_ = new QLabel(this);
  teaches_->setWordWrap(true);
  explanation_ = new QTextBrowser(this);
  explanation_->setOpenExternalLinks(false);
  spec_ = new QPlainTextEdit(this);
  spec_->setObjectName("lesson_spec");
  spec_->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono("Monospace");
  mono.setStyleHint(QFont::TypeWriter);
  spec_->setFont(mono);

  // Two rows of buttons: the dock stays narrow enough for the timeline in presenter mode.
  auto* buttons = new QHBoxLayout;
  auto* buttons2 = new QHBoxLayout;
  check_ = new QPushButton("Run && Check", this);
  check_->setToolTip("Run the pipeline above and check the goals (Ctrl+Return)");
  real_ = new QCheckBox("Run for real", this);
  real_->setToolTip(
      "Run the engine on this machine instead of the simulator (results then "
      "depend on the machine)");
  hint_button_ = new QPushButton("Hint", this);
  auto* reset = new QPushButton("Reset", this);
  reset->setToolTip("Back to the lesson's starting pipeline");
  auto* solution = new QPushButton("Show Solution", this);
  buttons->addWidget(check_);
  buttons->addWidget(real_);
  buttons->addStretch(1);
  for (QPushButton* b : {hint_button_, reset, solution}) buttons2->addWidget(b);
  buttons2->addStretch(1);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 100);
  progress_->hide();
  goals_ = new QListWidget(this);
  goals_->setObjectName("lesson_goals");
  goals_->setWordWrap(true);
  result_ = new QLabel(this);
  result_->setWordWrap(true);
  hint_ = new QLabel(this);
  hint_->setWordWrap(true);
  hint_->setTextFormat(Qt::MarkdownText);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(explanation_);
  split->addWidget(spec_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(list_);
  layout->addWidget(teaches_);
  layout->addWidget(split, 1);
  layout->addLayout(buttons);
  layout->addLayout(buttons2);
  layout->addWidget(progress_);
  layout->addWidget(new QLabel("Goals:", this));
  layout->addWidget(goals_);
  layout->addWidget(result_);
  layout->addWidget(hint_);

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
  connect(check_, &QPushButton::clicked, this, [this] { RunCheck(); });
  connect(hint_button_, &QPushButton::clicked, this, [this] { ShowHint(); });
  connect(reset, &QPushButton::clicked, this, [this] { Reset(); });
  connect(solution, &QPushButton::clicked, this, [this] {
    if (QMessageBox::question(this, "Show the solution",
                              "Replace your pipeline with the lesson's solution?") ==
        QMessageBox::Yes) {
      ShowSolution();
    }
  });
  connect(spec_, &QPlainTextEdit::textChanged, this, [this] { SaveLearnerSpec(); });
  auto* run_shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), this);
  run_shortcut->setContext(Qt::WidgetWithChildrenShortcut);
  connect(run_shortcut, &QShortcut::activated, this, [this] { RunCheck(); });
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
  teaches_->setText("<b>" + QString::fromStdString(l.title) +
                    "</b>: " + QString::fromStdString(l.teaches).toHtmlEscaped());
  explanation_->setMarkdown(QString::fromStdString(l.explanation));
  const QString saved = QSettings().value(SettingsKey(l)).toString();
  spec_->blockSignals(true);
  spec_->setPlainText(saved.isEmpty() ? ReadFile(l.start_path) : saved);
  spec_->blockSignals(false);
  goals_->clear();
  for (const auto& g : l.goals) goals_->addItem("\u2610  " + QString::fromStdString(g.text));
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
  auto spec = engine::ParseSpecText(spec_->toPlainText().toStdString(), "your pipeline");
  if (!spec.ok()) return ShowError(spec.status().message());
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
