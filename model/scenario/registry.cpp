// Registry lookup and typo suggestions, InputError, message helpers.
#include <algorithm>
#include <tuple>

#include "scenario/detail.hpp"

namespace swapsim::scenario {

const char* kind_name(Kind k)
{
    switch (k) {
    case Kind::Int: return "int";
    case Kind::Real: return "real";
    case Kind::Bool: return "bool";
    case Kind::Enum: return "enum";
    case Kind::String: return "string";
    case Kind::Size: return "size";
    case Kind::Time: return "time";
    case Kind::Rate: return "rate";
    case Kind::Freq: return "freq";
    case Kind::CpuList: return "cpulist";
    case Kind::SizeList: return "sizelist";
    }
    return "?";
}

const char* category_name(Category c)
{
    switch (c) {
    case Category::Meta: return "meta";
    case Category::Machine: return "machine";
    case Category::Swap: return "swap";
    case Category::Kernel: return "kernel";
    case Category::Workload: return "workload";
    case Category::Cost: return "cost";
    case Category::Sim: return "sim";
    }
    return "?";
}

namespace {

std::string_view last_component(std::string_view name)
{
    size_t dot = name.rfind('.');
    return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

bool valid_name(std::string_view n)
{
    if (n.empty() || n.front() == '.' || n.back() == '.' || n.find("..") != std::string_view::npos)
        return false;
    return std::all_of(n.begin(), n.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == '.';
    });
}

// How many edits still look like a typo of a word of length n.
size_t typo_budget(size_t n) { return std::clamp<size_t>(n / 3, 1, 3); }

}  // namespace

void Registry::add(ParamDef d)
{
    if (!valid_name(d.name))
        throw std::logic_error("registry: bad parameter name '" + d.name + "'");
    std::string_view top = std::string_view(d.name).substr(0, d.name.find('.'));
    if (top == "sources" || top == "$schema")
        throw std::logic_error("registry: '" + d.name + "' clashes with a reserved scenario key");
    if (index_.count(d.name))
        throw std::logic_error("registry: duplicate parameter '" + d.name + "'");
    if (objects_.count(d.name))
        throw std::logic_error("registry: '" + d.name + "' is already an object of other keys");
    for (size_t dot = d.name.find('.'); dot != std::string::npos; dot = d.name.find('.', dot + 1)) {
        if (index_.count(d.name.substr(0, dot)))
            throw std::logic_error("registry: '" + d.name + "' lies below parameter '" +
                                   d.name.substr(0, dot) + "'");
    }
    for (size_t dot = d.name.find('.'); dot != std::string::npos; dot = d.name.find('.', dot + 1))
        objects_.insert(d.name.substr(0, dot));
    index_.emplace(d.name, defs_.size());
    defs_.push_back(std::move(d));
}

void Registry::set_fit_defaults(std::vector<std::string> names)
{
    for (const auto& n : names) {
        auto it = index_.find(n);
        if (it == index_.end())
            throw std::logic_error("registry: fit default '" + n + "' is not a parameter");
        defs_[it->second].fit_default = true;
    }
    fit_defaults_ = std::move(names);
}

const ParamDef* Registry::find(std::string_view name) const
{
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &defs_[it->second];
}

bool Registry::is_object(std::string_view name) const { return objects_.count(name) != 0; }

std::string Registry::nearest(std::string_view name, std::string_view prefix) const
{
    return nearest_impl(name, prefix, true);
}

std::string Registry::nearest_param(std::string_view name) const { return nearest_impl(name, {}, false); }

std::string Registry::nearest_impl(std::string_view name, std::string_view prefix, bool objects) const
{
    std::string below = prefix.empty() ? std::string() : std::string(prefix) + ".";
    std::string_view last = last_component(name);
    // Ties go to scenario keys before model costs (cost.*), then alphabetically.
    std::tuple<size_t, bool, size_t, std::string> best{SIZE_MAX, true, SIZE_MAX, ""};
    auto consider = [&](const std::string& cand) {
        if (cand.compare(0, below.size(), below) != 0 || cand == name)
            return;
        size_t budget = typo_budget(last.size());  // typos are judged on the last component
        // Lengths further apart than the budget are never close: no distance matrix for a
        // 1 MB key.
        auto dist = [budget](std::string_view a, std::string_view b) {
            size_t gap = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
            return gap > budget ? SIZE_MAX : detail::edit_distance(a, b);
        };
        size_t full = dist(name, cand);
        size_t part = dist(last, last_component(cand));
        bool close = full <= budget || part <= budget;
        if (!close)
            return;
        auto score = std::make_tuple(std::min(full, part), cand.rfind("cost.", 0) == 0, full, cand);
        if (score < best)
            best = std::move(score);
    };
    for (const auto& d : defs_)
        consider(d.name);
    if (objects)
        for (const auto& o : objects_)
            consider(o);
    return std::get<3>(best);
}

namespace {

std::string compose(const std::string& file, const std::string& path, const std::string& msg)
{
    std::string s = clip(file, 200);
    s += ": ";
    if (!path.empty()) {
        s += clip(path, 200);
        s += ": ";
    }
    s += clip(msg, 600);
    return s;
}

}  // namespace

std::string clip(std::string_view s, size_t max)
{
    if (s.size() <= max)
        return std::string(s);
    return std::string(s.substr(0, max > 3 ? max - 3 : 0)) + "...";
}

namespace {

}  // namespace

InputError::InputError(std::string file_, std::string json_path_, std::string message_)
    : std::runtime_error(compose(file_, json_path_, message_)),
      file(std::move(file_)),
      json_path(std::move(json_path_)),
      message(std::move(message_))
{
}

namespace detail {

size_t edit_distance(std::string_view a, std::string_view b)
{
    const size_t n = a.size(), m = b.size();
    std::vector<size_t> d((n + 1) * (m + 1));
    auto at = [&](size_t i, size_t j) -> size_t& { return d[i * (m + 1) + j]; };
    for (size_t i = 0; i <= n; i++)
        at(i, 0) = i;
    for (size_t j = 0; j <= m; j++)
        at(0, j) = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
        }
    }
    return at(n, m);
}

std::string closest(std::string_view s, const std::vector<std::string>& candidates)
{
    std::string best;
    size_t best_d = typo_budget(s.size()) + 1;
    for (const auto& c : candidates) {
        size_t gap = s.size() > c.size() ? s.size() - c.size() : c.size() - s.size();
        if (gap >= best_d)
            continue;
        size_t d = edit_distance(s, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

namespace {

template <class J>
std::string show_json(const J& v)
{
    return clip(v.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
}

bool simple_key(std::string_view k)
{
    return !k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == '.' || c == '$';
    });
}

}  // namespace

std::string show(const nlohmann::json& v) { return show_json(v); }
std::string show(const ojson& v) { return show_json(v); }

std::string path_key(const std::string& path, std::string_view key)
{
    if (simple_key(key))
        return path + "." + std::string(key);
    return path + "[" + show(nlohmann::json(std::string(key))) + "]";
}

std::string path_index(const std::string& path, size_t i)
{
    return path + "[" + std::to_string(i) + "]";
}

}  // namespace detail
}  // namespace swapsim::scenario
