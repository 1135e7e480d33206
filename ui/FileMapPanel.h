// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "era5/FieldReader.h"
#endif

#include "BackgroundJobs.h"

#include <QWidget>

#include <filesystem>
#include <memory>

class QComboBox;
class QLabel;
class QToolButton;

namespace isobar::ui {

class MapView;
class MapWindow;

// The Files tab's map of the selected file: a variable at a time step (and pressure level), drawn
// in the background from the decoding a load uses, so it shows the values that will be stored. A
// newer file or map supersedes the one being read.
class FileMapPanel : public QWidget {
    Q_OBJECT

public:
    explicit FileMapPanel(QWidget* parent = nullptr);

    // Shows `file` read with `options` (nothing: clears the panel).
    void setFile(const std::filesystem::path& file, const OpenOptions& options);
    void clear();

    MapView* view() const { return view_; }
    QComboBox* variableBox() const { return variable_; }
    QComboBox* timeBox() const { return time_; }
    QComboBox* levelBox() const { return level_; }
    QLabel* statusLabel() const { return status_; }
    // Opens the map shown in a window of its own (enabled while a map is shown).
    QToolButton* enlargeButton() const { return enlarge_; }
    // Opens the whole field shown in a window of its own (what the button does) and returns it;
    // nullptr when no map is shown.
    MapWindow* openWindow();
    // True while the file is opened or a map drawn (tests wait for it).
    bool busy() const { return read_.isRunning(); }

signals:
    // A map is shown, or a message saying why not.
    void drawn();

private:
    void draw();

    // Opening the file, then each map: one at a time, since the reader belongs to one thread at a
    // time; each supersedes the read before.
    JobTracker read_;
    MapView* view_;
    QComboBox* variable_;
    QComboBox* time_;
    QComboBox* level_;
    QLabel* status_;
    QToolButton* enlarge_;
    std::shared_ptr<FieldReader> reader_; // used by read_'s jobs only
    std::vector<PgTimestamp> times_;
    std::filesystem::path file_;
    bool filling_ = false;
};

} // namespace isobar::ui
