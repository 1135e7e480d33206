// SPDX-License-Identifier: GPL-3.0-or-later

#include "ingest/OverlapCheck.h"

#include "db/TableReadBack.h"
#include "ingest/LoadEvents.h"
#include "util/Format.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <chrono>
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

// Cuts `run`, a unit of a point's hours, in time at the first hour and after the last hour of
// each of `over` that falls inside it, so that each piece lies inside the same ones of them
// throughout (one point: nothing to cut in space). Pieces go in time order, each with the records
// it lies in (none: hours no earlier unit holds); a piece of one hour is the unit a load by the
// hour makes, key included.
std::vector<std::pair<WorkUnit, Records>> cutInTime(const Dataset& dataset, const LoadPlan& plan,
                                                    const WorkUnit& run, const Records& over) {
    const std::int64_t first = run.place.time.micros;
    const auto hourOf = [first](PgTimestamp t) {
        return (t.micros - first) / kMicrosPerHour;
    };
    std::set<std::int64_t> bounds{0, run.hours};
    for (const UnitRecord* e : over) {
        for (const std::int64_t h : {hourOf(e->place.time), hourOf(e->place.last()) + 1}) {
            if (h > 0 && h < run.hours) {
                bounds.insert(h);
            }
        }
    }
    std::vector<std::pair<WorkUnit, Records>> pieces;
    if (bounds.size() == 2) {
        pieces.emplace_back(run, over); // inside all of them
        return pieces;
    }
    const std::vector<std::int64_t> at(bounds.begin(), bounds.end());
    for (std::size_t i = 0; i + 1 < at.size(); ++i) {
        WorkUnit piece = plan.hoursOf(dataset, run, static_cast<std::uint32_t>(at[i]),
                                      static_cast<std::uint32_t>(at[i + 1] - at[i]));
        Records in;
        for (const UnitRecord* e : over) {
            if (e->place.time <= piece.place.time && piece.place.last() <= e->place.last()) {
                in.push_back(e);
            }
        }
        pieces.emplace_back(std::move(piece), std::move(in));
    }
    return pieces;
}

// Decides, piece by piece, what the load does with rows the table holds already; the pieces that
// lie inside a larger unit from other files wait to be compared with the table's rows, read back
// together (compareInside).
class Resolver {
public:
    Resolver(const UnitSource& source, const LoadPlan& plan, const OverlapTarget& target, OverlapOutcome& out)
        : source_(source)
        , plan_(plan)
        , target_(target)
        , out_(out) {}

    // `in`: the records the piece lies in.
    void decide(WorkUnit piece, const Records& in) {
        const std::size_t index = units_.size();
        units_.push_back(std::move(piece));
        const WorkUnit& p = units_.back();
        const UnitOrigin& origin = plan_.originOf(p);
        if (in.empty()) {
            return;
        }
        const bool sameFiles = std::all_of(in.begin(), in.end(), [&origin](const UnitRecord* e) {
            return (e->filesPrint != 0 && e->filesPrint == origin.filesPrint) ||
                   (e->legacyPrint != 0 && e->legacyPrint == origin.legacyPrint);
        });
        if (sameFiles) { // a rerun: these files' rows are there
            out_.done.insert(p.key);
            ++out_.resumedUnits;
            return;
        }
        const UnitRecord& e = *in.front();
        const bool exact =
            in.size() == 1 &&
            (e.key == p.key || (!e.place.sparse && !p.place.sparse && e.place.sameExtent(p.place)));
        if (exact) {
            if (e.columns == origin.columns && e.valuesPrint != 0 && printOf(p) == e.valuesPrint) {
                same(index, e, e.rows);
                return;
            }
            if (preliminary(e.expver) && origin.final()) {
                WorkUnit& u = units_[index];
                ++out_.era5tUnits;
                era5t_.add(e.files + " (expver " + e.expver + ")", u.rowCount, u.place);
                u.replaces.push_back(ReplacedUnit{e.key, e.place, e.rows});
                u.finalOverEra5t = true;
                return;
            }
            otherValues(index, e, true,
                        e.valuesPrint == 0 ? "without a record of its values (loaded by an earlier version)"
                        : e.columns != origin.columns
                            ? "filled from other variables (" + e.columns + ") than these files give it (" +
                                  origin.columns + ")"
                            : "with other values than " + origin.files + " have");
            return;
        }
        if (in.size() == 1 && !e.place.sparse && !p.place.sparse && e.place.contains(p.place) &&
            e.columns == origin.columns) {
            inside_.emplace_back(index, &e); // compared with the table's rows (compareInside)
            return;
        }
        otherValues(
            index, e, false,
            "and " + p.key + " of these files is only part of it" +
                (in.size() > 1 ? " (and of " + std::to_string(in.size() - 1) + " more)" : std::string()));
    }

    // The pieces inside larger units of other files: their rows against the table's, read back
    // (in statements of at most kPlacesPerRead places, at most kMostRowsReadBack rows in all).
    void compareInside(Connection& conn) {
        if (inside_.empty()) {
            return;
        }
        std::uint64_t rows = 0;
        for (const auto& [index, e] : inside_) {
            rows += units_[index].rowCount;
        }
        if (rows > kMostRowsReadBack) {
            const UnitRecord& e = *inside_.front().second;
            const std::string first = "table " + target_.table + " already holds unit " + e.key + " from " +
                                      sourceText(e) + ", and " + units_[inside_.front().first].key +
                                      " of these files is only part of it";
            if (target_.policy != OverlapPolicy::Skip) {
                throw OverlapRefused(first + "; " + std::to_string(inside_.size()) + " such pieces hold " +
                                     formatThousands(rows) + " rows, more than the " +
                                     formatThousands(kMostRowsReadBack) +
                                     " a load compares by reading them back from the table. Nothing was "
                                     "loaded. Use --overlap skip to keep the table's rows");
            }
            for (const auto& [at, record] : inside_) {
                kept(at, *record);
            }
            return;
        }
        const auto t0 = std::chrono::steady_clock::now();
        BinaryCopyBuffer encoded(1U << 16U);
        for (std::size_t from = 0; from < inside_.size(); from += kPlacesPerRead) {
            const std::size_t to = std::min(inside_.size(), from + kPlacesPerRead);
            std::vector<UnitPlace> places;
            std::vector<std::string> expected;
            for (std::size_t k = from; k < to; ++k) {
                const WorkUnit& u = units_[inside_[k].first];
                source_.fetch(u, raw_);
                source_.decode(raw_, band_);
                encoded.clear();
                source_.encode(u, band_, encoded);
                places.push_back(u.place);
                expected.emplace_back(encoded.data(), encoded.size());
            }
            const std::vector<bool> equal =
                tableHolds(conn, target_.rows, source_.dataset().grid(), places, expected);
            for (std::size_t k = from; k < to; ++k) {
                const auto& [index, e] = inside_[k];
                if (equal[k - from]) {
                    same(index, *e, units_[index].rowCount);
                } else if (preliminary(e->expver) && plan_.originOf(units_[index]).final()) {
                    otherValues(index, *e, false,
                                "(ERA5T) with other values, and these files' " + units_[index].key +
                                    " is only part of it: final ERA5 replaces ERA5T unit by unit, so load "
                                    "files that hold every hour of it");
                } else {
                    otherValues(index, *e, false,
                                "and " + units_[index].key +
                                    " of these files is only part of it, with other "
                                    "values");
                }
            }
        }
        out_.lines.push_back(
            "compared " + std::to_string(inside_.size()) + " piece(s) of these files (" +
            formatThousands(rows) +
            " rows) that lie inside units loaded from other files with the table's rows, read back in " +
            fmt::format("{:.1f} s",
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
    }

    std::vector<WorkUnit> takeUnits() { return std::move(units_); }

    void say() {
        same_.say(out_.lines, [](const std::string& src, std::uint64_t n, std::uint64_t rows, std::size_t) {
            return units(n, rows) + " already loaded from " + src + " (the same values): skipped";
        });
        era5t_.say(out_.lines,
                   [](const std::string& src, std::uint64_t n, std::uint64_t rows, std::size_t hours) {
                       return "replacing " + std::to_string(hours) + " hour(s) of ERA5T from " + src +
                              " by final ERA5 (" + units(n, rows) + ")";
                   });
        kept_.say(out_.lines, [](const std::string& src, std::uint64_t n, std::uint64_t rows, std::size_t) {
            return units(n, rows) + " already in the table from " + src +
                   " with other values: the table's kept (--overlap skip)";
        });
        replaced_.say(out_.lines,
                      [](const std::string& src, std::uint64_t n, std::uint64_t rows, std::size_t) {
                          return units(n, rows) + " already in the table from " + src +
                                 " with other values: replaced by these files' (--overlap replace)";
                      });
        out_.era5tHours = era5t_.hours();
    }

private:
    static constexpr std::uint64_t kMostRowsReadBack = 1'000'000;
    static constexpr std::size_t kPlacesPerRead = 500;

    std::uint64_t printOf(const WorkUnit& unit) {
        source_.fetch(unit, raw_);
        source_.decode(raw_, band_);
        return source_.print(unit, band_);
    }

    void same(std::size_t index, const UnitRecord& e, std::uint64_t rows) {
        const WorkUnit& u = units_[index];
        out_.done.insert(u.key);
        ++out_.sameUnits;
        out_.sameRows += rows;
        same_.add(e.files + " on " + e.committedAt, rows, u.place);
    }

    void kept(std::size_t index, const UnitRecord& e) {
        const WorkUnit& u = units_[index];
        out_.done.insert(u.key);
        ++out_.keptUnits;
        out_.keptRows += u.rowCount;
        kept_.add(e.files, u.rowCount, u.place);
    }

    // Rows the table holds with other values (or that cannot be compared): as the policy says.
    void otherValues(std::size_t index, const UnitRecord& e, bool exact, const std::string& why) {
        const std::string unitText =
            "table " + target_.table + " already holds unit " + e.key + " from " + sourceText(e) + " " + why;
        switch (target_.policy) {
        case OverlapPolicy::Skip: // the piece lies inside e: the table's rows of it are e's
            kept(index, e);
            return;
        case OverlapPolicy::Replace:
            if (exact) {
                WorkUnit& u = units_[index];
                ++out_.replacedUnits;
                replaced_.add(e.files, u.rowCount, u.place);
                u.replaces.push_back(ReplacedUnit{e.key, e.place, e.rows});
                return;
            }
            throw OverlapRefused(unitText +
                                 ": --overlap replace replaces whole units only, and that one reaches beyond "
                                 "these files' rows. Nothing was loaded. Load the same box and hours as that "
                                 "load did, or use --overlap skip to keep the table's rows");
        case OverlapPolicy::Refuse:
            break;
        }
        throw OverlapRefused(unitText + ": nothing was loaded. Use --overlap skip to keep the table's rows" +
                             (exact ? ", or --overlap replace to put these files' rows in their place"
                                    : " (--overlap replace replaces whole units only, and that one reaches "
                                      "beyond these files' rows)"));
    }

    const UnitSource& source_;
    const LoadPlan& plan_;
    const OverlapTarget& target_;
    OverlapOutcome& out_;
    std::vector<WorkUnit> units_;
    std::vector<std::pair<std::size_t, const UnitRecord*>> inside_; // (index in units_, the record)
    Tally same_;
    Tally era5t_;
    Tally kept_;
    Tally replaced_;
    RawUnit raw_;
    DecodedBand band_;
};

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

    Resolver resolver(source, plan, target, out);
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
            resolver.decide(unit, over);
            continue;
        }
        std::vector<std::pair<WorkUnit, Records>> pieces;
        if (unit.hours > 1) { // one point: cut in time only
            pieces = cutInTime(dataset, plan, unit, over);
        } else if (unit.place.sparse ||
                   std::any_of(over.begin(), over.end(),
                               [](const UnitRecord* e) { return e->place.sparse; }) ||
                   (over.size() == 1 &&
                    (over.front()->key == unit.key || over.front()->place.sameExtent(unit.place)))) {
            pieces.emplace_back(unit, over); // sparse places, and the same place, go whole
        } else {
            pieces = cut(dataset, unit, over);
        }
        if (pieces.size() > 1) {
            ++out.splitUnits;
        }
        for (auto& [piece, in] : pieces) {
            resolver.decide(std::move(piece), in);
        }
    }
    resolver.compareInside(conn);
    plan.setUnits(resolver.takeUnits());
    if (out.splitUnits > 0) {
        out.lines.insert(out.lines.begin(),
                         std::to_string(out.splitUnits) +
                             " unit(s) share only some of their rows with units loaded earlier (of another "
                             "box or other hours): cut along them, so that the rows only these files have "
                             "load");
    }
    resolver.say();
    return out;
}

} // namespace isobar
