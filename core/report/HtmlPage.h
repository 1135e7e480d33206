// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace isobar {

// The one writer of Isobar's HTML reports (run reports and bench reports): a self-contained page,
// its style inline and its plots inline SVG (report/SvgPlot.h), made of headings, paragraphs and
// tables. Text is escaped here; what is passed as `html` is written as it is.
class HtmlPage {
public:
    // The page's <head> and its <h1>, whose text is `heading` (escaped) then `headingHtml`.
    HtmlPage(const std::string& title, const std::string& heading, const std::string& headingHtml = {});

    void html(const std::string& html) { out_ << html; }
    void heading(const std::string& text);
    // A paragraph; `cssClass` "note" is grey, "status" bold red.
    void paragraph(const std::string& text, const char* cssClass = nullptr);
    void paragraphHtml(const std::string& html);

    // A table of name/value rows: openTable(), row() ..., closeTable().
    void openTable();
    void row(const std::string& name, const std::string& value);
    void rowHtml(const std::string& name, const std::string& valueHtml);
    void closeTable();
    // A heading and a name/value table under it; nothing at all when `rows` is empty.
    void section(const std::string& heading, const std::vector<std::pair<std::string, std::string>>& rows);
    // A heading and a bulleted list; `itemsHtml` are written as they are.
    void list(const std::string& heading, const std::vector<std::string>& itemsHtml);

    std::string finish();

private:
    std::ostringstream out_;
};

} // namespace isobar
