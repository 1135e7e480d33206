#include "FilesPage.h"

#include "FileListModel.h"
#include "Format.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace isobar::ui {

namespace {

QString conversionText(const VariableSpec& v) {
    switch (v.conversion) {
    case Conversion::None:
        return QStringLiteral("%1, as stored").arg(q(std::string(v.tableUnits)));
    case Conversion::KelvinToCelsius:
        return QStringLiteral("K -> degC (x - 273.15)");
    case Conversion::MetresToMillimetres:
        return QStringLiteral("m -> mm (x 1000)");
    case Conversion::PercentToFraction:
        return QStringLiteral("% -> fraction (x / 100)");
    }
    return {};
}

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
    , view_(new QTableView)
    , details_(new QTextBrowser)
    , summary_(new QLabel)
    , remove_(new QPushButton(tr("&Remove")))
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
    auto* hint = new QLabel(tr("or drop NetCDF/ZIP files and folders here"));
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

    auto* variables = new QGroupBox(tr("Variables to load (the columns of the others stay NULL)"));
    auto* grid = new QGridLayout(variables);
    for (std::size_t i = 0; i < variableCount(); ++i) {
        const VariableSpec& v = variableCatalog()[i];
        auto* box = new QCheckBox(
            QStringLiteral("%1  %2").arg(q(std::string(v.shortName)), q(std::string(v.longName))));
        box->setChecked(true);
        box->setEnabled(false);
        box->setToolTip(tr("Column %1 (%2)").arg(q(std::string(v.column)), conversionText(v)));
        auto* column =
            new QLabel(QStringLiteral("-> %1  (%2)").arg(q(std::string(v.column)), conversionText(v)));
        column->setBuddy(box);
        grid->addWidget(box, static_cast<int>(i), 0);
        grid->addWidget(column, static_cast<int>(i), 1);
        boxes_[i] = box;
        connect(box, &QCheckBox::toggled, this, [this] {
            updateSummary();
            emit selectionChanged();
        });
    }
    grid->setColumnStretch(1, 1);

    auto* reading = new QGroupBox(tr("Reading"));
    auto* readingForm = new QFormLayout(reading);
    offGrid_->addItem(tr("refuse the file (it names the point)"));
    offGrid_->addItem(tr("load at the nearest grid cell's location_id, keeping the real coordinates"));
    product_->addItems({tr("recognise (ERA5-Land on the 0.1 grid)"), tr("ERA5"), tr("ERA5-Land")});
    gridStep_->addItems({tr("from the file (else 0.25)"), QStringLiteral("0.25"), QStringLiteral("0.1")});
    gridStep_->setToolTip(tr("The grid a single-point file belongs to, for its location_id"));
    readingForm->addRow(tr("Points off the &grid:"), offGrid_);
    readingForm->addRow(tr("&Product:"), product_);
    readingForm->addRow(tr("Grid s&tep of single points:"), gridStep_);
    readingForm->addRow(loadAllMissing_);
    for (QComboBox* box : {offGrid_, product_, gridStep_}) {
        connect(box, &QComboBox::currentIndexChanged, this,
                [this] { model_->setOpenOptions(openOptions()); });
    }

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(view_);
    split->addWidget(details_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
    layout->addWidget(summary_);
    auto* options = new QHBoxLayout;
    options->addWidget(variables, 3);
    options->addWidget(reading, 2);
    layout->addLayout(options);

    connect(addFiles, &QPushButton::clicked, this, &FilesPage::addFilesWithDialog);
    connect(addFolder, &QPushButton::clicked, this, &FilesPage::addFolderWithDialog);
    connect(remove_, &QPushButton::clicked, this, &FilesPage::removeSelected);
    connect(clear, &QPushButton::clicked, this, [this] {
        problems_.clear();
        model_->clear();
    });
    connect(model_, &FileListModel::filesChanged, this, [this] {
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
    const QStringList files =
        QFileDialog::getOpenFileNames(this, tr("Add ERA5 files"), lastDirectory(),
                                      tr("ERA5 downloads (*.nc *.nc4 *.netcdf *.zip);;All files (*)"));
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

std::vector<Variable> FilesPage::chosenVariables() const {
    const auto present = model_->presentVariables();
    std::vector<Variable> out;
    for (std::size_t i = 0; i < variableCount(); ++i) {
        const auto v = Variable(i);
        if (boxes_[i]->isChecked() && present.count(v) > 0) {
            out.push_back(v);
        }
    }
    return out;
}

bool FilesPage::allPresentChosen() const {
    return chosenVariables().size() == model_->presentVariables().size();
}

OpenOptions FilesPage::openOptions() const {
    OpenOptions o;
    o.offGrid = offGrid_->currentIndex() == 1 ? OffGridPolicy::Nearest : OffGridPolicy::Refuse;
    o.product = product_->currentIndex() == 1   ? ProductOverride::Era5
                : product_->currentIndex() == 2 ? ProductOverride::Era5Land
                                                : ProductOverride::Auto;
    if (gridStep_->currentIndex() > 0) {
        o.gridStep = gridStep_->currentText().toDouble();
    }
    return o;
}

AllMissingPolicy FilesPage::allMissing() const {
    return loadAllMissing_->isChecked() ? AllMissingPolicy::Load : AllMissingPolicy::Skip;
}

void FilesPage::save(QSettings& s) const {
    QStringList unticked;
    for (std::size_t i = 0; i < variableCount(); ++i) {
        if (!boxes_[i]->isChecked()) {
            unticked << q(std::string(variableCatalog()[i].shortName));
        }
    }
    s.setValue(QStringLiteral("files/unticked"), unticked);
    s.setValue(QStringLiteral("files/offGrid"), offGrid_->currentIndex());
    s.setValue(QStringLiteral("files/product"), product_->currentIndex());
    s.setValue(QStringLiteral("files/gridStep"), gridStep_->currentIndex());
    s.setValue(QStringLiteral("files/loadAllMissing"), loadAllMissing_->isChecked());
}

void FilesPage::restore(QSettings& s) {
    const QStringList unticked = s.value(QStringLiteral("files/unticked")).toStringList();
    for (std::size_t i = 0; i < variableCount(); ++i) {
        boxes_[i]->setChecked(!unticked.contains(q(std::string(variableCatalog()[i].shortName))));
    }
    offGrid_->setCurrentIndex(s.value(QStringLiteral("files/offGrid"), 0).toInt());
    product_->setCurrentIndex(s.value(QStringLiteral("files/product"), 0).toInt());
    gridStep_->setCurrentIndex(s.value(QStringLiteral("files/gridStep"), 0).toInt());
    loadAllMissing_->setChecked(s.value(QStringLiteral("files/loadAllMissing"), false).toBool());
}

void FilesPage::updateSummary() {
    const auto present = model_->presentVariables();
    for (std::size_t i = 0; i < variableCount(); ++i) {
        const bool has = present.count(Variable(i)) > 0;
        boxes_[i]->setEnabled(has);
        boxes_[i]->setToolTip(
            has ? tr("Column %1 (%2)")
                      .arg(q(std::string(variableCatalog()[i].column)), conversionText(variableCatalog()[i]))
                : tr("None of the files has %1").arg(q(std::string(variableCatalog()[i].shortName))));
    }
    const int files = model_->rowCount();
    const auto loadable = model_->loadableFiles().size();
    QString text;
    if (files == 0) {
        text = tr("No files yet: add ERA5 NetCDF files (as the CDS, NCAR or MARS deliver them) or folders of "
                  "them.");
    } else {
        text = tr("%n file(s): %1 ready with %2 rows", nullptr, files)
                   .arg(loadable)
                   .arg(formatCount(model_->totalRows()));
        if (model_->inspecting()) {
            text += tr(", inspecting the rest...");
        }
        if (const int bad = model_->problemCount(); bad > 0) {
            text += tr("; <b>%n cannot be loaded</b> (see Status)", nullptr, bad);
        }
        if (!present.empty() && chosenVariables().empty()) {
            text += tr("; <b>tick at least one variable</b>");
        }
    }
    for (const QString& p : problems_) {
        text += QStringLiteral("<br><b>%1</b>").arg(p.toHtmlEscaped());
    }
    summary_->setText(text);
}

void FilesPage::fitColumns() {
    // Wide enough to read, never so wide that Status (the reasons) falls off the right edge.
    view_->resizeColumnsToContents();
    static constexpr int kMaxWidth[FileListModel::Status] = {260, 190, 130, 190, 170, 90};
    for (int c = 0; c < FileListModel::Status; ++c) {
        view_->setColumnWidth(c, std::min(view_->columnWidth(c), kMaxWidth[c]));
    }
}

void FilesPage::showDetails() {
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
    QString html =
        QStringLiteral("<b>%1</b>: %2, %3<br>%4; %5<br>%6")
            .arg(q(f->name).toHtmlEscaped(), q(f->product).toHtmlEscaped(), q(f->format).toHtmlEscaped(),
                 q(f->box).toHtmlEscaped(), times, q(f->layout).toHtmlEscaped());
    html += QStringLiteral("<table cellspacing='4'><tr><th align='left'>%1</th><th align='left'>%2</th><th "
                           "align='left'>%3</th><th align='left'>%4</th></tr>")
                .arg(tr("Variable"), tr("Stored as"), tr("Conversion"), tr("Handling"));
    for (const auto& v : f->variables) {
        html += QStringLiteral("<tr><td>%1 (%2)</td><td>%3</td><td>%4</td><td>%5</td></tr>")
                    .arg(q(v.name).toHtmlEscaped(), q(std::string(spec(v.variable).column)),
                         q(v.storage).toHtmlEscaped(), q(v.conversion).toHtmlEscaped(),
                         q(v.handling).toHtmlEscaped());
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
