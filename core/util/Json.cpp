#include "util/Json.h"

#include "util/Error.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace isobar {

std::string JsonWriter::escape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += ch;
            }
        }
    }
    return out;
}

void JsonWriter::newline() {
    out_ += '\n';
    out_.append(stack_.size() * 2, ' ');
}

void JsonWriter::beforeValue() {
    if (afterKey_) {
        afterKey_ = false;
        return;
    }
    if (!stack_.empty()) {
        if (!stack_.back().empty) {
            out_ += ',';
        }
        stack_.back().empty = false;
        newline();
    }
}

JsonWriter& JsonWriter::beginObject() {
    beforeValue();
    out_ += '{';
    stack_.push_back({false, true});
    return *this;
}

JsonWriter& JsonWriter::endObject() {
    const bool empty = stack_.back().empty;
    stack_.pop_back();
    if (!empty) {
        newline();
    }
    out_ += '}';
    if (stack_.empty()) {
        out_ += '\n';
    }
    return *this;
}

JsonWriter& JsonWriter::beginArray() {
    beforeValue();
    out_ += '[';
    stack_.push_back({true, true});
    return *this;
}

JsonWriter& JsonWriter::endArray() {
    const bool empty = stack_.back().empty;
    stack_.pop_back();
    if (!empty) {
        newline();
    }
    out_ += ']';
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
    beforeValue();
    out_ += '"' + escape(name) + "\": ";
    afterKey_ = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
    beforeValue();
    out_ += '"' + escape(text) + '"';
    return *this;
}

JsonWriter& JsonWriter::value(double number) {
    beforeValue();
    if (!std::isfinite(number)) {
        out_ += "null";
        return *this;
    }
    // The shortest of %.15g / %.17g that reads back as the same double: 0.1, not 0.10000000000000001.
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", number);
    if (std::strtod(buf, nullptr) != number) {
        std::snprintf(buf, sizeof buf, "%.17g", number);
    }
    out_ += buf;
    return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
    beforeValue();
    out_ += std::to_string(number);
    return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t number) {
    beforeValue();
    out_ += std::to_string(number);
    return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
    beforeValue();
    out_ += flag ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null() {
    beforeValue();
    out_ += "null";
    return *this;
}

namespace {

class JsonParser {
public:
    explicit JsonParser(std::string_view text)
        : t_(text) {}

    JsonValue document() {
        JsonValue v = value();
        skipSpace();
        if (p_ != t_.size()) {
            fail("text after the document");
        }
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw Error("not valid JSON at byte " + std::to_string(p_) + ": " + what);
    }
    void skipSpace() {
        while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t')) {
            ++p_;
        }
    }
    bool consume(std::string_view word) {
        if (t_.substr(p_, word.size()) == word) {
            p_ += word.size();
            return true;
        }
        return false;
    }
    JsonValue value() {
        skipSpace();
        if (p_ >= t_.size()) {
            fail("unexpected end");
        }
        const char c = t_[p_];
        if (c == '{') {
            ++p_;
            JsonValue::Object o;
            skipSpace();
            if (consume("}")) {
                return JsonValue(std::move(o));
            }
            for (;;) {
                skipSpace();
                std::string key = stringValue();
                skipSpace();
                if (!consume(":")) {
                    fail("expected ':'");
                }
                o[key] = value();
                skipSpace();
                if (consume("}")) {
                    return JsonValue(std::move(o));
                }
                if (!consume(",")) {
                    fail("expected ',' or '}'");
                }
            }
        }
        if (c == '[') {
            ++p_;
            JsonValue::Array a;
            skipSpace();
            if (consume("]")) {
                return JsonValue(std::move(a));
            }
            for (;;) {
                a.push_back(value());
                skipSpace();
                if (consume("]")) {
                    return JsonValue(std::move(a));
                }
                if (!consume(",")) {
                    fail("expected ',' or ']'");
                }
            }
        }
        if (c == '"') {
            return JsonValue(stringValue());
        }
        if (consume("true")) {
            return JsonValue(true);
        }
        if (consume("false")) {
            return JsonValue(false);
        }
        if (consume("null")) {
            return JsonValue();
        }
        const char* begin = t_.data() + p_;
        char* end = nullptr;
        const double d = std::strtod(begin, &end);
        if (end == begin) {
            fail("unexpected character");
        }
        p_ += static_cast<std::size_t>(end - begin);
        return JsonValue(d);
    }
    std::string stringValue() {
        if (!consume("\"")) {
            fail("expected a string");
        }
        std::string out;
        while (p_ < t_.size() && t_[p_] != '"') {
            char c = t_[p_++];
            if (c != '\\') {
                out += c;
                continue;
            }
            if (p_ >= t_.size()) {
                fail("unterminated escape");
            }
            c = t_[p_++];
            switch (c) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'u': {
                if (p_ + 4 > t_.size()) {
                    fail("short \\u escape");
                }
                const unsigned code =
                    static_cast<unsigned>(std::stoul(std::string(t_.substr(p_, 4)), nullptr, 16));
                p_ += 4;
                // UTF-8 (surrogate pairs are not produced by Isobar's writer).
                if (code < 0x80) {
                    out += static_cast<char>(code);
                } else if (code < 0x800) {
                    out += static_cast<char>(0xC0 | (code >> 6));
                    out += static_cast<char>(0x80 | (code & 0x3F));
                } else {
                    out += static_cast<char>(0xE0 | (code >> 12));
                    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
                    out += static_cast<char>(0x80 | (code & 0x3F));
                }
                break;
            }
            default:
                out += c;
            }
        }
        if (!consume("\"")) {
            fail("unterminated string");
        }
        return out;
    }

    std::string_view t_;
    std::size_t p_ = 0;
};

const JsonValue& nullValue() {
    static const JsonValue v;
    return v;
}

} // namespace

JsonValue JsonValue::parse(std::string_view text) {
    return JsonParser(text).document();
}

double JsonValue::number(double fallback) const {
    if (const auto* d = std::get_if<double>(&v_)) {
        return *d;
    }
    return fallback;
}

std::string JsonValue::string(const std::string& fallback) const {
    if (const auto* s = std::get_if<std::string>(&v_)) {
        return *s;
    }
    return fallback;
}

bool JsonValue::boolean(bool fallback) const {
    if (const auto* b = std::get_if<bool>(&v_)) {
        return *b;
    }
    return fallback;
}

const JsonValue& JsonValue::operator[](const std::string& key) const {
    if (const auto* o = std::get_if<std::shared_ptr<Object>>(&v_)) {
        const auto it = (*o)->find(key);
        if (it != (*o)->end()) {
            return it->second;
        }
    }
    return nullValue();
}

const JsonValue::Array& JsonValue::array() const {
    static const Array empty;
    if (const auto* a = std::get_if<std::shared_ptr<Array>>(&v_)) {
        return **a;
    }
    return empty;
}

const JsonValue::Object& JsonValue::object() const {
    static const Object empty;
    if (const auto* o = std::get_if<std::shared_ptr<Object>>(&v_)) {
        return **o;
    }
    return empty;
}

} // namespace isobar
