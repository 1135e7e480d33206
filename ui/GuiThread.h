#pragma once

#include <QCoreApplication>
#include <QMetaObject>

#include <utility>

namespace isobar::ui {

// Runs `f` on the GUI thread, later. Work done on a pool thread hands its result back this way:
// the call is posted to the application object, which outlives every widget, so the pool thread
// never dereferences a widget that may be gone by then. `f` checks its QPointer when it runs.
template <typename F>
void postToGui(F&& f) {
    QMetaObject::invokeMethod(QCoreApplication::instance(), std::forward<F>(f), Qt::QueuedConnection);
}

} // namespace isobar::ui
