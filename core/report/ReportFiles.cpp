// SPDX-License-Identifier: GPL-3.0-or-later

#include "report/RunReport.h"
#include "util/Error.h"
#include "util/Files.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

namespace isobar {

void writeReport(const RunReport& report, const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string text;
    if (ext == ".json") {
        text = renderReportJson(report);
    } else if (ext == ".csv") {
        text = renderReportCsv(report);
    } else if (ext == ".html" || ext == ".htm") {
        text = renderReportHtml(report);
    } else {
        throw Error(path.string() + ": a report is written as .json, .csv or .html (the extension decides)");
    }
    try {
        writeFileAtomically(path, text,
                            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                std::filesystem::perms::group_read | std::filesystem::perms::others_read);
    } catch (const Error& e) {
        throw Error(std::string("cannot write the report: ") + e.what());
    }
}

RunReport readReport(const std::filesystem::path& path) {
    const std::string text = readWholeFile(path);
    try {
        return parseReportJson(text);
    } catch (const Error& e) {
        throw Error(path.string() + ": " + e.what());
    }
}

std::filesystem::path defaultReportDirectory() {
    if (const char* dir = std::getenv("ISOBAR_REPORT_DIR"); dir != nullptr && *dir != '\0') {
        return dir;
    }
    return stateDirectory() / "reports";
}

std::filesystem::path writeRunReport(const RunReport& report) {
    std::string stamp = report.startedAt;
    std::replace(stamp.begin(), stamp.end(), ':', '-');
    const std::string table = report.table.substr(report.table.rfind('.') + 1);
    const std::string base = "run-" + stamp + "-" + table;
    const std::filesystem::path dir = defaultReportDirectory();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        throw Error("cannot write the report: cannot create " + dir.string() + ": " + ec.message());
    }
    // Runs of one table can start within the same second (a rerun that finds everything loaded,
    // two loads started together): each keeps its own report. O_EXCL reserves the name.
    for (int n = 1; n < 1000; ++n) {
        std::filesystem::path path =
            dir / (base + (n == 1 ? std::string() : "-" + std::to_string(n)) + ".json");
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) {
            if (errno == EEXIST) {
                continue;
            }
            throw Error("cannot write the report: " + path.string() + ": " + systemErrorText(errno));
        }
        ::close(fd);
        try {
            writeReport(report, path);
        } catch (const Error&) {
            std::filesystem::remove(path, ec); // the empty reservation
            throw;
        }
        return path;
    }
    throw Error("cannot write the report: " + (dir / (base + "-999.json")).string() +
                " and the 998 names before it exist");
}

} // namespace isobar
