// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "TargetCheck.h"

#include <QWidget>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSettings;
class QSpinBox;

namespace isobar::ui {

// Where a load goes: the connection (the embedded cluster, a server by its fields, or a pasted
// connection string), the table, its type for a new table (choices the server cannot do are
// disabled with the reason), the chunk interval of a hypertable, the workers (auto by default: as
// many as make the load faster, up to the count shown; both bounded by what max_connections
// leaves), and resume or replace.
class TargetPanel : public QWidget {
    Q_OBJECT

public:
    explicit TargetPanel(QWidget* parent = nullptr);

    ConnectionChoice connection() const;
    std::string tableName() const;
    TableType tableType() const;
    std::string chunkInterval() const;
    // Hypertables: compress the chunks once the load is complete.
    bool compressAfter() const;
    // The fixed count, or with autoWorkers() the most the load may run.
    int workers() const;
    bool autoWorkers() const;
    bool replace() const;

    // Shows what a server check found: version and extensions, the table types it can do.
    void applyCheck(const TargetCheck& check);
    void showChecking();
    // An earlier check was dropped (the target changed, the start was cancelled).
    void showUnchecked();

    // Remembers the choices, never the password.
    void save(QSettings& settings) const;
    void restore(QSettings& settings);

    // For tests and the main window.
    void useConnectionString(const QString& conninfo);
    QComboBox* tableTypeBox() const { return type_; }
    QSpinBox* workersBox() const { return workers_; }
    QCheckBox* autoWorkersBox() const { return autoWorkers_; }
    QCheckBox* compressBox() const { return compress_; }
    // Which path a compressed load takes on the server last checked (direct compress or after).
    QLabel* compressPathLabel() const { return compressPath_; }
    QLineEdit* tableEdit() const { return table_; }
    QPushButton* testButton() const { return test_; }
    QLabel* statusLabel() const { return status_; }

signals:
    void testRequested();
    // The target changed: an earlier check no longer says anything about it.
    void targetChanged();

private:
    void updateModes();
    void updateWorkers();

    QRadioButton* embedded_;
    QRadioButton* fields_;
    QRadioButton* string_;
    QLineEdit* host_;
    QSpinBox* port_;
    QLineEdit* database_;
    QLineEdit* user_;
    QLineEdit* password_;
    QComboBox* sslmode_;
    QLineEdit* conninfo_;
    QPushButton* test_;
    QLabel* status_;
    QLineEdit* table_;
    QComboBox* type_;
    QLineEdit* chunk_;
    QCheckBox* compress_;
    QLabel* compressPath_;
    QSpinBox* workers_;
    QCheckBox* autoWorkers_;
    // The spin box holds the fixed count or auto's bound; the other one waits here.
    int otherWorkers_;
    QRadioButton* resume_;
    QRadioButton* replace_;
};

} // namespace isobar::ui
