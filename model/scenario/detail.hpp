// Helpers shared by the scenario sources; not part of the scenario API.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/registry.hpp"

namespace swapsim::scenario::detail {

using ojson = nlohmann::ordered_json;

// Strict JSON: syntax errors carry FILE:LINE:COL, duplicate keys and nesting deeper than
// max_depth are rejected. Keys keep document order. Throws InputError.
constexpr int max_depth = 64;
ojson parse_json(const std::string& text, const std::string& file);
nlohmann::json to_json(const ojson& v);

// Edit distance with adjacent transpositions ("hihg" -> "high" is 1).
size_t edit_distance(std::string_view a, std::string_view b);
// Closest of `candidates` to `s` if close enough to be a plausible typo, else "".
std::string closest(std::string_view s, const std::vector<std::string>& candidates);

// One-line, ASCII, truncated rendering of a JSON value for messages.
std::string show(const nlohmann::json& v);
std::string show(const ojson& v);

// JSON paths: "$.kernel.memcg.high", "$.kernel.mthp.enabled[1]", "$[\"odd key\"]".
std::string path_key(const std::string& path, std::string_view key);
std::string path_index(const std::string& path, size_t i);
inline std::string path_of(std::string_view dotted) { return "$." + std::string(dotted); }

// String form of a unit kind (Size, Time, Rate, Freq) in base units; nullopt on bad syntax.
std::optional<double> parse_unit_string(Kind k, std::string_view s);
// Regex (ECMA-262) of the string forms accepted for kind k (the JSON Schema "pattern").
std::string unit_pattern(Kind k, bool allow_max);

// What a value of d looks like: `a size like "40G", "64K" or a number of bytes or "max"`.
std::string expected_phrase(const ParamDef& d);
// The allowed range in words for an error: `a size > 0 or "max"`, `an integer from 1 to 16`.
// side < 0: the value was below min, > 0: above max (unit kinds name only the violated bound).
std::string range_phrase(const ParamDef& d, int side);
// The allowed range as an interval for tables: "[1, 16]", "(0, 1e15]", "zstd|lz4".
std::string range_text(const ParamDef& d);
// A bound in the param's human form ("0", "64M", "10GHz").
std::string format_bound(const ParamDef& d, double v);

// Folio sizes accepted by a SizeList: powers of two from 8K to d.max.
constexpr double min_folio_size = 8192;

// Kernel cpulist syntax ("0-55,112-167", "0-15:2/4"), without the range check.
// Throws std::invalid_argument with the reason.
struct CpuGroup {
    int first, last, used, group;  // used/group: stride syntax, 1/1 when absent
};
// `item` names the ids in messages ("CPU", or "IAA device" for machine.iaa.offline).
std::vector<CpuGroup> parse_cpulist_groups(const std::string& s, const std::string& item = "CPU");

}  // namespace swapsim::scenario::detail
