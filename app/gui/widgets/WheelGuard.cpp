#include "WheelGuard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QScrollBar>
#include <QWheelEvent>

namespace tb::gui {

WheelGuard::WheelGuard(QObject* parent) : QObject(parent) {}

namespace {
QAbstractScrollArea* scrollAreaOf(QWidget* w)
{
    for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
        if (auto* area = qobject_cast<QAbstractScrollArea*>(p))
            return area;
    return nullptr;
}
} // namespace

bool WheelGuard::eventFilter(QObject* watched, QEvent* event)
{
    if (!watched->isWidgetType())
        return false;
    if (event->type() == QEvent::Polish || event->type() == QEvent::Show || event->type() == QEvent::Enter) {
        // Qt gives a real wheel event's focus to an editor with Qt::WheelFocus before any filter
        // sees it; editors in a scrolling panel take focus by click and Tab only. Not at Polish
        // alone: a panel is often polished (by a size hint) before it is put in its scroll area,
        // and a row shown later (Repeats after the kind changed) was never looked at again, so
        // the pointer's first wheel turn focused and changed it. Show and Enter come before any
        // wheel event can reach the editor.
        auto* w = static_cast<QWidget*>(watched);
        if ((qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractSpinBox*>(w)) && w->focusPolicy() == Qt::WheelFocus &&
            scrollAreaOf(w))
            w->setFocusPolicy(Qt::StrongFocus);
        return false;
    }
    if (event->type() != QEvent::Wheel)
        return false;
    // The editor itself, or a part of it (a spin box's line edit).
    QWidget* editor = nullptr;
    for (auto* w = static_cast<QWidget*>(watched); w && !w->isWindow(); w = w->parentWidget())
        if (qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractSpinBox*>(w)) {
            editor = w;
            break;
        }
    if (!editor || editor->hasFocus())
        return false;
    QAbstractScrollArea* area = scrollAreaOf(editor);
    if (!area)
        return false; // not in a scrolling panel: the editor keeps Qt's behaviour
    auto* wheel = static_cast<QWheelEvent*>(event);
    QScrollBar* bar = wheel->angleDelta().y() != 0 ? area->verticalScrollBar() : area->horizontalScrollBar();
    if (bar && bar->isVisible())
        QCoreApplication::sendEvent(bar, event);
    return true; // never to the editor
}

} // namespace tb::gui
