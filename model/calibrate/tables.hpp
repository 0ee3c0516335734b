// Published (or measured) tables, the target map to scenarios, parallel runs of scenarios in
// child processes, and the model-versus-published comparison built from them.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace swapsim::calibrate {

// One column of a published table reproduced by one scenario (calibration/targets.json).
struct Target {
    std::string table, column, scenario;
    std::vector<std::string> metrics;
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

// A simulation process failed: its scenario and first error line, and its exit status
// (2: bad input).
struct RunFailure : std::runtime_error {
    int status;
    RunFailure(const std::string& what, int st) : std::runtime_error(what), status(st) {}
};
// The exit status for an error from run_scenarios: the run's for a RunFailure, else 1.
inline int exit_status(const std::exception& e)
{
    auto* f = dynamic_cast<const RunFailure*>(&e);
    return f ? f->status : 1;
}
// Scenario files that set the same machine, kernel and workload are one simulation: the key
// is the file without its name, description and sources (the path itself if it does not parse).
std::string content_key(const std::string& path);
// Run each scenario as `swapsim run SCENARIO --out DIR run_args...` in a child process, `jobs`
// at a time. Scenario files that differ only in name, description and sources run once.
// With runs > 1, each runs with seeds 1..runs and the results are merged (merge_runs).
// Returns result.json by scenario; throws RunFailure naming the scenario that failed.
// `swapsim ARGS...` (this binary) in a child process: stdin and stdout /dev/null, stderr to
// err_path. Returns its pid; throws if it cannot start.
int spawn_run(const std::vector<std::string>& args, const std::string& err_path);
using Progress = std::function<void(size_t done, size_t total)>;
std::map<std::string, nlohmann::json> run_scenarios(const std::vector<std::string>& scenarios,
                                                    const std::vector<std::string>& run_args, int jobs,
                                                    const Progress& progress = {}, int runs = 1);
// Several runs of one scenario (different seeds), as the seeds average 3 runs: every metric is
// the mean, "runs" holds the seeds and each metric's min and max, and the per-process
// throughput distribution is pooled over the runs.
nlohmann::json merge_runs(const std::vector<nlohmann::json>& runs);
// A progress bar on stderr when it is a terminal: done/total and an ETA.
Progress stderr_progress(const std::string& what);

struct Cell {
    std::string table, column, metric;
    std::optional<double> published, model, rel_error;
    std::optional<double> spread;   // (max - min) / |mean| of the model over its runs
};

// The model value of a metric in a result (per-size mTHP stats of sizes not enabled are 0).
std::optional<double> model_value(const nlohmann::json& result, const std::string& metric);
std::optional<double> rel_error(std::optional<double> published, std::optional<double> model);
// (new - base) / base for throughput, (base - new) / base for times: positive = better.
double relative_improvement(const std::string& metric, double base, double now);

// BOBYQA's initial step per free parameter (log space): at most 0.5, a quarter of the bound
// interval (BOBYQA needs twice the step inside it), and the distance from the start to its
// nearer bound (at least 0.05), since BOBYQA moves a start closer than one step to a bound.
std::vector<double> bobyqa_steps(const std::vector<double>& x0, const std::vector<double>& lb,
                                 const std::vector<double>& ub);

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

}  // namespace swapsim::calibrate
