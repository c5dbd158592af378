#include "ui/panels/op_order_editor.h"

#include <QAbstractItemModel>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "engine/spec/op_kinds.h"
#include "engine/spec/spec_validator.h"
#include "engine/tuning/move_rules.h"

namespace pipescope::ui {
namespace {

QString OpLabel(const spec::Op& op) {
  return QString("%1  (%2)")
      .arg(QString::fromStdString(op.name()), QString::fromStdString(engine::OpKindName(op)));
}

// A new op of `kind` with `value` in the knob its description asks for; false when the
// kind cannot be added here (maps and filters need a function, interleaves a sub-pipeline:
// they come from specs).
bool FillNewOp(const QString& kind, int64_t value, spec::Op& op) {
  const engine::OpKindDescription* d = engine::DescribeOpKind(kind.toStdString());
  if (!d || !d->addable) return false;
  const auto* field = op.GetDescriptor()->FindFieldByName(std::string(d->kind));
  google::protobuf::Message* params = op.GetReflection()->MutableMessage(&op, field);
  if (!d->new_op_knob.empty()) {
    const auto* knob = params->GetDescriptor()->FindFieldByName(std::string(d->new_op_knob));
    params->GetReflection()->SetInt64(params, knob, value);
  }
  return true;
}

}  // namespace

std::vector<OpOrderEditor::AddableOp> OpOrderEditor::AddableOps() {
  std::vector<AddableOp> ops;
  for (const engine::OpKindDescription* d : engine::AllOpKinds()) {
    if (!d->addable) continue;
    AddableOp op{std::string(d->kind), std::string(d->new_op_knob), d->new_op_value, 0, 0};
    if (const engine::KnobDescription* knob = engine::DescribeKnob(d->kind, d->new_op_knob)) {
      op.min = std::max<int64_t>(engine::TuneMin(*knob), 1);  // a new op does something
      op.max = knob->max;
    }
    ops.push_back(std::move(op));
  }
  // The one people add most first: a buffer that overlaps the pipeline with the step.
  auto buffers = [](const AddableOp& op) {
    const engine::OpKindDescription* d = engine::DescribeOpKind(op.kind);
    return d && d->parallel_work == engine::ParallelWork::kOneProducer;
  };
  std::stable_sort(ops.begin(), ops.end(),
                   [&](const AddableOp& a, const AddableOp& b) { return buffers(a) > buffers(b); });
  return ops;
}

OpOrderEditor::OpOrderEditor(QWidget* parent) : QWidget(parent) {
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(6, 6, 6, 0);
  source_ = new QLabel(this);
  source_->setToolTip("The source is always first.");
  column->addWidget(source_);

  list_ = new QListWidget(this);
  list_->setObjectName("op_order");
  list_->setAccessibleName("Ops in pipeline order");
  list_->setToolTip(
      "Drag an op to a new position (or Alt+Up / Alt+Down); Delete removes it. The running "
      "pipeline is rebuilt and restarts from its source.");
  list_->setDragDropMode(QAbstractItemView::InternalMove);
  list_->setDefaultDropAction(Qt::MoveAction);
  list_->setMaximumHeight(170);
  list_->installEventFilter(this);
  column->addWidget(list_);
  // A drop moves the item in the list; the request goes out and the window shows the
  // outcome (the new order, or the old one if the move was declined).
  connect(list_->model(), &QAbstractItemModel::rowsMoved, this,
          [this](const QModelIndex&, int start, int, const QModelIndex&, int row) {
            RequestMove(start, row > start ? row - 1 : row);
          });
  connect(list_, &QListWidget::currentRowChanged, this, [this] { UpdateButtons(); });

  auto* buttons = new QHBoxLayout;
  auto button = [this](const char* text) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    return b;
  };
  up_ = button("Up");
  down_ = button("Down");
  remove_ = button("Remove");
  add_ = button("Add op");
  add_->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(add_);
  for (const AddableOp& op : AddableOps()) {
    menu->addAction(QString::fromStdString(op.kind), this, [this, op] { AskAndAdd(op); });
  }
  add_->setMenu(menu);
  up_->setToolTip("Move the selected op one place earlier (Alt+Up)");
  down_->setToolTip("Move the selected op one place later (Alt+Down)");
  remove_->setToolTip("Remove the selected op (Delete)");
  add_->setToolTip("Add an op after the selected one");
  connect(up_, &QToolButton::clicked, this, [this] { RequestMove(selected(), selected() - 1); });
  connect(down_, &QToolButton::clicked, this, [this] { RequestMove(selected(), selected() + 1); });
  connect(remove_, &QToolButton::clicked, this, [this] { RequestRemove(selected()); });
  for (QWidget* w : std::initializer_list<QWidget*>{up_, down_, remove_, add_})
    buttons->addWidget(w);
  column->addLayout(buttons);
  ShowSpec({}, false);
}

void OpOrderEditor::ShowSpec(const spec::PipelineSpec& spec, bool editable) {
  spec_ = spec;
  editable_ = editable;
  Populate();
}

void OpOrderEditor::Populate() {
  const int keep = selected();
  list_->clear();  // emits no rowsMoved: only a drop does
  source_->setText(spec_.has_source() ? "Source: " + QString::fromStdString(spec_.source().name())
                                      : QString("No pipeline running."));
  for (const auto& op : spec_.ops()) list_->addItem(OpLabel(op));
  list_->setDragEnabled(editable_);
  list_->setAcceptDrops(editable_);
  if (keep >= 0 && keep < list_->count()) list_->setCurrentRow(keep);
  UpdateButtons();
}

int OpOrderEditor::selected() const { return list_->currentRow(); }

void OpOrderEditor::UpdateButtons() {
  const int row = selected(), count = list_->count();
  up_->setEnabled(editable_ && row > 0);
  down_->setEnabled(editable_ && row >= 0 && row + 1 < count);
  remove_->setEnabled(editable_ && row >= 0);
  add_->setEnabled(editable_);
}

void OpOrderEditor::RequestMove(int from, int to) {
  const int count = spec_.ops_size();
  if (!editable_ || from < 0 || to < 0 || from >= count || to >= count || from == to) {
    Populate();  // undo what a drop did to the list
    return;
  }
  const QString name = QString::fromStdString(spec_.ops(from).name());
  list_->setCurrentRow(to);
  emit ChangeRequested(
      engine::MoveOp(spec_, from, to),
      QString("moved %1 from position %2 to %3").arg(name).arg(from + 1).arg(to + 1));
}

void OpOrderEditor::RequestRemove(int index) {
  if (!editable_ || index < 0 || index >= spec_.ops_size()) return;
  spec::PipelineSpec after = spec_;
  const QString name = QString::fromStdString(after.ops(index).name());
  after.mutable_ops()->DeleteSubrange(index, 1);
  emit ChangeRequested(after, "removed " + name);
}

bool OpOrderEditor::RequestAdd(const QString& kind, int after_index, int64_t value) {
  if (!editable_) return false;
  spec::Op op;
  if (!FillNewOp(kind, value, op)) return false;
  spec::PipelineSpec after = spec_;
  const int at = std::clamp(after_index + 1, 0, after.ops_size());
  *after.add_ops() = std::move(op);
  // Bubble the new op from the end to its place.
  for (int i = after.ops_size() - 1; i > at; --i) after.mutable_ops()->SwapElements(i, i - 1);
  engine::AssignDefaultOpNames(after);
  emit ChangeRequested(after, QString("added %1 at position %2")
                                  .arg(QString::fromStdString(after.ops(at).name()))
                                  .arg(at + 1));
  return true;
}

void OpOrderEditor::AskAndAdd(const AddableOp& op) {
  const QString kind = QString::fromStdString(op.kind);
  int64_t value = op.default_value;
  if (!op.argument.empty()) {
    bool ok = false;
    const auto clamp = [](int64_t v) {
      return static_cast<int>(std::clamp<int64_t>(v, 0, std::numeric_limits<int>::max()));
    };
    value = QInputDialog::getInt(
        this, QString("Add %1").arg(kind),
        QString("%1 for the new %2:").arg(QString::fromStdString(op.argument), kind),
        clamp(op.default_value), clamp(op.min), clamp(op.max), 1, &ok);
    if (!ok) return;
  }
  RequestAdd(kind, selected() >= 0 ? selected() : list_->count() - 1, value);
}

bool OpOrderEditor::eventFilter(QObject* watched, QEvent* event) {
  if (watched == list_ && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    const int row = selected();
    const bool alt = key->modifiers() & Qt::AltModifier;
    if (alt && key->key() == Qt::Key_Up) {
      RequestMove(row, row - 1);
      return true;
    }
    if (alt && key->key() == Qt::Key_Down) {
      RequestMove(row, row + 1);
      return true;
    }
    if (key->key() == Qt::Key_Delete) {
      RequestRemove(row);
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace pipescope::ui
