// SPDX-License-Identifier: GPL-3.0-or-later

#include "FileMapPanel.h"

#include "Format.h"
#include "MapView.h"
#include "MapWindow.h"
#include "era5/Inspection.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace isobar::ui {

FileMapPanel::FileMapPanel(QWidget* parent)
    : QWidget(parent)
    , read_(this, JobQueue(JobPool::Files))
    , view_(new MapView)
    , variable_(new QComboBox)
    , time_(new QComboBox)
    , level_(new QComboBox)
    , status_(new QLabel)
    , enlarge_(new QToolButton) {
    auto* choices = new QHBoxLayout;
    choices->addWidget(new QLabel(tr("Map of")));
    choices->addWidget(variable_, 1);
    choices->addWidget(new QLabel(tr("at")));
    choices->addWidget(time_, 1);
    choices->addWidget(level_);
    enlarge_->setText(tr("Open in a window"));
    enlarge_->setToolTip(tr("The map in a window of its own, as large as the screen allows"));
    enlarge_->setEnabled(false);
    choices->addWidget(enlarge_);
    connect(enlarge_, &QToolButton::clicked, this, [this] { openWindow(); });
    level_->hide();
    for (QComboBox* box : {variable_, time_, level_}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(8);
        connect(box, &QComboBox::currentIndexChanged, this, [this] {
            if (!filling_) {
                draw();
            }
        });
    }
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(choices);
    layout->addWidget(view_, 1);
    layout->addWidget(status_);
    view_->showPointsIn(status_);
    clear();
}

void FileMapPanel::clear() {
    read_.cancel();
    file_.clear();
    filling_ = true;
    variable_->clear();
    time_->clear();
    level_->clear();
    filling_ = false;
    level_->hide();
    status_->clear();
    enlarge_->setEnabled(false);
    view_->setMessage(tr("Select a loadable file to see a map of its values."));
}

MapWindow* FileMapPanel::openWindow() {
    if (view_->field() == nullptr || !view_->wholeField()) {
        return nullptr;
    }
    auto* opened = new MapWindow(view_->wholeField(), window());
    opened->show();
    return opened;
}

void FileMapPanel::setFile(const std::filesystem::path& file, const OpenOptions& options) {
    if (file == file_) {
        return;
    }
    clear();
    file_ = file;
    view_->setMessage(tr("Opening %1...").arg(QString::fromStdString(file.filename().string())));
    read_.start(
        [file, options] {
            return std::make_shared<FieldReader>(std::vector<std::filesystem::path>{file}, options);
        },
        [this](const std::shared_ptr<FieldReader>& reader) {
            // Points over years of hours: a map would show a cell per point, and a time list of
            // every hour would be hundreds of thousands of entries.
            if (const std::string series = describePointSeries(reader->dataset()); !series.empty()) {
                view_->setMessage(
                    tr("No map: %1 is a time series of the CDS time-series datasets, %2. Its "
                       "values are a series in time, not a field; isobar-cli inspect describes them.")
                        .arg(q(file_.filename().string()), q(series)));
                emit drawn();
                return;
            }
            reader_ = reader;
            times_ = reader->times();
            filling_ = true;
            for (const ValueColumn& v : reader->dataset().variables()) {
                variable_->addItem(QStringLiteral("%1 (%2)").arg(q(v.key), q(v.units)), q(v.key));
            }
            for (const PgTimestamp t : times_) {
                time_->addItem(q(formatTimestamp(t)).left(16));
            }
            for (const double level : reader->levels()) {
                level_->addItem(tr("%1 hPa").arg(level), level);
            }
            level_->setVisible(!reader->levels().empty());
            filling_ = false;
            draw();
        },
        [this](const JobError& e) {
            view_->setMessage(tr("No map: %1").arg(e.message));
            emit drawn();
        });
}

void FileMapPanel::draw() {
    if (!reader_ || variable_->currentIndex() < 0 || time_->currentIndex() < 0) {
        return;
    }
    const std::string key = variable_->currentData().toString().toStdString();
    const PgTimestamp time = times_[static_cast<std::size_t>(time_->currentIndex())];
    std::optional<double> level;
    if (level_->currentIndex() >= 0) {
        level = level_->currentData().toDouble();
    }
    status_->setText(tr("Drawing %1...").arg(q(key)));
    read_.start([reader = reader_, key, time,
                 level] { return std::make_shared<const GridField>(reader->read(key, time, level)); },
                [this](const std::shared_ptr<const GridField>& field) {
                    view_->setField(field);
                    enlarge_->setEnabled(true);
                    status_->setText(tr("%1; %2 x %3 points; the values a load stores (table units). Point "
                                        "at the map for a value.")
                                         .arg(fieldTitle(*field))
                                         .arg(field->rows())
                                         .arg(field->cols()));
                    emit drawn();
                },
                [this](const JobError& e) {
                    view_->setMessage(tr("No map: %1").arg(e.message));
                    enlarge_->setEnabled(false);
                    status_->clear();
                    emit drawn();
                });
}

} // namespace isobar::ui
