// SPDX-License-Identifier: GPL-3.0-or-later

#include "TableAuditDialog.h"

#include "Format.h"
#include "ServerSession.h"
#include "db/ConnInfo.h"
#include "db/TableAudit.h"

#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace isobar::ui {

TableAuditDialog::TableAuditDialog(const QString& table, const ConnectionChoice& connection, QWidget* parent)
    : QDialog(parent)
    , status_(new QLabel)
    , text_(new QPlainTextEdit)
    , copySql_(new QPushButton(tr("&Copy the SQL")))
    , audit_(this, JobPool::Server) {
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
    // Thread boundary: the audit runs on the server pool with a connection of its own; closing the
    // dialog cancels its query on the server and never waits for it.
    const std::string name = table.toStdString();
    const auto session = std::make_shared<ServerSession>(connection, "isobar audit");
    audit_.start(
        [session, name](const std::stop_token& stop) {
            return session->read(stop, [&](Connection& conn) {
                AuditRequest request;
                request.table = TableName::parse(name);
                return auditTable(conn, request);
            });
        },
        [this, table](const TableAudit& audit) {
            status_->setText(audit.clean() ? tr("Nothing found in %1.").arg(table.toHtmlEscaped())
                                           : tr("<b>Problems found in %1.</b>").arg(table.toHtmlEscaped()));
            text_->setPlainText(q(describeAudit(audit)));
            sql_ = q(audit.cleanupSql);
            copySql_->setEnabled(!sql_.isEmpty());
            emit finished();
        },
        [this, table, where](const JobError& e) {
            status_->setText(tr("The audit of %1 on %2 failed: %3")
                                 .arg(table.toHtmlEscaped(), where, e.message.toHtmlEscaped()));
            text_->clear();
            sql_.clear();
            copySql_->setEnabled(false);
            emit finished();
        });
}

TableAuditDialog::~TableAuditDialog() = default;

} // namespace isobar::ui
