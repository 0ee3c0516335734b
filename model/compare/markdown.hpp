// The comparison as markdown: a published table in its seed's layout with the model's values,
// errors and changes beside the published ones, and the summary of errors over tables
// (results/<table>.md and results/summary.md of `swapsim compare`).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/tables.hpp"

namespace swapsim::compare {

// The summary as markdown: MAPE per table for the headline metrics (rows: tables), then the
// `worst` cells by |relative error| among cells whose published value is at least
// `min_published` (smaller counts move by whole events and are listed apart).
std::string render_summary(const nlohmann::json& summary, const std::vector<Cell>& cells, size_t worst = 10,
                           double min_published = 100);

// A table in the seed's layout, each cell as published / model / error, the published changes
// next to the model's, a flag where a change sign differs, and the per-process throughput
// distribution of each column. Markdown.
std::string render_table(const Table& t, const std::vector<Target>& targets,
                         const std::map<std::string, nlohmann::json>& results, int* sign_matches,
                         int* sign_total);

}  // namespace swapsim::compare
