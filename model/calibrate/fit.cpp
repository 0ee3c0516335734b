#include "calibrate/fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlopt.hpp>

#include "calibrate/pool.hpp"

namespace swapsim::calibrate {

using nlohmann::json;
namespace fs = std::filesystem;
using namespace compare;   // tables, targets, cells and errors (compare/tables.hpp)

double objective(const std::vector<Cell>& cells, const std::map<std::string, double>& weights)
{
    double f = 0;
    for (const Cell& c : cells) {
        auto w = weights.find(c.metric);
        if (w == weights.end() || !c.published || !c.model || *c.published <= 0 || *c.model <= 0)
            continue;
        double e = std::log(*c.model / *c.published);
        f += w->second * e * e;
    }
    return f;
}

Space make_space(const std::vector<const scenario::ParamDef*>& free, const scenario::Config& start)
{
    Space s;
    s.free = free;
    for (const auto* d : free) {
        double v = start.num(d->name);
        double lo_b = std::max(v / 8, d->min_exclusive ? d->min * (1 + 1e-9) + 1e-12 : std::max(d->min, 1e-12));
        double hi_b = std::min(v * 8, d->max);
        s.x0.push_back(std::log(v));
        s.lb.push_back(std::log(std::max(lo_b, 1e-12)));
        s.ub.push_back(std::log(hi_b));
    }
    return s;
}

namespace {

std::string key_of(const std::vector<double>& v)
{
    std::string k;
    for (double x : v)
        k += fmt::format("{:.9g},", x);
    return k;
}

}  // namespace

Evaluator::Evaluator(Space space, json base_values, std::map<std::string, Table> tables, int jobs, int runs,
                     std::string cache_path, bool replay_cache)
    : space_(std::move(space)), base_(std::move(base_values)), tables_(std::move(tables)), jobs_(jobs), runs_(runs),
      cache_path_(std::move(cache_path))
{
    std::string tmpl = (fs::temp_directory_path() / "swapsim_calib.XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
        throw std::runtime_error("cannot create a temporary folder in " + fs::temp_directory_path().string());
    tmp_ = tmpl;
    if (replay_cache) {
        std::ifstream c(cache_path_);
        std::string line;
        while (std::getline(c, line))
            if (!line.empty()) {
                json j = json::parse(line);
                cache_[j["x"].get<std::string>()][j["scenario"].get<std::string>()] = j["result"];
            }
    } else {
        std::remove(cache_path_.c_str());
    }
}

Evaluator::~Evaluator()
{
    std::error_code ec;
    fs::remove_all(tmp_, ec);
}

json Evaluator::values_for(const std::vector<double>& logx) const
{
    json v = base_;
    for (size_t i = 0; i < space_.free.size(); i++) {
        double x = std::exp(logx[i]);
        if (space_.free[i]->kind == scenario::Kind::Int)
            x = std::round(x);
        v[space_.free[i]->name] = x;
    }
    return v;
}

std::map<std::string, json> Evaluator::run(const std::vector<Target>& targets, const std::vector<double>& logx,
                                           const std::string& what)
{
    std::string key = key_of(logx) + (runs_ > 1 ? fmt::format(" runs={}", runs_) : "");
    auto& cached = cache_[key];
    std::vector<std::string> missing;
    for (const auto& t : targets)
        if (!cached.count(t.scenario) && std::find(missing.begin(), missing.end(), t.scenario) == missing.end())
            missing.push_back(t.scenario);
    if (!missing.empty()) {
        fs::path pf = fs::path(tmp_) / "params.json";
        std::ofstream(pf) << json{{"values", values_for(logx)}}.dump();
        auto got = run_scenarios(missing, {"--no-builtin-params", "--params", pf.string()}, jobs_, stderr_progress(what),
                                 runs_);
        std::ofstream c(cache_path_, std::ios::app);
        for (auto& [s, r] : got) {
            json slim = {{"metrics", r["metrics"]}, {"distribution", r["distribution"]}};
            if (r.contains("runs"))
                slim["runs"] = r["runs"];
            cached[s] = slim;
            c << json{{"x", key}, {"scenario", s}, {"result", slim}}.dump() << "\n";
        }
    }
    return cached;
}

std::vector<Cell> Evaluator::cells(const std::vector<Target>& targets, const std::vector<double>& logx,
                                   const std::string& what)
{
    return make_cells(targets, tables_, run(targets, logx, what));
}

std::vector<double> bobyqa_steps(const std::vector<double>& x0, const std::vector<double>& lb,
                                 const std::vector<double>& ub)
{
    std::vector<double> step;
    for (size_t i = 0; i < x0.size(); i++)
        step.push_back(std::min({0.5, (ub[i] - lb[i]) / 4, std::max(0.05, std::min(x0[i] - lb[i], ub[i] - x0[i]))}));
    return step;
}

namespace {

struct Loop {
    Evaluator& ev;
    const std::vector<Target>& train;
    const std::map<std::string, double>& weights;
    FitResult best;
};

double nlopt_objective(const std::vector<double>& x, std::vector<double>&, void* data)
{
    Loop& l = *static_cast<Loop*>(data);
    double f = objective(l.ev.cells(l.train, x, fmt::format("eval {:3d}", l.best.evals + 1)), l.weights);
    l.best.evals++;
    if (f < l.best.objective) {
        l.best.objective = f;
        l.best.x = x;
    }
    std::fprintf(stderr, "eval %d: objective %.5f (best %.5f)\n", l.best.evals, f, l.best.objective);
    return f;
}

}  // namespace

FitResult fit(Evaluator& ev, const std::vector<Target>& train, const std::map<std::string, double>& weights,
              int max_evals)
{
    const Space& s = ev.space();
    Loop loop{ev, train, weights, {}};
    nlopt::opt opt(nlopt::LN_BOBYQA, unsigned(s.x0.size()));
    opt.set_lower_bounds(s.lb);
    opt.set_upper_bounds(s.ub);
    opt.set_min_objective(nlopt_objective, &loop);
    opt.set_maxeval(max_evals);
    opt.set_xtol_rel(1e-3);
    opt.set_initial_step(bobyqa_steps(s.x0, s.lb, s.ub));   // the first evaluation is x0
    std::vector<double> x = s.x0;
    double fmin = 0;
    try {
        opt.optimize(x, fmin);
    } catch (const nlopt::roundoff_limited&) {
        loop.best.result = "roundoff limited";
    } catch (const std::exception& e) {
        if (loop.best.x.empty())
            throw;
        loop.best.result = e.what();
    }
    return loop.best;
}

json errors_at(Evaluator& ev, const std::vector<Target>& train, const std::vector<Target>& validate,
               const std::vector<double>& x)
{
    json e;
    e["train"] = summarize(ev.cells(train, x, "train  "))["per_metric"];
    if (!validate.empty())
        e["validate"] = summarize(ev.cells(validate, x, "validate"))["per_metric"];
    return e;
}

}  // namespace swapsim::calibrate
