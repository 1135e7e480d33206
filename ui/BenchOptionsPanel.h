// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "BenchRunner.h"

#include <QSet>
#include <QWidget>

#include <array>
#include <map>
#include <optional>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;

namespace isobar::ui {

// What a bench of the Benchmarks tab runs with: the bench, its data (the Files tab's files or
// synthetic global hours), the table types (those this server cannot make disabled, the reason
// their tooltip), and the options of that bench only; each with the bench's own default.
class BenchOptionsPanel : public QWidget {
    Q_OBJECT

public:
    using Kind = BenchRequest::Kind;

    explicit BenchOptionsPanel(QWidget* parent = nullptr);

    Kind kind() const;
    void setKind(Kind kind);
    // The files the benches may use (the Files tab's), or why there are none to use.
    void setFiles(std::vector<std::filesystem::path> files, const OpenOptions& open, const QString& notReady);
    // What the server can make: the other types disabled with why (`skipped`: name -> why).
    void setAvailableTypes(const std::vector<BenchTableType>& available,
                           const std::vector<std::pair<std::string, std::string>>& skipped);
    // Until a server says what it can make: hypertables disabled, `why` their tooltip.
    void setTypesUnknown(const QString& why);
    // Only the embedded cluster can be restarted for cold query runs.
    void setEmbedded(bool embedded);

    // The bench as chosen, consent not given; nullopt with `why` when a choice is not valid.
    std::optional<BenchRequest> request(QString& why) const;
    // The methods bench trades durability in some cells: the user must agree first.
    bool asksForFastDurability() const;

    QComboBox* kindBox() const { return kind_; }
    // "regular", "unlogged", "partitioned", "hypertable", "hypertable-compressed"
    QCheckBox* typeBox(const QString& name) const;
    QCheckBox* methodBox(LoadMethod method) const;
    QRadioButton* filesButton() const { return useFiles_; }
    QRadioButton* syntheticButton() const { return synthetic_; }
    QSpinBox* hoursBox() const { return hours_; }
    QSpinBox* queryHoursBox() const { return queryHours_; }
    QLineEdit* sizesEdit() const { return sizes_; }
    QLineEdit* workersEdit() const { return workers_; }
    QSpinBox* matrixWorkersBox() const { return matrixWorkers_; }
    QSpinBox* roundsBox() const { return rounds_; }
    QSpinBox* repeatsBox() const { return repeats_; }
    QCheckBox* safeBox() const { return safe_; }
    QCheckBox* fastBox() const { return fast_; }
    QCheckBox* restartBox() const { return restart_; }

private:
    void kindChanged();
    // Ticks the types the user chose for this bench, or its default: regular for methods, every
    // type the server can make for the others.
    void applyTypeChoice();
    QSet<QString> tickedTypes() const;

    QComboBox* kind_;
    QLabel* about_;
    QFormLayout* form_;
    QRadioButton* useFiles_;
    QRadioButton* synthetic_;
    QSpinBox* hours_;
    QSpinBox* queryHours_;
    QLineEdit* sizes_;
    std::map<QString, QCheckBox*> types_;
    std::map<LoadMethod, QCheckBox*> methods_;
    QCheckBox* safe_;
    QCheckBox* fast_;
    QLineEdit* workers_;
    QSpinBox* matrixWorkers_;
    QSpinBox* rounds_;
    QSpinBox* repeats_;
    QSpinBox* locations_;
    QCheckBox* restart_;
    QWidget* typesRow_;
    QWidget* methodsRow_;
    QWidget* durabilityRow_;
    std::vector<std::filesystem::path> files_;
    OpenOptions open_;
    // The types the user ticked, per bench; none: that bench's default.
    std::array<std::optional<QSet<QString>>, 3> chosenTypes_;
    bool filesTouched_ = false; // the user picked files or synthetic hours: keep it
};

} // namespace isobar::ui
