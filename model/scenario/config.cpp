// Config: one validated value per registry parameter, with where it came from.
#include <algorithm>
#include <cmath>

#include "scenario/detail.hpp"

namespace swapsim::scenario {
namespace {

using nlohmann::json;
using detail::show;

bool is_pow2(double x) { return x >= 1 && std::ldexp(1.0, std::ilogb(x)) == x; }

// `v` as written -> canonical value of d (base units, +inf for "max"). Throws InputError.
json canonical(const ParamDef& d, const json& v, const std::string& file, const std::string& path)
{
    auto fail = [&](const std::string& p, const std::string& msg) { throw InputError(file, p, msg); };
    auto type_error = [&] { fail(path, "expected " + detail::expected_phrase(d) + ", got " + show(v)); };
    auto check_range = [&](double x) {
        bool below = x < d.min || (d.min_exclusive && x == d.min);
        if (below || x > d.max)
            fail(path, "expected " + detail::range_phrase(d, below ? -1 : 1) + ", got " + show(v));
    };

    switch (d.kind) {
    case Kind::Int: {
        if (!v.is_number())
            type_error();
        if (v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))) {
            int64_t x = v.get<int64_t>();
            check_range(double(x));
            return x;
        }
        double x = v.get<double>();
        if (x != std::floor(x))
            type_error();
        check_range(x);
        if (std::fabs(x) >= 9.2e18)
            fail(path, "expected " + detail::range_phrase(d, x < 0 ? -1 : 1) + ", got " + show(v));
        return int64_t(x);
    }
    case Kind::Real: {
        if (!v.is_number())
            type_error();
        double x = v.get<double>();
        check_range(x);
        return x;
    }
    case Kind::Bool:
        if (!v.is_boolean())
            type_error();
        return v;
    case Kind::String:
        if (!v.is_string())
            type_error();
        return v;
    case Kind::Enum: {
        if (!v.is_string())
            type_error();
        const auto& s = v.get_ref<const std::string&>();
        if (std::find(d.options.begin(), d.options.end(), s) != d.options.end())
            return v;
        std::string msg = "expected " + detail::expected_phrase(d) + ", got " + show(v);
        std::string near = detail::closest(s, d.options);
        if (!near.empty())
            msg += "; did you mean \"" + near + "\"?";
        fail(path, msg);
        return v;
    }
    case Kind::Size:
    case Kind::Time:
    case Kind::Rate:
    case Kind::Freq: {
        double x = 0;
        if (v.is_number()) {
            x = v.get<double>();
            if (d.kind == Kind::Size)
                x = std::round(x);
        } else if (v.is_string() && d.allow_max && v.get_ref<const std::string&>() == "max") {
            return std::numeric_limits<double>::infinity();
        } else if (v.is_string()) {
            auto p = detail::parse_unit_string(d.kind, v.get_ref<const std::string&>());
            if (!p)
                type_error();
            x = *p;
        } else {
            type_error();
        }
        check_range(x);
        return x;
    }
    case Kind::CpuList: {
        if (!v.is_string())
            type_error();
        const auto& s = v.get_ref<const std::string&>();
        if (s != "all") {
            try {
                detail::parse_cpulist_groups(s);
            } catch (const std::invalid_argument& e) {
                fail(path, e.what());
            }
        }
        return v;
    }
    case Kind::SizeList: {
        // Elements as written, each with the path to name in an error.
        std::vector<std::pair<json, std::string>> items;
        if (v.is_string()) {
            const auto& s = v.get_ref<const std::string&>();
            if (s != "none") {
                size_t start = 0;
                while (true) {
                    size_t comma = s.find(',', start);
                    items.push_back({s.substr(start, comma == std::string::npos ? std::string::npos : comma - start), path});
                    if (comma == std::string::npos)
                        break;
                    start = comma + 1;
                }
            }
        } else if (v.is_number()) {
            items.push_back({v, path});
        } else if (v.is_array()) {
            for (size_t i = 0; i < v.size(); i++)
                items.push_back({v[i], detail::path_index(path, i)});
        } else {
            type_error();
        }
        std::vector<int64_t> sizes;
        for (const auto& [e, p] : items) {
            std::optional<double> x;
            if (e.is_number() && e.get<double>() >= 0)
                x = std::round(e.get<double>());
            else if (e.is_string())
                x = detail::parse_unit_string(Kind::Size, e.get_ref<const std::string&>());
            if (!x)
                fail(p, "expected " + detail::expected_phrase(d) + ", got " + show(p == path ? v : e));
            if (!is_pow2(*x) || *x < detail::min_folio_size || *x > d.max)
                fail(p, "expected folio sizes that are powers of two from " +
                            format_value(d, json::array({detail::min_folio_size})) + " to " +
                            format_value(d, json::array({d.max})) + ", got " + show(e));
            sizes.push_back(int64_t(*x));
        }
        std::sort(sizes.begin(), sizes.end());
        sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
        return sizes;
    }
    }
    type_error();
    return v;
}

// Value as written in effective()/flat(): "max" for +inf, whole byte counts as integers.
json exported(const ParamDef& d, const json& v)
{
    if (v.is_number_float()) {
        double x = v.get<double>();
        if (std::isinf(x))
            return "max";
        if (d.kind == Kind::Size && x == std::floor(x) && std::fabs(x) < 9e15)
            return int64_t(x);
    }
    return v;
}

std::string pointer_of(const std::string& dotted)
{
    std::string p = "/" + dotted;
    std::replace(p.begin(), p.end(), '.', '/');
    return p;
}

bool numeric(Kind k)
{
    return k == Kind::Int || k == Kind::Real || k == Kind::Size || k == Kind::Time || k == Kind::Rate ||
           k == Kind::Freq;
}

}  // namespace

Config::Config(const Registry& reg) : reg_(&reg)
{
    for (const auto& d : reg.all()) {
        try {
            set(d.name, d.def, "registry", "default");
        } catch (const InputError& e) {
            throw std::logic_error(std::string("bad default in the parameter registry: ") + e.what());
        }
    }
}

const ParamDef& Config::def(std::string_view name) const
{
    const ParamDef* d = reg_->find(name);
    if (!d)
        throw std::logic_error("unknown parameter '" + std::string(name) + "'");
    return *d;
}

const nlohmann::json& Config::value(std::string_view name) const
{
    def(name);
    return values_.find(name)->second;
}

std::string Config::show(std::string_view name) const
{
    return format_value(def(name), value(name));
}

double Config::num(std::string_view name) const
{
    const ParamDef& d = def(name);
    if (!numeric(d.kind))
        throw std::logic_error("parameter '" + d.name + "' is a " + kind_name(d.kind) + ", not a number");
    return value(name).get<double>();
}

int64_t Config::i(std::string_view name) const
{
    const json& v = value(name);
    if (v.is_number_integer())
        return v.get<int64_t>();
    double x = v.is_number() ? v.get<double>() : NAN;
    if (!std::isfinite(x) || x != std::floor(x) || std::fabs(x) >= 9.2e18)
        throw std::logic_error("parameter '" + std::string(name) + "' is not an integer: " + v.dump());
    return int64_t(x);
}

bool Config::b(std::string_view name) const
{
    const ParamDef& d = def(name);
    if (d.kind != Kind::Bool)
        throw std::logic_error("parameter '" + d.name + "' is not a bool");
    return value(name).get<bool>();
}

const std::string& Config::s(std::string_view name) const
{
    const ParamDef& d = def(name);
    if (d.kind != Kind::Enum && d.kind != Kind::String && d.kind != Kind::CpuList)
        throw std::logic_error("parameter '" + d.name + "' is not a string");
    return value(name).get_ref<const std::string&>();
}

std::vector<double> Config::list(std::string_view name) const
{
    const ParamDef& d = def(name);
    if (d.kind != Kind::SizeList)
        throw std::logic_error("parameter '" + d.name + "' is not a size list");
    return value(name).get<std::vector<double>>();
}

void Config::set(std::string_view name, const nlohmann::json& v, const std::string& file,
                 const std::string& origin)
{
    set(name, v, file, origin, detail::path_of(name));
}

void Config::set(std::string_view name, const nlohmann::json& v, const std::string& file,
                 const std::string& origin, const std::string& json_path)
{
    const ParamDef* d = reg_->find(name);
    if (!d)
        throw InputError(file, json_path, "unknown key");
    json c = canonical(*d, v, file, json_path);
    values_[d->name] = std::move(c);
    origins_[d->name] = origin;
}

bool Config::explicitly_set(std::string_view name) const { return origin(name) != "default"; }

const std::string& Config::origin(std::string_view name) const
{
    def(name);
    return origins_.find(name)->second;
}

nlohmann::json Config::effective() const
{
    json out = json::object();
    for (const auto& d : reg_->all()) {
        if (d.name == "kernel.version" && values_.find(d.name)->second == "none")
            continue;   // no preset: the result reads as before presets existed
        out[json::json_pointer(pointer_of(d.name))] = exported(d, values_.find(d.name)->second);
        if (origins_.find(d.name)->second == "kernel.version")
            out["kernel"]["version_implies"][d.name] = exported(d, values_.find(d.name)->second);
    }
    return out;
}

nlohmann::json Config::flat() const
{
    json out = json::object();
    for (const auto& d : reg_->all())
        out[d.name] = exported(d, values_.find(d.name)->second);
    return out;
}

}  // namespace swapsim::scenario
