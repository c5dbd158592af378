#include "ui/imgui_gl_widget.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QWheelEvent>
#include <algorithm>
#include <ctime>

namespace pipescope::ui {
namespace {

int ImGuiButton(Qt::MouseButton b) {
  switch (b) {
    case Qt::LeftButton:
      return 0;
    case Qt::RightButton:
      return 1;
    case Qt::MiddleButton:
      return 2;
    default:
      return -1;
  }
}

}  // namespace

ImGuiGlWidget::ImGuiGlWidget(QWidget* parent) : QOpenGLWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  IMGUI_CHECKVERSION();
  ImGuiContext* previous = ImGui::GetCurrentContext();
  context_ = ImGui::CreateContext();
  ImGui::SetCurrentContext(context_);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // layout persistence is Qt's (QSettings), not imgui.ini
  for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = k;
  ImGui::StyleColorsDark();
  ImGui::SetCurrentContext(previous);
  frame_timer_.setInterval(16);
  connect(&frame_timer_, &QTimer::timeout, this, [this] { update(); });
}

ImGuiGlWidget::~ImGuiGlWidget() {
  // ~QOpenGLWidget destroys the context after this destructor: clean up while it lives.
  CleanUpGl();
  ImGui::DestroyContext(context_);
}

void ImGuiGlWidget::CleanUpGl() {
  if (!gl_ready_) return;
  makeCurrent();
  ImGui::SetCurrentContext(context_);
  ImGui_ImplOpenGL3_Shutdown();
  doneCurrent();
  gl_ready_ = false;
}

void ImGuiGlWidget::initializeGL() {
  // A floated dock re-creates the GL context: start over on the new one.
  CleanUpGl();
  disconnect(context_connection_);
  context_connection_ =
      connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] { CleanUpGl(); });
  ImGui::SetCurrentContext(context_);
  ImGui_ImplOpenGL3_Init("#version 150");
  gl_ready_ = true;
}

void ImGuiGlWidget::ApplyQueuedInput() {
  ImGuiIO& io = ImGui::GetIO();
  // One press or release per button and frame (ImGui 1.86 samples state once a frame).
  if (!buttons_.empty()) {
    io.MouseDown[buttons_.front().button] = buttons_.front().down;
    buttons_.pop_front();
  }
  if (!keys_.empty()) {
    const auto [key, down] = keys_.front();
    if (key >= 0 && key < 512) io.KeysDown[key] = down;
    keys_.pop_front();
  }
  io.MouseWheel = wheel_;
  wheel_ = 0;
  if (buttons_.empty() && keys_.empty()) frame_timer_.stop();
}

void ImGuiGlWidget::paintGL() {
  if (!gl_ready_) return;
  ImGui::SetCurrentContext(context_);
  ImGuiIO& io = ImGui::GetIO();
  if (font_dirty_) RebuildFont();
  const qreal dpr = devicePixelRatioF();
  // A UI scale draws into a smaller logical display that fills the same pixels.
  io.DisplaySize =
      ImVec2(static_cast<float>(width()) / ui_scale_, static_cast<float>(height()) / ui_scale_);
  const float fb_scale = static_cast<float>(dpr) * ui_scale_;
  io.DisplayFramebufferScale = ImVec2(fb_scale, fb_scale);
  io.DeltaTime = 1.0f / 60.0f;
  ApplyQueuedInput();
  const int64_t start = ThreadCpuNs();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  shown_content_ = 0;
  DrawImGui();
  ImGui::Render();
  // An auto-sized window (a tooltip) is drawn at the size its content had the frame before:
  // hidden on its first frame, clipped when its content changes. When what it shows changed,
  // the next frame is drawn unasked, where it waited for the pointer's next move.
  if (shown_content_ != drawn_content_) {
    drawn_content_ = shown_content_;
    QTimer::singleShot(0, this, [this] { update(); });
  }
  const int64_t built = ThreadCpuNs();
  glViewport(0, 0, static_cast<int>(width() * dpr), static_cast<int>(height() * dpr));
  glClearColor(clear_color_[0], clear_color_[1], clear_color_[2], 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  last_frame_build_ns_ = built - start;
  last_frame_cpu_ns_ = ThreadCpuNs() - start;
  ++frames_drawn_;
}

int64_t ImGuiGlWidget::ThreadCpuNs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1'000'000'000LL + now.tv_nsec;
}

void ImGuiGlWidget::SetMousePos(const QPointF& p) {
  ImGui::SetCurrentContext(context_);
  ImGui::GetIO().MousePos =
      ImVec2(static_cast<float>(p.x()) / ui_scale_, static_cast<float>(p.y()) / ui_scale_);
}

void ImGuiGlWidget::SetUiScale(float scale) {
  ui_scale_ = std::clamp(scale, 0.5f, 4.0f);
  font_dirty_ = true;
  update();
}

void ImGuiGlWidget::RebuildFont() {
  font_dirty_ = false;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  ImFontConfig config;
  config.SizePixels = 13.0f * ui_scale_;  // the default font's size, in physical pixels
  io.Fonts->AddFontDefault(&config);
  io.FontGlobalScale = 1.0f / ui_scale_;
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
}

void ImGuiGlWidget::leaveEvent(QEvent* e) {
  ImGui::SetCurrentContext(context_);
  ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // ImGui's "no pointer"
  update();
  QOpenGLWidget::leaveEvent(e);
}

void ImGuiGlWidget::mouseMoveEvent(QMouseEvent* e) {
  SetMousePos(e->position());
  ApplyModifiers(e->modifiers());
  update();
}

void ImGuiGlWidget::DrawFrameNow() {
  makeCurrent();
  paintGL();
  doneCurrent();
}

void ImGuiGlWidget::SetImGuiTheme(bool dark, const float clear_color[3]) {
  ImGuiContext* previous = ImGui::GetCurrentContext();
  ImGui::SetCurrentContext(context_);
  if (dark) {
    ImGui::StyleColorsDark();
  } else {
    ImGui::StyleColorsLight();
  }
  ImGui::SetCurrentContext(previous);
  std::copy(clear_color, clear_color + 3, clear_color_);
  update();
}

void ImGuiGlWidget::ApplyModifiers(Qt::KeyboardModifiers modifiers) {
  ImGui::SetCurrentContext(context_);
  ImGuiIO& io = ImGui::GetIO();
  io.KeyShift = modifiers.testFlag(Qt::ShiftModifier);
  io.KeyCtrl = modifiers.testFlag(Qt::ControlModifier);
  io.KeyAlt = modifiers.testFlag(Qt::AltModifier);
}

void ImGuiGlWidget::mousePressEvent(QMouseEvent* e) {
  mouseMoveEvent(e);
  if (int b = ImGuiButton(e->button()); b >= 0) buttons_.push_back({b, true});
  frame_timer_.start();
  update();
}

void ImGuiGlWidget::mouseReleaseEvent(QMouseEvent* e) {
  mouseMoveEvent(e);
  if (int b = ImGuiButton(e->button()); b >= 0) buttons_.push_back({b, false});
  frame_timer_.start();
  update();
}

void ImGuiGlWidget::wheelEvent(QWheelEvent* e) {
  SetMousePos(e->position());
  wheel_ += static_cast<float>(e->angleDelta().y()) / 120.0f;
  update();
}

void ImGuiGlWidget::keyPressEvent(QKeyEvent* e) {
  ApplyModifiers(e->modifiers());
  // Letters are keyed by their upper-case code, which ImGui::IsKeyDown('W') matches.
  if (e->key() < 512 && !e->isAutoRepeat()) keys_.push_back({e->key(), true});
  frame_timer_.start();
  update();
}

void ImGuiGlWidget::keyReleaseEvent(QKeyEvent* e) {
  ApplyModifiers(e->modifiers());
  if (e->key() < 512 && !e->isAutoRepeat()) keys_.push_back({e->key(), false});
  frame_timer_.start();
  update();
}

}  // namespace pipescope::ui
