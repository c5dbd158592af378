#include "ui/compare/whatif_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

namespace pipescope::ui {
namespace {

QSpinBox* Spin(int low, int high, int value, QWidget* parent) {
  auto* spin = new QSpinBox(parent);
  spin->setRange(low, high);
  spin->setValue(value);
  return spin;
}

QString PyBool(bool b) { return b ? "True" : "False"; }

}  // namespace

WhatIfDialog::WhatIfDialog(const trace::LoaderJob& job, QWidget* parent)
    : QDialog(parent), multiprocess_(job.loader.multiprocess) {
  setWindowTitle("What If - Pipescope");
  auto* column = new QVBoxLayout(this);
  auto* intro = new QLabel(
      "Predicts what this job would do with other DataLoader settings: the trace's steps are "
      "rebuilt as a DataLoader pipeline on the simulator, fitted to reproduce the trace, then "
      "changed. The prediction opens in Compare, beside the trace, with its assumptions.",
      this);
  intro->setWordWrap(true);
  column->addWidget(intro);

  auto* settings = new QGroupBox("DataLoader(...)", this);
  auto* form = new QFormLayout(settings);
  const int traced_batch = static_cast<int>(std::max<int64_t>(job.loader.batch_size, 1));
  num_workers_ = Spin(0, 256, 4, settings);  // a first try; the CLI's search finds the best
  num_workers_->setObjectName("whatif_num_workers");
  prefetch_factor_ = Spin(1, 64, 2, settings);
  batch_size_ = Spin(1, 1 << 20, traced_batch, settings);
  batch_size_->setEnabled(job.loader.batch_size > 0);
  if (job.loader.batch_size <= 0)
    batch_size_->setToolTip("The trace does not show the batch size (record_shapes=True does)");
  pin_memory_ = new QCheckBox(settings);
  pin_memory_->setChecked(job.loader.pin_memory.value_or(false));
  persistent_workers_ = new QCheckBox(settings);
  form->addRow("num_workers", num_workers_);
  form->addRow("prefetch_factor", prefetch_factor_);
  form->addRow("batch_size", batch_size_);
  form->addRow("pin_memory", pin_memory_);
  form->addRow("persistent_workers", persistent_workers_);
  column->addWidget(settings);

  auto* traced = new QGroupBox("The traced job", this);
  auto* given = new QFormLayout(traced);
  given->addRow("loader", new QLabel(multiprocess_ ? "worker processes"
                                                   : "num_workers=0 "
                                                     "(the loop loads)",
                                     traced));
  given->addRow("batch_size",
                new QLabel(job.loader.batch_size > 0 ? QString::number(job.loader.batch_size)
                                                     : QString("not in the trace"),
                           traced));
  given->addRow("pin_memory", new QLabel(job.loader.pin_memory ? PyBool(*job.loader.pin_memory)
                                                               : QString("not in the trace"),
                                         traced));
  if (multiprocess_) {
    traced_workers_ = Spin(1, 256, 2, traced);
    traced_workers_->setToolTip("A profiler trace does not show how many workers it had");
    given->addRow("its num_workers", traced_workers_);
    getitem_ = new QLineEdit(traced);
    getitem_->setPlaceholderText("e.g. 2ms (needed where its workers kept up)");
    given->addRow("a sample's __getitem__", getitem_);
  }
  const double here = std::max(1, QThread::idealThreadCount());
  cores_ = new QDoubleSpinBox(traced);
  cores_->setRange(1, 4096);
  cores_->setDecimals(0);
  cores_->setValue(QSettings().value("whatif/cores", here).toDouble());
  cores_->setToolTip("The cores the traced process had (the trace does not say)");
  given->addRow("cores", cores_);
  column->addWidget(traced);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText("Predict");
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  column->addWidget(buttons);
}

session::WhatIfOptions WhatIfDialog::options() const {
  session::WhatIfOptions o;
  o.cores = cores_->value();
  QSettings().setValue("whatif/cores", o.cores);
  o.sets = {{"num_workers", std::to_string(num_workers_->value())},
            {"prefetch_factor", std::to_string(prefetch_factor_->value())},
            {"pin_memory", PyBool(pin_memory_->isChecked()).toStdString()},
            {"persistent_workers", PyBool(persistent_workers_->isChecked()).toStdString()}};
  if (batch_size_->isEnabled())
    o.sets.emplace_back("batch_size", std::to_string(batch_size_->value()));
  if (traced_workers_)
    o.given.emplace_back("num_workers", std::to_string(traced_workers_->value()));
  if (getitem_ && !getitem_->text().trimmed().isEmpty())
    o.given.emplace_back("getitem", getitem_->text().trimmed().toStdString());
  return o;
}

}  // namespace pipescope::ui
