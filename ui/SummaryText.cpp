// SPDX-License-Identifier: GPL-3.0-or-later

#include "SummaryText.h"

#include "Format.h"
#include "util/Format.h"

namespace isobar::ui {

namespace {

// The server stopped answering (shut down, restarted, network gone): resuming later loads only
// what is missing.
bool serverWentAway(const LoadError& e) {
    return e.sqlState.rfind("08", 0) == 0 || e.sqlState.rfind("57P0", 0) == 0;
}

} // namespace

SummaryText::SummaryText(const LoadSummary& summary) {
    const QString done =
        tr("%1 rows in %2 (%3 rows/s)")
            .arg(formatCount(summary.rows), q(formatDuration(summary.seconds)),
                 formatRate(summary.seconds > 0 ? static_cast<double>(summary.rows) / summary.seconds : 0));
    switch (summary.status) {
    case LoadStatus::Completed:
        headline_ = tr("Completed:");
        lines_ << done + QLatin1Char('.') +
                      (summary.resumedRows > 0
                           ? tr(" %1 rows were already there.").arg(formatCount(summary.resumedRows))
                           : QString());
        break;
    case LoadStatus::Cancelled:
        headline_ = tr("Cancelled:");
        if (summary.compression && summary.compression->chunksLeft > 0) {
            lines_ << tr("%1; every row is committed, %2 chunk(s) are not compressed yet. Resume compresses "
                         "them.")
                          .arg(done)
                          .arg(summary.compression->chunksLeft);
        } else {
            lines_
                << tr("%1 committed; the units in flight were rolled back. Resume loads the rest.").arg(done);
        }
        offersResume_ = true;
        break;
    case LoadStatus::Failed: {
        const LoadError e = summary.error.value_or(LoadError{});
        lines_ << q(e.message);
        if (!e.file.empty()) {
            lines_ << tr("File: %1").arg(q(e.file));
        }
        if (serverWentAway(e)) {
            headline_ = tr("The server went away:");
            lines_ << tr("%1 had been committed and stay. Resume when the server is back: only the rest is "
                         "loaded.")
                          .arg(done);
        } else {
            headline_ = tr("Failed:");
            lines_ << tr("%1 had been committed and stay.").arg(done);
        }
        offersResume_ = true;
        break;
    }
    }
    for (const std::string& line : summary.overlap.describe()) {
        lines_ << q(line).left(1).toUpper() + q(line).mid(1) + QLatin1Char('.');
    }
    if (const auto& c = summary.compression) {
        lines_ << (c->grew() ? tr("Compression made the table BIGGER: %1.") : tr("Compression: %1."))
                      .arg(q(c->describe()));
    }
}

QString SummaryText::html() const {
    QStringList escaped;
    for (const QString& line : lines_) {
        escaped << line.toHtmlEscaped();
    }
    return QStringLiteral("<b>%1</b> %2")
        .arg(headline_.toHtmlEscaped(), escaped.join(QStringLiteral("<br>")));
}

QString SummaryText::plain() const {
    return QStringLiteral("%1 %2").arg(headline_, lines_.join(QStringLiteral("; ")));
}

} // namespace isobar::ui
