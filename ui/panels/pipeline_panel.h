#pragma once
// The Pipeline dock: the ops in pipeline order, each with a spin box per knob
// (parallelism, buffer size, cycle length, batch size, ...). While a run is live, editing a
// knob changes the running engine at once, and knobs under AUTOTUNE show the value the
// tuner has chosen; for a saved trace the knobs show their last recorded values, read-only.
// Above the knobs, the op order editor (op_order_editor.h) reorders, adds and removes ops
// of a live run.

#include <QScrollArea>
#include <QWidget>
#include <map>
#include <vector>

#include "engine/runtime/pipeline.h"
#include "instrumentation/trace/model.h"

class QSpinBox;
class QVBoxLayout;
class QLabel;

namespace pipescope::ui {

class OpOrderEditor;

class PipelinePanel : public QWidget {
  Q_OBJECT
 public:
  explicit PipelinePanel(QWidget* parent = nullptr);

  // A live run's knobs: editable. Rebuilds the widgets when the set of knobs changed,
  // else only updates the values of spin boxes the user is not editing.
  void ShowKnobs(const std::vector<engine::KnobInfo>& knobs);
  // A saved trace: its ops with their last recorded parallelism and buffer size.
  void ShowTrace(const trace::Model& model);
  void Clear(const QString& message);
  // The op order of a live run (editable) or none (a saved trace: the editor hides).
  void ShowOrder(const spec::PipelineSpec& spec, bool editable);
  OpOrderEditor* order_editor() const { return order_; }

  // The spin box of a knob ("decode", "num_parallel_calls"); null if there is none.
  QSpinBox* SpinBoxFor(const QString& op, const QString& knob) const;
  // Where W, A, S and D go when a spin box has the focus: a number has no letters, so they
  // zoom and pan the timeline, as they do everywhere else.
  void SetNavigationTarget(QWidget* target) { navigation_target_ = target; }
  // The knobs' width for a run; a narrow column for an imported trace's list of processes,
  // whose long names made the dock ask for 490 px and leave the timeline 40% of a 1280 px
  // window.
  QSize sizeHint() const override {
    QSize hint = QWidget::sizeHint();
    if (imported_) hint.setWidth(kImportedWidth);
    return hint;
  }
  static constexpr int kImportedWidth = 220;

 signals:
  void KnobEdited(const QString& op, const QString& knob, qint64 value);

 private:
  // Drops what the panel showed; the new content goes into the scroll area returned.
  QScrollArea* ResetContent();
  // An imported profiler trace: its processes and threads, and why it has no knobs.
  void ShowImported(const trace::Model& model);
  void Rebuild(const std::vector<engine::KnobInfo>& knobs, bool editable);
  static std::string KeyOf(const std::string& op, const std::string& knob) {
    return op + "." + knob;
  }

  bool eventFilter(QObject* watched, QEvent* event) override;

  QWidget* navigation_target_ = nullptr;
  bool imported_ = false;  // showing an imported trace's processes, not knobs
  OpOrderEditor* order_ = nullptr;
  QVBoxLayout* layout_;
  QWidget* content_ = nullptr;
  std::vector<std::string> shown_keys_;  // the knobs the widgets were built for, in order
  std::map<std::string, QSpinBox*> boxes_;
  std::map<std::string, QLabel*> auto_labels_;
};

}  // namespace pipescope::ui
