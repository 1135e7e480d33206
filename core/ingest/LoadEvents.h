#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

// A failure as a value: what the user needs to act on it, whatever thread it happened on.
struct LoadError {
    std::string file;     // the file being read or sent when it happened (empty: not file-specific)
    std::string variable; // the variable, when one is concerned
    std::string unit;     // the work unit, when one is concerned
    int worker = -1;      // the worker, when one is concerned
    std::string sqlState; // the server's SQLSTATE, when the server reported it
    std::string message;  // one line (or a few) naming what is wrong
};

enum class LoadStatus { Completed, Cancelled, Failed };

struct LoadStart {
    std::vector<std::string> files;
    std::string target; // connection target, without password
    std::string table;
    std::uint64_t plannedRows = 0;
    int workers = 1;
};

struct LoadSummary {
    LoadStatus status = LoadStatus::Failed;
    std::uint64_t rows = 0;        // rows committed
    std::uint64_t skippedRows = 0; // rows whose every value was missing, skipped by request
    std::uint64_t bytes = 0;       // COPY bytes sent
    double seconds = 0.0;
    int workers = 1;
    bool tableCreated = false;
    std::optional<LoadError> error; // set when status == Failed
};

// Where a load's events go. The CLI prints them, the GUI adapter turns them into Qt signals, the
// tests record them. Called on the loading thread; implementations must not block for long.
class LoadSink {
public:
    virtual ~LoadSink() = default;
    virtual void started(const LoadStart&) {}
    virtual void warning(const std::string&) {}
    // Facts about the input worth knowing (layout, merged expver, gaps, ...), not problems.
    virtual void note(const std::string&) {}
    virtual void finished(const LoadSummary&) {}
    virtual void failed(const LoadError&) {}
};

} // namespace isobar
