// Strict JSON reading for scenario and parameter files: nlohmann's SAX parser with our own
// DOM builder, so duplicate keys and absurd nesting are errors with a position or a path.
#include <algorithm>
#include <unordered_set>

#include "scenario/detail.hpp"

namespace swapsim::scenario::detail {
namespace {

class Builder {
public:
    using number_integer_t = ojson::number_integer_t;
    using number_unsigned_t = ojson::number_unsigned_t;
    using number_float_t = ojson::number_float_t;
    using string_t = ojson::string_t;
    using binary_t = ojson::binary_t;

    ojson root;
    std::string dup_path;       // set when a key repeats
    bool too_deep = false;
    size_t error_pos = 0;       // nlohmann's count of characters read at a syntax error
    std::string error_what;

    bool null() { return put(ojson(nullptr), false); }
    bool boolean(bool v) { return put(ojson(v), false); }
    bool number_integer(number_integer_t v) { return put(ojson(v), false); }
    bool number_unsigned(number_unsigned_t v) { return put(ojson(v), false); }
    bool number_float(number_float_t v, const string_t&) { return put(ojson(v), false); }
    bool string(string_t& v) { return put(ojson(std::move(v)), false); }
    bool binary(binary_t&) { return false; }  // not produced by JSON text
    bool start_object(size_t) { return put(ojson::object(), true); }
    bool start_array(size_t) { return put(ojson::array(), true); }
    bool end_object() { return pop(); }
    bool end_array() { return pop(); }

    bool key(string_t& k)
    {
        Level& top = stack_.back();
        if (!top.keys.insert(k).second) {
            dup_path = path_key(top.path, k);
            return false;
        }
        pending_path_ = path_key(top.path, k);
        // Uniqueness is checked above: append without ordered_map's linear search.
        auto& obj = top.value->get_ref<ojson::object_t&>();
        obj.ojson::object_t::Container::emplace_back(std::move(k), nullptr);
        pending_ = &obj.back().second;
        return true;
    }

    bool parse_error(size_t pos, const std::string&, const nlohmann::detail::exception& ex)
    {
        error_pos = pos;
        error_what = ex.what();
        return false;
    }

private:
    struct Level {
        ojson* value;
        std::string path;
        std::unordered_set<std::string> keys;
    };
    std::vector<Level> stack_;
    ojson* pending_ = nullptr;
    std::string pending_path_;

    bool put(ojson&& v, bool container)
    {
        ojson* slot;
        std::string path;
        if (stack_.empty()) {
            root = std::move(v);
            slot = &root;
            path = "$";
        } else if (stack_.back().value->is_array()) {
            ojson& arr = *stack_.back().value;
            path = path_index(stack_.back().path, arr.size());
            arr.push_back(std::move(v));
            slot = &arr.back();
        } else {
            *pending_ = std::move(v);
            slot = pending_;
            path = pending_path_;
        }
        if (container) {
            if (stack_.size() >= size_t(max_depth)) {
                too_deep = true;
                return false;
            }
            stack_.push_back({slot, std::move(path), {}});
        }
        return true;
    }

    bool pop()
    {
        stack_.pop_back();
        return true;
    }
};

// "FILE:LINE:COL" of the character at 0-based offset i (columns in bytes, 1-based).
std::string position(const std::string& file, const std::string& text, size_t i)
{
    i = std::min(i, text.size());
    size_t line = 1 + size_t(std::count(text.begin(), text.begin() + long(i), '\n'));
    size_t nl = i == 0 ? std::string::npos : text.rfind('\n', i - 1);
    size_t col = nl == std::string::npos ? i + 1 : i - nl;
    return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

// Offset of the bracket that opens nesting level max_depth + 1.
size_t deep_offset(const std::string& text)
{
    int depth = 0;
    bool in_string = false, escape = false;
    for (size_t i = 0; i < text.size(); i++) {
        char c = text[i];
        if (in_string) {
            if (escape)
                escape = false;
            else if (c == '\\')
                escape = true;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > max_depth)
                return i;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return text.size();
}

// nlohmann's message without its exception id, position and token echo; printable ASCII.
std::string short_reason(std::string w)
{
    if (!w.empty() && w[0] == '[') {
        size_t e = w.find("] ");
        if (e != std::string::npos)
            w.erase(0, e + 2);
    }
    if (w.rfind("parse error", 0) == 0) {
        size_t c = w.find(": ");
        if (c != std::string::npos)
            w.erase(0, c + 2);
    }
    if (w.rfind("syntax error while parsing ", 0) == 0) {
        size_t d = w.find(" - ");
        if (d != std::string::npos)
            w.erase(0, d + 3);
    }
    size_t lr = w.find("; last read: '");
    if (lr != std::string::npos) {
        size_t exp = w.find("'; expected ", lr);
        w.erase(lr, exp == std::string::npos ? std::string::npos : exp + 1 - lr);
    }
    std::string out;
    for (unsigned char c : w) {
        if (c >= 0x20 && c < 0x7f) {
            out += char(c);
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        }
    }
    if (out.size() > 120)
        out = out.substr(0, 117) + "...";
    return out;
}

}  // namespace

ojson parse_json(const std::string& text, const std::string& file)
{
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw InputError(file, "", "empty file: expected a JSON object");
    Builder b;
    bool ok = ojson::sax_parse(text.begin(), text.end(), &b, nlohmann::detail::input_format_t::json,
                               /*strict=*/true, /*ignore_comments=*/false);
    // nlohmann's lexer takes a NUL byte for the end of input: a parse that got there, whole or
    // cut short by it, would ignore what follows.
    const size_t nul = text.find('\0'), err_at = b.error_pos ? b.error_pos - 1 : 0;
    if (nul != std::string::npos && (ok || (b.dup_path.empty() && !b.too_deep && err_at >= nul)))
        throw InputError(position(file, text, nul), "", "malformed JSON: a NUL byte (a scenario is UTF-8 text)");
    if (ok)
        return std::move(b.root);
    if (!b.dup_path.empty())
        throw InputError(file, b.dup_path, "duplicate key; each key may appear only once in an object");
    if (b.too_deep)
        throw InputError(position(file, text, deep_offset(text)), "",
                         "malformed JSON: nested deeper than " + std::to_string(max_depth) + " levels");
    throw InputError(position(file, text, b.error_pos ? b.error_pos - 1 : 0), "",
                     "malformed JSON: " + short_reason(b.error_what));
}

nlohmann::json to_json(const ojson& v)
{
    switch (v.type()) {
    case ojson::value_t::object: {
        nlohmann::json o = nlohmann::json::object();
        for (const auto& [k, e] : v.items())
            o[k] = to_json(e);
        return o;
    }
    case ojson::value_t::array: {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& e : v)
            a.push_back(to_json(e));
        return a;
    }
    case ojson::value_t::string: return v.get<std::string>();
    case ojson::value_t::boolean: return v.get<bool>();
    case ojson::value_t::number_integer: return v.get<int64_t>();
    case ojson::value_t::number_unsigned: return v.get<uint64_t>();
    case ojson::value_t::number_float: return v.get<double>();
    default: return nullptr;
    }
}

}  // namespace swapsim::scenario::detail
