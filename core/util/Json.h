#pragma once

#include <cstdint>
#include <string>
#include <string_view>
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

} // namespace isobar
