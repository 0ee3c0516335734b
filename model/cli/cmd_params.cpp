// swapsim params: every parameter with its type, default, range, doc and source.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "scenario/detail.hpp"
#include "scenario/kernel_versions.hpp"

namespace swapsim::cli {
namespace {

namespace sc = swapsim::scenario;

const char* usage =
    "usage: swapsim params [--json] [--category NAME]\n"
    "\n"
    "Lists every parameter a scenario may set: type and unit, default, allowed range or options,\n"
    "what it means and where the default comes from. Fitted parameters (model costs the calibrator\n"
    "tunes) are marked '*'. Defaults include the builtin calibrated set.\n"
    "\n"
    "  --json            one JSON array of objects instead of the table\n"
    "  --category NAME   only meta, machine, swap, kernel, workload, cost or sim parameters\n";

const sc::Category all_categories[] = {sc::Category::Meta,     sc::Category::Machine, sc::Category::Swap,
                                       sc::Category::Kernel,   sc::Category::Workload, sc::Category::Cost,
                                       sc::Category::Sim};

std::string type_of(const sc::ParamDef& d)
{
    std::string t = sc::kind_name(d.kind);
    if (!d.unit.empty())
        t += " [" + d.unit + "]";
    return t;
}

std::string default_of(const sc::ParamDef& d, const sc::Config& cfg)
{
    std::string s = cfg.show(d.name);
    return s.empty() ? "\"\"" : s;
}

nlohmann::json bound(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// --category NAME: the category, or nullptr for all; throws UsageError for an unknown one.
const sc::Category* category_of(const Options& o)
{
    const std::string* name = o.value("--category");
    if (!name)
        return nullptr;
    std::string known;
    for (const auto& c : all_categories) {
        if (*name == sc::category_name(c))
            return &c;
        known += std::string(known.empty() ? "" : ", ") + sc::category_name(c);
    }
    throw UsageError("unknown category '" + *name + "'; expected one of: " + known);
}

// kernel.version: what each preset sets, and each change with its source.
nlohmann::json presets_json()
{
    nlohmann::json presets = nlohmann::json::object(), changes = nlohmann::json::array();
    for (const auto& v : sc::kernel_versions())
        for (const auto& [key, value] : sc::kernel_preset(v.name))
            presets[v.name][key] = value;
    for (const auto& c : sc::kernel_changes())
        changes.push_back({{"key", c.key}, {"before", c.before}, {"after", c.after}, {"since", c.since},
                           {"source", c.source}});
    return {{"sets", presets}, {"changes", changes}};
}

std::string presets_text()
{
    std::string text = "\n# kernel.version presets: the defaults they set (a key the scenario sets wins)\n";
    for (const auto& v : sc::kernel_versions()) {
        text += fmt::format("{:<24}", v.name);
        for (const auto& [key, value] : sc::kernel_preset(v.name))
            text += fmt::format(" {}={}", key, value.is_string() ? value.get<std::string>() : value.dump());
        text += *v.note ? fmt::format("\n{:<24} ({})\n", "", v.note) : "\n";
    }
    for (const auto& c : sc::kernel_changes())
        text += fmt::format("  {} since {}: {}\n", c.key, c.since, c.source);
    return text;
}

std::string params_json(const std::vector<const sc::ParamDef*>& defs, const sc::Config& defaults)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto* d : defs) {
        nlohmann::json j = {
            {"name", d->name},
            {"category", sc::category_name(d->cat)},
            {"kind", sc::kind_name(d->kind)},
            {"unit", d->unit},
            {"default", defaults.flat()[d->name]},
            {"default_text", sc::format_value(*d, defaults.value(d->name))},
            {"default_origin", defaults.origin(d->name)},
            {"range", sc::detail::range_text(*d)},
            {"min", bound(d->min)},
            {"max", bound(d->max)},
            {"min_exclusive", d->min_exclusive},
            {"allow_max", d->allow_max},
            {"doc", d->doc},
            {"source", d->source},
            {"fitted", d->fitted},
            {"required", d->required},
        };
        if (d->kind == sc::Kind::Enum)
            j["options"] = d->options;
        if (d->name == "kernel.version")
            j["presets"] = presets_json();
        out.push_back(std::move(j));
    }
    return out.dump(2) + "\n";
}

std::string params_text(const std::vector<const sc::ParamDef*>& defs, const sc::Config& defaults,
                        const sc::Config& registry_defaults)
{
    size_t wn = 4, wt = 4, wd = 7;
    for (const auto* d : defs) {
        wn = std::max(wn, d->name.size() + (d->fitted ? 1 : 0));
        wt = std::max(wt, type_of(*d).size());
        wd = std::max(wd, default_of(*d, defaults).size());
    }
    std::string text = fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "NAME", wn, "TYPE", wt, "DEFAULT", wd, "RANGE");
    const sc::Category* cat = nullptr;
    bool any_fitted = false;
    for (const auto* d : defs) {
        if (!cat || *cat != d->cat) {
            cat = &d->cat;
            text += fmt::format("\n# {}\n", sc::category_name(d->cat));
        }
        any_fitted = any_fitted || d->fitted;
        text += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", d->name + (d->fitted ? "*" : ""), wn, type_of(*d), wt,
                            default_of(*d, defaults), wd, sc::detail::range_text(*d));
        std::string src = d->source;
        if (defaults.origin(d->name) != "default")
            src = fmt::format("{} (registry default {}: {})", defaults.origin(d->name).substr(7),
                              default_of(*d, registry_defaults), d->source);
        text += fmt::format("    {}{}; source: {}\n", d->doc, d->required ? " (required)" : "", src);
    }
    if (std::any_of(defs.begin(), defs.end(), [](const auto* d) { return d->name == "kernel.version"; }))
        text += presets_text();
    if (any_fitted)
        text += "\n* fitted: a model cost `swapsim calibrate` may tune; scenarios that reproduce a table should not set it\n";
    return text;
}

int params(int argc, char** argv)
{
    Options o = parse_options(argc, argv, OptionSpec{false, false, false, false, {"--json"}, {"--category"}});
    if (o.help) {
        std::fputs(usage, stdout);
        return 0;
    }
    if (!o.positional.empty())
        throw UsageError("unexpected argument '" + o.positional[0] + "'");
    const sc::Category* only = category_of(o);
    const sc::Registry& reg = sc::registry();
    const sc::Config registry_defaults(reg);
    const sc::Config defaults = sc::load_defaults();
    std::vector<const sc::ParamDef*> defs;
    for (const auto& d : reg.all())
        if (!only || d.cat == *only)
            defs.push_back(&d);
    std::string text;
    if (o.has("--json"))
        text = params_json(defs, defaults);
    else if (defs.empty())
        text = fmt::format("no parameters in category {} yet\n", sc::category_name(*only));
    else
        text = params_text(defs, defaults, registry_defaults);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
}

}  // namespace

int cmd_params(int argc, char** argv) { return guarded("params", params, argc, argv); }

}  // namespace swapsim::cli
