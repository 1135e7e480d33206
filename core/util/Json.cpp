// SPDX-License-Identifier: GPL-3.0-or-later

#include "util/Json.h"

#include "util/Error.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace isobar {

JsonWriter::JsonWriter()
    : root_(std::make_unique<nlohmann::ordered_json>()) {}

JsonWriter::~JsonWriter() = default;

void JsonWriter::add(nlohmann::ordered_json v, bool container) {
    nlohmann::ordered_json* slot = root_.get();
    if (!open_.empty()) {
        nlohmann::ordered_json& parent = *open_.back();
        if (parent.is_array()) {
            parent.push_back(std::move(v));
            slot = &parent.back();
        } else {
            slot = &(parent[key_] = std::move(v));
        }
    } else {
        *slot = std::move(v);
    }
    if (container) {
        open_.push_back(slot);
    }
}

JsonWriter& JsonWriter::beginObject() {
    add(nlohmann::ordered_json::object(), true);
    return *this;
}

JsonWriter& JsonWriter::endObject() {
    open_.pop_back();
    return *this;
}

JsonWriter& JsonWriter::beginArray() {
    add(nlohmann::ordered_json::array(), true);
    return *this;
}

JsonWriter& JsonWriter::endArray() {
    open_.pop_back();
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
    key_ = name;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
    add(std::string(text), false);
    return *this;
}

JsonWriter& JsonWriter::value(double number) {
    add(number, false); // nlohmann prints NaN and infinities as null
    return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
    add(number, false);
    return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t number) {
    add(number, false);
    return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
    add(flag, false);
    return *this;
}

JsonWriter& JsonWriter::null() {
    add(nullptr, false);
    return *this;
}

std::string JsonWriter::str() const {
    // A file name or a server message need not be UTF-8; the report is written all the same.
    return root_->dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + '\n';
}

namespace {

// "[json.exception.parse_error.101] parse error at line 1, column 36: syntax error while parsing
// array - unexpected end of input; expected ']'" -> " at line 1, column 36: syntax error ...".
std::string describe(const nlohmann::json::exception& e) {
    std::string what = e.what();
    if (const auto bracket = what.find("] "); what.starts_with("[json.exception.") && bracket != what.npos) {
        what.erase(0, bracket + 2);
    }
    if (what.starts_with("parse error at ")) {
        return what.substr(std::string_view("parse error").size());
    }
    return ": " + what;
}

} // namespace

JsonValue JsonValue::parse(std::string_view text) {
    try {
        return JsonValue(
            std::make_shared<const nlohmann::json>(nlohmann::json::parse(text.begin(), text.end())));
    } catch (const nlohmann::json::exception& e) {
        // parse_error, or out_of_range for a number beyond a double
        throw Error("not valid JSON" + describe(e));
    }
}

bool JsonValue::isNull() const {
    return !node_ || node_->is_null();
}

bool JsonValue::isObject() const {
    return node_ && node_->is_object();
}

bool JsonValue::isArray() const {
    return node_ && node_->is_array();
}

double JsonValue::number(double fallback) const {
    return node_ && node_->is_number() ? node_->get<double>() : fallback;
}

std::int64_t JsonValue::integer(std::int64_t fallback) const {
    if (!node_) {
        return fallback;
    }
    if (node_->is_number_unsigned()) {
        const auto u = node_->get<std::uint64_t>();
        return u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                   ? static_cast<std::int64_t>(u)
                   : fallback;
    }
    if (node_->is_number_integer()) {
        return node_->get<std::int64_t>();
    }
    if (node_->is_number_float()) {
        // 2^63 is exact as a double; anything in [-2^63, 2^63) converts without overflow.
        const double d = std::trunc(node_->get<double>());
        return d >= -0x1p63 && d < 0x1p63 ? static_cast<std::int64_t>(d) : fallback;
    }
    return fallback;
}

std::uint64_t JsonValue::unsignedInteger(std::uint64_t fallback) const {
    if (!node_) {
        return fallback;
    }
    if (node_->is_number_unsigned()) {
        return node_->get<std::uint64_t>();
    }
    if (node_->is_number_integer()) {
        const auto i = node_->get<std::int64_t>();
        return i >= 0 ? static_cast<std::uint64_t>(i) : fallback;
    }
    if (node_->is_number_float()) {
        const double d = std::trunc(node_->get<double>());
        return d >= 0 && d < 0x1p64 ? static_cast<std::uint64_t>(d) : fallback;
    }
    return fallback;
}

std::string JsonValue::string(const std::string& fallback) const {
    return node_ && node_->is_string() ? node_->get<std::string>() : fallback;
}

bool JsonValue::boolean(bool fallback) const {
    return node_ && node_->is_boolean() ? node_->get<bool>() : fallback;
}

JsonValue JsonValue::operator[](const std::string& key) const {
    if (!isObject()) {
        return {};
    }
    const auto it = node_->find(key);
    if (it == node_->end()) {
        return {};
    }
    // Aliasing: the member's value, owned by the whole document.
    return JsonValue(std::shared_ptr<const nlohmann::json>(node_, &*it));
}

JsonValue::Array JsonValue::array() const {
    Array out;
    if (isArray()) {
        out.reserve(node_->size());
        for (const auto& element : *node_) {
            out.push_back(JsonValue(std::shared_ptr<const nlohmann::json>(node_, &element)));
        }
    }
    return out;
}

} // namespace isobar
