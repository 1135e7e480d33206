#include "TableMapDialog.h"

#include "Format.h"
#include "GuiThread.h"
#include "MapView.h"
#include "db/ConnInfo.h"
#include "db/EmbeddedDefaults.h"
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
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QThreadPool>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>
#include <limits>

namespace isobar::ui {

// The dialog's connection, opened on first use and used by one pool job at a time (the pool has
// one thread); it lives as long as the last job that holds it.
struct TableMapDialog::Session {
    ConnectionChoice choice;
    std::optional<Connection> conn;

    Connection& connection() {
        if (!conn) {
            conn.emplace(Connection::open(choice.embedded ? startEmbeddedCluster() : choice.conninfo));
        }
        return *conn;
    }
};

namespace {

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
    , session_(std::make_shared<Session>())
    , pool_(new QThreadPool(this))
    , view_(new MapView)
    , variable_(new QComboBox)
    , time_(new QComboBox)
    , level_(new QComboBox)
    , status_(new QLabel)
    , anyway_(new QPushButton(tr("Read &anyway")))
    , chart_(new QChartView)
    , seriesStatus_(new QLabel) {
    setWindowTitle(tr("Map of %1").arg(q(report_.table)));
    session_->choice = connection_;
    pool_->setMaxThreadCount(1);

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
    auto* bottom = new QHBoxLayout;
    bottom->addStretch();
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
    grid_ = GlobalGrid::withStep(report_.extent.gridStep);
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
    view_->setMessage(tr("Connecting..."));
    seriesStatus_->setText(tr("Click a point of the map for its time series."));

    const TableName table = TableName::parse(report_.table);
    const std::vector<std::string> variables = report_.variables;
    QPointer<TableMapDialog> self(this);
    run([self, table, variables](Session& session) {
        std::vector<ValueColumn> columns;
        QString error;
        try {
            const auto tableColumns = tableLayout(session.connection(), table);
            if (!tableColumns) {
                error = tr("%1 does not exist on this server").arg(q(table.display()));
            } else {
                columns = loadedColumns(*tableColumns, variables);
            }
        } catch (const std::exception& e) {
            error = q(e.what());
        }
        postToGui([self, columns = std::move(columns), error] {
            if (!self) {
                return;
            }
            --self->pending_;
            if (!error.isEmpty() || columns.empty()) {
                self->view_->setMessage(
                    tr("No map: %1.").arg(error.isEmpty() ? tr("the table has no value columns") : error));
                self->seriesStatus_->clear();
                emit self->updated();
                return;
            }
            self->columns_ = columns;
            self->filling_ = true;
            for (const ValueColumn& c : self->columns_) {
                self->variable_->addItem(QStringLiteral("%1 (%2)").arg(q(c.column), q(c.units)));
            }
            self->filling_ = false;
            self->draw(false);
        });
    });
}

TableMapDialog::~TableMapDialog() {
    ++mapGeneration_;
    ++seriesGeneration_;
    pool_->clear();
    pool_->waitForDone();
}

void TableMapDialog::run(Job job) {
    ++pending_;
    pool_->start([session = session_, job = std::move(job)] { job(*session); });
}

void TableMapDialog::draw(bool evenIfCostly) {
    if (columns_.empty() || variable_->currentIndex() < 0 || time_->currentIndex() < 0) {
        return;
    }
    anyway_->hide();
    anywayAction_ = {};
    const quint64 generation = ++mapGeneration_;
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
    QPointer<TableMapDialog> self(this);
    run([self, generation, request, evenIfCostly, limit = scanLimit_](Session& session) {
        std::shared_ptr<const GridField> field;
        ReadCost cost;
        QString error;
        try {
            Connection& conn = session.connection();
            cost = tableFieldCost(conn, request, limit);
            if (cost.cheap || evenIfCostly) {
                field = std::make_shared<const GridField>(readTableField(conn, request));
            }
        } catch (const std::exception& e) {
            error = q(e.what());
        }
        postToGui([self, generation, field, cost, error] {
            if (!self) {
                return;
            }
            --self->pending_;
            if (generation != self->mapGeneration_) {
                return;
            }
            if (field) {
                self->view_->setField(field);
                self->status_->setText(
                    tr("%1; %2 x %3 points read from the table. Point at the map for a value, "
                       "click for its time series.")
                        .arg(fieldTitle(*field))
                        .arg(field->rows())
                        .arg(field->cols()));
            } else if (!error.isEmpty()) {
                self->view_->setMessage(tr("No map: %1.").arg(error));
                self->status_->clear();
            } else {
                self->view_->setMessage(tr("Not drawn: %1.").arg(q(cost.reason)));
                self->status_->setText(
                    tr("Read anyway scans it (the server does the work; the app stays usable)."));
                self->anywayAction_ = [self] {
                    if (self) {
                        self->draw(true);
                    }
                };
                self->anyway_->show();
            }
            emit self->updated();
        });
    });
}

void TableMapDialog::showSeries(std::size_t row, std::size_t col, bool evenIfCostly) {
    const GridField* field = view_->field();
    if (!field || row >= field->rows() || col >= field->cols() || times_.empty()) {
        return;
    }
    const quint64 generation = ++seriesGeneration_;
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
    QPointer<TableMapDialog> self(this);
    run([self, generation, table, column, location, level, from, to, title, evenIfCostly, row, col,
         limit = scanLimit_](Session& session) {
        std::optional<std::vector<SeriesPoint>> points;
        ReadCost cost;
        QString error;
        try {
            Connection& conn = session.connection();
            cost = pointSeriesCost(conn, table, column, location, level, from, to, limit);
            if (cost.cheap || evenIfCostly) {
                points = readPointSeries(conn, table, column, location, level, from, to);
            }
        } catch (const std::exception& e) {
            error = q(e.what());
        }
        postToGui([self, generation, points = std::move(points), cost, error, title, row, col]() mutable {
            if (!self) {
                return;
            }
            --self->pending_;
            if (generation != self->seriesGeneration_) {
                return;
            }
            if (points) {
                self->showSeriesPoints(std::move(*points), title);
            } else if (!error.isEmpty()) {
                self->seriesStatus_->setText(tr("No series: %1.").arg(error));
            } else {
                self->seriesStatus_->setText(
                    tr("Not read: %1. Read anyway (above the map) reads it.").arg(q(cost.reason)));
                self->anywayAction_ = [self, row, col] {
                    if (self) {
                        self->showSeries(row, col, true);
                    }
                };
                self->anyway_->show();
            }
            emit self->updated();
        });
    });
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
