#pragma once
// What If… on an imported PyTorch trace: the DataLoader's settings to predict (starting
// from the traced ones), what the trace does not show (a multi-process trace's worker count,
// a sample's __getitem__ time), and the cores the traced process had (remembered).

#include <QDialog>

#include "app/session/trace_whatif.h"

class QCheckBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace pipescope::ui {

class WhatIfDialog : public QDialog {
  Q_OBJECT
 public:
  WhatIfDialog(const trace::LoaderJob& job, QWidget* parent = nullptr);
  // The settings as the dialog holds them; remembers the cores.
  session::WhatIfOptions options() const;

 private:
  const bool multiprocess_;
  QSpinBox* num_workers_;
  QSpinBox* prefetch_factor_;
  QSpinBox* batch_size_;
  QCheckBox* pin_memory_;
  QCheckBox* persistent_workers_;
  QDoubleSpinBox* cores_;
  QSpinBox* traced_workers_ = nullptr;
  QLineEdit* getitem_ = nullptr;
};

}  // namespace pipescope::ui
