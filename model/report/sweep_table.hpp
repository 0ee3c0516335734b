// A sweep's table: one row per grid point, its --vary values, then each --show value of the
// point's result.json (a metric name, or a dotted path into result.json). `sweep` and
// `collect` print the same bytes.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace swapsim::report {

enum class TableFormat { Markdown, Csv, Json };

std::string sweep_table(const nlohmann::json& index, const std::map<std::string, nlohmann::json>& results,
                        TableFormat f);

// A --show value of one result: a metric by name (report/metrics), or a number at a dotted path.
std::optional<double> lookup(const nlohmann::json& r, const std::string& path);

}  // namespace swapsim::report
