// SPDX-License-Identifier: GPL-3.0-or-later

// Connection strings and connecting: passwords left out of what is shown and secrets out of what is
// remembered, a dead server and a silent one (given up on after the connect timeout) named, and a
// string libpq cannot parse never echoed. No server is needed.

#include "db/ConnInfo.h"
#include "db/Connection.h"
#include "util/Error.h"

#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

using namespace isobar;

class TestConnection : public QObject {
    Q_OBJECT

private slots:
    void redactsPasswords_data() {
        QTest::addColumn<QString>("conninfo");
        QTest::addColumn<QString>("expected");
        QTest::newRow("key=value") << "host=db.example port=5433 dbname=era5 user=me password=s3cret"
                                   << "host=db.example port=5433 dbname=era5 user=me";
        QTest::newRow("uri") << "postgresql://me:s3cret@db.example:5433/era5?sslmode=require"
                             << "host=db.example port=5433 dbname=era5 user=me sslmode=require";
        QTest::newRow("quoted") << "host='/tmp/a b' password='x y'"
                                << "host='/tmp/a b'";
        QTest::newRow("unparsable") << "host=x password='unterminated"
                                    << "(an unparsable connection string)";
        QTest::newRow("expanded dbname") << "dbname='host=db.example password=s3cret' user=me"
                                         << "dbname=host=db.example user=me";
    }
    void redactsPasswords() {
        QFETCH(QString, conninfo);
        QFETCH(QString, expected);
        const std::string redacted = redactConnInfo(conninfo.toStdString());
        QCOMPARE(QString::fromStdString(redacted), expected);
        QVERIFY(redacted.find("s3cret") == std::string::npos);
    }

    // What the desktop remembers of a pasted string: every setting but the secrets.
    void keepsAllButSecrets_data() {
        QTest::addColumn<QString>("conninfo");
        QTest::addColumn<QString>("expected");
        QTest::newRow("options kept")
            << "host=db.example connect_timeout=5 sslrootcert=/ca.pem password=s3cret"
            << "connect_timeout=5 host=db.example sslrootcert=/ca.pem";
        QTest::newRow("uri") << "postgresql://me:s3cret@db.example/era5?application_name=x"
                             << "user=me dbname=era5 host=db.example application_name=x";
        QTest::newRow("expanded dbname") << "dbname='host=db.example password=s3cret' sslpassword=s3cret"
                                         << "dbname=host=db.example";
        QTest::newRow("unparsable") << "host=x password='s3cret"
                                    << "";
    }
    void keepsAllButSecrets() {
        QFETCH(QString, conninfo);
        QFETCH(QString, expected);
        const auto kept = connInfoWithoutSecrets(conninfo.toStdString());
        QCOMPARE(QString::fromStdString(kept.value_or("")), expected);
        QVERIFY(!kept || kept->find("s3cret") == std::string::npos);
    }

    void wrongPasswordAndDeadServerAreNamed() {
        try {
            Connection::open("host=/nonexistent-socket-dir port=5999 dbname=x user=u password=s3cret");
            QFAIL("expected a connection failure");
        } catch (const DbError& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("/nonexistent-socket-dir") != std::string::npos, e.what());
            QVERIFY2(m.find("s3cret") == std::string::npos, e.what());
        }
    }

    // A server that accepts the connection and never answers (a hung host, a proxy with nothing
    // behind it) is given up on after Isobar's default connect timeout, not waited for forever; a
    // connect_timeout in the string still decides.
    void silentServerTimesOut() {
        // The kernel completes the handshakes of a listening socket; nobody reads or answers.
        const int silent = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        QVERIFY(silent >= 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        QCOMPARE(bind(silent, reinterpret_cast<sockaddr*>(&address), length), 0);
        QCOMPARE(listen(silent, 8), 0);
        QCOMPARE(getsockname(silent, reinterpret_cast<sockaddr*>(&address), &length), 0);
        const auto closeSilent = qScopeGuard([silent] { close(silent); });
        const std::string target = "host=127.0.0.1 port=" + std::to_string(ntohs(address.sin_port)) +
                                   " dbname=x user=u sslmode=disable";
        std::string message;
        QElapsedTimer clock;
        clock.start();
        try {
            Connection::open(target + " connect_timeout=2");
        } catch (const DbError& e) {
            message = e.what();
        }
        QVERIFY2(message.find("timeout expired") != std::string::npos, message.c_str());
        QVERIFY2(message.find("127.0.0.1") != std::string::npos, message.c_str());
        QVERIFY(clock.elapsed() < std::stoi(Connection::kDefaultConnectTimeout) * 1000);
        // Without one: Isobar's default, not libpq's (none, waiting forever) nor a shorter one.
        const QByteArray timeoutEnv = qgetenv("PGCONNECT_TIMEOUT");
        const QByteArray serviceEnv = qgetenv("PGSERVICE");
        qunsetenv("PGCONNECT_TIMEOUT");
        qunsetenv("PGSERVICE");
        const auto restoreEnv = qScopeGuard([&] {
            if (!timeoutEnv.isNull()) {
                qputenv("PGCONNECT_TIMEOUT", timeoutEnv);
            }
            if (!serviceEnv.isNull()) {
                qputenv("PGSERVICE", serviceEnv);
            }
        });
        message.clear();
        clock.restart();
        try {
            Connection::open(target);
        } catch (const DbError& e) {
            message = e.what();
        }
        QVERIFY2(message.find("timeout expired") != std::string::npos, message.c_str());
        // libpq counts whole seconds: the limit may end up to a second early.
        QVERIFY(clock.elapsed() >= (std::stoi(Connection::kDefaultConnectTimeout) - 2) * 1000);
    }

    // libpq quotes bad input in its parse errors; a password must not come back that way.
    void unparsableConnectionStringIsNotEchoed() {
        for (const char* dsn : {"postgresql://u:ab%zzSECRET@/db", "host=x password='SECRET"}) {
            try {
                Connection::open(dsn);
                QFAIL("expected a failure");
            } catch (const DbError& e) {
                QVERIFY2(std::string(e.what()).find("SECRET") == std::string::npos, e.what());
                QVERIFY2(std::string(e.what()).find("cannot be parsed") != std::string::npos, e.what());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestConnection)
#include "tst_connection.moc"
