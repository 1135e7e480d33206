// SPDX-License-Identifier: GPL-3.0-or-later

#include "BenchRunner.h"

#include "db/EmbeddedDefaults.h"
#include "db/LocalCluster.h"
#include "util/Error.h"
#include "util/Format.h"

#include <chrono>

namespace isobar::ui {

namespace {

using Kind = BenchRequest::Kind;

// The report of a bench that threw instead of returning one: what was asked, on which machine,
// and why it ended.
BenchReport endedEarly(const BenchRequest& request, const std::string& started, double seconds,
                       const std::string& status, const std::string& problem) {
    BenchReport report;
    report.kind = benchKindKey(request.kind);
    report.title = benchKindTitle(request.kind).toStdString();
    report.started = started;
    report.seconds = seconds;
    report.status = status;
    report.problem = problem;
    try {
        report.machine = describeMachine();
    } catch (const std::exception&) {
        // The report says why the bench ended; the machine is a detail it can go without.
    }
    const BenchData& data = request.kind == Kind::Methods  ? request.methods.data
                            : request.kind == Kind::Matrix ? request.matrix.data
                                                           : request.queries.data;
    report.settings.emplace_back("data", data.files.empty()
                                             ? std::to_string(data.syntheticHours) + " synthetic hour(s)"
                                             : std::to_string(data.files.size()) + " file(s)");
    return report;
}

} // namespace

std::string benchKindKey(Kind kind) {
    switch (kind) {
    case Kind::Methods:
        return "methods";
    case Kind::Matrix:
        return "matrix";
    case Kind::Queries:
        return "query";
    }
    return {};
}

QString benchKindTitle(Kind kind) {
    switch (kind) {
    case Kind::Methods:
        return BenchRunner::tr("Loading methods");
    case Kind::Matrix:
        return BenchRunner::tr("Table types matrix");
    case Kind::Queries:
        return BenchRunner::tr("Queries and retention");
    }
    return {};
}

QString benchKindTitle(const std::string& key) {
    for (const Kind kind : {Kind::Methods, Kind::Matrix, Kind::Queries}) {
        if (benchKindKey(kind) == key) {
            return benchKindTitle(kind);
        }
    }
    return QString::fromStdString(key);
}

BenchRunner::BenchRunner(QObject* parent)
    : QObject(parent)
    , progress_(std::make_shared<Progress>())
    , run_(this) {
    qRegisterMetaType<BenchReport>();
}

BenchRunner::~BenchRunner() = default;

bool BenchRunner::start(const BenchRequest& request) {
    if (run_.isRunning()) {
        return false;
    }
    request_ = std::make_unique<BenchRequest>(request);
    progress_ = std::make_shared<Progress>();
    const std::string started = formatUtcNow("%Y-%m-%dT%H:%M:%SZ");
    // The whole bench - the embedded cluster's start, the bench, writing its report - runs on the
    // run's thread. Only copies reach the GUI thread.
    return run_.start(
        [this, started](const std::stop_token& stop) -> RunThread::End {
            BenchRequest& r = *request_;
            const auto begin = std::chrono::steady_clock::now();
            const BenchProgress progress = [this](const std::string& step, double done) {
                report(step, done);
            };
            BenchReport result;
            try {
                const std::string conninfo =
                    r.connection.embedded ? startEmbeddedCluster() : r.connection.conninfo;
                switch (r.kind) {
                case Kind::Methods:
                    r.methods.conninfo = conninfo;
                    result = benchmarkMethods(r.methods, progress, stop);
                    break;
                case Kind::Matrix:
                    r.matrix.conninfo = conninfo;
                    result = benchmarkMatrix(r.matrix, progress, stop);
                    break;
                case Kind::Queries:
                    r.queries.conninfo = conninfo;
                    if (r.restartEmbedded && r.connection.embedded) {
                        // Empties the server's buffers for the cold runs; every other connection to
                        // the embedded cluster is ended by it (the user was told so).
                        r.queries.restartServer = [] {
                            LocalCluster cluster(embeddedClusterOptions());
                            cluster.stop();
                            cluster.start();
                        };
                    }
                    result = benchmarkQueries(r.queries, progress, stop);
                    break;
                }
            } catch (const Cancelled&) {
                const std::chrono::duration<double> took = std::chrono::steady_clock::now() - begin;
                result = endedEarly(r, started, took.count(), "cancelled", {});
            } catch (const std::exception& e) {
                const std::chrono::duration<double> took = std::chrono::steady_clock::now() - begin;
                result = endedEarly(r, started, took.count(), "failed", e.what());
            }
            if (result.command.empty()) {
                result.command = "Isobar desktop, Benchmarks tab";
            }
            QString path;
            QString problem;
            try {
                path = QString::fromStdString(writeBenchReport(result, benchReportDirectory()).string());
            } catch (const std::exception& e) {
                problem = QString::fromStdString(e.what());
            }
            return [this, result, path, problem] {
                emit ended(result, path, problem);
            };
        },
        [this, started](const std::string& why) -> RunThread::End {
            // The bench's own failures are in its report; this is what broke around it.
            const BenchReport result = endedEarly(*request_, started, 0, "failed", why);
            return [this, result, why = QString::fromStdString(why)] {
                emit ended(result, {}, tr("no report: %1").arg(why));
            };
        });
}

void BenchRunner::report(const std::string& step, double done) {
    // On the bench's thread: keep the newest, post one call unless one is on its way already.
    const std::shared_ptr<Progress> p = progress_;
    {
        const std::lock_guard lock(p->mutex);
        p->step = step;
        p->done = done;
    }
    if (p->posted.exchange(true)) {
        return;
    }
    run_.post([this, p] {
        std::string newest;
        double share = 0;
        {
            const std::lock_guard lock(p->mutex);
            p->posted = false;
            newest = p->step;
            share = p->done;
        }
        if (run_.isRunning()) {
            emit progressed(QString::fromStdString(newest), share);
        }
    });
}

void BenchRunner::cancel() {
    run_.cancel();
}

void BenchRunner::wait() {
    run_.wait();
}

} // namespace isobar::ui
