// swapsim calibrate --train T... --validate T... [--free P...] --out calibration/params/NAME.json
//
// Parses the command line and hands the fit to calibrate/fit.hpp (objective, optimiser,
// evaluation cache). Evaluated points are cached in OUT.cache so a re-run with --resume replays
// up to where it stopped (the optimiser is deterministic).
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

#include "calibrate/fit.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/fit_args.hpp"
#include "compare/tables.hpp"
#include "report/result.hpp"
#include "scenario/registry.hpp"

namespace swapsim::cli {

namespace {

void usage(FILE* f)
{
    std::fprintf(f,
        "usage: swapsim calibrate --train TABLE... --validate TABLE... --out FILE\n"
        "                         [--free PARAM...] [--weights metric=w,...] [--max-evals N] [-j N]\n"
        "                         [--runs N] [--published FILE] [--targets FILE] [--start FILE | --no-builtin-params]\n"
        "                         [--resume]\n"
        "       swapsim calibrate --cross-validate --out FILE.json [--free PARAM...] [--free-preset NAME] [--tables TABLE...]\n"
        "                         [--changes-only TABLE...]\n"
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
        "  --free-preset NAME    add the costs a run on one swap back end moves: zswap-zstd, zswap-lz4,\n"
        "                        zswap-lzo-rle, zswap-iaa, zram, pmem, ssd, hdd (docs/user-guide.md lists each)\n"
        "                        each may move within [start/8, start*8] and its registry range\n"
        "  --weights m=w,...     the metrics of the objective and their weights (default\n"
        "                        throughput_kbps=1,elapsed_s=1,sys_s=1; any metric of `swapsim metrics`)\n"
        "  --start FILE          a parameter file to start from, on the registry's documented defaults\n"
        "                        (default: the committed fit, calibration/params/default.json, compiled in)\n"
        "  --no-builtin-params   start from the registry's documented defaults instead of the committed fit\n"
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
        "  --changes-only TABLE...  tables fitted and scored on their printed changes (after / before) only,\n"
        "                        not their absolute values: runs on a machine the source does not state\n"
        "  --scale N             size divisor of the sensitivity runs (default 64)\n"
        "  --levels CELLS        the committed set's full-size results from compare --all (results/cells.json)\n"
        "                        instead of running them again\n");
}

struct Args {
    std::vector<std::string> train_ids, validate_ids, free_names;
    std::string out, published = "calibration/published/seed-tables.json", targets_path = "calibration/targets.json";
    std::string start_file, weights_arg = "throughput_kbps=1,elapsed_s=1,sys_s=1";
    int max_evals = 150, jobs = default_jobs(), runs = 1;
    bool resume = false, help = false, builtin = true;
    std::string command = "swapsim";   // for the output file
};

Args parse_args(int argc, char** argv)
{
    Args a;
    for (int i = 0; i < argc; i++)   // --resume only replays the cache; the result is the same without it
        if (!i || std::string(argv[i]) != "--resume")
            a.command += std::string(" ") + (i ? argv[i] : "calibrate");
    const std::map<std::string, std::vector<std::string>*> lists = {
        {"--train", &a.train_ids}, {"--validate", &a.validate_ids}, {"--free", &a.free_names}};
    const std::map<std::string, std::string*> strings = {{"--out", &a.out}, {"--published", &a.published},
                                                         {"--targets", &a.targets_path}, {"--start", &a.start_file},
                                                         {"--weights", &a.weights_arg}};
    a.help = list_args(argc, argv, lists, strings, "(see swapsim calibrate --help)", [&](const std::string& o, auto need) {
        if (o == "--max-evals")
            a.max_evals = int_arg(o, need(), 1, 100000);
        else if (o == "-j")
            a.jobs = int_arg(o, need(), 1, 256);
        else if (o == "--runs")
            a.runs = int_arg(o, need(), 1, 100);
        else if (o == "--resume")
            a.resume = true;
        else if (o == "--no-builtin-params")
            a.builtin = false;
        else if (o == "--free-preset") {
            auto p = free_preset(need());
            a.free_names.insert(a.free_names.end(), p.begin(), p.end());
        }
        else
            return false;
        return true;
    });
    if (a.help)
        return a;
    if (a.out.empty() || a.train_ids.empty())
        throw std::invalid_argument("--train and --out are required (see swapsim calibrate --help)");
    if (std::string bad = report::check_output_file(a.out); !bad.empty())   // before hours of fitting
        throw std::invalid_argument("--out " + a.out + ": " + bad);
    if (!a.start_file.empty())
        a.builtin = false;   // --start FILE applies on the registry defaults, as it always did
    return a;
}

std::vector<compare::Target> targets_of(const std::vector<compare::Target>& all, const std::vector<std::string>& ids)
{
    std::vector<compare::Target> out;
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

// Everything the fit needs, read and checked before it starts (bad input: exit 2).
struct Inputs {
    std::vector<const scenario::ParamDef*> free;
    std::map<std::string, double> weights;
    std::map<std::string, compare::Table> tables;
    std::vector<compare::Target> train, validate;
    scenario::Config start;                   // --start values (or the registry defaults)
    json base_values = json::object();        // --start FILE's values
};

Inputs read_inputs(Args& a)
{
    Inputs in;
    in.free = free_params(a.free_names);
    in.weights = parse_weights(a.weights_arg);
    auto all = compare::load_targets(a.targets_path);
    in.tables = compare::load_tables(a.published);
    in.train = targets_of(all, a.train_ids);
    in.validate = targets_of(all, a.validate_ids);
    return in;
}

// The starting point, on the registry defaults: the committed fit (compiled in), --start FILE's
// values, or nothing (--no-builtin-params). Every simulation of the fit runs on it.
void read_start(const Args& a, Inputs& in)
{
    scenario::LoadOptions lo;
    lo.builtin_params = a.builtin;
    if (!a.start_file.empty())
        lo.param_files.push_back(a.start_file);
    in.start = scenario::load_defaults(lo);
    if (!a.start_file.empty())
        in.base_values = json::parse(scenario::read_input_file(a.start_file)).value("values", json::object());
    else if (a.builtin)
        in.base_values = json::parse(scenario::default_params_json()).value("values", json::object());
}

json output_doc(const Args& a, const Inputs& in, const calibrate::Evaluator& ev, const calibrate::FitResult& r)
{
    json doc;
    doc["comment"] = "Fitted by swapsim calibrate; use with --params, or commit as calibration/params/default.json";
    doc["command"] = a.command;
    doc["git_commit"] = git_commit();
    doc["published"] = a.published;
    doc["train"] = a.train_ids;
    doc["validate"] = a.validate_ids;
    doc["free"] = a.free_names;
    doc["weights"] = in.weights;
    doc["objective"] = r.objective;
    doc["iterations"] = r.evals;
    doc["optimizer"] = {{"algorithm", "NLopt BOBYQA in log space"}, {"result", r.result}};
    doc["values"] = ev.values_for(r.x);
    json start_values = json::object();
    for (size_t i = 0; i < ev.space().free.size(); i++)
        start_values[ev.space().free[i]->name] = std::exp(ev.space().x0[i]);
    doc["start"] = start_values;
    return doc;
}

// Values that end on a bound: the fit wanted to go further, so a mechanism is missing.
json on_bound(const calibrate::Space& sp, const std::vector<double>& x)
{
    json out = json::array();
    for (size_t i = 0; i < sp.free.size(); i++) {
        bool at_lo = x[i] <= sp.lb[i] + 1e-6, at_hi = x[i] >= sp.ub[i] - 1e-6;
        if (!at_lo && !at_hi)
            continue;
        double range_bound = at_lo ? std::max(sp.free[i]->min, 1e-12) : sp.free[i]->max;
        bool physical = std::fabs(std::exp(at_lo ? sp.lb[i] : sp.ub[i]) - range_bound) <= 1e-6 * range_bound;
        std::string at = std::string(at_lo ? "lower" : "upper") +
                         (physical ? " bound of its physical range" : " limit of the fit (start /8 .. x8)");
        out.push_back({{"param", sp.free[i]->name}, {"value", std::exp(x[i])}, {"at", at}});
        std::fprintf(stderr, "swapsim calibrate: %s ends on the %s (%g): a missing mechanism; do not commit this fit\n",
                     sp.free[i]->name.c_str(), at.c_str(), std::exp(x[i]));
    }
    return out;
}

}  // namespace

const std::vector<FreePreset>& free_presets()
{
    const std::vector<std::string> common = {"cost.reclaim.entry", "cost.rmap.walk", "cost.lock.handoff_ns"};
    auto with = [&](std::vector<std::string> own) {
        std::vector<std::string> p = common;
        p.insert(p.end(), own.begin(), own.end());
        return p;
    };
    static const std::vector<FreePreset> presets = {
        {"zswap-zstd", "zswap with zstd: the store path, the zs_pool class lock, zstd's in-kernel cost",
         with({"cost.zswap.store_page", "cost.zsmalloc.class_hold", "cost.compress.zstd.usemem_comp"})},
        {"zswap-lz4", "zswap with lz4", with({"cost.zswap.store_page", "cost.zsmalloc.class_hold", "cost.compress.lz4.usemem_comp"})},
        {"zswap-lzo-rle", "zswap with lzo-rle",
         with({"cost.zswap.store_page", "cost.zsmalloc.class_hold", "cost.compress.lzo-rle.usemem_comp"})},
        {"zswap-iaa", "zswap on IAA (deflate-iaa): the store path, the class lock, the engine's fixed cost per job",
         with({"cost.zswap.store_page", "cost.zsmalloc.class_hold", "cost.iaa.fixed.comp_base_ns"})},
        {"zram", "a zram device: zram_write_page / zram_read_page around the codec, the class lock",
         with({"cost.zram.write_page", "cost.zram.read_page", "cost.zsmalloc.class_hold"})},
        {"pmem", "PMEM (SWP_SYNCHRONOUS_IO): the swap cache and its shadow-node list, the swap allocator's lock",
         with({"cost.swapcache.add", "cost.workingset.shadow_list", "cost.swap.lock_hold"})},
        {"ssd", "an SSD: bio submission, the swap cache and its shadow-node list",
         with({"cost.bio.submit", "cost.swapcache.add", "cost.workingset.shadow_list"})},
        {"hdd", "a rotational disk: bio submission, the swap allocator's lock", with({"cost.bio.submit", "cost.swap.lock_hold"})},
    };
    return presets;
}

std::vector<std::string> free_preset(const std::string& name)
{
    std::string names;
    for (const FreePreset& p : free_presets()) {
        if (name == p.name)
            return p.params;
        names += (names.empty() ? "" : ", ") + std::string(p.name);
    }
    throw std::invalid_argument("--free-preset " + scenario::clip(name, 60) + ": unknown preset; one of " + names);
}

std::vector<const scenario::ParamDef*> free_params(std::vector<std::string>& names)
{
    const scenario::Registry& reg = scenario::registry();
    if (names.empty())
        names = reg.fit_defaults();
    std::vector<const scenario::ParamDef*> free;
    for (const auto& n : names) {
        const scenario::ParamDef* d = reg.find(n);
        if (!d) {
            std::string near = reg.nearest_param(n);
            throw std::invalid_argument("--free " + n + ": unknown parameter" +
                                        (near.empty() ? "" : "; did you mean \"" + near + "\"?"));
        }
        if (!d->fitted)
            throw std::invalid_argument("--free " + n + ": not a fitted model cost (see swapsim params)");
        free.push_back(d);
    }
    return free;
}

int cmd_calibrate(int argc, char** argv)
{
    bool xval = false, help = false;
    for (int i = 1; i < argc; i++) {
        xval |= std::string(argv[i]) == "--cross-validate";
        help |= std::string(argv[i]) == "-h" || std::string(argv[i]) == "--help";
    }
    if (help) {
        usage(stdout);
        return 0;
    }
    if (xval)
        return cmd_cross_validate(argc, argv);
    Args a;
    if (int st = parse_command("calibrate", argc, argv, a, parse_args, usage); st >= 0)
        return st;
    Inputs in;
    try {
        in = read_inputs(a);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim calibrate: %s\n", e.what());
        return 2;
    }
    try {
        read_start(a, in);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s%s\n", dynamic_cast<const scenario::InputError*>(&e) ? "" : "swapsim calibrate: --start: ",
                     e.what());
        return 2;
    }
    json doc;
    try {
        calibrate::Evaluator ev(calibrate::make_space(in.free, in.start), in.base_values, in.tables, a.jobs, a.runs,
                                a.out + ".cache", a.resume);
        calibrate::FitResult r = calibrate::fit(ev, in.train, in.weights, a.max_evals);
        doc = output_doc(a, in, ev, r);
        doc["on_bound"] = on_bound(ev.space(), r.x);
        // Report: errors on the training and validation cells at the best point.
        doc["errors"] = calibrate::errors_at(ev, in.train, in.validate, r.x);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim calibrate: %s\n", e.what());
        return 1;
    }
    try {
        std::error_code ec;
        if (!fs::path(a.out).parent_path().empty())
            fs::create_directories(fs::path(a.out).parent_path(), ec);
        report::write_file_atomic(a.out, doc.dump(2) + "\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim calibrate: %s\n", e.what());
        return 1;
    }
    std::printf("%s\n", doc.dump(2).c_str());
    return 0;
}

}  // namespace swapsim::cli
