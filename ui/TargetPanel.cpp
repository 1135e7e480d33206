// SPDX-License-Identifier: GPL-3.0-or-later

#include "TargetPanel.h"

#include "Format.h"
#include "db/Compression.h"
#include "db/ConnInfo.h"
#include "ingest/Loader.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>

namespace isobar::ui {

namespace {

constexpr TableType kTypes[] = {TableType::Regular, TableType::Unlogged, TableType::Partitioned,
                                TableType::Hypertable, TableType::Distributed};

void setTypeEnabled(QComboBox* box, int row, bool enabled, const QString& reason) {
    auto* model = qobject_cast<QStandardItemModel*>(box->model());
    QStandardItem* item = model->item(row);
    // The user's choice stays as it is (a start then says why it cannot be done): a check never
    // changes what the user picked.
    item->setEnabled(enabled);
    item->setToolTip(reason);
}

} // namespace

TargetPanel::TargetPanel(QWidget* parent)
    : QWidget(parent)
    , embedded_(new QRadioButton(tr("&Embedded local cluster (no set-up)")))
    , fields_(new QRadioButton(tr("&Server")))
    , string_(new QRadioButton(tr("Connection stri&ng")))
    , host_(new QLineEdit)
    , port_(new QSpinBox)
    , database_(new QLineEdit)
    , user_(new QLineEdit)
    , password_(new QLineEdit)
    , sslmode_(new QComboBox)
    , conninfo_(new QLineEdit)
    , test_(new QPushButton(tr("Test &connection")))
    , status_(new QLabel)
    , table_(new QLineEdit(QStringLiteral("weather")))
    , type_(new QComboBox)
    , chunk_(new QLineEdit(QStringLiteral("1 day")))
    , compress_(new QCheckBox(tr("C&ompress the rows")))
    , compressPath_(new QLabel(tr("Test the connection to see how the rows are compressed.")))
    , workers_(new QSpinBox)
    , autoWorkers_(new QCheckBox(tr("&Auto")))
    , otherWorkers_(defaultWorkerCount())
    , resume_(new QRadioButton(tr("Resume: load what is not in the table yet")))
    , replace_(new QRadioButton(tr("Replace the table's contents"))) {
    auto* connection = new QGroupBox(tr("Connection"));
    auto* form = new QFormLayout;
    port_->setRange(1, 65535);
    port_->setValue(5432);
    password_->setEchoMode(QLineEdit::Password);
    password_->setPlaceholderText(tr("from ~/.pgpass when empty; never saved"));
    for (const char* mode : {"prefer", "disable", "require", "verify-ca", "verify-full"}) {
        sslmode_->addItem(QString::fromLatin1(mode));
    }
    conninfo_->setPlaceholderText(
        QStringLiteral("host=db.example.org dbname=era5 user=loader  or  postgresql://..."));
    form->addRow(tr("Host:"), host_);
    form->addRow(tr("Port:"), port_);
    form->addRow(tr("Database:"), database_);
    form->addRow(tr("User:"), user_);
    form->addRow(tr("Password:"), password_);
    form->addRow(tr("SSL mode:"), sslmode_);
    auto* connectionLayout = new QVBoxLayout(connection);
    connectionLayout->addWidget(embedded_);
    connectionLayout->addWidget(fields_);
    connectionLayout->addLayout(form);
    connectionLayout->addWidget(string_);
    connectionLayout->addWidget(conninfo_);
    auto* testRow = new QHBoxLayout;
    testRow->addWidget(test_);
    testRow->addWidget(status_, 1);
    connectionLayout->addLayout(testRow);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    embedded_->setChecked(true);

    auto* target = new QGroupBox(tr("Table"));
    auto* targetForm = new QFormLayout(target);
    for (TableType t : kTypes) {
        type_->addItem(q(std::string(tableTypeName(t))));
    }
    workers_->setRange(1, 64);
    workers_->setValue(autoWorkerLimit());
    autoWorkers_->setChecked(true);
    autoWorkers_->setObjectName(QStringLiteral("autoWorkers"));
    autoWorkers_->setToolTip(
        tr("Start with %n worker(s) and add one while it makes the load faster, measured as it runs", nullptr,
           defaultWorkerCount()));
    auto* workersRow = new QHBoxLayout;
    workersRow->addWidget(autoWorkers_);
    workersRow->addWidget(workers_, 1);
    chunk_->setToolTip(tr("Hypertables: the chunk_time_interval, a PostgreSQL interval"));
    targetForm->addRow(tr("Table &name:"), table_);
    targetForm->addRow(tr("Table &type (for a new table):"), type_);
    targetForm->addRow(tr("C&hunk interval:"), chunk_);
    targetForm->addRow(compress_);
    targetForm->addRow(compressPath_);
    compressPath_->setObjectName(QStringLiteral("compressPath"));
    compressPath_->setWordWrap(true);
    compressPath_->setEnabled(false);
    compress_->setObjectName(QStringLiteral("compress"));
    compress_->setToolTip(
        tr("Hypertables: TimescaleDB 2.21 and later compress the rows as COPY receives them (direct "
           "compress); older ones, or a table with a unique index, compress the chunks once every row is "
           "in, several at a time. The settings suit the rows (ordered by location and time); the sizes "
           "are in the summary and the run report"));
    // A row of a layout takes no buddy by itself: without one, the label showed its "&".
    auto* workersLabel = new QLabel(tr("&Workers:"));
    workersLabel->setBuddy(workers_);
    targetForm->addRow(workersLabel, workersRow);
    targetForm->addRow(resume_);
    targetForm->addRow(replace_);
    resume_->setChecked(true);
    resume_->setObjectName(QStringLiteral("resume"));
    replace_->setObjectName(QStringLiteral("replace"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(connection);
    layout->addWidget(target);
    layout->addStretch();

    for (QRadioButton* b : {embedded_, fields_, string_}) {
        connect(b, &QRadioButton::toggled, this, [this] {
            updateModes();
            emit targetChanged();
        });
    }
    for (QLineEdit* e : {host_, database_, user_, password_, conninfo_, table_}) {
        connect(e, &QLineEdit::textEdited, this, &TargetPanel::targetChanged);
    }
    connect(port_, &QSpinBox::valueChanged, this, &TargetPanel::targetChanged);
    connect(sslmode_, &QComboBox::currentIndexChanged, this, &TargetPanel::targetChanged);
    connect(type_, &QComboBox::currentIndexChanged, this, [this] {
        chunk_->setEnabled(tableType() == TableType::Hypertable);
        compress_->setEnabled(tableType() == TableType::Hypertable);
        compressPath_->setEnabled(tableType() == TableType::Hypertable);
        emit targetChanged();
    });
    connect(workers_, &QSpinBox::valueChanged, this, &TargetPanel::targetChanged);
    connect(autoWorkers_, &QCheckBox::toggled, this, [this] {
        const int shown = workers_->value();
        workers_->setValue(otherWorkers_);
        otherWorkers_ = shown;
        updateWorkers();
        emit targetChanged();
    });
    connect(test_, &QPushButton::clicked, this, &TargetPanel::testRequested);
    chunk_->setEnabled(false);
    compress_->setEnabled(false);
    updateModes();
    updateWorkers();
}

void TargetPanel::updateWorkers() {
    const bool automatic = autoWorkers_->isChecked();
    workers_->setPrefix(automatic ? tr("up to ") : QString());
    workers_->setToolTip(automatic
                             ? tr("The most parallel COPY connections the load may use; at most %1 on "
                                  "this server (max_connections)")
                                   .arg(workers_->maximum())
                             : tr("Parallel COPY connections; at most %1 on this server (max_connections)")
                                   .arg(workers_->maximum()));
}

void TargetPanel::updateModes() {
    for (QWidget* w : std::initializer_list<QWidget*>{host_, port_, database_, user_, password_, sslmode_}) {
        w->setEnabled(fields_->isChecked());
    }
    conninfo_->setEnabled(string_->isChecked());
}

ConnectionChoice TargetPanel::connection() const {
    ConnectionChoice choice;
    choice.embedded = embedded_->isChecked();
    if (string_->isChecked()) {
        choice.conninfo = conninfo_->text().trimmed().toStdString();
    } else if (fields_->isChecked()) {
        std::vector<std::pair<std::string, std::string>> pairs;
        const auto add = [&pairs](const char* key, const QString& value) {
            if (!value.trimmed().isEmpty()) {
                pairs.emplace_back(key, value.trimmed().toStdString());
            }
        };
        add("host", host_->text());
        add("port", QString::number(port_->value()));
        add("dbname", database_->text());
        add("user", user_->text());
        if (!password_->text().isEmpty()) {
            pairs.emplace_back("password", password_->text().toStdString());
        }
        add("sslmode", sslmode_->currentText());
        // A host that never answers is reported after 10 s instead of the TCP timeout (minutes).
        add("connect_timeout", QStringLiteral("10"));
        choice.conninfo = buildConnInfo(pairs);
    }
    return choice;
}

std::string TargetPanel::tableName() const {
    const QString t = table_->text().trimmed();
    return t.isEmpty() ? std::string("weather") : t.toStdString();
}

TableType TargetPanel::tableType() const {
    return kTypes[std::clamp(type_->currentIndex(), 0, 4)];
}

std::string TargetPanel::chunkInterval() const {
    return chunk_->text().trimmed().isEmpty() ? std::string("1 day") : chunk_->text().trimmed().toStdString();
}

bool TargetPanel::compressAfter() const {
    return compress_->isEnabled() && compress_->isChecked();
}

int TargetPanel::workers() const {
    return workers_->value();
}

bool TargetPanel::autoWorkers() const {
    return autoWorkers_->isChecked();
}

bool TargetPanel::replace() const {
    return replace_->isChecked();
}

void TargetPanel::useConnectionString(const QString& conninfo) {
    string_->setChecked(true);
    conninfo_->setText(conninfo);
    updateModes();
    emit targetChanged();
}

void TargetPanel::showUnchecked() {
    status_->setText(tr("Not checked yet."));
    test_->setEnabled(true);
}

void TargetPanel::showChecking() {
    status_->setText(tr("Checking the server..."));
    test_->setEnabled(false);
}

void TargetPanel::applyCheck(const TargetCheck& check) {
    test_->setEnabled(true);
    if (check.error) {
        status_->setText(tr("<b>Cannot use this server:</b> %1").arg(q(*check.error).toHtmlEscaped()));
        return;
    }
    const QString version = q(check.info.version).section(QLatin1Char(' '), 0, 1);
    QStringList extensions;
    for (const auto& e : check.info.extensionLines()) {
        extensions << q(e);
    }
    status_->setText(
        tr("Connected: %1 as %2%3. Extensions: %4.")
            .arg(version, q(check.info.role.name), check.info.role.superuser ? tr(" (superuser)") : QString(),
                 extensions.isEmpty() ? tr("none Isobar uses") : extensions.join(QStringLiteral(", "))));
    setTypeEnabled(type_, 3, check.timescaledb.usable,
                   check.timescaledb.usable ? QString() : q(check.timescaledb.reason));
    compressPath_->setText(q(describeCompressPath(check.timescaledb, CompressPath::Auto)));
    setTypeEnabled(type_, 4, check.citus.usable, check.citus.usable ? QString() : q(check.citus.reason));
    workers_->setMaximum(check.maxWorkers);
    otherWorkers_ = std::min(otherWorkers_, check.maxWorkers);
    updateWorkers();
}

void TargetPanel::save(QSettings& s) const {
    s.setValue(QStringLiteral("target/mode"), embedded_->isChecked() ? 0 : fields_->isChecked() ? 1 : 2);
    s.setValue(QStringLiteral("target/host"), host_->text());
    s.setValue(QStringLiteral("target/port"), port_->value());
    s.setValue(QStringLiteral("target/database"), database_->text());
    s.setValue(QStringLiteral("target/user"), user_->text());
    s.setValue(QStringLiteral("target/sslmode"), sslmode_->currentText());
    // Every setting of a pasted string but its secrets; an unparsable one (it may hold a password
    // anywhere) is not kept.
    const auto pasted = connInfoWithoutSecrets(conninfo_->text().trimmed().toStdString());
    s.setValue(QStringLiteral("target/conninfo"), pasted ? q(*pasted) : QString());
    s.setValue(QStringLiteral("target/table"), table_->text());
    s.setValue(QStringLiteral("target/type"), type_->currentIndex());
    s.setValue(QStringLiteral("target/chunk"), chunk_->text());
    s.setValue(QStringLiteral("target/compress"), compress_->isChecked());
    const bool automatic = autoWorkers_->isChecked();
    s.setValue(QStringLiteral("target/autoWorkers"), automatic);
    s.setValue(QStringLiteral("target/workers"), automatic ? otherWorkers_ : workers_->value());
    s.setValue(QStringLiteral("target/maxWorkers"), automatic ? workers_->value() : otherWorkers_);
}

void TargetPanel::restore(QSettings& s) {
    const int mode = s.value(QStringLiteral("target/mode"), 0).toInt();
    (mode == 1 ? fields_ : mode == 2 ? string_ : embedded_)->setChecked(true);
    host_->setText(s.value(QStringLiteral("target/host")).toString());
    port_->setValue(s.value(QStringLiteral("target/port"), 5432).toInt());
    database_->setText(s.value(QStringLiteral("target/database")).toString());
    user_->setText(s.value(QStringLiteral("target/user")).toString());
    sslmode_->setCurrentText(s.value(QStringLiteral("target/sslmode"), QStringLiteral("prefer")).toString());
    conninfo_->setText(s.value(QStringLiteral("target/conninfo")).toString());
    table_->setText(s.value(QStringLiteral("target/table"), QStringLiteral("weather")).toString());
    type_->setCurrentIndex(s.value(QStringLiteral("target/type"), 0).toInt());
    chunk_->setText(s.value(QStringLiteral("target/chunk"), QStringLiteral("1 day")).toString());
    compress_->setChecked(s.value(QStringLiteral("target/compress"), false).toBool());
    const bool automatic = s.value(QStringLiteral("target/autoWorkers"), true).toBool();
    const int fixed = s.value(QStringLiteral("target/workers"), defaultWorkerCount()).toInt();
    const int bound = s.value(QStringLiteral("target/maxWorkers"), autoWorkerLimit()).toInt();
    const QSignalBlocker quiet(autoWorkers_); // no swap: both values are set here
    autoWorkers_->setChecked(automatic);
    workers_->setValue(automatic ? bound : fixed);
    otherWorkers_ = automatic ? fixed : bound;
    updateWorkers();
    updateModes();
}

} // namespace isobar::ui
