#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace isobar {

// A small streaming JSON writer (objects, arrays, strings, numbers, booleans, null) with two-space
// indentation. Non-finite numbers are written as null, since JSON has no NaN.
class JsonWriter {
public:
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

    const std::string& str() const noexcept { return out_; }

    static std::string escape(std::string_view text);

private:
    void beforeValue();
    void newline();

    std::string out_;
    struct Level {
        bool array;
        bool empty;
    };
    std::vector<Level> stack_;
    bool afterKey_ = false;
};

// A parsed JSON document (for reading back Isobar's own reports): null, bool, number, string,
// array or object. Accessors return a null value for what is absent, so reading is forgiving.
class JsonValue {
public:
    using Array = std::vector<JsonValue>;
    using Object = std::map<std::string, JsonValue>;

    JsonValue() = default;
    explicit JsonValue(bool b)
        : v_(b) {}
    explicit JsonValue(double d)
        : v_(d) {}
    explicit JsonValue(std::string s)
        : v_(std::move(s)) {}
    explicit JsonValue(Array a)
        : v_(std::make_shared<Array>(std::move(a))) {}
    explicit JsonValue(Object o)
        : v_(std::make_shared<Object>(std::move(o))) {}

    // Throws isobar::Error with the position of the first problem.
    static JsonValue parse(std::string_view text);

    bool isNull() const { return std::holds_alternative<std::monostate>(v_); }
    bool isObject() const { return std::holds_alternative<std::shared_ptr<Object>>(v_); }
    bool isArray() const { return std::holds_alternative<std::shared_ptr<Array>>(v_); }
    double number(double fallback = 0.0) const;
    std::string string(const std::string& fallback = {}) const;
    bool boolean(bool fallback = false) const;
    const JsonValue& operator[](const std::string& key) const;
    const Array& array() const;
    const Object& object() const;

private:
    std::variant<std::monostate, bool, double, std::string, std::shared_ptr<Array>, std::shared_ptr<Object>>
        v_;
};

} // namespace isobar
