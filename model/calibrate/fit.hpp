// Fitting the model's costs to table cells: the objective, the evaluation of a point (the
// target scenarios run with the free parameters set, cached), and the optimiser loop.
//
// Objective: the weighted sum over cells of log(model/published)^2. Optimiser: NLopt BOBYQA,
// bounded and derivative-free, in log space: the simulation's outputs move in steps (whole
// reclaim events, folios), so finite-difference Jacobians are unreliable. A point is a vector of
// log parameter values. fit() may be called more than once on one Evaluator (e.g. once per
// cross-validation fold, each with its own training targets); evaluations are shared through
// its cache.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/tables.hpp"
#include "scenario/registry.hpp"

namespace swapsim::calibrate {

// sum over cells of weight(metric) * log(model / published)^2; cells of metrics without a
// weight, or with a value <= 0 or missing, count nothing.
double objective(const std::vector<compare::Cell>& cells, const std::map<std::string, double>& weights);

// The free parameters, their start and their bounds, in log space.
struct Space {
    std::vector<const scenario::ParamDef*> free;
    std::vector<double> x0, lb, ub;
};
// Each free parameter may move within [start/8, start*8] and its registry range.
Space make_space(const std::vector<const scenario::ParamDef*>& free, const scenario::Config& start);

// BOBYQA's initial step per free parameter (log space): at most 0.5, a quarter of the bound
// interval (BOBYQA needs twice the step inside it), and the distance from the start to its
// nearer bound (at least 0.05), since BOBYQA moves a start closer than one step to a bound.
std::vector<double> bobyqa_steps(const std::vector<double>& x0, const std::vector<double>& lb,
                                 const std::vector<double>& ub);

// Runs target scenarios at a point and keeps every result (in memory and, appended, in a cache
// file that a later Evaluator can replay).
class Evaluator {
public:
    Evaluator(Space space, nlohmann::json base_values, std::map<std::string, compare::Table> tables, int jobs, int runs,
              std::string cache_path, bool replay_cache);
    ~Evaluator();
    Evaluator(const Evaluator&) = delete;
    Evaluator& operator=(const Evaluator&) = delete;

    // The parameter file's values at a point: the base values with the free ones set.
    nlohmann::json values_for(const std::vector<double>& logx) const;
    // result.json (metrics and distribution) by scenario of `targets` at a point.
    std::map<std::string, nlohmann::json> run(const std::vector<compare::Target>& targets, const std::vector<double>& logx,
                                              const std::string& what);
    std::vector<compare::Cell> cells(const std::vector<compare::Target>& targets, const std::vector<double>& logx,
                                     const std::string& what);
    const Space& space() const { return space_; }
    const std::map<std::string, compare::Table>& tables() const { return tables_; }

private:
    Space space_;
    nlohmann::json base_;
    std::map<std::string, compare::Table> tables_;
    int jobs_, runs_;
    std::string cache_path_, tmp_;
    std::map<std::string, std::map<std::string, nlohmann::json>> cache_;   // point -> scenario -> result
};

struct FitResult {
    std::vector<double> x;   // the best point evaluated
    double objective = std::numeric_limits<double>::infinity();
    int evals = 0;
    std::string result = "ok";   // NLopt's outcome
};
// Minimises the objective over `train` from the space's start, at most max_evals evaluations.
// Throws if no point could be evaluated.
FitResult fit(Evaluator& ev, const std::vector<compare::Target>& train, const std::map<std::string, double>& weights,
              int max_evals);

// The training (and, if any, validation) error per metric at a point: summarize()'s per_metric.
nlohmann::json errors_at(Evaluator& ev, const std::vector<compare::Target>& train,
                         const std::vector<compare::Target>& validate, const std::vector<double>& x);

}  // namespace swapsim::calibrate
