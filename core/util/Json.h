// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace isobar {

// Isobar's own documents (run reports, durability journals, `--json` output) written and read
// through nlohmann-json. This layer keeps the callers' vocabulary: a writer that is told what comes
// next, and a forgiving reader.

// Builds one JSON document (objects, arrays, strings, numbers, booleans, null) in the order it is
// told, and prints it with two-space indentation. Non-finite numbers are written as null, since JSON
// has no NaN; text that is not UTF-8 is written with U+FFFD in place of the bytes that are not.
class JsonWriter {
public:
    JsonWriter();
    ~JsonWriter();
    JsonWriter(const JsonWriter&) = delete;
    JsonWriter& operator=(const JsonWriter&) = delete;

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(std::string_view name);
    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text) { return value(std::string_view(text)); }
    JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
    JsonWriter& value(double number);
    JsonWriter& value(std::int64_t number);
    JsonWriter& value(std::uint64_t number);
    JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
    JsonWriter& value(bool flag);
    JsonWriter& null();

    // key(name).value(v) in one call.
    template <typename T>
    JsonWriter& field(std::string_view name, const T& v) {
        key(name);
        return value(v);
    }

    // The document so far, ending with a newline.
    std::string str() const;

private:
    void add(nlohmann::ordered_json v, bool container);

    std::unique_ptr<nlohmann::ordered_json> root_;
    // The containers being filled, innermost last. Only the innermost one changes, so the
    // pointers to its ancestors stay valid.
    std::vector<nlohmann::ordered_json*> open_;
    std::string key_;
};

// A parsed JSON document (for reading back Isobar's own reports): null, bool, number, string,
// array or object. Accessors return a null value or the fallback for what is absent or of another
// type, so reading is forgiving. A value shares the document it was read from.
class JsonValue {
public:
    using Array = std::vector<JsonValue>;

    JsonValue() = default;

    // Throws isobar::Error saying where the text stops being JSON and why.
    static JsonValue parse(std::string_view text);

    bool isNull() const;
    bool isObject() const;
    bool isArray() const;
    double number(double fallback = 0.0) const;
    // Integers exactly (a row count above 2^53 too); a fractional number truncated; the fallback
    // for what does not fit.
    std::int64_t integer(std::int64_t fallback = 0) const;
    std::uint64_t unsignedInteger(std::uint64_t fallback = 0) const;
    std::string string(const std::string& fallback = {}) const;
    bool boolean(bool fallback = false) const;
    JsonValue operator[](const std::string& key) const;
    Array array() const;

private:
    explicit JsonValue(std::shared_ptr<const nlohmann::json> node)
        : node_(std::move(node)) {}

    // Points into the parsed document and keeps all of it alive; empty for an absent value.
    std::shared_ptr<const nlohmann::json> node_;
};

} // namespace isobar
