#include "TableAuditDialog.h"

#include "Format.h"
#include "GuiThread.h"
#include "db/ConnInfo.h"
#include "db/EmbeddedDefaults.h"
#include "db/TableAudit.h"

#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QThreadPool>
#include <QVBoxLayout>

namespace isobar::ui {

TableAuditDialog::TableAuditDialog(const QString& table, const ConnectionChoice& connection, QWidget* parent)
    : QDialog(parent)
    , status_(new QLabel)
    , text_(new QPlainTextEdit)
    , copySql_(new QPushButton(tr("&Copy the SQL"))) {
    setWindowTitle(tr("Audit of %1").arg(table));
    text_->setReadOnly(true);
    text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    text_->setLineWrapMode(QPlainTextEdit::NoWrap);
    status_->setWordWrap(true);
    copySql_->setEnabled(false);
    copySql_->setToolTip(tr("The SQL that removes the rows found twice, to review and run yourself"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons->addButton(copySql_, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(copySql_, &QPushButton::clicked, this, [this] { QGuiApplication::clipboard()->setText(sql_); });
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(status_);
    layout->addWidget(text_, 1);
    layout->addWidget(buttons);
    resize(900, 520);

    const QString where = connection.embedded ? tr("the embedded cluster")
                                              : q(redactConnInfo(connection.conninfo)).toHtmlEscaped();
    status_->setText(tr("Auditing %1 on %2...").arg(table.toHtmlEscaped(), where));
    // On the application's pool: the job refers to the dialog only through a QPointer, so closing
    // the dialog never waits for an audit still reading.
    QPointer<TableAuditDialog> self(this);
    QThreadPool::globalInstance()->start([self, connection, name = table.toStdString(), where] {
        QString text;
        QString sql;
        QString status;
        try {
            Connection conn = Connection::open(
                connection.embedded ? startEmbeddedCluster() : connection.conninfo, "isobar audit");
            AuditRequest request;
            request.table = TableName::parse(name);
            const TableAudit audit = auditTable(conn, request);
            text = q(describeAudit(audit));
            sql = q(audit.cleanupSql);
            status = audit.clean() ? tr("Nothing found in %1.").arg(q(name).toHtmlEscaped())
                                   : tr("<b>Problems found in %1.</b>").arg(q(name).toHtmlEscaped());
        } catch (const std::exception& e) {
            status = tr("The audit of %1 on %2 failed: %3")
                         .arg(q(name).toHtmlEscaped(), where, q(e.what()).toHtmlEscaped());
        }
        postToGui([self, text, sql, status] {
            if (!self) {
                return;
            }
            self->busy_ = false;
            self->status_->setText(status);
            self->text_->setPlainText(text);
            self->sql_ = sql;
            self->copySql_->setEnabled(!sql.isEmpty());
            emit self->finished();
        });
    });
}

TableAuditDialog::~TableAuditDialog() = default;

} // namespace isobar::ui
