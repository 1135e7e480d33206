// SPDX-License-Identifier: GPL-3.0-or-later

#include "BenchOptionsPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

namespace isobar::ui {

namespace {

using Kind = BenchRequest::Kind;

// The bench table types in the order the boxes show them (benchTableTypeName's words).
const QStringList& typeNames() {
    static const QStringList names{QStringLiteral("regular"),
                                   QStringLiteral("unlogged"),
                                   QStringLiteral("partitioned"),
                                   QStringLiteral("hypertable"),
                                   QStringLiteral("hypertable-compressed"),
                                   QStringLiteral("hypertable-direct"),
                                   QStringLiteral("distributed")};
    return names;
}
// A synthetic global hour: the 0.25 degree grid, 721 x 1440 points.
constexpr int kRowsPerGlobalHour = 721 * 1440;

QString methodTip(LoadMethod m) {
    switch (m) {
    case LoadMethod::Insert:
        return BenchOptionsPanel::tr("One single-row INSERT per row, in one transaction (timed on a sample)");
    case LoadMethod::MultiInsert:
        return BenchOptionsPanel::tr("INSERT ... VALUES with many rows per statement");
    case LoadMethod::CopyText:
        return BenchOptionsPanel::tr("COPY FROM STDIN in text format, the rows formatted here");
    case LoadMethod::CopyCsvFile:
        return BenchOptionsPanel::tr(
            "A CSV file written, then the server's COPY FROM it (a local server only)");
    case LoadMethod::CopyBinary:
        return BenchOptionsPanel::tr("Isobar's engine: binary COPY FROM STDIN");
    case LoadMethod::ServerLimit:
        return BenchOptionsPanel::tr("The server's own binary COPY of prepared files: the ceiling (a local "
                                     "server only)");
    }
    return {};
}

// "1,2, 4" -> {1, 2, 4}; nullopt when a part is not a count from 1 to `most`.
std::optional<std::vector<int>> counts(const QString& text, int most) {
    std::vector<int> values;
    for (const QString& part :
         text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int v = part.toInt(&ok);
        if (!ok || v < 1 || v > most) {
            return std::nullopt;
        }
        values.push_back(v);
    }
    if (values.empty()) {
        return std::nullopt;
    }
    return values;
}

QSpinBox* spin(int low, int high, int value) {
    auto* box = new QSpinBox;
    box->setRange(low, high);
    box->setValue(value);
    return box;
}

} // namespace

BenchOptionsPanel::BenchOptionsPanel(QWidget* parent)
    : QWidget(parent)
    , kind_(new QComboBox)
    , about_(new QLabel)
    , form_(new QFormLayout(this))
    , useFiles_(new QRadioButton)
    , synthetic_(new QRadioButton(tr("Synthetic global hours:")))
    , hours_(spin(1, 168, 1))
    , queryHours_(spin(1, 168, 48))
    , sizes_(new QLineEdit(QStringLiteral("1,10")))
    , safe_(new QCheckBox(tr("safe")))
    , fast_(new QCheckBox(tr("fast")))
    , workers_(new QLineEdit(QStringLiteral("1,2")))
    , matrixWorkers_(spin(1, 64, 2))
    , rounds_(spin(1, 20, 3))
    , repeats_(spin(1, 50, 5))
    , locations_(spin(1, 1000, 8))
    , restart_(new QCheckBox(tr("Restart the embedded cluster before each type's cold runs"))) {
    for (const Kind k : {Kind::Methods, Kind::Matrix, Kind::Queries}) {
        kind_->addItem(benchKindTitle(k), static_cast<int>(k));
    }
    about_->setWordWrap(true);
    form_->setContentsMargins(0, 0, 0, 0);
    form_->addRow(tr("Bench:"), kind_);
    form_->addRow(about_);

    auto* dataRow = new QWidget;
    auto* dataLayout = new QVBoxLayout(dataRow);
    dataLayout->setContentsMargins(0, 0, 0, 0);
    auto* hoursLine = new QHBoxLayout;
    hoursLine->addWidget(synthetic_);
    for (QWidget* w : std::initializer_list<QWidget*>{hours_, queryHours_, sizes_}) {
        hoursLine->addWidget(w);
        w->setToolTip(tr("Each global hour is %L1 rows, written to a temporary NetCDF file first")
                          .arg(kRowsPerGlobalHour));
    }
    sizes_->setToolTip(
        tr("The data sizes to compare, in global hours of %L1 rows each: \"1,10\"").arg(kRowsPerGlobalHour));
    hoursLine->addStretch();
    dataLayout->addWidget(useFiles_);
    dataLayout->addLayout(hoursLine);
    form_->addRow(tr("Data:"), dataRow);
    synthetic_->setChecked(true);
    for (QRadioButton* b : {useFiles_, synthetic_}) {
        connect(b, &QRadioButton::clicked, this, [this] { filesTouched_ = true; });
    }

    typesRow_ = new QWidget;
    auto* typesGrid = new QGridLayout(typesRow_);
    typesGrid->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < typeNames().size(); ++i) {
        auto* box = new QCheckBox(typeNames()[i]);
        types_[typeNames()[i]] = box;
        typesGrid->addWidget(box, i / 2, i % 2);
        connect(box, &QCheckBox::clicked, this,
                [this] { chosenTypes_[static_cast<std::size_t>(kind())] = tickedTypes(); });
    }
    form_->addRow(tr("Table types:"), typesRow_);

    methodsRow_ = new QWidget;
    auto* methodsGrid = new QGridLayout(methodsRow_);
    methodsGrid->setContentsMargins(0, 0, 0, 0);
    int i = 0;
    for (const LoadMethod m : allLoadMethods()) {
        auto* box = new QCheckBox(
            QString::fromUtf8(loadMethodName(m).data(), static_cast<qsizetype>(loadMethodName(m).size())));
        box->setChecked(true);
        box->setToolTip(methodTip(m));
        methods_[m] = box;
        methodsGrid->addWidget(box, i / 2, i % 2);
        ++i;
    }
    form_->addRow(tr("Methods:"), methodsRow_);

    durabilityRow_ = new QWidget;
    auto* durability = new QHBoxLayout(durabilityRow_);
    durability->setContentsMargins(0, 0, 0, 0);
    durability->addWidget(safe_);
    durability->addWidget(fast_);
    durability->addStretch();
    safe_->setChecked(true);
    safe_->setToolTip(tr("The server as it is configured"));
    fast_->setToolTip(tr("fsync, full_page_writes and synchronous_commit off server-wide during the fast "
                         "runs, restored after each: asks first"));
    form_->addRow(tr("Durability:"), durabilityRow_);

    workers_->setToolTip(tr("Worker counts to compare: \"1,2,4\""));
    matrixWorkers_->setToolTip(tr("N: each type is written and read with 1 and with N workers"));
    form_->addRow(tr("Workers:"), workers_);
    form_->addRow(tr("Workers (1 and N):"), matrixWorkers_);
    rounds_->setToolTip(tr("Each cell is measured this many times; the median counts"));
    form_->addRow(tr("Rounds:"), rounds_);
    repeats_->setToolTip(tr("Warm runs of each query, after the cold one"));
    form_->addRow(tr("Warm runs:"), repeats_);
    locations_->setToolTip(tr("Locations whose whole series are read (the mean time of each counts)"));
    form_->addRow(tr("Series locations:"), locations_);
    form_->addRow(restart_);
    restart_->setEnabled(false);

    connect(kind_, &QComboBox::currentIndexChanged, this, &BenchOptionsPanel::kindChanged);
    setFiles({}, {}, tr("no files on the Files tab"));
    setTypesUnknown(tr("Not known yet whether this server can make it: the server is checked when this tab "
                       "is shown"));
    kindChanged();
}

BenchOptionsPanel::Kind BenchOptionsPanel::kind() const {
    return static_cast<Kind>(kind_->currentData().toInt());
}

void BenchOptionsPanel::setKind(Kind kind) {
    kind_->setCurrentIndex(kind_->findData(static_cast<int>(kind)));
}

QCheckBox* BenchOptionsPanel::typeBox(const QString& name) const {
    const auto it = types_.find(name);
    return it == types_.end() ? nullptr : it->second;
}

QCheckBox* BenchOptionsPanel::methodBox(LoadMethod method) const {
    return methods_.at(method);
}

void BenchOptionsPanel::kindChanged() {
    const Kind k = kind();
    switch (k) {
    case Kind::Methods:
        about_->setText(tr("Loads the same rows with each method into each table type, with each worker "
                           "count, safe and (if you agree) fast: rows/s of the median round."));
        break;
    case Kind::Matrix:
        about_->setText(tr("What each table type costs: writing with 1 and N workers, its size, reading "
                           "maps and series, and dropping old data."));
        break;
    case Kind::Queries:
        about_->setText(tr("How fast each table type answers the usual queries, cold and warm, and what "
                           "trimming old data (retention) costs."));
        break;
    }
    hours_->setVisible(k == Kind::Methods);
    queryHours_->setVisible(k == Kind::Queries);
    sizes_->setVisible(k == Kind::Matrix);
    form_->setRowVisible(methodsRow_, k == Kind::Methods);
    form_->setRowVisible(durabilityRow_, k == Kind::Methods);
    form_->setRowVisible(workers_, k == Kind::Methods);
    form_->setRowVisible(rounds_, k == Kind::Methods);
    form_->setRowVisible(matrixWorkers_, k == Kind::Matrix);
    form_->setRowVisible(locations_, k == Kind::Matrix);
    form_->setRowVisible(repeats_, k == Kind::Queries);
    form_->setRowVisible(restart_, k == Kind::Queries);
    // The methods bench compresses hypertables only as COPY receives the rows.
    types_.at(QStringLiteral("hypertable-compressed"))->setVisible(k != Kind::Methods);
    applyTypeChoice();
}

QSet<QString> BenchOptionsPanel::tickedTypes() const {
    QSet<QString> ticked;
    for (const auto& [name, box] : types_) {
        if (box->isChecked() && box->isEnabled() && !box->isHidden()) {
            ticked.insert(name);
        }
    }
    return ticked;
}

void BenchOptionsPanel::applyTypeChoice() {
    const auto& chosen = chosenTypes_[static_cast<std::size_t>(kind())];
    for (const auto& [name, box] : types_) {
        const bool shown = kind() != Kind::Methods || name != QStringLiteral("hypertable-compressed");
        const bool wanted = chosen ? chosen->contains(name)
                                   : (kind() == Kind::Methods ? name == QStringLiteral("regular") : true);
        box->setChecked(shown && box->isEnabled() && wanted);
    }
}

void BenchOptionsPanel::setFiles(std::vector<std::filesystem::path> files, const OpenOptions& open,
                                 const QString& notReady) {
    files_ = notReady.isEmpty() ? std::move(files) : std::vector<std::filesystem::path>{};
    open_ = open;
    const bool have = !files_.empty();
    useFiles_->setEnabled(have);
    useFiles_->setText(have ? tr("The %n file(s) on the Files tab", nullptr, static_cast<int>(files_.size()))
                            : tr("The files on the Files tab (%1)").arg(notReady));
    // The files by default once there are some, unless the user chose.
    if (!have) {
        synthetic_->setChecked(true);
    } else if (!filesTouched_) {
        useFiles_->setChecked(true);
    }
}

void BenchOptionsPanel::setTypesUnknown(const QString& why) {
    for (const QString& name : {QStringLiteral("hypertable"), QStringLiteral("hypertable-compressed"),
                                QStringLiteral("hypertable-direct"), QStringLiteral("distributed")}) {
        types_.at(name)->setEnabled(false);
        types_.at(name)->setToolTip(why);
    }
    applyTypeChoice();
}

void BenchOptionsPanel::setAvailableTypes(const std::vector<BenchTableType>& available,
                                          const std::vector<std::pair<std::string, std::string>>& skipped) {
    for (const auto& [name, box] : types_) {
        const QString& type = name;
        const bool can = std::any_of(available.begin(), available.end(), [&type](const BenchTableType& t) {
            return QString::fromStdString(benchTableTypeName(t)) == type;
        });
        QString why = tr("this server cannot make it");
        for (const auto& [skippedName, reason] : skipped) {
            if (QString::fromStdString(skippedName) == name) {
                why = QString::fromStdString(reason);
            }
        }
        box->setEnabled(can);
        box->setToolTip(can ? QString() : tr("Not available: %1").arg(why));
    }
    applyTypeChoice();
}

void BenchOptionsPanel::setEmbedded(bool embedded) {
    restart_->setEnabled(embedded);
    if (!embedded) {
        restart_->setChecked(false);
    }
    restart_->setToolTip(embedded ? tr("Empties the server's buffers for cold runs; it also ends every other "
                                       "connection to the embedded cluster (a load on the Run tab too)")
                                  : tr("Only the embedded cluster can be restarted from here"));
}

bool BenchOptionsPanel::asksForFastDurability() const {
    return kind() == Kind::Methods && fast_->isChecked();
}

std::optional<BenchRequest> BenchOptionsPanel::request(QString& why) const {
    BenchRequest r;
    r.kind = kind();
    BenchData chosen;
    if (useFiles_->isChecked() && !files_.empty()) {
        chosen.files = files_;
        chosen.open = open_;
    } else {
        chosen.syntheticHours = r.kind == Kind::Queries ? queryHours_->value() : hours_->value();
    }
    std::vector<BenchTableType> types;
    for (const QString& name : typeNames()) {
        if (tickedTypes().contains(name)) {
            types.push_back(*parseBenchTableType(name.toStdString()));
        }
    }
    if (types.empty()) {
        why = tr("Tick at least one table type.");
        return std::nullopt;
    }
    switch (r.kind) {
    case Kind::Methods: {
        r.methods.data = chosen;
        r.methods.tableTypes.clear();
        for (const BenchTableType& t : types) {
            r.methods.tableTypes.push_back(t);
        }
        r.methods.methods.clear();
        for (const auto& [method, box] : methods_) {
            if (box->isChecked()) {
                r.methods.methods.push_back(method);
            }
        }
        const auto workers = counts(workers_->text(), 64);
        if (!workers) {
            why = tr("Workers: counts from 1 to 64 separated by commas, like \"1,2,4\".");
            return std::nullopt;
        }
        r.methods.workers = *workers;
        r.methods.durability.clear();
        if (safe_->isChecked()) {
            r.methods.durability.emplace_back("safe");
        }
        if (fast_->isChecked()) {
            r.methods.durability.emplace_back("fast");
        }
        r.methods.rounds = rounds_->value();
        if (r.methods.methods.empty() || r.methods.durability.empty()) {
            why =
                r.methods.methods.empty() ? tr("Tick at least one method.") : tr("Tick safe, fast or both.");
            return std::nullopt;
        }
        break;
    }
    case Kind::Matrix: {
        r.matrix.data = chosen;
        r.matrix.tableTypes = types;
        r.matrix.workers = matrixWorkers_->value();
        r.matrix.seriesLocations = locations_->value();
        if (chosen.files.empty()) {
            const auto hours = counts(sizes_->text(), 168);
            if (!hours) {
                why = tr("Data sizes: global hours from 1 to 168 separated by commas, like \"1,10\".");
                return std::nullopt;
            }
            r.matrix.hours = *hours;
            r.matrix.data.syntheticHours = 0;
        } else {
            r.matrix.hours.clear();
        }
        break;
    }
    case Kind::Queries:
        r.queries.data = chosen;
        r.queries.tableTypes = types;
        r.queries.repeats = repeats_->value();
        r.restartEmbedded = restart_->isEnabled() && restart_->isChecked();
        break;
    }
    return r;
}

} // namespace isobar::ui
