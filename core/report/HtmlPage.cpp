// SPDX-License-Identifier: GPL-3.0-or-later

#include "report/HtmlPage.h"

#include "util/Format.h"

namespace isobar {

namespace {

// One style for every report: readable tables, numbers right-aligned in their own columns, a
// coloured status (completed, cancelled, failed).
constexpr const char* kStyle =
    "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}"
    "h1{font-size:20px}h2{font-size:16px;margin-top:1.6em}"
    "table{border-collapse:collapse;margin:.5em 0 1em}"
    "th,td{text-align:left;padding:3px 12px;border-bottom:1px solid #eee;vertical-align:top}"
    "th{color:#555;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "table.grid th,table.grid td{border:1px solid #ccc;padding:3px 8px}table.grid th{background:#f4f4f4}"
    "p.note{color:#555;margin:.2em 0}svg{max-width:100%;height:auto;margin:1em 0}"
    ".status,.failed{font-weight:bold;color:#b00}.cancelled{color:#a60}.completed{color:#070}"
    "code{font-size:12px}";

} // namespace

HtmlPage::HtmlPage(const std::string& title, const std::string& heading, const std::string& headingHtml) {
    out_ << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" << htmlEscaped(title)
         << "</title>\n<style>" << kStyle << "</style></head><body>\n<h1>" << htmlEscaped(heading)
         << headingHtml << "</h1>\n";
}

void HtmlPage::heading(const std::string& text) {
    out_ << "<h2>" << htmlEscaped(text) << "</h2>\n";
}

void HtmlPage::paragraph(const std::string& text, const char* cssClass) {
    out_ << (cssClass != nullptr ? "<p class=\"" + std::string(cssClass) + "\">" : std::string("<p>"))
         << htmlEscaped(text) << "</p>\n";
}

void HtmlPage::paragraphHtml(const std::string& html) {
    out_ << "<p>" << html << "</p>\n";
}

void HtmlPage::openTable() {
    out_ << "<table>\n";
}

void HtmlPage::row(const std::string& name, const std::string& value) {
    rowHtml(name, htmlEscaped(value));
}

void HtmlPage::rowHtml(const std::string& name, const std::string& valueHtml) {
    out_ << "<tr><th>" << htmlEscaped(name) << "</th><td>" << valueHtml << "</td></tr>\n";
}

void HtmlPage::closeTable() {
    out_ << "</table>\n";
}

void HtmlPage::section(const std::string& heading,
                       const std::vector<std::pair<std::string, std::string>>& rows) {
    if (rows.empty()) {
        return;
    }
    this->heading(heading);
    openTable();
    for (const auto& [name, value] : rows) {
        row(name, value);
    }
    closeTable();
}

void HtmlPage::list(const std::string& heading, const std::vector<std::string>& itemsHtml) {
    this->heading(heading);
    out_ << "<ul>\n";
    for (const auto& item : itemsHtml) {
        out_ << "<li>" << item << "</li>\n";
    }
    out_ << "</ul>\n";
}

std::string HtmlPage::finish() {
    out_ << "</body></html>\n";
    return out_.str();
}

} // namespace isobar
