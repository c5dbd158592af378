#pragma once
// The top of the Pipeline dock while a run is live: the pipeline's ops in order, which a
// person drags to a new position (or moves with Alt+Up / Alt+Down), adds to (Add menu) or
// removes from (Delete). The editor changes nothing itself: it asks for the changed spec
// with ChangeRequested, and the window decides (the move rules may need a confirmation)
// and shows the outcome with ShowSpec.

#include <QString>
#include <QWidget>
#include <string>
#include <vector>

#include "engine/spec/pipeline_spec.pb.h"

class QLabel;
class QListWidget;
class QToolButton;

namespace pipescope::ui {

class OpOrderEditor : public QWidget {
  Q_OBJECT
 public:
  explicit OpOrderEditor(QWidget* parent = nullptr);

  // The ops of `spec`, editable or (a saved trace, a finished run) read-only.
  void ShowSpec(const spec::PipelineSpec& spec, bool editable);
  const spec::PipelineSpec& spec() const { return spec_; }

  // What the list's gestures do, callable directly (tests, keyboard).
  void RequestMove(int from, int to);
  void RequestRemove(int index);
  // Adds an op of `kind` (an addable kind of engine/spec/op_kinds.h: prefetch, shuffle,
  // batch, take, skip, shard, cache, repeat, unbatch) after the op at `after` (-1: first),
  // with `value` as the knob its description asks for (buffer_size, batch_size, count,
  // num_shards). False for a kind that cannot be added here.
  bool RequestAdd(const QString& kind, int after, int64_t value);

  // The ops a person can add, from the op kinds' descriptions: the knob each one asks for
  // (empty: none), its proposal and its range.
  struct AddableOp {
    std::string kind;
    std::string argument;
    int64_t default_value = 0;
    int64_t min = 0, max = 0;
  };
  static std::vector<AddableOp> AddableOps();

 signals:
  void ChangeRequested(const spec::PipelineSpec& after, const QString& description);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void Populate();
  void AskAndAdd(const AddableOp& op);
  void UpdateButtons();
  int selected() const;

  spec::PipelineSpec spec_;
  bool editable_ = false;
  QLabel* source_ = nullptr;
  QListWidget* list_ = nullptr;
  QToolButton* add_ = nullptr;
  // Tool buttons, sized to their words: the Pipeline dock stays narrow enough to leave the
  // timeline 60% of a 1280 px window.
  QToolButton* remove_ = nullptr;
  QToolButton* up_ = nullptr;
  QToolButton* down_ = nullptr;
};

}  // namespace pipescope::ui
