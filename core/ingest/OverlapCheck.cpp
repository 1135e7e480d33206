// SPDX-License-Identifier: GPL-3.0-or-later

#include "ingest/OverlapCheck.h"

#include "ingest/LoadEvents.h"
#include "util/Format.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace isobar {

const char* overlapPolicyName(OverlapPolicy policy) {
    switch (policy) {
    case OverlapPolicy::Skip:
        return "skip";
    case OverlapPolicy::Replace:
        return "replace";
    case OverlapPolicy::Refuse:
        break;
    }
    return "refuse";
}

std::vector<std::string> OverlapCounts::describe() const {
    std::vector<std::string> out;
    if (era5tReplacedUnits > 0) {
        out.push_back("replaced " +
                      (era5tReplacedHours > 0 ? std::to_string(era5tReplacedHours) + " hour(s) of ERA5T"
                                              : std::string("ERA5T")) +
                      " by final ERA5 (" + std::to_string(era5tReplacedUnits) + " unit(s))");
    }
    if (overlapReplacedUnits > 0) {
        out.push_back("replaced " + std::to_string(overlapReplacedUnits) +
                      " unit(s) the table held with other values (--overlap replace)");
    }
    if (era5tReplacedUnits + overlapReplacedUnits > 0) {
        out.back() += "; " + formatThousands(replacedRows) + " earlier rows deleted";
    }
    if (sameUnits > 0) {
        out.push_back(formatThousands(sameRows) + " rows (" + std::to_string(sameUnits) +
                      " unit(s)) were in the table already from other files, with the same values: skipped");
    }
    if (keptUnits > 0) {
        out.push_back(formatThousands(keptRows) + " rows (" + std::to_string(keptUnits) +
                      " unit(s)) are in the table with other values: the table's kept (--overlap skip)");
    }
    return out;
}

OverlapPolicy parseOverlapPolicy(const std::string& text) {
    for (const OverlapPolicy p : {OverlapPolicy::Refuse, OverlapPolicy::Skip, OverlapPolicy::Replace}) {
        if (text == overlapPolicyName(p)) {
            return p;
        }
    }
    throw Error("--overlap takes refuse, skip or replace, not '" + text + "'");
}

namespace {

using Records = std::vector<const UnitRecord*>;

bool preliminary(const std::string& expver) {
    UnitOrigin o;
    o.expver = expver;
    return o.preliminary();
}

std::string sourceText(const UnitRecord& e) {
    std::string out = (e.files.empty() ? std::string("a load by an earlier version") : e.files) +
                      " (loaded " + e.committedAt;
    if (!e.expver.empty()) {
        out += ", expver " + e.expver;
    }
    return out + ")";
}

// Cuts `unit` (of a dense box) along the rectangles of `over` that overlap it, so that each piece
// lies inside the same ones of them throughout. Pieces go north to south, west to east, each with
// the records it lies in (none: rows no earlier unit holds).
std::vector<std::pair<WorkUnit, Records>> cut(const Dataset& dataset, const WorkUnit& unit,
                                              const Records& over) {
    const UnitPlace& u = unit.place;
    std::set<std::int32_t> rowBounds{u.south, u.north + 1};
    std::set<std::int32_t> colBounds{u.west, u.east + 1};
    for (const UnitRecord* e : over) {
        for (const std::int32_t r : {e->place.south, e->place.north + 1}) {
            if (r > u.south && r <= u.north) {
                rowBounds.insert(r);
            }
        }
        for (const std::int32_t c : {e->place.west, e->place.east + 1}) {
            if (c > u.west && c <= u.east) {
                colBounds.insert(c);
            }
        }
    }
    const std::vector<std::int32_t> rows(rowBounds.begin(), rowBounds.end());
    const std::vector<std::int32_t> cols(colBounds.begin(), colBounds.end());
    const GridBox& box = dataset.geometries()[dataset.steps()[unit.step].geometry].box;
    const std::int32_t n = dataset.grid().longitudes();
    std::vector<std::pair<WorkUnit, Records>> pieces;
    for (std::size_t ri = rows.size() - 1; ri-- > 0;) {
        const std::int32_t south = rows[ri];
        const std::int32_t north = rows[ri + 1] - 1;
        const auto inside = [&](std::int32_t west, std::int32_t east) {
            Records in;
            for (const UnitRecord* e : over) {
                const UnitPlace& p = e->place;
                if (p.south <= south && north <= p.north && p.west <= west && east <= p.east) {
                    in.push_back(e);
                }
            }
            return in;
        };
        for (std::size_t ci = 0; ci + 1 < cols.size();) {
            const Records in = inside(cols[ci], cols[ci + 1] - 1);
            std::size_t cj = ci + 1;
            while (cj + 1 < cols.size() && inside(cols[cj], cols[cj + 1] - 1) == in) {
                ++cj;
            }
            WorkUnit piece;
            piece.step = unit.step;
            piece.row0 = static_cast<std::uint32_t>(box.northRow - north);
            piece.rows = static_cast<std::uint32_t>(north - south + 1);
            piece.col0 = static_cast<std::uint32_t>(((cols[ci] - box.westColumn) % n + n) % n);
            piece.cols = static_cast<std::uint32_t>(cols[cj] - cols[ci]);
            piece.rowCount = static_cast<std::uint64_t>(piece.rows) * piece.cols;
            placeUnit(dataset, piece);
            pieces.emplace_back(std::move(piece), in);
            ci = cj;
        }
    }
    return pieces;
}

// Counts of one kind of decision per source, for one line each.
class Tally {
public:
    void add(const std::string& source, std::uint64_t rows, const UnitPlace& place) {
        Entry& e = entries_[source];
        ++e.units;
        e.rows += rows;
        for (std::int64_t t = place.time.micros; t <= place.last().micros; t += kMicrosPerHour) {
            e.times.insert(t);
        }
    }
    template <typename Line>
    void say(std::vector<std::string>& lines, Line line) const {
        std::size_t said = 0;
        for (const auto& [source, e] : entries_) {
            if (++said > kMostLines) {
                lines.push_back("... and " + std::to_string(entries_.size() - kMostLines) +
                                " more source(s) alike");
                break;
            }
            lines.push_back(line(source, e.units, e.rows, e.times.size()));
        }
    }
    std::uint64_t hours() const {
        std::set<std::int64_t> all;
        for (const auto& [source, e] : entries_) {
            all.insert(e.times.begin(), e.times.end());
        }
        return all.size();
    }

private:
    static constexpr std::size_t kMostLines = 5;
    struct Entry {
        std::uint64_t units = 0;
        std::uint64_t rows = 0;
        std::set<std::int64_t> times;
    };
    std::map<std::string, Entry> entries_;
};

// The times the units cover, as few spans as they make: times an hour apart or less join.
std::vector<TimeSpan> spansOf(const std::vector<WorkUnit>& units) {
    std::vector<TimeSpan> all;
    all.reserve(units.size());
    for (const WorkUnit& u : units) {
        all.push_back(TimeSpan{u.place.time, u.place.last()});
    }
    std::sort(all.begin(), all.end(), [](const TimeSpan& a, const TimeSpan& b) { return a.from < b.from; });
    std::vector<TimeSpan> spans;
    for (const TimeSpan& s : all) {
        if (!spans.empty() && s.from.micros <= spans.back().until.micros + kMicrosPerHour) {
            spans.back().until = std::max(spans.back().until, s.until);
        } else {
            spans.push_back(s);
        }
    }
    return spans;
}

std::string units(std::uint64_t n, std::uint64_t rows) {
    return std::to_string(n) + " unit(s), " + formatThousands(rows) + " rows";
}

} // namespace

OverlapOutcome resolveOverlaps(Connection& conn, const LedgerTarget& ledger, const UnitSource& source,
                               LoadPlan& plan, const OverlapTarget& target) {
    OverlapOutcome out;
    const Dataset& dataset = source.dataset();
    const std::vector<TimeSpan> times = spansOf(plan.units());
    // One round trip, unless units of an earlier version are there to be given their place first.
    std::vector<std::string> unplaced;
    std::vector<UnitRecord> recorded = recordedUnitsAt(conn, ledger, times, &unplaced);
    if (!unplaced.empty()) {
        // Committed on its own (this transaction holds only the ledger-move lock, which the
        // update does not need); this transaction's next statement sees it.
        Connection own = Connection::open(target.conninfo, "isobar");
        out.legacyUnits = migrateLegacyUnits(own, ledger, dataset.grid(), unplaced);
        if (out.legacyUnits > 0) {
            recorded = recordedUnitsAt(conn, ledger, times);
        }
    }
    if (recorded.empty()) {
        return out;
    }
    // Units of one time step by (time, level); units of many hours (inside one month) by (the
    // month they start in, level).
    std::map<std::pair<std::int64_t, std::optional<double>>, Records> byTime;
    std::map<std::pair<std::int64_t, std::optional<double>>, Records> byMonth;
    for (const UnitRecord& r : recorded) {
        if (r.place.until) {
            byMonth[{monthStart(r.place.time).micros, r.place.level}].push_back(&r);
        } else {
            byTime[{r.place.time.micros, r.place.level}].push_back(&r);
        }
    }

    Tally same;
    Tally era5t;
    Tally kept;
    Tally replaced;
    RawUnit raw;
    DecodedBand band;
    std::vector<WorkUnit> result;
    result.reserve(plan.units().size());
    for (const WorkUnit& unit : plan.units()) {
        Records over;
        const auto gather = [&unit, &over](const auto& index, std::int64_t at) {
            if (const auto it = index.find({at, unit.place.level}); it != index.end()) {
                for (const UnitRecord* e : it->second) {
                    if (e->place.overlaps(unit.place)) {
                        over.push_back(e);
                    }
                }
            }
        };
        if (!byTime.empty()) {
            // A unit of many hours meets the units of one step at each of them.
            for (std::int64_t t = unit.place.time.micros; t <= unit.place.last().micros;
                 t += kMicrosPerHour) {
                gather(byTime, t);
            }
        }
        if (!byMonth.empty()) {
            gather(byMonth, monthStart(unit.place.time).micros);
        }
        if (over.empty()) {
            result.push_back(unit);
            continue;
        }
        // Sparse places, and units of hours (one point: nothing to cut in space), go whole.
        const bool sparse =
            unit.place.sparse || unit.hours > 1 ||
            std::any_of(over.begin(), over.end(), [](const UnitRecord* e) { return e->place.sparse; });
        const bool exactOne = over.size() == 1 && (over.front()->key == unit.key ||
                                                   (!sparse && over.front()->place.sameExtent(unit.place)));
        std::vector<std::pair<WorkUnit, Records>> pieces;
        if (sparse || exactOne) {
            pieces.emplace_back(unit, over); // compared whole
        } else {
            pieces = cut(dataset, unit, over);
            ++out.splitUnits;
        }
        const UnitOrigin& origin = plan.originOf(unit);
        for (auto& [piece, in] : pieces) {
            if (in.empty()) {
                result.push_back(std::move(piece));
                continue;
            }
            const bool sameFiles = std::all_of(in.begin(), in.end(), [&origin](const UnitRecord* e) {
                return (e->filesPrint != 0 && e->filesPrint == origin.filesPrint) ||
                       (e->legacyPrint != 0 && e->legacyPrint == origin.legacyPrint);
            });
            if (sameFiles) { // a rerun: these files' rows are there
                out.done.insert(piece.key);
                ++out.resumedUnits;
                result.push_back(std::move(piece));
                continue;
            }
            const UnitRecord& e = *in.front();
            const bool exact = in.size() == 1 &&
                               (e.key == piece.key ||
                                (!e.place.sparse && !piece.place.sparse && e.place.sameExtent(piece.place)));
            std::string why;
            if (exact) {
                if (e.columns == origin.columns && e.valuesPrint != 0) {
                    source.fetch(piece, raw);
                    source.decode(raw, band);
                    if (source.print(piece, band) == e.valuesPrint) {
                        out.done.insert(piece.key);
                        ++out.sameUnits;
                        out.sameRows += e.rows;
                        same.add(e.files + " on " + e.committedAt, e.rows, piece.place);
                        result.push_back(std::move(piece));
                        continue;
                    }
                }
                if (preliminary(e.expver) && origin.final()) {
                    ++out.era5tUnits;
                    era5t.add(e.files + " (expver " + e.expver + ")", piece.rowCount, piece.place);
                    piece.replaces.push_back(ReplacedUnit{e.key, e.place, e.rows});
                    piece.finalOverEra5t = true;
                    result.push_back(std::move(piece));
                    continue;
                }
                why = e.valuesPrint == 0 ? "without a record of its values (loaded by an earlier version)"
                      : e.columns != origin.columns
                          ? "filled from other variables (" + e.columns + ") than these files give it (" +
                                origin.columns + ")"
                          : "with other values than " + origin.files + " have";
            } else if (piece.hours > 1) {
                // Hours are compared as whole units (so far): these files' hours of the month
                // against units of other hours.
                why = "and these files' unit " + piece.key + " shares only some of its hours with it" +
                      (in.size() > 1 ? " (and with " + std::to_string(in.size() - 1) + " more)"
                                     : std::string()) +
                      " (units of a point's hours are compared whole: load files whose hours begin after "
                      "the table's, or these into another table)";
            } else {
                why =
                    "and " + piece.key + " of these files is only part of it" +
                    (in.size() > 1 ? " (and of " + std::to_string(in.size() - 1) + " more)" : std::string());
            }
            const std::string unitText = "table " + target.table + " already holds unit " + e.key + " from " +
                                         sourceText(e) + " " + why;
            if (target.policy == OverlapPolicy::Skip && !exact && piece.hours > 1) {
                // Skipping it whole would leave out its hours the table does not hold.
                throw OverlapRefused(unitText +
                                     ": --overlap skip keeps the table's rows of whole units only, and these "
                                     "files' unit of hours reaches beyond them. Nothing was loaded");
            }
            if (target.policy == OverlapPolicy::Skip) {
                out.done.insert(piece.key);
                ++out.keptUnits;
                out.keptRows += piece.rowCount;
                kept.add(e.files, piece.rowCount, piece.place);
                result.push_back(std::move(piece));
                continue;
            }
            if (target.policy == OverlapPolicy::Replace && exact) {
                ++out.replacedUnits;
                replaced.add(e.files, piece.rowCount, piece.place);
                piece.replaces.push_back(ReplacedUnit{e.key, e.place, e.rows});
                result.push_back(std::move(piece));
                continue;
            }
            if (target.policy == OverlapPolicy::Replace) {
                throw OverlapRefused(
                    unitText +
                    ": --overlap replace replaces whole units only, and that one reaches beyond "
                    "these files' rows. Nothing was loaded. Load the same box as that load did, or "
                    "use --overlap skip to keep the table's rows");
            }
            throw OverlapRefused(unitText +
                                 ": nothing was loaded. Use --overlap skip to keep the table's rows, or "
                                 "--overlap replace to put these files' rows in their place");
        }
    }
    plan.setUnits(std::move(result));
    out.era5tHours = era5t.hours();
    if (out.splitUnits > 0) {
        out.lines.push_back(
            std::to_string(out.splitUnits) +
            " unit(s) share only some of their rows with units of another box loaded earlier: cut "
            "along them, so that the rows only these files have load");
    }
    same.say(out.lines, [](const std::string& src, std::uint64_t n, std::uint64_t rows, std::size_t) {
        return units(n, rows) + " already loaded from " + src + " (the same values): skipped";
    });
    era5t.say(out.lines, [](const std::string& src, std::uint64_t n, std::uint64_t rows, std::size_t hours) {
        return "replacing " + std::to_string(hours) + " hour(s) of ERA5T from " + src + " by final ERA5 (" +
               units(n, rows) + ")";
    });
    kept.say(out.lines, [](const std::string& src, std::uint64_t n, std::uint64_t rows, std::size_t) {
        return units(n, rows) + " already in the table from " + src +
               " with other values: the table's kept (--overlap skip)";
    });
    replaced.say(out.lines, [](const std::string& src, std::uint64_t n, std::uint64_t rows, std::size_t) {
        return units(n, rows) + " already in the table from " + src +
               " with other values: replaced by these files' (--overlap replace)";
    });
    return out;
}

} // namespace isobar
