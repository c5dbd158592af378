#pragma once
// The trace the windows show: its model, the lock it is read under, its title, its notes
// and whether they are saved. A live run's model grows under the run's lock; a finished
// recording or an opened file is read under a lock of the document's own, so every reader
// locks the same way and none asks whether there is a lock.

#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "instrumentation/trace/model.h"

namespace pipescope::ui {

class TraceDocument : public QObject {
  Q_OBJECT
 public:
  explicit TraceDocument(QObject* parent = nullptr) : QObject(parent) {}

  // Shows `model` under `title`. `run_lock` is the live run's lock, held by whoever writes
  // the model (Close before the run goes); null for a model nothing else writes.
  void Open(std::shared_ptr<trace::Model> model, std::mutex* run_lock, const QString& title);
  // Nothing shown; readers have let go of the model and of the run's lock when it returns.
  void Close();

  bool is_open() const { return model_ != nullptr; }
  trace::Model* model() const { return model_.get(); }
  const std::shared_ptr<trace::Model>& shared_model() const { return model_; }
  // The lock the model is read under (the run's, or the document's own).
  std::mutex& mutex() const { return run_lock_ != nullptr ? *run_lock_ : own_lock_; }
  std::unique_lock<std::mutex> Lock() const { return std::unique_lock<std::mutex>(mutex()); }
  // Whether a run writes the model (it may still grow).
  bool recording() const { return run_lock_ != nullptr; }
  // Where the trace came from: "" for Pipescope's own, else the importer's name ("pytorch",
  // "tensorflow", "hosts"...). Set when the model is made, so read without the lock.
  const std::string& imported_from() const;

  const QString& title() const { return title_; }
  // "imagenet_like.pbtxt * - Pipescope" (the star: notes not saved).
  QString WindowTitle() const;

  // Several hosts' traces in one: each host's figures and the one to look at.
  void SetHostsVerdict(const QString& text) { hosts_verdict_ = text; }
  const QString& hosts_verdict() const { return hosts_verdict_; }

  // Notes pinned to [start, end] of the trace (start == end: an instant).
  void AddNote(const record::AnnotationDef& note);
  void RemoveNote(size_t index);
  std::vector<record::AnnotationDef> notes() const;
  bool notes_unsaved() const { return notes_unsaved_; }
  // The trace was written to a file now named `title`: its notes are saved.
  void MarkSaved(const QString& title);

 signals:
  // A model is shown (Open) or none (Close).
  void Opened();
  void Closed();
  void NotesChanged();
  void TitleChanged(const QString& window_title);

 private:
  // Applies `change` to the model's notes under the lock; they are unsaved now.
  void ChangeNotes(const std::function<void(trace::Model&)>& change);

  std::shared_ptr<trace::Model> model_;
  std::mutex* run_lock_ = nullptr;
  mutable std::mutex own_lock_;
  QString title_;
  QString hosts_verdict_;
  bool notes_unsaved_ = false;
};

}  // namespace pipescope::ui
