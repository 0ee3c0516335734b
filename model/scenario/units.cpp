// Units: "40G" (memparse: binary), "500ms", "530MB/s" (decimal), "2GiB/s", "2.5GHz";
// kernel cpulists; the human form of every kind; the words of error messages.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "scenario/detail.hpp"

namespace swapsim::scenario {
namespace {

using detail::show;

struct Suffix {
    const char* text;
    int pow10;    // decimal multiplier 10^pow10
    int pow1024;  // binary multiplier 1024^pow1024
};

// Sizes follow memparse: one case-insensitive letter, binary; KiB/KB/kB spellings accepted.
constexpr Suffix size_suffixes[] = {
    {"", 0, 0},   {"b", 0, 0},   {"k", 0, 1},  {"kb", 0, 1},  {"kib", 0, 1},
    {"m", 0, 2},  {"mb", 0, 2},  {"mib", 0, 2}, {"g", 0, 3},  {"gb", 0, 3},
    {"gib", 0, 3}, {"t", 0, 4},  {"tb", 0, 4},  {"tib", 0, 4},
};
constexpr Suffix time_suffixes[] = {
    {"", 0, 0}, {"s", 0, 0}, {"ms", -3, 0}, {"us", -6, 0}, {"\xc2\xb5s", -6, 0}, {"ns", -9, 0},
};
// Bytes, not bits: "Gb/s" is rejected.
constexpr Suffix rate_suffixes[] = {
    {"", 0, 0},       {"B/s", 0, 0},    {"kB/s", 3, 0},   {"KB/s", 3, 0},   {"MB/s", 6, 0},
    {"GB/s", 9, 0},   {"TB/s", 12, 0},  {"KiB/s", 0, 1},  {"MiB/s", 0, 2},  {"GiB/s", 0, 3},
    {"TiB/s", 0, 4},
};
constexpr Suffix freq_suffixes[] = {
    {"", 0, 0}, {"Hz", 0, 0}, {"kHz", 3, 0}, {"KHz", 3, 0}, {"MHz", 6, 0}, {"GHz", 9, 0},
};

template <size_t N>
const Suffix* find_suffix(const Suffix (&table)[N], std::string_view s, bool nocase)
{
    for (const auto& suf : table) {
        size_t n = std::strlen(suf.text);
        if (n != s.size())
            continue;
        bool eq = true;
        for (size_t i = 0; i < n && eq; i++) {
            char a = s[i], b = suf.text[i];
            if (nocase && a >= 'A' && a <= 'Z')
                a = char(a - 'A' + 'a');
            eq = a == b;
        }
        if (eq)
            return &suf;
    }
    return nullptr;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// [0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)? at the start of s. Returns the length of the mantissa
// and of the whole number (0 if there is none).
std::pair<size_t, size_t> scan_number(std::string_view s)
{
    size_t i = 0;
    while (i < s.size() && is_digit(s[i]))
        i++;
    if (i == 0)
        return {0, 0};
    if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
        i++;
        while (i < s.size() && is_digit(s[i]))
            i++;
    }
    size_t mant = i;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < s.size() && is_digit(s[j])) {
            while (j < s.size() && is_digit(s[j]))
                j++;
            i = j;
        }
    }
    return {mant, i};
}

std::optional<double> to_double(const std::string& s)
{
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

template <size_t N>
std::optional<double> parse_with(const Suffix (&table)[N], std::string_view s, bool nocase)
{
    auto [mant, len] = scan_number(s);
    if (len == 0)
        return std::nullopt;
    const Suffix* suf = find_suffix(table, s.substr(len), nocase);
    if (!suf)
        return std::nullopt;
    long exp10 = suf->pow10;
    if (len > mant) {  // fold the written exponent into the unit's
        std::string e(s.substr(mant + 1, len - mant - 1));
        if (e.size() > 6)
            return std::nullopt;
        exp10 += std::stol(e);
    }
    // Decimal scaling is done on the digits so "1.1GHz" is exactly the double nearest 1.1e9.
    auto v = to_double(std::string(s.substr(0, mant)) + "e" + std::to_string(exp10));
    if (!v)
        return std::nullopt;
    double r = std::ldexp(*v, 10 * suf->pow1024);
    if (!std::isfinite(r))
        return std::nullopt;
    return r;
}

std::string kind_phrase(Kind k, bool allow_max)
{
    std::vector<std::string> items;
    std::string noun;
    switch (k) {
    case Kind::Int: noun = "an integer"; break;
    case Kind::Real: noun = "a number"; break;
    case Kind::Bool: noun = "true or false"; break;
    case Kind::String: noun = "a string"; break;
    case Kind::Enum: noun = "one of the options"; break;
    case Kind::Size: noun = "a size"; items = {"\"40G\"", "\"64K\"", "a number of bytes"}; break;
    case Kind::Time: noun = "a time"; items = {"\"10s\"", "\"500ms\"", "a number of seconds"}; break;
    case Kind::Rate: noun = "a rate"; items = {"\"530MB/s\"", "\"2GiB/s\"", "a number of bytes/s"}; break;
    case Kind::Freq: noun = "a frequency"; items = {"\"2.5GHz\"", "\"2500MHz\"", "a number of Hz"}; break;
    case Kind::CpuList: noun = "a CPU list"; items = {"\"0-55,112-167\"", "\"all\""}; break;
    case Kind::SizeList: noun = "folio sizes"; items = {"\"64K\"", "\"16K,64K\"", "[\"16K\",\"64K\"]", "\"none\""}; break;
    }
    if (allow_max)
        items.push_back("\"max\"");
    if (items.empty())
        return noun;
    std::string s = noun + " like ";
    for (size_t i = 0; i < items.size(); i++) {
        if (i)
            s += i + 1 == items.size() ? " or " : ", ";
        s += items[i];
    }
    return s;
}

[[noreturn]] void reject(Kind k, const nlohmann::json& v, const std::string& why = {})
{
    std::string msg = "expected " + kind_phrase(k, false) + ", got " + show(v);
    if (!why.empty())
        msg += " (" + why + ")";
    throw std::invalid_argument(msg);
}

double parse_kind(Kind k, const nlohmann::json& v)
{
    if (v.is_number()) {
        double x = v.get<double>();
        if (!std::isfinite(x) || x < 0)
            reject(k, v);
        return k == Kind::Size ? std::round(x) : x;
    }
    if (v.is_string()) {
        if (auto x = detail::parse_unit_string(k, v.get_ref<const std::string&>()))
            return *x;
    }
    reject(k, v);
}

// Shortest round-trip digits of v: mantissa digits (no point) and the decimal exponent of
// the last digit, so v == digits * 10^exp.
std::pair<std::string, int> decimal_digits(double v)
{
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string s(buf, res.ptr);
    size_t e = s.find('e');
    std::string mant = s.substr(0, e);
    int exp = std::stoi(s.substr(e + 1));
    size_t dot = mant.find('.');
    if (dot != std::string::npos) {
        exp -= int(mant.size() - dot - 1);
        mant.erase(dot, 1);
    }
    while (mant.size() > 1 && mant.back() == '0') {
        mant.pop_back();
        exp++;
    }
    return {mant, exp};
}

// v / 10^k written out in plain decimal from v's shortest digits (no rounding error).
std::string shifted(double v, int k)
{
    auto [digits, exp] = decimal_digits(v);
    exp -= k;
    if (exp >= 0)
        return digits + std::string(size_t(exp), '0');
    int point = int(digits.size()) + exp;  // digits before the decimal point
    if (point > 0)
        return digits.substr(0, size_t(point)) + "." + digits.substr(size_t(point));
    return "0." + std::string(size_t(-point), '0') + digits;
}

size_t significant_digits(double v) { return decimal_digits(v).first.size(); }

// Shortest form that parse_unit_string accepts back: "1e15", "0.25", "4096".
std::string shortest(double v)
{
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, res.ptr);
    size_t e = s.find('e');
    if (e != std::string::npos) {
        std::string exp = s.substr(e + 1);
        bool neg = exp[0] == '-';
        exp.erase(0, exp.find_first_not_of("+-0"));
        s = s.substr(0, e) + "e" + (neg ? "-" : "") + exp;
    }
    return s;
}

std::string format_size(double v)
{
    if (v == std::floor(v) && v >= 1024) {
        static const char* suf[] = {"T", "G", "M", "K"};
        for (int i = 0; i < 4; i++) {
            double m = std::ldexp(v, -10 * (4 - i));
            if (m == std::floor(m) && m < 1e6)
                return fmt::format("{}{}", int64_t(m), suf[i]);
        }
    }
    if (v == std::floor(v) && v < 1e15)
        return fmt::format("{}", int64_t(v));
    return shortest(v);
}

double pow10(int k)
{
    switch (k) {
    case -9: return 1e-9;
    case -6: return 1e-6;
    case -3: return 1e-3;
    case 3: return 1e3;
    case 6: return 1e6;
    case 9: return 1e9;
    case 12: return 1e12;
    default: return 1;
    }
}

// Largest decimal unit not above v: "60us", "2.5GHz", "530MB/s"; zero in the base unit.
std::string format_decimal(double v, std::initializer_list<std::pair<const char*, int>> units)
{
    const std::pair<const char*, int>* pick = units.end() - 1;
    for (const auto& u : units) {
        if (v == 0 ? u.second == 0 : v >= pow10(u.second)) {
            pick = &u;
            break;
        }
    }
    return shifted(v, pick->second) + pick->first;
}

std::string format_rate(double v)
{
    std::string dec = format_decimal(v, {{"TB/s", 12}, {"GB/s", 9}, {"MB/s", 6}, {"kB/s", 3}, {"B/s", 0}});
    if (significant_digits(v) <= 6 || v != std::floor(v))
        return dec;
    static const char* suf[] = {"TiB/s", "GiB/s", "MiB/s", "KiB/s"};
    for (int i = 0; i < 4; i++) {
        double m = std::ldexp(v, -10 * (4 - i));
        if (m == std::floor(m) && m < 1e6)
            return fmt::format("{}{}", int64_t(m), suf[i]);
    }
    return dec;
}

std::string format_number(Kind k, double v)
{
    if (std::isinf(v) && v > 0)
        return "max";
    switch (k) {
    case Kind::Size: return format_size(v);
    case Kind::Time: return format_decimal(v, {{"s", 0}, {"ms", -3}, {"us", -6}, {"ns", -9}});
    case Kind::Rate: return format_rate(v);
    case Kind::Freq: return format_decimal(v, {{"GHz", 9}, {"MHz", 6}, {"kHz", 3}, {"Hz", 0}});
    case Kind::Int:
        if (v == std::floor(v) && std::fabs(v) < 9.2e18)
            return fmt::format("{}", int64_t(v));
        return shortest(v);
    default: return shortest(v);
    }
}

bool unit_kind(Kind k)
{
    return k == Kind::Size || k == Kind::Time || k == Kind::Rate || k == Kind::Freq;
}

}  // namespace

namespace detail {

std::optional<double> parse_unit_string(Kind k, std::string_view s)
{
    std::optional<double> v;
    switch (k) {
    case Kind::Size:
        v = parse_with(size_suffixes, s, true);
        if (v)
            v = std::round(*v);
        break;
    case Kind::Time: v = parse_with(time_suffixes, s, false); break;
    case Kind::Rate: v = parse_with(rate_suffixes, s, false); break;
    case Kind::Freq: v = parse_with(freq_suffixes, s, false); break;
    default: break;
    }
    return v;
}

std::string unit_pattern(Kind k, bool allow_max)
{
    const std::string num = "[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?";
    std::string unit;
    switch (k) {
    case Kind::Size: unit = "([KkMmGgTt]([Ii]?[Bb])?|[Bb])?"; break;
    case Kind::Time: unit = "(s|ms|us|\xc2\xb5s|ns)?"; break;
    case Kind::Rate: unit = "(([kKMGT]|[KMGT]i)?B/s)?"; break;
    case Kind::Freq: unit = "([kKMG]?Hz)?"; break;
    case Kind::SizeList: {
        std::string one = num + "([KkMmGgTt]([Ii]?[Bb])?|[Bb])?";
        return "^(none|" + one + "(," + one + ")*)$";
    }
    case Kind::CpuList: {
        std::string grp = "[0-9]+(-[0-9]+(:[0-9]+/[0-9]+)?)?";
        return "^(all|" + grp + "(," + grp + ")*)$";
    }
    default: return "";
    }
    return "^(" + std::string(allow_max ? "max|" : "") + num + unit + ")$";
}

std::string expected_phrase(const ParamDef& d)
{
    if (d.kind == Kind::Enum) {
        std::string s = "one of ";
        for (size_t i = 0; i < d.options.size(); i++)
            s += (i ? ", \"" : "\"") + d.options[i] + "\"";
        return s;
    }
    return kind_phrase(d.kind, d.allow_max);
}

std::string format_bound(const ParamDef& d, double v)
{
    if (v == 0)
        return "0";
    return format_number(d.kind, v);
}

std::string range_phrase(const ParamDef& d, int side)
{
    std::string noun;
    switch (d.kind) {
    case Kind::Int: noun = "an integer"; break;
    case Kind::Size: noun = "a size"; break;
    case Kind::Time: noun = "a time"; break;
    case Kind::Rate: noun = "a rate"; break;
    case Kind::Freq: noun = "a frequency"; break;
    default: noun = "a number"; break;
    }
    bool lo = std::isfinite(d.min), hi = std::isfinite(d.max);
    if (unit_kind(d.kind) && side != 0 && lo && hi) {
        lo = side < 0;
        hi = side > 0;
    }
    std::string lo_s = (d.min_exclusive ? "> " : ">= ") + format_bound(d, d.min);
    std::string hi_s = "<= " + format_bound(d, d.max);
    std::string s = noun;
    if (lo && hi && !d.min_exclusive)
        s += " from " + format_bound(d, d.min) + " to " + format_bound(d, d.max);
    else if (lo && hi)
        s += " " + lo_s + " and " + hi_s;
    else if (lo)
        s += " " + lo_s;
    else if (hi)
        s += " " + hi_s;
    if (d.allow_max)
        s += " or \"max\"";
    return s;
}

std::string range_text(const ParamDef& d)
{
    switch (d.kind) {
    case Kind::Bool: return "true|false";
    case Kind::String: return "";
    case Kind::Enum: {
        std::string s;
        for (const auto& o : d.options)
            s += (s.empty() ? "" : "|") + o;
        return s;
    }
    case Kind::CpuList: return "cpulist|all";
    case Kind::SizeList:
        return "powers of 2 in [" + format_size(min_folio_size) + ", " + format_size(d.max) + "]";
    default: break;
    }
    bool lo = std::isfinite(d.min), hi = std::isfinite(d.max);
    std::string s;
    if (!lo && !hi)
        s = "any";
    else if (!hi)
        s = (d.min_exclusive ? "> " : ">= ") + format_bound(d, d.min);
    else if (!lo)
        s = "<= " + format_bound(d, d.max);
    else
        s = (d.min_exclusive ? "(" : "[") + format_bound(d, d.min) + ", " + format_bound(d, d.max) + "]";
    if (d.allow_max)
        s += " or max";
    return s;
}

std::vector<CpuGroup> parse_cpulist_groups(const std::string& s, const std::string& item)
{
    auto bad = [&](const std::string& why) {
        if (item != "CPU")   // a list of other ids (IAA devices): the caller says what it expected
            throw std::invalid_argument(why);
        reject(Kind::CpuList, nlohmann::json(s), why);
    };
    constexpr long max_cpu = 1 << 20;
    auto number = [&](std::string_view t) -> int {
        if (t.empty() || t.size() > 7 || !std::all_of(t.begin(), t.end(), is_digit))
            bad(t.empty() ? "missing number" : "\"" + std::string(t) + "\" is not " + (item == "CPU" ? "a CPU" : "an " + item) + " number");
        long v = std::stol(std::string(t));
        if (v >= max_cpu)
            bad(item + " " + std::string(t) + " is implausibly large");
        return int(v);
    };
    if (s.empty())
        bad("empty");
    std::vector<CpuGroup> groups;
    std::vector<bool> seen;
    size_t start = 0;
    while (true) {
        size_t comma = s.find(',', start);
        std::string_view g = std::string_view(s).substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (g.empty())
            bad("empty group between commas");
        CpuGroup cg{0, 0, 1, 1};
        size_t dash = g.find('-'), colon = g.find(':');
        if (dash == std::string_view::npos) {
            if (colon != std::string_view::npos)
                bad("a stride needs a range: \"first-last:used/group\"");
            cg.first = cg.last = number(g);
        } else {
            cg.first = number(g.substr(0, dash));
            std::string_view rest = g.substr(dash + 1);
            size_t c = rest.find(':');
            cg.last = number(rest.substr(0, c));
            if (c != std::string_view::npos) {
                std::string_view stride = rest.substr(c + 1);
                size_t slash = stride.find('/');
                if (slash == std::string_view::npos)
                    bad("stride must be \"used/group\"");
                cg.used = number(stride.substr(0, slash));
                cg.group = number(stride.substr(slash + 1));
                if (cg.used < 1 || cg.used > cg.group)
                    bad("stride needs 0 < used <= group");
            }
            if (cg.last < cg.first)
                bad("range " + std::string(g) + " ends before it starts");
        }
        if (seen.size() <= size_t(cg.last))
            seen.resize(size_t(cg.last) + 1);
        for (int c = cg.first; c <= cg.last; c++) {
            if ((c - cg.first) % cg.group >= cg.used)
                continue;
            if (seen[size_t(c)])
                bad(item + " " + std::to_string(c) + " is listed twice");
            seen[size_t(c)] = true;
        }
        groups.push_back(cg);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return groups;
}

}  // namespace detail

double parse_size(const nlohmann::json& v) { return parse_kind(Kind::Size, v); }
double parse_time(const nlohmann::json& v) { return parse_kind(Kind::Time, v); }
double parse_rate(const nlohmann::json& v) { return parse_kind(Kind::Rate, v); }
double parse_freq(const nlohmann::json& v) { return parse_kind(Kind::Freq, v); }

std::vector<int> parse_cpulist(const std::string& s, int nr_cpus, const std::string& item)
{
    std::vector<int> cpus;
    if (s == "all") {
        for (int c = 0; c < nr_cpus; c++)
            cpus.push_back(c);
        return cpus;
    }
    for (const auto& g : detail::parse_cpulist_groups(s, item)) {
        for (int c = g.first; c <= g.last; c++) {
            if ((c - g.first) % g.group >= g.used)
                continue;
            if (c >= nr_cpus)
                throw std::invalid_argument(
                    fmt::format("CPU {} does not exist: the machine has {} CPUs (0-{})", c, nr_cpus, nr_cpus - 1));
            cpus.push_back(c);
        }
    }
    std::sort(cpus.begin(), cpus.end());
    return cpus;
}

std::string format_value(const ParamDef& d, const nlohmann::json& v)
{
    switch (d.kind) {
    case Kind::Bool: return v.is_boolean() ? (v.get<bool>() ? "true" : "false") : show(v);
    case Kind::Enum:
    case Kind::String:
    case Kind::CpuList: return v.is_string() ? v.get<std::string>() : show(v);
    case Kind::SizeList: {
        if (v.is_string())
            return v.get<std::string>();
        if (!v.is_array())
            return show(v);
        if (v.empty())
            return "none";
        std::string s;
        for (const auto& e : v)
            s += (s.empty() ? "" : ",") + (e.is_number() ? format_size(e.get<double>()) : show(e));
        return s;
    }
    default: break;
    }
    if (v.is_string()) {
        const auto& str = v.get_ref<const std::string&>();
        if (str == "max")
            return str;
        if (auto x = detail::parse_unit_string(d.kind, str))
            return format_number(d.kind, *x);
        return str;
    }
    if (v.is_number_integer() && (d.kind == Kind::Int || d.kind == Kind::Real))
        return v.dump();
    if (v.is_number())
        return format_number(d.kind, v.get<double>());
    return show(v);
}

}  // namespace swapsim::scenario
