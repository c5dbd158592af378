#pragma once
// The Pipeline dock: the ops in pipeline order, each with a spin box per knob
// (parallelism, buffer size, cycle length, batch size, ...). While a run is live, editing a
// knob changes the running engine at once, and knobs under AUTOTUNE show the value the
// tuner has chosen; for a saved trace the knobs show their last recorded values, read-only.

#include <QWidget>
#include <map>
#include <vector>

#include "engine/runtime/pipeline.h"
#include "instrumentation/trace/model.h"

class QSpinBox;
class QVBoxLayout;
class QLabel;

namespace pipescope::ui {

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

  // The spin box of a knob ("decode", "num_parallel_calls"); null if there is none.
  QSpinBox* SpinBoxFor(const QString& op, const QString& knob) const;

 signals:
  void KnobEdited(const QString& op, const QString& knob, qint64 value);

 private:
  void Rebuild(const std::vector<engine::KnobInfo>& knobs, bool editable);
  static std::string KeyOf(const std::string& op, const std::string& knob) {
    return op + "." + knob;
  }

  QVBoxLayout* layout_;
  QWidget* content_ = nullptr;
  std::vector<std::string> shown_keys_;  // the knobs the widgets were built for, in order
  std::map<std::string, QSpinBox*> boxes_;
  std::map<std::string, QLabel*> auto_labels_;
};

}  // namespace pipescope::ui
