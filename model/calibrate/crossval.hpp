// Cross-validation of the calibrated costs: leave one table family out, fit the free costs on
// the rest, and measure the left-out tables with the fold's costs.
//
// A full BOBYQA fit per fold costs hours of CPU on a 2-core machine, so each fold fits a
// linearised model: log(metric) of every cell at the starting point (full-size runs), plus its
// sensitivity to each free cost, d log(metric) / d log(cost), measured by one step of each cost
// on runs scaled down by `scale` (every size of the scenario divided: usemem size, memory.high
// and .max, the inferred swap file), since a sensitivity is a ratio of two runs at one scale.
// The fold's fit minimises the weighted squared log error of the linear prediction over its
// training cells, inside the costs' physical ranges and a trust region around the start. The
// left-out error is then SIMULATED at the fold's costs with full-size runs, never predicted;
// the linear prediction is reported beside it as a check of the linearisation.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/tables.hpp"

namespace swapsim::calibrate {

// A table family: one setup measured at several folio sizes (case1-64k and case1-2m).
std::string family_of(const std::string& table_id);
std::vector<std::string> families(const std::vector<compare::Target>& targets);

// One free cost: its start, and its bounds in log space (physical range, trust region).
struct FreeCost {
    std::string name;
    double start = 0, lb_log = 0, ub_log = 0;
};

// log(metric) = base + sum_i sens[i] * dx_i for one cell; dx in log space.
struct LinearCell {
    std::string table, metric;
    double base = 0, published = 0;   // logs
    std::vector<double> sens;
};

// "sys_s" for "sys_s change" (a change cell is weighted as its metric), else the metric itself.
std::string base_metric(const std::string& metric);

// Minimises sum over cells of tables in `train` of weight(metric) * (prediction - published)^2
// over dx in [lo, hi] (box), by exact coordinate descent (the problem is a convex quadratic).
std::vector<double> fit_linear(const std::vector<LinearCell>& cells, const std::set<std::string>& train,
                               const std::map<std::string, double>& weights, const std::vector<double>& lo,
                               const std::vector<double>& hi);

// Tables whose absolute level is not fitted (their machine is inferred, e.g. seed 001's usemem
// runs): each of their change columns becomes one cell per metric, column = the change's key,
// metric "<metric> change", values new / baseline (published and model); other cells pass.
std::vector<compare::Cell> as_changes(const std::vector<compare::Cell>& cells,
                                      const std::map<std::string, compare::Table>& tables,
                                      const std::set<std::string>& changes_only);

// A scenario scaled down by `scale` (sizes divided, rounded to 4 KiB), written to `out`;
// returns false (nothing written) if it is not a usemem scenario.
bool write_scaled_scenario(const std::string& path, double scale, const std::string& out);

struct CrossValOptions {
    std::vector<compare::Target> targets;
    std::map<std::string, compare::Table> tables;
    std::vector<FreeCost> free;
    std::map<std::string, double> weights;
    int jobs = 2;
    double scale = 64;        // size divisor of the sensitivity runs
    double step = 0.405465;   // log(1.5): the step of each cost for its sensitivity
    std::string work_dir;     // scaled scenarios and parameter files
    // Levels at the start from an earlier full-size run of the committed set (compare's
    // results/cells.json, mean of its seeds) instead of running them again.
    std::vector<compare::Cell> levels;
    std::set<std::string> changes_only;   // tables fitted on their changes only (as_changes)
};

// Runs the folds (one per family, plus the fit on every family) and returns the report:
// per fold the fitted costs, their bounds, the costs that end on a bound, the left-out cells'
// simulated errors (MAPE per metric) and the linear predictions; the committed set's errors.
nlohmann::json cross_validate(const CrossValOptions& opt);

// The report as markdown (results/cross-validation.md).
std::string render_cross_validation(const nlohmann::json& report);

}  // namespace swapsim::calibrate
