// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Small helpers every test executable uses.

#include "util/Error.h"

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QtTest>

#include <chrono>
#include <functional>
#include <thread>

namespace isobar::test {

// The message of the isobar::Error that `f` throws; empty when it throws none.
template <typename F>
QString errorOf(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// isobar-cli, run as a user runs it.
struct CliRun {
    int exitCode = -1; // -1 when it crashed or timed out
    QString out;
    QString err;
};

// In `workingDirectory` when given (files named relative to it), else in the test's own.
inline CliRun runCli(const QStringList& args, const QString& workingDirectory, int timeoutMs = 300000) {
    QProcess p;
    if (!workingDirectory.isEmpty()) {
        p.setWorkingDirectory(workingDirectory);
    }
    p.start(QStringLiteral(ISOBAR_CLI_PATH), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    }
    return CliRun{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                  QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

inline CliRun runCli(const QStringList& args, int timeoutMs = 300000) {
    return runCli(args, QString(), timeoutMs);
}

// Polls `ready` every 10 ms until it holds or `timeout` passes.
inline bool waitFor(const std::function<bool()>& ready, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (ready()) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return ready();
}

} // namespace isobar::test

// Expects `expr` to throw isobar::Error whose message contains every one of the parts.
#define EXPECT_ERROR_CONTAINING(expr, ...)                                                                   \
    VERIFY_MESSAGE(::isobar::test::errorOf([&] { (void)(expr); }), __VA_ARGS__)

// Fails the test unless `message` is non-empty and contains every one of the given parts.
#define VERIFY_MESSAGE(message, ...)                                                                         \
    do {                                                                                                     \
        const QString& m_ = (message);                                                                       \
        QVERIFY2(!m_.isEmpty(), "expected an isobar::Error");                                                \
        for (const QString& part_ : QStringList{__VA_ARGS__}) {                                              \
            QVERIFY2(m_.contains(part_), qPrintable("'" + part_ + "' not in: " + m_));                       \
        }                                                                                                    \
    } while (false)
