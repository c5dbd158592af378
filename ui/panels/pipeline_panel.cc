#include "ui/panels/pipeline_panel.h"

#include <QCoreApplication>
#include <QFormLayout>
#include <QGroupBox>
#include <QKeyEvent>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <map>

#include "instrumentation/trace/op_activity.h"
#include "ui/panels/op_order_editor.h"

namespace pipescope::ui {
namespace {

// Knob names as people read them.
QString KnobLabel(const std::string& knob) {
  QString s = QString::fromStdString(knob);
  s.replace('_', ' ');
  return s;
}

}  // namespace

PipelinePanel::PipelinePanel(QWidget* parent) : QWidget(parent) {
  layout_ = new QVBoxLayout(this);
  layout_->setContentsMargins(0, 0, 0, 0);
  order_ = new OpOrderEditor(this);
  order_->hide();
  layout_->addWidget(order_);
  Clear("No pipeline open.");
}

void PipelinePanel::Clear(const QString& message) {
  delete content_;
  boxes_.clear();
  auto_labels_.clear();
  shown_keys_.clear();
  auto* label = new QLabel(message, this);
  label->setWordWrap(true);
  label->setMargin(8);
  label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  content_ = label;
  layout_->addWidget(content_);
}

void PipelinePanel::ShowOrder(const spec::PipelineSpec& spec, bool editable) {
  order_->ShowSpec(spec, editable);
  order_->setVisible(editable);
}

bool PipelinePanel::eventFilter(QObject* watched, QEvent* event) {
  if (navigation_target_ != nullptr &&
      (event->type() == QEvent::KeyPress || event->type() == QEvent::KeyRelease)) {
    const auto* key = static_cast<QKeyEvent*>(event);
    const bool navigation = key->key() == Qt::Key_W || key->key() == Qt::Key_A ||
                            key->key() == Qt::Key_S || key->key() == Qt::Key_D;
    if (navigation && (key->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier) {
      QKeyEvent copy(key->type(), key->key(), key->modifiers(), key->text(), key->isAutoRepeat());
      QCoreApplication::sendEvent(navigation_target_, &copy);
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

QSpinBox* PipelinePanel::SpinBoxFor(const QString& op, const QString& knob) const {
  auto it = boxes_.find(KeyOf(op.toStdString(), knob.toStdString()));
  return it == boxes_.end() ? nullptr : it->second;
}

void PipelinePanel::ShowKnobs(const std::vector<engine::KnobInfo>& knobs) {
  std::vector<std::string> keys;
  keys.reserve(knobs.size());
  for (const auto& k : knobs) keys.push_back(KeyOf(k.op, k.knob));
  if (keys != shown_keys_ || boxes_.empty() != knobs.empty()) {
    Rebuild(knobs, true);
    return;
  }
  for (const auto& k : knobs) {
    QSpinBox* box = boxes_[KeyOf(k.op, k.knob)];
    if (!box || box->hasFocus()) continue;  // the user is typing a value
    const QSignalBlocker quiet(box);
    box->setValue(static_cast<int>(std::clamp<int64_t>(k.value, box->minimum(), box->maximum())));
    if (QLabel* a = auto_labels_[KeyOf(k.op, k.knob)]) a->setVisible(k.autotune);
  }
}

void PipelinePanel::ShowTrace(const trace::Model& model) {
  const std::string& from = model.run_info().imported_from;
  if (!from.empty() && from != "hosts" && from != "tensorflow") {
    // A profiler's trace has processes and threads, not ops with knobs: say what it holds.
    ShowImported(model);
    return;
  }
  std::vector<engine::KnobInfo> knobs;
  for (const record::StageDef* stage : model.StagesInOrder()) {
    const int64_t end = model.duration_ns();
    const bool one_producer = stage->Has(record::kTraitOneProducer);
    const bool parallel = stage->asynchronous && !one_producer;
    const bool buffered = one_producer || stage->buffer_size > 0;
    if (parallel) {
      const std::string knob(trace::ParallelismKnob(*stage));  // a DataLoader's num_workers
      knobs.push_back({stage->name, knob,
                       model.KnobValueAt(stage->id, knob, end, stage->parallelism), 1, 1 << 16,
                       false});
    }
    if (buffered) {
      knobs.push_back({stage->name, "buffer_size",
                       model.KnobValueAt(stage->id, "buffer_size", end, stage->buffer_size), 0,
                       1 << 20, false});
    }
    if (!parallel && !buffered) {
      knobs.push_back({stage->name, "(synchronous)", 0, 0, 0, false});
    }
  }
  Rebuild(knobs, false);
}

void PipelinePanel::ShowImported(const trace::Model& model) {
  std::map<std::string, std::vector<std::string>> threads;  // by process
  for (const auto& [id, name] : model.threads()) {
    const size_t slash = name.find(" / ");
    threads[name.substr(0, slash)].push_back(slash == std::string::npos ? name
                                                                        : name.substr(slash + 3));
  }
  QString text = QString(
                     "<p>An imported %1 profiler trace: its spans are what the program "
                     "did on each thread and GPU stream, not the ops of a Pipescope "
                     "pipeline, so there are no knobs to turn here.</p>"
                     "<p>Statistics lists its spans by name; Ctrl+F finds them on the "
                     "timeline.</p>")
                     .arg(QString::fromStdString(model.run_info().imported_from).toHtmlEscaped());
  // Names like "penv#native-main#platform-runtime#python" have no spaces: a break after
  // each separator lets them wrap to the dock, which otherwise grew to their width.
  auto breakable = [](const std::string& name) {
    QString out = QString::fromStdString(name).toHtmlEscaped();
    for (const QString sep : {"#", "/", ":", "_", "."}) out.replace(sep, sep + QChar(0x200B));
    return out;
  };
  for (const auto& [process, names] : threads) {
    text += "<p><b>" + breakable(process) + "</b><br>";
    for (size_t i = 0; i < names.size() && i < 12; ++i) text += breakable(names[i]) + "<br>";
    if (names.size() > 12) text += QString("and %1 more").arg(names.size() - 12);
    text += "</p>";
  }
  QScrollArea* scroll = ResetContent();
  imported_ = true;
  updateGeometry();
  auto* label = new QLabel(text, scroll);
  label->setWordWrap(true);
  label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  label->setMargin(6);
  scroll->setWidget(label);
  content_ = scroll;
  layout_->addWidget(content_);
}

QScrollArea* PipelinePanel::ResetContent() {
  delete content_;
  imported_ = false;
  boxes_.clear();
  auto_labels_.clear();
  shown_keys_.clear();
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  return scroll;
}

void PipelinePanel::Rebuild(const std::vector<engine::KnobInfo>& knobs, bool editable) {
  QScrollArea* scroll = ResetContent();
  auto* inner = new QWidget(scroll);
  auto* column = new QVBoxLayout(inner);
  std::string current_op;
  QFormLayout* form = nullptr;
  int position = 0;
  for (const auto& k : knobs) {
    shown_keys_.push_back(KeyOf(k.op, k.knob));
    if (k.op != current_op || !form) {
      current_op = k.op;
      auto* group =
          new QGroupBox(QString("%1. %2").arg(++position).arg(QString::fromStdString(k.op)), inner);
      form = new QFormLayout(group);
      column->addWidget(group);
    }
    if (k.max <= 0) {
      auto* none = new QLabel("no knobs (runs on its caller's thread)", inner);
      none->setWordWrap(true);  // a narrow dock wraps it rather than widening
      form->addRow(none);
      continue;
    }
    auto* box = new QSpinBox(inner);
    box->setRange(static_cast<int>(std::max<int64_t>(k.min, INT32_MIN)),
                  static_cast<int>(std::min<int64_t>(k.max, INT32_MAX)));
    box->setValue(static_cast<int>(k.value));
    box->setEnabled(editable);
    box->setKeyboardTracking(false);  // one change per typed number, not per digit
    box->installEventFilter(this);    // W/A/S/D to the timeline
    box->setObjectName(QString::fromStdString(KeyOf(k.op, k.knob)));
    box->setAccessibleName(QString::fromStdString(k.op) + " " + KnobLabel(k.knob));
    auto* row = new QWidget(inner);
    auto* row_layout = new QHBoxLayout(row);
    row_layout->setContentsMargins(0, 0, 0, 0);
    row_layout->addWidget(box, 1);
    auto* autotuned = new QLabel("AUTOTUNE", row);
    autotuned->setToolTip("The tuner sets this knob; editing it takes it over.");
    autotuned->setVisible(k.autotune);
    row_layout->addWidget(autotuned);
    form->addRow(KnobLabel(k.knob), row);
    boxes_[KeyOf(k.op, k.knob)] = box;
    auto_labels_[KeyOf(k.op, k.knob)] = autotuned;
    if (editable) {
      const QString op = QString::fromStdString(k.op), knob = QString::fromStdString(k.knob);
      connect(box, &QSpinBox::valueChanged, this,
              [this, op, knob](int value) { emit KnobEdited(op, knob, value); });
    }
  }
  column->addStretch(1);
  scroll->setWidget(inner);
  content_ = scroll;
  layout_->addWidget(content_);
}

}  // namespace pipescope::ui
