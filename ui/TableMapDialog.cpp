// SPDX-License-Identifier: GPL-3.0-or-later

#include "TableMapDialog.h"

#include "Format.h"
#include "MapView.h"
#include "ServerSession.h"
#include "db/ConnInfo.h"
#include "db/TableField.h"
#include "db/TableMetadata.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>
#include <limits>

namespace isobar::ui {

namespace {

// What a map read found: the field, unless its cost made it ask first.
struct MapRead {
    std::shared_ptr<const GridField> field;
    ReadCost cost;
};

// The same for a point's series.
struct SeriesRead {
    std::optional<std::vector<SeriesPoint>> points;
    ReadCost cost;
};

// The columns the run loaded, of the table's: its report names them "t2m -> temperature_2m".
std::vector<ValueColumn> loadedColumns(const TableLayout& layout, const std::vector<std::string>& variables) {
    std::vector<ValueColumn> loaded;
    for (const ValueColumn& c : layout.columns) {
        for (const std::string& v : variables) {
            const std::string tail = "-> " + c.column;
            if (v == c.column ||
                (v.size() >= tail.size() && v.compare(v.size() - tail.size(), tail.size(), tail) == 0)) {
                loaded.push_back(c);
                break;
            }
        }
    }
    return loaded.empty() ? layout.columns : loaded;
}

// Where `t` goes on the chart's time axis. QDateTimeAxis labels in local time; shifted by the local
// offset, its labels read the UTC time the table holds (the axis says UTC).
double axisMsecs(PgTimestamp t) {
    const qint64 utc = unixMicrosFromPgTimestamp(t) / 1000;
    return static_cast<double>(utc - qint64{QDateTime::fromMSecsSinceEpoch(utc).offsetFromUtc()} * 1000);
}

QDateTime axisTime(PgTimestamp t) {
    return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(axisMsecs(t)));
}

} // namespace

QString TableMapDialog::unavailableReason(const RunReport& report) {
    if (report.table.empty()) {
        return tr("the run did not get as far as its table");
    }
    if (report.extent.empty() || report.extent.times.empty()) {
        return tr("its report does not say where the rows lie (a run of an earlier version, or one that "
                  "failed before it read its files)");
    }
    if (report.rows + report.resumedRows == 0) {
        return tr("the run wrote no rows");
    }
    return {};
}

TableMapDialog::TableMapDialog(const RunReport& report, ConnectionChoice connection, QWidget* parent)
    : QDialog(parent)
    , report_(report)
    , connection_(std::move(connection))
    , session_(std::make_shared<ServerSession>(connection_, "isobar map"))
    , reads_(JobPool::Server)
    , mapRead_(this, reads_)
    , seriesRead_(this, reads_)
    , view_(new MapView)
    , variable_(new QComboBox)
    , time_(new QComboBox)
    , level_(new QComboBox)
    , status_(new QLabel)
    , anyway_(new QPushButton(tr("Read &anyway")))
    , stop_(new QPushButton(tr("&Stop reading")))
    , chart_(new QChartView)
    , seriesStatus_(new QLabel) {
    setWindowTitle(tr("Map of %1").arg(q(report_.table)));

    auto* header =
        new QLabel(tr("What the run of %1 (%2) wrote to <b>%3</b>, read back from the table on %4. Click a "
                      "point for its "
                      "time series over the run's time range.")
                       .arg(q(report_.startedAt).left(19).replace(QLatin1Char('T'), QLatin1Char(' ')),
                            q(report_.status), q(report_.table).toHtmlEscaped(),
                            connection_.embedded ? tr("the embedded cluster")
                                                 : q(redactConnInfo(connection_.conninfo)).toHtmlEscaped()));
    header->setWordWrap(true);
    auto* choices = new QHBoxLayout;
    choices->addWidget(new QLabel(tr("Map of")));
    choices->addWidget(variable_, 1);
    choices->addWidget(new QLabel(tr("at")));
    choices->addWidget(time_, 1);
    choices->addWidget(level_);
    choices->addWidget(anyway_);
    anyway_->hide();
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    seriesStatus_->setWordWrap(true);
    seriesStatus_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    chart_->setRenderHint(QPainter::Antialiasing);
    chart_->setMinimumHeight(180);
    chart_->chart()->legend()->hide();

    auto* mapPart = new QWidget;
    auto* mapLayout = new QVBoxLayout(mapPart);
    mapLayout->setContentsMargins(0, 0, 0, 0);
    mapLayout->addLayout(choices);
    mapLayout->addWidget(view_, 1);
    mapLayout->addWidget(status_);
    auto* seriesPart = new QWidget;
    auto* seriesLayout = new QVBoxLayout(seriesPart);
    seriesLayout->setContentsMargins(0, 0, 0, 0);
    seriesLayout->addWidget(chart_, 1);
    seriesLayout->addWidget(seriesStatus_);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(mapPart);
    split->addWidget(seriesPart);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* close = new QPushButton(tr("&Close"));
    connect(close, &QPushButton::clicked, this, &QDialog::close);
    stop_->setToolTip(tr("Stop the reads under way: the server is told to give them up"));
    stop_->setEnabled(false);
    connect(stop_, &QPushButton::clicked, this, &TableMapDialog::stopReading);
    auto* bottom = new QHBoxLayout;
    bottom->addStretch();
    bottom->addWidget(stop_);
    bottom->addWidget(close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(header);
    layout->addWidget(split, 1);
    layout->addLayout(bottom);
    resize(860, 720);

    for (QComboBox* box : {variable_, time_, level_}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(8);
        connect(box, &QComboBox::currentIndexChanged, this, [this] {
            if (!filling_) {
                draw(false);
            }
        });
    }
    connect(anyway_, &QPushButton::clicked, this, [this] {
        anyway_->hide();
        if (anywayAction_) {
            auto action = std::exchange(anywayAction_, {});
            action();
        }
    });
    connect(view_, &MapView::hovered, this, [this](const QString& text) {
        if (!text.isEmpty()) {
            status_->setText(text);
        }
    });
    connect(view_, &MapView::pointClicked, this,
            [this](std::size_t row, std::size_t col) { showSeries(row, col); });

    if (const QString why = unavailableReason(report_); !why.isEmpty()) {
        view_->setMessage(tr("No map of this run: %1.").arg(why));
        seriesStatus_->clear();
        return;
    }
    grid_ = GlobalGrid::withSpacing(report_.extent.gridSpacing);
    times_ = expandTimeRuns(report_.extent.times);
    filling_ = true;
    for (const PgTimestamp t : times_) {
        time_->addItem(q(formatTimestamp(t)).left(16));
    }
    for (const double level : report_.extent.levels) {
        level_->addItem(tr("%1 hPa").arg(level), level);
    }
    level_->setVisible(!report_.extent.levels.empty());
    filling_ = false;
    seriesStatus_->setText(tr("Click a point of the map for its time series."));
    readColumns();
}

TableMapDialog::~TableMapDialog() = default; // the reads under way are cancelled, not waited for

void TableMapDialog::readColumns() {
    view_->setMessage(tr("Connecting..."));
    mapAgain_ = [this] {
        readColumns();
    };
    const TableName table = TableName::parse(report_.table);
    const std::vector<std::string> variables = report_.variables;
    mapRead_.start(
        [session = session_, table, variables](const std::stop_token& stop) {
            return session->read(stop, [&](Connection& conn) -> std::optional<std::vector<ValueColumn>> {
                const auto layout = tableLayout(conn, table);
                if (!layout) {
                    return std::nullopt;
                }
                return loadedColumns(*layout, variables);
            });
        },
        [this](const std::optional<std::vector<ValueColumn>>& columns) { showColumns(columns); },
        [this](const JobError& e) {
            view_->setMessage(tr("No map: %1.").arg(e.message));
            seriesStatus_->clear();
            readsChanged();
            emit updated();
        });
    readsChanged();
}

void TableMapDialog::showColumns(const std::optional<std::vector<ValueColumn>>& columns) {
    if (!columns || columns->empty()) {
        view_->setMessage(tr("No map: %1.")
                              .arg(columns ? tr("the table has no value columns")
                                           : tr("%1 does not exist on this server")
                                                 .arg(q(TableName::parse(report_.table).display()))));
        seriesStatus_->clear();
        readsChanged();
        emit updated();
        return;
    }
    columns_ = *columns;
    filling_ = true;
    variable_->clear();
    for (const ValueColumn& c : columns_) {
        variable_->addItem(QStringLiteral("%1 (%2)").arg(q(c.column), q(c.units)));
    }
    filling_ = false;
    draw(false);
}

void TableMapDialog::offer(const QString& label, std::function<void()> action) {
    anyway_->setText(label);
    anywayAction_ = std::move(action);
    anyway_->show();
}

void TableMapDialog::readsChanged() {
    stop_->setEnabled(busy());
}

void TableMapDialog::stopReading() {
    // The user's choice: the reads end quietly (their errors are never shown) and can be made again.
    std::vector<std::function<void()>> again;
    if (mapRead_.isRunning()) {
        mapRead_.cancel();
        again.push_back(mapAgain_);
        status_->setText(tr("Stopped: the server was told to give the read up. Read again reads it."));
        if (!view_->field()) {
            view_->setMessage(tr("Not drawn: stopped."));
        }
    }
    if (seriesRead_.isRunning()) {
        seriesRead_.cancel();
        again.push_back(seriesAgain_);
        seriesStatus_->setText(
            tr("Stopped: the server was told to give the series up. Read again (above the map) reads it."));
    }
    if (!again.empty()) {
        offer(tr("Read &again"), [again] {
            for (const auto& read : again) {
                read();
            }
        });
    }
    readsChanged();
    emit updated();
}

void TableMapDialog::draw(bool evenIfCostly) {
    if (columns_.empty() || variable_->currentIndex() < 0 || time_->currentIndex() < 0) {
        return;
    }
    anyway_->hide();
    anywayAction_ = {};
    mapAgain_ = [this, evenIfCostly] {
        draw(evenIfCostly);
    };
    TableFieldRequest request;
    request.table = TableName::parse(report_.table);
    request.column = columns_[static_cast<std::size_t>(variable_->currentIndex())];
    request.time = times_[static_cast<std::size_t>(time_->currentIndex())];
    if (level_->currentIndex() >= 0) {
        request.level = level_->currentData().toDouble();
    }
    request.grid = grid_;
    request.bounds = report_.extent.bounds;
    status_->setText(tr("Reading %1 at %2...").arg(q(request.column.column), time_->currentText()));
    // Thread boundary: the read runs on the dialog's connection, after the reads before it; only
    // what it found comes back, and a newer map supersedes it (cancelling its query).
    mapRead_.start(
        [session = session_, request, evenIfCostly, limit = scanLimit_](const std::stop_token& stop) {
            return session->read(stop, [&](Connection& conn) {
                MapRead read;
                read.cost = tableFieldCost(conn, request, limit);
                if (read.cost.cheap || evenIfCostly) {
                    read.field = std::make_shared<const GridField>(readTableField(conn, request));
                }
                return read;
            });
        },
        [this](const MapRead& read) {
            if (read.field) {
                view_->setField(read.field);
                status_->setText(tr("%1; %2 x %3 points read from the table. Point at the map for a value, "
                                    "click for its time series.")
                                     .arg(fieldTitle(*read.field))
                                     .arg(read.field->rows())
                                     .arg(read.field->cols()));
            } else {
                view_->setMessage(tr("Not drawn: %1.").arg(q(read.cost.reason)));
                status_->setText(
                    tr("Read anyway scans it (the server does the work; the app stays usable)."));
                offer(tr("Read &anyway"), [this] { draw(true); });
            }
            readsChanged();
            emit updated();
        },
        [this](const JobError& e) {
            view_->setMessage(tr("No map: %1.").arg(e.message));
            status_->clear();
            readsChanged();
            emit updated();
        });
    readsChanged();
}

void TableMapDialog::showSeries(std::size_t row, std::size_t col, bool evenIfCostly) {
    const GridField* field = view_->field();
    if (!field || row >= field->rows() || col >= field->cols() || times_.empty()) {
        return;
    }
    seriesAgain_ = [this, row, col, evenIfCostly] {
        showSeries(row, col, evenIfCostly);
    };
    const TableName table = TableName::parse(report_.table);
    const ValueColumn column = columns_[static_cast<std::size_t>(variable_->currentIndex())];
    const LocationId location = field->locationAt(row, col);
    const std::optional<double> level = field->level;
    const PgTimestamp from = times_.front();
    const PgTimestamp to = times_.back();
    const QString title = tr("%1 at lat %2, lon %3 (location_id %4)%5")
                              .arg(q(column.column))
                              .arg(field->latitudes[row], 0, 'f', 2)
                              .arg(field->longitudes[col], 0, 'f', 2)
                              .arg(location.value)
                              .arg(level ? tr(", %1 hPa").arg(*level) : QString());
    seriesStatus_->setText(tr("Reading the series of %1...").arg(title));
    seriesRead_.start(
        [session = session_, table, column, location, level, from, to, limit = scanLimit_,
         evenIfCostly](const std::stop_token& stop) {
            return session->read(stop, [&](Connection& conn) {
                SeriesRead read;
                read.cost = pointSeriesCost(conn, table, column, location, level, from, to, limit);
                if (read.cost.cheap || evenIfCostly) {
                    read.points = readPointSeries(conn, table, column, location, level, from, to);
                }
                return read;
            });
        },
        [this, title, row, col](SeriesRead read) {
            if (read.points) {
                showSeriesPoints(std::move(*read.points), title);
            } else {
                seriesStatus_->setText(
                    tr("Not read: %1. Read anyway (above the map) reads it.").arg(q(read.cost.reason)));
                offer(tr("Read &anyway"), [this, row, col] { showSeries(row, col, true); });
            }
            readsChanged();
            emit updated();
        },
        [this](const JobError& e) {
            seriesStatus_->setText(tr("No series: %1.").arg(e.message));
            readsChanged();
            emit updated();
        });
    readsChanged();
}

void TableMapDialog::showSeriesPoints(std::vector<SeriesPoint> points, const QString& title) {
    series_ = std::move(points);
    QChart* chart = chart_->chart();
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
    chart->setTitle(title);
    // A NULL ends a line: the gap shows where values are missing.
    const QString units =
        columns_.empty() ? QString() : q(columns_[static_cast<std::size_t>(variable_->currentIndex())].units);
    auto* x = new QDateTimeAxis;
    x->setFormat(QStringLiteral("yyyy-MM-dd HH:mm"));
    x->setTickCount(series_.size() > 1 ? 5 : 2);
    x->setTitleText(tr("time (UTC)"));
    auto* y = new QValueAxis;
    y->setTitleText(units);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    QLineSeries* line = nullptr;
    std::size_t missing = 0;
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    for (const SeriesPoint& p : series_) {
        if (std::isnan(p.value)) {
            ++missing;
            line = nullptr;
            continue;
        }
        if (!line) {
            line = new QLineSeries;
            line->setPointsVisible(series_.size() <= 200);
            chart->addSeries(line);
            line->attachAxis(x);
            line->attachAxis(y);
        }
        line->append(axisMsecs(p.time), p.value);
        low = std::min(low, static_cast<double>(p.value));
        high = std::max(high, static_cast<double>(p.value));
    }
    if (!series_.empty()) {
        x->setRange(axisTime(series_.front().time),
                    axisTime(series_.back().time).addSecs(series_.size() == 1 ? 3600 : 0));
    }
    if (low <= high) {
        const double pad = high > low ? (high - low) * 0.05 : 1.0;
        y->setRange(low - pad, high + pad);
    }
    QString text = series_.empty()
                       ? tr("The table has no rows of this point in the run's time range.")
                       : tr("%n value(s) from %1 to %2 UTC", nullptr, static_cast<int>(series_.size()))
                             .arg(q(formatTimestamp(series_.front().time)).left(16),
                                  q(formatTimestamp(series_.back().time)).left(16));
    if (missing > 0) {
        text += tr("; %n missing (gaps in the line)", nullptr, static_cast<int>(missing));
    }
    seriesStatus_->setText(text + QLatin1Char('.'));
}

} // namespace isobar::ui
