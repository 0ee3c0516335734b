// JSON Schema (draft-07) of scenario files, generated from the registry.
#include <cmath>

#include "scenario/detail.hpp"

namespace swapsim::scenario {
namespace {

using nlohmann::json;

json number(double x)
{
    if (x == std::floor(x) && std::fabs(x) < 9e15)
        return int64_t(x);
    return x;
}

json leaf(const ParamDef& d, const json& def)
{
    json s = json::object();
    switch (d.kind) {
    case Kind::Int: s["type"] = "integer"; break;
    case Kind::Real: s["type"] = "number"; break;
    case Kind::Bool: s["type"] = "boolean"; break;
    case Kind::String: s["type"] = "string"; break;
    case Kind::Enum:
        s["type"] = "string";
        s["enum"] = d.options;
        break;
    case Kind::CpuList:
        s["type"] = "string";
        s["pattern"] = detail::unit_pattern(d.kind, false);
        break;
    case Kind::SizeList:
        s["type"] = json::array({"string", "integer", "array"});
        s["pattern"] = detail::unit_pattern(d.kind, false);
        s["items"] = {{"type", json::array({"string", "integer"})},
                      {"pattern", detail::unit_pattern(Kind::Size, false)}};
        break;
    case Kind::Size:
    case Kind::Time:
    case Kind::Rate:
    case Kind::Freq:
        s["type"] = json::array({"number", "string"});
        s["pattern"] = detail::unit_pattern(d.kind, d.allow_max);
        break;
    }
    bool numeric = d.kind == Kind::Int || d.kind == Kind::Real || d.kind == Kind::Size || d.kind == Kind::Time ||
                   d.kind == Kind::Rate || d.kind == Kind::Freq;
    if (numeric && std::isfinite(d.min))
        s[d.min_exclusive ? "exclusiveMinimum" : "minimum"] = number(d.min);
    if (numeric && std::isfinite(d.max))
        s["maximum"] = number(d.max);
    if (d.kind == Kind::Int || d.kind == Kind::Real || d.kind == Kind::Bool)
        s["default"] = def;
    else
        s["default"] = format_value(d, def);
    std::string desc = d.doc;
    if (!d.unit.empty())
        desc += " [" + d.unit + "]";
    if (!d.source.empty())
        desc += ". Default: " + d.source;
    if (d.fitted)
        desc += ". Fitted: the calibrator may tune it";
    s["description"] = desc;
    return s;
}

json object_node() { return {{"type", "object"}, {"additionalProperties", false}, {"properties", json::object()}}; }

}  // namespace

nlohmann::json json_schema(const Registry& reg)
{
    Config defaults(reg);
    json root = object_node();
    root["$schema"] = "http://json-schema.org/draft-07/schema#";
    root["title"] = "swapsim scenario";
    root["description"] = "A swapsim scenario: machine, swap device, kernel configuration and workload. "
                          "Generated from the parameter registry by `swapsim schema`; `swapsim params` lists the same "
                          "keys.";
    json names = json::array();
    for (const auto& d : reg.all())
        names.push_back(d.name);
    root["properties"]["$schema"] = {{"type", "string"}, {"description", "path of this schema (swapsim.schema.json)"}};
    root["properties"]["sources"] = {
        {"type", "object"},
        {"description", "where each setting comes from: parameter name (dotted) -> citation"},
        {"propertyNames", {{"enum", names}}},
        {"additionalProperties", {{"type", "string"}}},
    };

    for (const auto& d : reg.all()) {
        json* node = &root;
        size_t start = 0;
        for (size_t dot = d.name.find('.'); dot != std::string::npos; dot = d.name.find('.', start)) {
            std::string part = d.name.substr(start, dot - start);
            json& child = (*node)["properties"][part];
            if (child.is_null())
                child = object_node();
            if (d.required) {
                json& req = (*node)["required"];
                if (req.is_null() || std::find(req.begin(), req.end(), part) == req.end())
                    req.push_back(part);
            }
            node = &child;
            start = dot + 1;
        }
        std::string last = d.name.substr(start);
        (*node)["properties"][last] = leaf(d, defaults.value(d.name));
        if (d.required)
            (*node)["required"].push_back(last);
    }
    return root;
}

}  // namespace swapsim::scenario
