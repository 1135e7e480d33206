// SPDX-License-Identifier: GPL-3.0-or-later

#include "FilesPage.h"

#include "FileListModel.h"
#include "FileMapPanel.h"
#include "Format.h"
#include "VariableListModel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <string_view>

namespace isobar::ui {

namespace {

QString lastDirectory() {
    return QSettings().value(QStringLiteral("files/lastDirectory")).toString();
}

void rememberDirectory(const QString& dir) {
    QSettings().setValue(QStringLiteral("files/lastDirectory"), dir);
}

} // namespace

FilesPage::FilesPage(QWidget* parent)
    : QWidget(parent)
    , model_(new FileListModel(this))
    , variables_(new VariableListModel(this))
    , proxy_(new QSortFilterProxyModel(this))
    , view_(new QTableView)
    , details_(new QTextBrowser)
    , map_(new FileMapPanel)
    , detailTabs_(new QTabWidget)
    , summary_(new QLabel)
    , remove_(new QPushButton(tr("&Remove")))
    , filter_(new QLineEdit)
    , variableView_(new QTableView)
    , tickAll_(new QPushButton(tr("Tick a&ll")))
    , tickNone_(new QPushButton(tr("Untick all")))
    , variableCount_(new QLabel)
    , offGrid_(new QComboBox)
    , product_(new QComboBox)
    , gridStep_(new QComboBox)
    , loadAllMissing_(new QCheckBox(tr("Load units whose every value is missing (as rows of NULLs)"))) {
    setAcceptDrops(true);
    auto* addFiles = new QPushButton(tr("&Add files..."));
    auto* addFolder = new QPushButton(tr("Add f&older..."));
    auto* clear = new QPushButton(tr("Cl&ear"));
    remove_->setEnabled(false);
    // Delete on the list removes the selected files; Alt+R works anywhere on the tab.
    auto* deleteKey = new QShortcut(QKeySequence::Delete, view_, nullptr, nullptr, Qt::WidgetShortcut);
    connect(deleteKey, &QShortcut::activated, this, &FilesPage::removeSelected);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {addFiles, addFolder, remove_, clear}) {
        buttons->addWidget(b);
    }
    buttons->addStretch();
    auto* hint = new QLabel(tr("or drop NetCDF/GRIB/ZIP/CSV files and folders here"));
    hint->setEnabled(false);
    buttons->addWidget(hint);

    view_->setModel(model_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->verticalHeader()->hide();
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->setWordWrap(false);
    view_->setAlternatingRowColors(true);
    details_->setPlaceholderText(tr("Select a file to see its variables, storage and conversions."));
    details_->setOpenLinks(false);
    summary_->setWordWrap(true);

    // The variables of the files (up to the whole catalog and more): a table with a filter.
    auto* variables = new QGroupBox(tr("Variables in the files (ticked ones are loaded)"));
    proxy_->setSourceModel(variables_);
    proxy_->setFilterRole(VariableListModel::SearchRole);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    filter_->setPlaceholderText(tr("Filter by short name, long name or column"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
        proxy_->setFilterFixedString(text.trimmed());
        updateSummary();
    });
    for (QPushButton* b : {tickAll_, tickNone_}) {
        b->setToolTip(tr("The variables the filter shows (all of them when it is empty)"));
    }
    connect(tickAll_, &QPushButton::clicked, this, [this] { tickShown(true); });
    connect(tickNone_, &QPushButton::clicked, this, [this] { tickShown(false); });
    variableView_->setModel(proxy_);
    variableView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    variableView_->verticalHeader()->hide();
    variableView_->horizontalHeader()->setStretchLastSection(true);
    variableView_->setWordWrap(false);
    variableView_->setAlternatingRowColors(true);
    // Space ticks the selected rows, as a user of a list of checkboxes expects.
    auto* spaceKey =
        new QShortcut(QKeySequence(Qt::Key_Space), variableView_, nullptr, nullptr, Qt::WidgetShortcut);
    connect(spaceKey, &QShortcut::activated, this, [this] {
        const QModelIndexList rows = variableView_->selectionModel()->selectedRows();
        if (rows.isEmpty()) {
            return;
        }
        QStringList keys;
        for (const QModelIndex& r : rows) {
            keys << variables_->keyAt(proxy_->mapToSource(r).row());
        }
        variables_->setTicked(keys, !variables_->isTicked(keys.front()));
    });
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(filter_, 1);
    filterRow->addWidget(tickAll_);
    filterRow->addWidget(tickNone_);
    auto* variablesLayout = new QVBoxLayout(variables);
    variablesLayout->addLayout(filterRow);
    variablesLayout->addWidget(variableView_, 1);
    variablesLayout->addWidget(variableCount_);
    connect(variables_, &VariableListModel::ticksChanged, this, [this] {
        updateSummary();
        emit selectionChanged();
    });

    auto* reading = new QGroupBox(tr("Reading"));
    auto* readingForm = new QFormLayout(reading);
    offGrid_->addItem(tr("refuse the file (it names the point)"));
    offGrid_->addItem(tr("load at the nearest grid cell's location_id, keeping the real coordinates"));
    // The words of --product, in its order (openOptions() parses the chosen one).
    product_->addItems({tr("recognise (by the grid and what the files say)"), tr("ERA5"), tr("ERA5-Land"),
                        tr("hourly (times as they are)"), tr("monthly means"), tr("ERA5 hourly"),
                        tr("ERA5 monthly means"), tr("ERA5-Land hourly"), tr("ERA5-Land monthly means")});
    gridStep_->addItems(
        {tr("the product's (ERA5 0.25, ERA5-Land 0.1)"), QStringLiteral("0.25"), QStringLiteral("0.1")});
    gridStep_->setToolTip(tr("The grid location_ids are counted on, as --grid says: by default the product's "
                             "grid when the file's points are on it (a 1 degree download keeps ERA5's 0.25 "
                             "degree ids), else the file's own spacing"));
    readingForm->addRow(tr("Points off the &grid:"), offGrid_);
    readingForm->addRow(tr("&Product:"), product_);
    readingForm->addRow(tr("Grid s&tep of location_ids:"), gridStep_);
    readingForm->addRow(loadAllMissing_);
    for (QComboBox* box : {offGrid_, product_, gridStep_}) {
        // Beside the details, not as wide as their longest choice.
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(16);
        connect(box, &QComboBox::currentIndexChanged, this, [this] {
            model_->setOpenOptions(openOptions());
            map_->clear(); // read again with the new options
            showMap();
        });
    }

    // Files on top; below them the variables to load, beside the selected file's details and how
    // files are read.
    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    detailTabs_->addTab(details_, tr("&Details"));
    detailTabs_->addTab(map_, tr("&Map"));
    connect(detailTabs_, &QTabWidget::currentChanged, this, &FilesPage::showMap);
    sideLayout->addWidget(detailTabs_, 1);
    sideLayout->addWidget(reading);
    auto* lower = new QSplitter(Qt::Horizontal);
    lower->addWidget(variables);
    lower->addWidget(side);
    // The variables' table and the details or map beside it share the width: a map needs room.
    lower->setStretchFactor(0, 1);
    lower->setStretchFactor(1, 1);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(view_);
    split->addWidget(lower);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
    layout->addWidget(summary_);

    connect(addFiles, &QPushButton::clicked, this, &FilesPage::addFilesWithDialog);
    connect(addFolder, &QPushButton::clicked, this, &FilesPage::addFolderWithDialog);
    connect(remove_, &QPushButton::clicked, this, &FilesPage::removeSelected);
    connect(clear, &QPushButton::clicked, this, [this] {
        problems_.clear();
        model_->clear();
    });
    connect(model_, &FileListModel::filesChanged, this, [this] {
        variables_->setVariables(model_->presentVariables());
        fitColumns();
        updateSummary();
        showDetails();
        emit selectionChanged();
    });
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        remove_->setEnabled(view_->selectionModel()->hasSelection());
        showDetails();
    });
    updateSummary();
}

QStringList FilesPage::addPaths(const QStringList& paths) {
    problems_ = model_->addPaths(paths);
    if (!view_->selectionModel()->currentIndex().isValid() && model_->rowCount() > 0) {
        view_->selectRow(0); // its details show once it is inspected
    }
    updateSummary();
    return problems_;
}

void FilesPage::addFilesWithDialog() {
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Add ERA5 files"), lastDirectory(),
        tr("ERA5 downloads (*.nc *.nc4 *.netcdf *.zip *.grib *.grb *.grib2 *.grb2 *.csv);;All files (*)"));
    if (!files.isEmpty()) {
        rememberDirectory(QFileInfo(files.front()).absolutePath());
        addPaths(files);
    }
}

void FilesPage::addFolderWithDialog() {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Add a folder of ERA5 files"), lastDirectory());
    if (!dir.isEmpty()) {
        rememberDirectory(dir);
        addPaths({dir});
    }
}

void FilesPage::removeSelected() {
    QModelIndexList rows = view_->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex& a, const QModelIndex& b) { return a.row() > b.row(); });
    for (const QModelIndex& row : rows) {
        model_->removeRow(row.row());
    }
}

void FilesPage::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) {
        event->acceptProposedAction();
    }
}

void FilesPage::dropEvent(QDropEvent* event) {
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile()) {
            paths << url.toLocalFile();
        }
    }
    if (!paths.isEmpty()) {
        addPaths(paths);
        event->acceptProposedAction();
    }
}

std::vector<std::string> FilesPage::tickedVariables() const {
    return variables_->tickedKeys();
}

std::vector<std::string> FilesPage::chosenVariables() const {
    return allPresentChosen() ? std::vector<std::string>{} : tickedVariables();
}

bool FilesPage::allPresentChosen() const {
    return variables_->allTicked();
}

QString FilesPage::notReady() const {
    if (model_->rowCount() == 0) {
        return tr("no files: add ERA5 files on the Files tab");
    }
    if (model_->inspecting()) {
        return tr("the files are still being inspected; start again in a moment");
    }
    if (model_->loadableFiles().empty()) {
        return tr("none of the files can be loaded (see the Files tab)");
    }
    if (const DatasetInspection* d = model_->dataset(); d != nullptr && d->error) {
        return tr("the files cannot be loaded together: %1").arg(q(*d->error));
    }
    if (tickedVariables().empty()) {
        return tr("no variable is ticked on the Files tab");
    }
    return {};
}

void FilesPage::tickShown(bool ticked) {
    QStringList keys;
    for (int row = 0; row < proxy_->rowCount(); ++row) {
        keys << variables_->keyAt(proxy_->mapToSource(proxy_->index(row, 0)).row());
    }
    variables_->setTicked(keys, ticked);
}

OpenOptions FilesPage::openOptions() const {
    OpenOptions o;
    o.offGrid = offGrid_->currentIndex() == 1 ? OffGridPolicy::Nearest : OffGridPolicy::Refuse;
    static constexpr std::array<std::string_view, 9> kWords{
        "auto",        "era5",         "era5-land",        "hourly",           "monthly",
        "era5-hourly", "era5-monthly", "era5-land-hourly", "era5-land-monthly"};
    const auto i = static_cast<std::size_t>(std::max(0, product_->currentIndex()));
    const ProductChoice choice =
        parseProduct(kWords.at(std::min(i, kWords.size() - 1))).value_or(ProductChoice{});
    o.product = choice.product;
    o.means = choice.means;
    if (gridStep_->currentIndex() > 0) {
        o.gridSpacing = gridStep_->currentText().toDouble();
    }
    return o;
}

AllMissingPolicy FilesPage::allMissing() const {
    return loadAllMissing_->isChecked() ? AllMissingPolicy::Load : AllMissingPolicy::Skip;
}

void FilesPage::save(QSettings& s) const {
    s.setValue(QStringLiteral("files/unticked"), variables_->untickedKeys());
    s.setValue(QStringLiteral("files/offGrid"), offGrid_->currentIndex());
    s.setValue(QStringLiteral("files/product"), product_->currentIndex());
    s.setValue(QStringLiteral("files/gridSpacing"), gridStep_->currentIndex());
    s.setValue(QStringLiteral("files/loadAllMissing"), loadAllMissing_->isChecked());
    s.setValue(QStringLiteral("files/detailTab"), detailTabs_->currentIndex()); // Details or Map
}

void FilesPage::restore(QSettings& s) {
    variables_->setUntickedKeys(s.value(QStringLiteral("files/unticked")).toStringList());
    offGrid_->setCurrentIndex(s.value(QStringLiteral("files/offGrid"), 0).toInt());
    product_->setCurrentIndex(s.value(QStringLiteral("files/product"), 0).toInt());
    gridStep_->setCurrentIndex(s.value(QStringLiteral("files/gridSpacing"), 0).toInt());
    loadAllMissing_->setChecked(s.value(QStringLiteral("files/loadAllMissing"), false).toBool());
    detailTabs_->setCurrentIndex(s.value(QStringLiteral("files/detailTab"), 0).toInt());
}

void FilesPage::updateSummary() {
    const int present = variables_->rowCount();
    const auto ticked = tickedVariables().size();
    QString count = tr("%n variable(s) in the files, %1 ticked", nullptr, present).arg(ticked);
    if (proxy_->rowCount() < present) {
        count += tr("; %n shown", nullptr, proxy_->rowCount());
    }
    variableCount_->setText(count);
    tickAll_->setEnabled(proxy_->rowCount() > 0);
    tickNone_->setEnabled(proxy_->rowCount() > 0);

    const int files = model_->rowCount();
    const auto loadable = model_->loadableFiles().size();
    QString text;
    if (files == 0) {
        text =
            tr("No files yet: add ERA5 NetCDF or GRIB files, or the CDS's ZIP archives of them (as the CDS, "
               "NCAR or MARS deliver them), or folders of them.");
    } else {
        text = tr("%n file(s): %1 ready with %2 rows", nullptr, files)
                   .arg(loadable)
                   .arg(formatCount(model_->totalRows()));
        if (model_->checkingTogether()) {
            text += tr(", checking them together...");
        } else if (model_->inspecting()) {
            text += tr(", inspecting the rest...");
        }
        if (const int bad = model_->problemCount(); bad > 0) {
            text += tr("; <b>%n cannot be loaded</b> (see Status)", nullptr, bad);
        }
        if (present > 0 && ticked == 0) {
            text += tr("; <b>tick at least one variable</b>");
        }
        if (const DatasetInspection* d = model_->dataset(); d != nullptr) {
            if (d->error) {
                // What the load would refuse them for, before Start: as `isobar-cli inspect` says it.
                text += tr("<br><span style='color:darkred'><b>They cannot be loaded together:</b> %1</span>")
                            .arg(q(*d->error).toHtmlEscaped());
            } else {
                text += tr("<br>Together: %1, %2, %3; %n time step(s) (%4 .. %5), %6 rows", nullptr,
                           static_cast<int>(d->steps))
                            .arg(q(d->product).toHtmlEscaped(), q(d->grid).toHtmlEscaped(),
                                 q(d->levels).toHtmlEscaped(), q(d->firstTime), q(d->lastTime),
                                 formatCount(d->rows));
            }
        }
    }
    for (const QString& p : problems_) {
        text += QStringLiteral("<br><b>%1</b>").arg(p.toHtmlEscaped());
    }
    summary_->setText(text);
}

void FilesPage::fitColumns() {
    variableView_->resizeColumnsToContents();
    for (const int c :
         {VariableListModel::LongName, VariableListModel::FileUnits, VariableListModel::TableUnits}) {
        variableView_->setColumnWidth(c, std::min(variableView_->columnWidth(c), 200));
    }
    // Wide enough to read, never so wide that Status (the reasons) falls off the right edge.
    view_->resizeColumnsToContents();
    static constexpr int kMaxWidth[FileListModel::Status] = {260, 190, 130, 190, 170, 170, 90};
    for (int c = 0; c < FileListModel::Status; ++c) {
        view_->setColumnWidth(c, std::min(view_->columnWidth(c), kMaxWidth[c]));
    }
}

void FilesPage::showMap() {
    if (detailTabs_->currentWidget() != map_) {
        return;
    }
    const QModelIndex current = view_->selectionModel()->currentIndex();
    const FileInspection* f = current.isValid() ? model_->inspection(current.row()) : nullptr;
    if (f == nullptr || f->error) {
        map_->clear();
        return;
    }
    map_->setFile(model_->path(current.row()), openOptions());
}

void FilesPage::showDetails() {
    showMap();
    const QModelIndex current = view_->selectionModel()->currentIndex();
    const FileInspection* f = current.isValid() ? model_->inspection(current.row()) : nullptr;
    if (f == nullptr) {
        details_->clear();
        return;
    }
    if (f->error) {
        details_->setHtml(tr("<b>%1 cannot be loaded:</b> %2")
                              .arg(q(f->name).toHtmlEscaped(), q(*f->error).toHtmlEscaped()));
        return;
    }
    const QString times = f->steps == 1
                              ? tr("1 time step (%1)").arg(q(f->firstTime))
                              : tr("%1 time steps, %2 (%3 .. %4)")
                                    .arg(f->steps)
                                    .arg(q(f->timeSpacing).toHtmlEscaped(), q(f->firstTime), q(f->lastTime));
    QString html = QStringLiteral("<b>%1</b>: %2, %3<br>%4; %5; %6<br>%7")
                       .arg(q(f->name).toHtmlEscaped(), q(f->product).toHtmlEscaped(),
                            q(f->format).toHtmlEscaped(), q(f->box).toHtmlEscaped(),
                            q(f->levels).toHtmlEscaped(), times, q(f->layout).toHtmlEscaped());
    html += QStringLiteral("<br>%1").arg(tr("Decided by: %1").arg(q(f->timeRule).toHtmlEscaped()));
    html +=
        QStringLiteral("<table cellspacing='4'><tr><th align='left'>%1</th><th align='left'>%2</th><th "
                       "align='left'>%3</th><th align='left'>%4</th><th align='left'>%5</th></tr>")
            .arg(tr("Variable"), tr("ECMWF parameter"), tr("Stored as"), tr("Conversion"), tr("Handling"));
    for (const auto& v : f->variables) {
        // "2 metre temperature [K]", "... [K]; only by its long_name '...': check it".
        const QString how = v.matchedBy.rfind("GRIB_paramId", 0) == 0 ? QString()
                            : v.looseMatch ? tr("; only by its %1: check it").arg(q(v.matchedBy))
                                           : tr("; by its %1").arg(q(v.matchedBy));
        const QString parameter = v.ecmwfName.empty()
                                      ? tr("not in ECMWF's database")
                                      : tr("%1 [%2]%3").arg(q(v.ecmwfName), q(v.ecmwfUnits), how);
        html += QStringLiteral("<tr><td>%1 (%2)</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td></tr>")
                    .arg(q(v.name).toHtmlEscaped(), q(v.column.column).toHtmlEscaped(),
                         parameter.toHtmlEscaped(), q(v.storage).toHtmlEscaped(),
                         q(v.conversion).toHtmlEscaped(), q(v.handling).toHtmlEscaped());
    }
    html += QStringLiteral("</table>");
    for (const auto& n : f->notes) {
        html += QStringLiteral("<br>%1").arg(q(n).toHtmlEscaped());
    }
    if (!f->ignored.empty()) {
        QStringList ignored;
        for (const auto& i : f->ignored) {
            ignored << q(i);
        }
        html += tr("<br>Ignored: %1").arg(ignored.join(QStringLiteral(", ")).toHtmlEscaped());
    }
    details_->setHtml(html);
}

} // namespace isobar::ui
