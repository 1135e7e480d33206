#pragma once

#include <cstdint>
#include <string>

namespace isobar {

// "850ms", "5.12s", "1m2.5s", "2h3m4s": short and unambiguous, like Go's durations.
std::string formatDuration(double seconds);

// Whole seconds, for progress lines: "45s", "1m5s", "2h3m".
std::string formatWholeSeconds(double seconds);

// "COPY 4152960, took 5.12s with 1 worker(s) (mean rate 811125.0/sec)", the line every load ends with.
std::string formatCopySummary(std::uint64_t rows, double seconds, int workers);

// The current UTC time in a strftime format ("%Y-%m-%dT%H:%M:%SZ").
std::string formatUtcNow(const char* format);

// Coordinates and spacings as people write them: 55.695, not 55.69499969 (the float32 a file holds).
std::string formatCoordinate(double v);

// "123.4 MiB"
std::string formatBytes(std::uint64_t bytes);

} // namespace isobar
