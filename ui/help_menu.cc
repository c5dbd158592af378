#include "ui/help_menu.h"

#include <QMenu>
#include <QMessageBox>

namespace pipescope::ui {
namespace {

constexpr const char* kKeyboardShortcuts =
    "Timeline\n"
    "  W / S          zoom in / out          A / D   pan left / right\n"
    "  wheel          zoom around the cursor (over the labels: scroll the lanes)\n"
    "  drag           pan                    F       zoom to fit\n"
    "  Shift+drag     select a range (or drag on the time axis): the docks show it\n"
    "  Ctrl+drag      measure between span edges\n"
    "  click a red gap      which op made the consumer wait\n"
    "  click a span         the element's path through every op\n"
    "  right button   notes and selection    Esc     clear selection and highlights\n"
    "  End            follow a live run\n\n"
    "Pipeline dock (live run)\n"
    "  drag an op, or Alt+Up / Alt+Down     move it      Delete  remove it\n\n"
    "Window\n"
    "  Ctrl+O open   Ctrl+Shift+S save trace as   Ctrl+E export   Ctrl+F search   Ctrl+Q quit\n"
    "  in search: Enter / F3 next matching span, Shift+Enter / Shift+F3 the previous one\n"
    "  F5 start   F6 pause / resume   Shift+F5 stop   Ctrl+Shift+F5 restart\n"
    "  Ctrl+T autotune live (Pipescope)   Ctrl+Shift+T autotune live (tf.data)\n"
    "  Ctrl+. stop tuning   Ctrl+K compare with autotuned   Ctrl+G grid of knobs\n"
    "  Ctrl+I what if (PyTorch trace)\n\n"
    "Lessons and workshops\n"
    "  Ctrl+L lessons dock   Ctrl+Return run and check the lesson's pipeline\n"
    "  Ctrl+Shift+P presenter mode (large, high contrast, for projectors)\n"
    "  F11 timeline only (every dock hidden; F11 again brings them back)\n";

}  // namespace

void FillHelpMenu(QMenu* help, QWidget* window) {
  help->addAction("&Keyboard Shortcuts", QKeySequence(Qt::Key_F1), window, [window] {
    QMessageBox box(QMessageBox::Information, "Keyboard shortcuts", "", QMessageBox::Ok, window);
    box.setText(QString("<pre>%1</pre>").arg(QString(kKeyboardShortcuts).toHtmlEscaped()));
    box.exec();
  });
  help->addAction("&About Pipescope", window, [window] {
    QMessageBox::about(window, "About Pipescope",
                       "Pipescope 0.1.0: finds and fixes bottlenecks in ML input pipelines.");
  });
}

}  // namespace pipescope::ui
