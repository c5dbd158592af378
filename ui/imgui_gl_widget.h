#pragma once
// A QOpenGLWidget that hosts one Dear ImGui context and draws with its OpenGL 3 backend.
// Qt's input events are queued and fed to ImGui 1.86's per-frame input state one press
// or release per frame, so a click that starts and ends between two frames is not lost.
// Subclasses draw in DrawImGui(), between NewFrame and Render.

#include <QOpenGLWidget>
#include <QTimer>
#include <deque>

struct ImGuiContext;

namespace pipescope::ui {

class ImGuiGlWidget : public QOpenGLWidget {
  Q_OBJECT
 public:
  explicit ImGuiGlWidget(QWidget* parent = nullptr);
  ~ImGuiGlWidget() override;

  // CPU time of the last frame: building its draw lists (NewFrame to Render), and in all
  // (with handing them to OpenGL, which a software GL rasterises on this thread); and how
  // many frames were drawn: for `pipescope --bench-frames`.
  int64_t last_frame_build_ns() const { return last_frame_build_ns_; }
  int64_t last_frame_cpu_ns() const { return last_frame_cpu_ns_; }
  int64_t frames_drawn() const { return frames_drawn_; }
  // Draws one frame now, into the widget's framebuffer (benchmarks: repaint() may be
  // coalesced with a pending update and draw nothing).
  void DrawFrameNow();
  // ImGui's dark or light style, and the colour behind everything it draws.
  void SetImGuiTheme(bool dark, const float clear_color[3]);
  // Draws everything (lanes, text) `scale` times larger: presenter mode on a projector.
  // The font is re-rasterised at the new size, so text stays sharp.
  void SetUiScale(float scale);
  float ui_scale() const { return ui_scale_; }

 protected:
  virtual void DrawImGui() = 0;
  // What an auto-sized window (a tooltip) shows this frame, as a key that changes with its
  // content: a change draws one more frame, in which the window has its new size.
  void NoteShownContent(uint64_t key) { shown_content_ = shown_content_ * 1000003u + key + 1; }
  // The CPU time this thread has used, in ns: what the frame figures count.
  static int64_t ThreadCpuNs();

  void initializeGL() override;
  void paintGL() override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  // The pointer left: ImGui is told there is none, so that hover tooltips go with it.
  void leaveEvent(QEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void keyReleaseEvent(QKeyEvent* e) override;

 private:
  struct ButtonEvent {
    int button;
    bool down;
  };
  void CleanUpGl();
  void ApplyQueuedInput();
  void ApplyModifiers(Qt::KeyboardModifiers modifiers);
  void SetMousePos(const QPointF& widget_pos);
  void RebuildFont();  // needs the GL context

  ImGuiContext* context_ = nullptr;
  bool gl_ready_ = false;
  std::deque<ButtonEvent> buttons_;
  std::deque<std::pair<int, bool>> keys_;
  float wheel_ = 0;
  uint64_t shown_content_ = 0;  // this frame's NoteShownContent keys, combined
  uint64_t drawn_content_ = 0;  // the previous frame's
  float ui_scale_ = 1;
  bool font_dirty_ = false;
  QTimer frame_timer_;  // keeps frames coming while input is queued
  QMetaObject::Connection context_connection_;
  int64_t last_frame_build_ns_ = 0;
  int64_t last_frame_cpu_ns_ = 0;
  int64_t frames_drawn_ = 0;
  float clear_color_[3] = {0.09f, 0.09f, 0.11f};
};

}  // namespace pipescope::ui
