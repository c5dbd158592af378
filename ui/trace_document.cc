#include "ui/trace_document.h"

#include <utility>

namespace pipescope::ui {

void TraceDocument::Open(std::shared_ptr<trace::Model> model, std::mutex* run_lock,
                         const QString& title) {
  Close();
  model_ = std::move(model);
  run_lock_ = run_lock;
  title_ = title;
  notes_unsaved_ = false;
  emit Opened();
  emit TitleChanged(WindowTitle());
}

void TraceDocument::Close() {
  if (model_ == nullptr) return;
  emit Closed();  // readers let go while the model and the run's lock still exist
  model_.reset();
  run_lock_ = nullptr;
  hosts_verdict_.clear();
  notes_unsaved_ = false;
}

const std::string& TraceDocument::imported_from() const {
  static const std::string kNone;
  return model_ != nullptr ? model_->run_info().imported_from : kNone;
}

QString TraceDocument::WindowTitle() const {
  if (model_ == nullptr) return "Pipescope";
  return title_ + (notes_unsaved_ ? " * - Pipescope" : " - Pipescope");
}

void TraceDocument::AddNote(const record::AnnotationDef& note) {
  ChangeNotes([&note](trace::Model& model) { model.AddAnnotation(note); });
}

void TraceDocument::RemoveNote(size_t index) {
  ChangeNotes([index](trace::Model& model) { model.RemoveAnnotation(index); });
}

void TraceDocument::ChangeNotes(const std::function<void(trace::Model&)>& change) {
  if (model_ == nullptr) return;
  {
    const auto guard = Lock();
    change(*model_);
  }
  notes_unsaved_ = true;
  emit NotesChanged();
  emit TitleChanged(WindowTitle());
}

std::vector<record::AnnotationDef> TraceDocument::notes() const {
  if (model_ == nullptr) return {};
  const auto guard = Lock();
  return model_->annotations();
}

void TraceDocument::MarkSaved(const QString& title) {
  title_ = title;
  notes_unsaved_ = false;
  emit TitleChanged(WindowTitle());
}

}  // namespace pipescope::ui
