// The model next to published (or measured) tables: the tables in the seed-tables.json schema,
// the target map from their columns to scenarios (calibration/targets.json), one cell per
// (table, column, metric) with its published and model values and relative error, and the
// error statistics over cells (MAPE, maximum error). Plain data and arithmetic: nothing here
// runs a simulation (calibrate/pool.hpp does) or prints markdown (compare/markdown.hpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/metrics.hpp"

namespace swapsim::compare {

// One column of a published table reproduced by one scenario (calibration/targets.json).
struct Target {
    std::string table, column, scenario;
    std::vector<std::string> metrics;
    int runs = 0;   // at most this many seeds (0: compare's --runs); a slow column's "runs"
};

struct ChangeColumn {
    std::string key, label, new_col, base_col;
};

// A table in the seed-tables.json schema (published, or a user's measurement file).
struct Table {
    std::string id, title, change_formula;
    std::vector<std::string> columns, column_labels;
    std::vector<std::string> metrics, labels;                 // rows
    std::vector<std::vector<std::optional<double>>> values;   // [row][column]
    std::vector<ChangeColumn> changes;
    std::map<std::pair<std::string, std::string>, double> published_change;   // (metric, change key)
    int row_of(const std::string& metric) const;
    int col_of(const std::string& key) const;
};

std::vector<Target> load_targets(const std::string& path);
std::map<std::string, Table> load_tables(const std::string& path);

struct Cell {
    std::string table, column, metric;
    std::optional<double> published, model, rel_error;
    std::optional<double> spread;   // (max - min) / |mean| of the model over its runs
};

// The model value of a metric in a result (report/metrics.hpp).
using report::model_value;
std::optional<double> rel_error(std::optional<double> published, std::optional<double> model);
// (new - base) / base for throughput, (base - new) / base for times: positive = better.
double relative_improvement(const std::string& metric, double base, double now);

// (elapsed - sleep) over the write time that usemem's mean per-process throughput implies
// (its credited bytes in KB / mean, workload::credited_bytes): 1 when every process writes for
// the whole run, above 1 when some finish early (seed 002's imbalance) or the run spends time
// outside the writes (fork, munmap, exit). No value without an elapsed time longer than the sleep.
std::optional<double> run_to_write_ratio(double mean_tp_kbps, double elapsed_s, double sleep_s, double credited_bytes);

std::vector<Cell> make_cells(const std::vector<Target>& targets, const std::map<std::string, Table>& tables,
                             const std::map<std::string, nlohmann::json>& results);

// One JSON object per cell: {table, column, metric, published, model, rel_error, run_spread}.
nlohmann::json cells_json(const std::vector<Cell>& cells);
// Those cells read back (results/cells.json of compare --all); a bad file is named.
std::vector<Cell> load_cells(const std::string& path);

// Error statistics: per table and metric, MAPE and maximum absolute relative error over cells
// with a nonzero published value.
nlohmann::json summarize(const std::vector<Cell>& cells);

}  // namespace swapsim::compare
