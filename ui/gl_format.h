#pragma once
// The OpenGL context every Pipescope window uses: ImGui's OpenGL 3 backend needs 3.3
// core. Must be called before the QApplication exists.

#include <QSurfaceFormat>

namespace pipescope::ui {

inline void SetDefaultGlFormat() {
  QSurfaceFormat format;
  format.setVersion(3, 3);
  format.setProfile(QSurfaceFormat::CoreProfile);
  QSurfaceFormat::setDefaultFormat(format);
}

}  // namespace pipescope::ui
