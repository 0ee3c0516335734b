// swapsim calibrate --train T... --validate T... [--free P...] --out calibration/params/NAME.json
//
// Fits model costs (fitted parameters of the registry) to published or measured table cells.
// Objective: the weighted sum over training cells of log(model/published)^2 (default metrics:
// throughput, elapsed, sys). Optimiser: NLopt BOBYQA, bounded and derivative-free, in log
// space: the simulation's outputs move in steps (whole reclaim events, folios), so
// finite-difference Jacobians (Eigen's Levenberg-Marquardt) are unreliable. Every evaluation
// runs the training scenarios in child processes; evaluated points are cached in OUT.cache so
// a re-run with --resume replays up to where it stopped (the optimiser is deterministic).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlopt.hpp>

#include "calibrate/tables.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "report/result.hpp"
#include "scenario/registry.hpp"

namespace swapsim { const char* git_commit(); }

namespace swapsim::cli {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void usage(FILE* f)
{
    std::fprintf(f,
        "usage: swapsim calibrate --train TABLE... --validate TABLE... --out FILE\n"
        "                         [--free PARAM...] [--weights metric=w,...] [--max-evals N] [-j N]\n"
        "                         [--runs N] [--published FILE] [--targets FILE] [--start FILE] [--resume]\n"
        "       swapsim calibrate --cross-validate --out FILE.json [--free PARAM...] [--tables TABLE...]\n"
        "                         [--weights metric=w,...] [--scale N] [--levels CELLS] [-j N] [--published FILE]\n"
        "                         [--targets FILE]\n"
        "\n"
        "Fits the free parameters (default: the registry's fit_default costs) to the training tables'\n"
        "cells, then reports the error on the validation tables. TABLE is a table id of the targets\n"
        "file (e.g. zswap-mthp-v7/case1-64k). The output holds the fitted values, the training and\n"
        "validation error per metric, the iterations and this command line; it is a --params file.\n"
        "  --train TABLE...      tables whose cells the fit minimises (sum of squared log errors)\n"
        "  --validate TABLE...   tables only reported at the end, to see how the fit generalises\n"
        "  --out FILE            the fitted parameter file (--params FILE for run, compare, sweep)\n"
        "  --free PARAM...       the costs to fit (default: every cost `swapsim params` marks fit_default);\n"
        "                        each may move within [start/8, start*8] and its registry range\n"
        "  --weights m=w,...     the metrics of the objective and their weights (default\n"
        "                        throughput_kbps=1,elapsed_s=1,sys_s=1; any metric of `swapsim metrics`)\n"
        "  --start FILE          a parameter file to start from (default: the registry's documented defaults)\n"
        "  --max-evals N         stop after N evaluations of the training tables (default 150)\n"
        "  -j N                  simulations at a time (default: one per CPU)\n"
        "  --runs N              evaluate each scenario as the mean of seeds 1..N (default 1)\n"
        "  --published FILE      the tables to fit (seed-tables.json schema, e.g. your own measurements)\n"
        "  --targets FILE        which scenario reproduces which table column (default calibration/targets.json)\n"
        "  --resume              replay FILE.cache, the evaluations a stopped run of the same command\n"
        "                        already made (the optimiser is deterministic), and go on from there\n"
        "A fitted value on a bound of its range is listed under \"on_bound\": a missing mechanism, not a fit to commit.\n"
        "\n"
        "--cross-validate leaves each table family (a setup at several folio sizes) out in turn, fits the free\n"
        "costs on the others, starting from the committed set, and simulates the left-out family with them:\n"
        "the model's expected error on tables it has not seen. Each fold fits a linearised model (levels from\n"
        "full-size runs, sensitivities from runs scaled down --scale times) inside each cost's physical range;\n"
        "FILE.json and FILE.md get the left-out and training errors and the fitted costs.\n"
        "  --cross-validate      leave each family out in turn (above) instead of one fit\n"
        "  --tables TABLE...     the tables to use (default: every table of the targets file)\n"
        "  --scale N             size divisor of the sensitivity runs (default 64)\n"
        "  --levels CELLS        the committed set's full-size results from compare --all (results/cells.json)\n"
        "                        instead of running them again\n");
}

std::string key_of(const std::vector<double>& v)
{
    std::string k;
    for (double x : v)
        k += fmt::format("{:.9g},", x);
    return k;
}

struct Calib {
    std::vector<const scenario::ParamDef*> free;
    std::vector<double> fixed_defaults;   // value of each free parameter at the start
    json base_values;                     // --start values (other parameters)
    std::vector<calibrate::Target> train, validate;
    std::map<std::string, calibrate::Table> tables;
    std::map<std::string, double> weights;
    int jobs = 2;
    int runs = 1;   // seeds averaged per scenario
    std::string cache_path;
    std::map<std::string, std::map<std::string, json>> cache;   // x key -> scenario -> result
    int evals = 0;
    double best = std::numeric_limits<double>::infinity();
    std::vector<double> best_x;
    fs::path tmp;

    json values_for(const std::vector<double>& logx) const
    {
        json v = base_values;
        for (size_t i = 0; i < free.size(); i++) {
            double x = std::exp(logx[i]);
            if (free[i]->kind == scenario::Kind::Int)
                x = std::round(x);
            v[free[i]->name] = x;
        }
        return v;
    }

    std::map<std::string, json> run(const std::vector<calibrate::Target>& targets, const std::vector<double>& logx,
                                    const std::string& what)
    {
        std::string key = key_of(logx) + (runs > 1 ? fmt::format(" runs={}", runs) : "");
        std::vector<std::string> scen;
        for (const auto& t : targets)
            scen.push_back(t.scenario);
        auto& cached = cache[key];
        std::vector<std::string> missing;
        for (const auto& s : scen)
            if (!cached.count(s) && std::find(missing.begin(), missing.end(), s) == missing.end())
                missing.push_back(s);
        if (!missing.empty()) {
            fs::path pf = tmp / "params.json";
            std::ofstream(pf) << json{{"values", values_for(logx)}}.dump();
            auto got = calibrate::run_scenarios(missing, {"--no-builtin-params", "--params", pf.string()}, jobs,
                                                calibrate::stderr_progress(what), runs);
            std::ofstream c(cache_path, std::ios::app);
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

    double objective(const std::vector<double>& logx)
    {
        auto results = run(train, logx, fmt::format("eval {:3d}", evals + 1));
        double f = 0;
        for (const auto& c : calibrate::make_cells(train, tables, results)) {
            auto w = weights.find(c.metric);
            if (w == weights.end() || !c.published || !c.model || *c.published <= 0 || *c.model <= 0)
                continue;
            double e = std::log(*c.model / *c.published);
            f += w->second * e * e;
        }
        evals++;
        if (f < best) {
            best = f;
            best_x = logx;
        }
        std::fprintf(stderr, "eval %d: objective %.5f (best %.5f)\n", evals, f, best);
        return f;
    }
};

double nlopt_objective(const std::vector<double>& x, std::vector<double>&, void* data)
{
    return static_cast<Calib*>(data)->objective(x);
}

std::vector<calibrate::Target> targets_of(const std::vector<calibrate::Target>& all, const std::vector<std::string>& ids)
{
    std::vector<calibrate::Target> out;
    for (const auto& id : ids) {
        size_t before = out.size();
        for (const auto& t : all)
            if (t.table == id)
                out.push_back(t);
        if (out.size() == before)
            throw std::invalid_argument(id + ": no target reproduces this table");
    }
    return out;
}

}  // namespace

int cmd_calibrate(int argc, char** argv)
{
    for (int i = 1; i < argc; i++)
        if (std::string(argv[i]) == "--cross-validate")
            return cmd_cross_validate(argc, argv);
    std::vector<std::string> train_ids, validate_ids, free_names;
    std::string out, published = "calibration/published/seed-tables.json", targets_path = "calibration/targets.json";
    std::string start_file, weights_arg = "throughput_kbps=1,elapsed_s=1,sys_s=1";
    int max_evals = 150;
    bool resume = false;
    Calib cb;
    cb.jobs = default_jobs();
    std::string command = "swapsim";
    for (int i = 0; i < argc; i++)   // --resume only replays the cache; the result is the same without it
        if (!i || std::string(argv[i]) != "--resume")
            command += std::string(" ") + (i ? argv[i] : "calibrate");
    std::vector<std::string>* list = nullptr;
    try {
        for (int i = 1; i < argc; i++) {
            std::string a = argv[i];
            auto need = [&]() -> std::string {
                list = nullptr;
                return option_value(argc, argv, i);
            };
            if (a == "-h" || a == "--help") {
                usage(stdout);
                return 0;
            } else if (a == "--train") {
                list = &train_ids;
            } else if (a == "--validate") {
                list = &validate_ids;
            } else if (a == "--free") {
                list = &free_names;
            } else if (a == "--out") {
                out = need();
            } else if (a == "--published") {
                published = need();
            } else if (a == "--targets") {
                targets_path = need();
            } else if (a == "--start") {
                start_file = need();
            } else if (a == "--weights") {
                weights_arg = need();
            } else if (a == "--max-evals") {
                max_evals = int_arg(a, need(), 1, 100000);
            } else if (a == "-j") {
                cb.jobs = int_arg(a, need(), 1, 256);
            } else if (a == "--runs") {
                cb.runs = int_arg(a, need(), 1, 100);
            } else if (a == "--resume") {
                resume = true;
                list = nullptr;
            } else if (!a.empty() && a[0] == '-') {
                throw std::invalid_argument("unknown option '" + a + "' (see swapsim calibrate --help)");
            } else if (list) {
                list->push_back(a);
            } else {
                throw std::invalid_argument("unexpected argument '" + a + "'");
            }
        }
        if (out.empty() || train_ids.empty())
            throw std::invalid_argument("--train and --out are required (see swapsim calibrate --help)");
        if (std::string bad = report::check_output_file(out); !bad.empty())   // before hours of fitting
            throw std::invalid_argument("--out " + out + ": " + bad);
        const scenario::Registry& reg = scenario::registry();
        if (free_names.empty())
            free_names = reg.fit_defaults();
        for (const auto& n : free_names) {
            const scenario::ParamDef* d = reg.find(n);
            if (!d) {
                std::string near = reg.nearest_param(n);
                throw std::invalid_argument("--free " + n + ": unknown parameter" +
                                            (near.empty() ? "" : "; did you mean \"" + near + "\"?"));
            }
            if (!d->fitted)
                throw std::invalid_argument("--free " + n + ": not a fitted model cost (see swapsim params)");
            cb.free.push_back(d);
        }
        for (const auto& kv : split(weights_arg, ',')) {
            auto eq = kv.find('=');
            if (eq == std::string::npos)
                throw std::invalid_argument("--weights: expected metric=weight, got '" + kv + "'");
            std::string w = kv.substr(eq + 1);
            char* end = nullptr;
            double x = std::strtod(w.c_str(), &end);
            if (w.empty() || *end || !(x >= 0) || !std::isfinite(x))
                throw std::invalid_argument("--weights: expected a weight >= 0 for " + kv.substr(0, eq) + ", got '" + w + "'");
            cb.weights[kv.substr(0, eq)] = x;
        }
        auto all = calibrate::load_targets(targets_path);
        cb.tables = calibrate::load_tables(published);
        cb.train = targets_of(all, train_ids);
        cb.validate = targets_of(all, validate_ids);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim calibrate: %s\n", e.what());
        return 2;
    }

    // Starting point: --start FILE's values (or the registry defaults) for the free parameters.
    scenario::LoadOptions lo;
    lo.builtin_params = false;
    if (!start_file.empty())
        lo.param_files.push_back(start_file);
    scenario::Config start;
    cb.base_values = json::object();
    try {
        start = scenario::load_defaults(lo);
        if (!start_file.empty())
            cb.base_values = json::parse(scenario::read_input_file(start_file)).value("values", json::object());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s%s\n", dynamic_cast<const scenario::InputError*>(&e) ? "" : "swapsim calibrate: --start: ",
                     e.what());
        return 2;
    }
    std::vector<double> x0, lb, ub;
    for (const auto* d : cb.free) {
        double v = start.num(d->name);
        double lo_b = std::max(v / 8, d->min_exclusive ? d->min * (1 + 1e-9) + 1e-12 : std::max(d->min, 1e-12));
        double hi_b = std::min(v * 8, d->max);
        x0.push_back(std::log(v));
        lb.push_back(std::log(std::max(lo_b, 1e-12)));
        ub.push_back(std::log(hi_b));
    }
    std::string tmpl = (fs::temp_directory_path() / "swapsim_calib.XXXXXX").string();
    cb.tmp = ::mkdtemp(tmpl.data());
    cb.cache_path = out + ".cache";
    if (resume) {
        std::ifstream c(cb.cache_path);
        std::string line;
        while (std::getline(c, line))
            if (!line.empty()) {
                json j = json::parse(line);
                cb.cache[j["x"].get<std::string>()][j["scenario"].get<std::string>()] = j["result"];
            }
    } else {
        std::remove(cb.cache_path.c_str());
    }

    nlopt::opt opt(nlopt::LN_BOBYQA, unsigned(x0.size()));
    opt.set_lower_bounds(lb);
    opt.set_upper_bounds(ub);
    opt.set_min_objective(nlopt_objective, &cb);
    opt.set_maxeval(max_evals);
    opt.set_xtol_rel(1e-3);
    opt.set_initial_step(calibrate::bobyqa_steps(x0, lb, ub));   // the first evaluation is x0
    std::vector<double> x = x0;
    double fmin = 0;
    std::string result = "ok";
    try {
        opt.optimize(x, fmin);
    } catch (const nlopt::roundoff_limited&) {
        result = "roundoff limited";
    } catch (const std::exception& e) {
        if (cb.best_x.empty()) {
            std::fprintf(stderr, "swapsim calibrate: %s\n", e.what());
            fs::remove_all(cb.tmp);
            return 1;
        }
        result = e.what();
    }
    x = cb.best_x;

    // Report: errors on the training and validation cells at the best point.
    json doc;
    doc["comment"] = "Fitted by swapsim calibrate; use with --params, or commit as calibration/params/default.json";
    doc["command"] = command;
    doc["git_commit"] = git_commit();
    doc["published"] = published;
    doc["train"] = train_ids;
    doc["validate"] = validate_ids;
    doc["free"] = free_names;
    doc["weights"] = cb.weights;
    doc["objective"] = cb.best;
    doc["iterations"] = cb.evals;
    doc["optimizer"] = {{"algorithm", "NLopt BOBYQA in log space"}, {"result", result}};
    json values = cb.values_for(x);
    doc["values"] = values;
    json start_values = json::object();
    for (size_t i = 0; i < cb.free.size(); i++)
        start_values[cb.free[i]->name] = std::exp(x0[i]);
    doc["start"] = start_values;
    // A value on a bound of its range: the fit wanted to go further, so a mechanism is missing.
    json on_bound = json::array();
    for (size_t i = 0; i < cb.free.size(); i++) {
        bool at_lo = x[i] <= lb[i] + 1e-6, at_hi = x[i] >= ub[i] - 1e-6;
        if (!at_lo && !at_hi)
            continue;
        double range_bound = at_lo ? std::max(cb.free[i]->min, 1e-12) : cb.free[i]->max;
        bool physical = std::fabs(std::exp(at_lo ? lb[i] : ub[i]) - range_bound) <= 1e-6 * range_bound;
        std::string at = std::string(at_lo ? "lower" : "upper") +
                         (physical ? " bound of its physical range" : " limit of the fit (start /8 .. x8)");
        on_bound.push_back({{"param", cb.free[i]->name}, {"value", std::exp(x[i])}, {"at", at}});
        std::fprintf(stderr, "swapsim calibrate: %s ends on the %s (%g): a missing mechanism; do not commit this fit\n",
                     cb.free[i]->name.c_str(), at.c_str(), std::exp(x[i]));
    }
    doc["on_bound"] = on_bound;
    try {
        auto tr = cb.run(cb.train, x, "train  ");
        doc["errors"]["train"] = calibrate::summarize(calibrate::make_cells(cb.train, cb.tables, tr))["per_metric"];
        if (!cb.validate.empty()) {
            auto va = cb.run(cb.validate, x, "validate");
            doc["errors"]["validate"] =
                calibrate::summarize(calibrate::make_cells(cb.validate, cb.tables, va))["per_metric"];
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim calibrate: %s\n", e.what());
        fs::remove_all(cb.tmp);
        return 1;
    }
    fs::remove_all(cb.tmp);
    try {
        std::error_code ec;
        if (!fs::path(out).parent_path().empty())
            fs::create_directories(fs::path(out).parent_path(), ec);
        report::write_file_atomic(out, doc.dump(2) + "\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim calibrate: %s\n", e.what());
        return 1;
    }
    std::printf("%s", doc.dump(2).c_str());
    std::printf("\n");
    return 0;
}

}  // namespace swapsim::cli
