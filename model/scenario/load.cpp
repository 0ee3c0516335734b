// Loading a scenario: registry defaults, then the builtin calibrated set, the scenario file,
// each --params file and each --set, then required keys and cross-key checks.
#include <cerrno>
#include <cstring>
#include <map>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenario/detail.hpp"
#include "scenario/kernel_versions.hpp"

namespace swapsim::scenario {
namespace {

using detail::ojson;
using detail::path_key;
using detail::show;

constexpr const char* builtin_file = "builtin calibration/params/default.json";
constexpr size_t max_file_size = 16 << 20;

std::string read_file(const std::string& path)
{
    auto fail = [&](int err) { throw InputError(path, "", std::string("cannot read: ") + std::strerror(err)); };
    // O_NONBLOCK: a FIFO opens at once, and reads as empty while it has no writer.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        fail(errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
        ::close(fd);
        fail(err);
    }
    std::string text;
    char buf[65536];
    while (true) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // A pipe whose writer is slow: wait for data, at most 10 s between chunks.
            pollfd p{fd, POLLIN, 0};
            int r = ::poll(&p, 1, 10000);
            if (r == 0) {
                ::close(fd);
                throw InputError(path, "", "cannot read: no data for 10 s (a pipe without a writer?)");
            }
            continue;
        }
        if (n < 0) {
            int err = errno;
            ::close(fd);
            fail(err);
        }
        if (n == 0)
            break;
        text.append(buf, size_t(n));
        if (text.size() > max_file_size) {
            ::close(fd);
            throw InputError(path, "", "cannot read: larger than 16M, not a scenario or parameter file");
        }
    }
    ::close(fd);
    return text;
}

// Applies the keys of one input (a scenario, a parameter file's "values", one --set) to cfg.
class Applier {
public:
    Applier(Config& cfg, std::string file, std::string origin, bool costs_only)
        : cfg_(cfg), reg_(cfg.reg()), file_(std::move(file)), origin_(std::move(origin)), costs_only_(costs_only)
    {
    }

    // `name` is a parameter or an object of parameters; v its JSON value at `path`.
    void apply(const std::string& name, const ojson& v, const std::string& path)
    {
        if (const ParamDef* d = reg_.find(name)) {
            if (costs_only_ && d->cat != Category::Cost && !d->fitted)
                fail(path, "a parameter file may only set model costs (fitted parameters)");
            auto [it, fresh] = seen_.emplace(name, path);
            if (!fresh)
                fail(path, "sets " + name + " again (already set at " + it->second + ")");
            cfg_.set(name, detail::to_json(v), file_, origin_, path);
            return;
        }
        if (!reg_.is_object(name))
            fail(path, unknown_key(name));
        if (!v.is_object())
            fail(path, "expected an object with keys " + children(name) + ", got " + show(v));
        for (const auto& [k, e] : v.items())
            apply_nested(name, k, e, path_key(path, k));
    }

    // Key k of object `parent` (top level: parent ""): dotted keys are not allowed, nest them.
    void apply_nested(const std::string& parent, const std::string& k, const ojson& v, const std::string& path)
    {
        std::string name = parent.empty() ? k : parent + "." + k;
        if (k.empty() || k.find('.') != std::string::npos) {
            if (!k.empty() && (reg_.find(name) || reg_.is_object(name)))
                fail(path, "dotted keys are not allowed here; nest it as " + nested(name));
            fail(path, unknown_key(name));
        }
        apply(name, v, path);
    }

    [[noreturn]] void fail(const std::string& path, const std::string& msg) const
    {
        throw InputError(file_, path, msg);
    }

    std::string unknown_key(const std::string& name) const
    {
        std::string parent = name;
        do {
            size_t dot = parent.rfind('.');
            parent = dot == std::string::npos ? "" : parent.substr(0, dot);
        } while (!parent.empty() && !reg_.is_object(parent));
        std::string near = parent.empty() ? "" : reg_.nearest(name, parent);
        if (near.empty())
            near = reg_.nearest(name);
        if (!near.empty())
            return "unknown key; did you mean \"" + near + "\"?";
        return "unknown key; known keys " + std::string(parent.empty() ? "at the top level" : "in " + parent) +
               ": " + children(parent);
    }

    // Direct children of an object: "high, max, swap_max".
    std::string children(const std::string& parent) const
    {
        std::vector<std::string> names;
        std::string below = parent.empty() ? "" : parent + ".";
        for (const auto& d : reg_.all()) {
            if (d.name.compare(0, below.size(), below) != 0)
                continue;
            std::string c = d.name.substr(below.size(), d.name.find('.', below.size()) - below.size());
            if (std::find(names.begin(), names.end(), c) == names.end())
                names.push_back(c);
        }
        std::string s;
        for (size_t i = 0; i < names.size(); i++) {
            if (i == 40) {
                s += ", ...";
                break;
            }
            s += (i ? ", " : "") + names[i];
        }
        return s;
    }

    static std::string nested(const std::string& name)
    {
        std::string s, close;
        size_t start = 0;
        while (true) {
            size_t dot = name.find('.', start);
            s += "{\"" + name.substr(start, dot == std::string::npos ? std::string::npos : dot - start) + "\": ";
            close += "}";
            if (dot == std::string::npos)
                break;
            start = dot + 1;
        }
        return s + "..." + close;
    }

private:
    Config& cfg_;
    const Registry& reg_;
    std::string file_, origin_;
    bool costs_only_;
    std::map<std::string, std::string> seen_;  // parameter -> path that set it
};

void apply_scenario(Config& cfg, const ojson& root, const std::string& file)
{
    Applier a(cfg, file, "scenario", false);
    if (!root.is_object())
        a.fail("$", "expected a JSON object at the top level, got " + show(root));
    for (const auto& [k, v] : root.items()) {
        std::string path = path_key("$", k);
        if (k == "$schema") {
            if (!v.is_string())
                a.fail(path, "expected a string (the path of swapsim.schema.json), got " + show(v));
        } else if (k == "sources") {
            if (!v.is_object())
                a.fail(path, "expected an object mapping parameter names to where their values come from, got " +
                                 show(v));
            for (const auto& [name, src] : v.items()) {
                std::string p = path_key(path, name);
                if (!cfg.reg().find(name)) {
                    std::string near = cfg.reg().nearest_param(name);
                    a.fail(p, near.empty() ? "unknown key; sources are keyed by parameter name (\"kernel.memcg.high\")"
                                           : "unknown key; did you mean \"" + near + "\"?");
                }
                if (!src.is_string())
                    a.fail(p, "expected a string saying where the value comes from, got " + show(src));
                cfg.set_source(name, src.get<std::string>());
            }
        } else {
            a.apply_nested("", k, v, path);
        }
    }
}

// {"values": {"cost.x": 1.5, ...}, other metadata}: only costs and fitted parameters.
void apply_params(Config& cfg, const std::string& text, const std::string& file, const std::string& origin)
{
    ojson root = detail::parse_json(text, file);
    Applier a(cfg, file, origin, true);
    if (!root.is_object())
        a.fail("$", "expected a JSON object {\"values\": {...}}, got " + show(root));
    auto it = root.find("values");
    if (it == root.end())
        a.fail("$.values", "missing required key");
    if (!it->is_object())
        a.fail("$.values", "expected an object mapping parameter names to values, got " + show(*it));
    for (const auto& [k, v] : it->items())
        a.apply(k, v, path_key("$.values", k));
}

void apply_set(Config& cfg, const std::string& arg)
{
    Applier a(cfg, "--set", "--set", false);
    size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0)
        a.fail("", "expected key=value, got \"" + arg + "\"");
    std::string key = arg.substr(0, eq), text = arg.substr(eq + 1);
    ojson v;
    try {
        v = detail::parse_json(text, "--set");  // 1, false, ["16K"], "x"
    } catch (const InputError&) {
        v = text;                               // 40G, zstd
    }
    if (const ParamDef* d = cfg.reg().find(key); d && d->kind == Kind::Enum && v.is_number())
        v = text;                               // kernel.version=6.18
    a.apply(key, v, path_key("$", key));
}

void apply_overrides(Config& cfg, const LoadOptions& opt)
{
    for (const auto& f : opt.param_files)
        apply_params(cfg, read_file(f), f, "params:" + f);
    for (const auto& s : opt.sets)
        apply_set(cfg, s);
}

void apply_builtin(Config& cfg, const LoadOptions& opt)
{
    if (opt.builtin_params)
        apply_params(cfg, opt.builtin_json ? opt.builtin_json : default_params_json(), builtin_file,
                     "params:calibration/params/default.json");
}

}  // namespace

Config load_defaults(const LoadOptions& opt, const Registry& reg)
{
    Config cfg(reg);
    apply_builtin(cfg, opt);
    apply_overrides(cfg, opt);
    apply_kernel_version(cfg);
    return cfg;
}

Config load_scenario_text(const std::string& text, const std::string& file, const LoadOptions& opt,
                          const Registry& reg)
{
    Config cfg(reg);
    apply_builtin(cfg, opt);
    apply_scenario(cfg, detail::parse_json(text, file), file);
    apply_overrides(cfg, opt);
    apply_kernel_version(cfg);
    for (const auto& d : reg.all()) {
        if (d.required && cfg.origin(d.name) == "default")
            throw InputError(file, detail::path_of(d.name), "missing required key");
    }
    validate_semantics(cfg, file);
    return cfg;
}

Config load_scenario_text(const std::string& text, const std::string& file, const LoadOptions& opt)
{
    return load_scenario_text(text, file, opt, registry());
}

std::string read_input_file(const std::string& path) { return read_file(path); }

Config load_scenario(const std::string& path, const LoadOptions& opt)
{
    return load_scenario_text(read_file(path), path, opt);
}

}  // namespace swapsim::scenario
