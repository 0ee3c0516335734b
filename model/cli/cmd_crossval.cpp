// swapsim calibrate --cross-validate --out results/cross-validation.json
//
// Leave one table family out, fit the free costs on the others, simulate the left-out family
// (calibrate/crossval.hpp says how the fit is kept affordable). Writes the report as JSON and,
// next to it, as markdown (.md).
#include <algorithm>
#include <cmath>
#include <map>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "calibrate/crossval.hpp"
#include "calibrate/pool.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/fit_args.hpp"
#include "compare/tables.hpp"
#include "report/result.hpp"
#include "scenario/registry.hpp"

namespace swapsim::cli {

namespace {

struct XvalArgs {
    std::string out, published = "calibration/published/seed-tables.json", targets_path = "calibration/targets.json";
    std::string weights_arg = "throughput_kbps=1,elapsed_s=1,sys_s=1";
    std::vector<std::string> free_names, table_ids, changes_only;
    calibrate::CrossValOptions opt;
    std::string command = "swapsim calibrate";
};

XvalArgs parse_args(int argc, char** argv)
{
    XvalArgs a;
    a.opt.jobs = default_jobs();
    for (int i = 1; i < argc; i++)
        a.command += std::string(" ") + argv[i];
    const std::map<std::string, std::vector<std::string>*> lists = {{"--free", &a.free_names},
                                                                   {"--tables", &a.table_ids},
                                                                   {"--changes-only", &a.changes_only}};
    const std::map<std::string, std::string*> strings = {
        {"--out", &a.out}, {"--published", &a.published}, {"--targets", &a.targets_path}, {"--weights", &a.weights_arg}};
    list_args(argc, argv, lists, strings, "with --cross-validate (see swapsim calibrate --help)",
              [&](const std::string& o, auto need) {
                  if (o == "--levels")
                      a.opt.levels = compare::load_cells(need());
                  else if (o == "--scale")
                      a.opt.scale = int_arg(o, need(), 1, 1024);
                  else if (o == "-j")
                      a.opt.jobs = int_arg(o, need(), 1, 256);
                  else if (o == "--free-preset") {
                      auto p = free_preset(need());
                      a.free_names.insert(a.free_names.end(), p.begin(), p.end());
                  }
                  else
                      return o == "--cross-validate";
                  return true;
              });
    if (a.out.empty())
        throw std::invalid_argument("--cross-validate needs --out FILE.json (see swapsim calibrate --help)");
    if (std::string bad = report::check_output_file(a.out); !bad.empty())
        throw std::invalid_argument("--out " + a.out + ": " + bad);
    return a;
}

// The free costs, each from the committed set within its physical range, the weights and the
// targets of the tables asked for.
void resolve(XvalArgs& a)
{
    scenario::Config start = scenario::load_defaults(scenario::LoadOptions{});
    for (const scenario::ParamDef* d : free_params(a.free_names)) {
        if (!(d->min > 0) || !std::isfinite(d->max))
            throw std::invalid_argument("--free " + d->name + ": has no physical range to fit it in (see swapsim params)");
        a.opt.free.push_back({d->name, start.num(d->name), std::log(d->min), std::log(d->max)});
    }
    a.opt.weights = parse_weights(a.weights_arg);
    a.opt.tables = compare::load_tables(a.published);
    const auto all = compare::load_targets(a.targets_path);
    for (const auto& id : a.table_ids)
        if (!a.opt.tables.count(id) || std::none_of(all.begin(), all.end(), [&](const auto& t) { return t.table == id; }))
            throw std::invalid_argument("--tables " + scenario::clip(id, 100) + ": no target of " + a.targets_path +
                                        " reproduces a published table of that id");
    for (const auto& id : a.changes_only) {
        if (!a.opt.tables.count(id) || (!a.table_ids.empty() && std::find(a.table_ids.begin(), a.table_ids.end(), id) == a.table_ids.end()))
            throw std::invalid_argument("--changes-only " + scenario::clip(id, 100) + ": not one of the tables used (--tables)");
        if (a.opt.tables.at(id).changes.empty())
            throw std::invalid_argument("--changes-only " + scenario::clip(id, 100) + ": the table prints no change to fit");
        a.opt.changes_only.insert(id);
    }
    for (const auto& t : all)
        if (a.opt.tables.count(t.table) &&
            (a.table_ids.empty() || std::find(a.table_ids.begin(), a.table_ids.end(), t.table) != a.table_ids.end()))
            a.opt.targets.push_back(t);
    const size_t families = calibrate::families(a.opt.targets).size();
    if (families < 2)
        throw std::invalid_argument("--tables: leaving a family out needs tables of two families or more (" +
                                    std::to_string(families) + " given; a family is a setup at several folio sizes)");
}

}  // namespace

int cmd_cross_validate(int argc, char** argv)
{
    XvalArgs a;
    try {
        a = parse_args(argc, argv);
        resolve(a);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s%s\n", dynamic_cast<const scenario::InputError*>(&e) ? "" : "swapsim calibrate: ", e.what());
        return 2;
    }
    calibrate::CrossValOptions& opt = a.opt;
    std::string tmpl = (fs::temp_directory_path() / "swapsim_xval.XXXXXX").string();
    opt.work_dir = ::mkdtemp(tmpl.data());
    json report;
    try {
        report = calibrate::cross_validate(opt);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim calibrate: %s\n", e.what());
        fs::remove_all(opt.work_dir);
        return calibrate::exit_status(e);
    }
    fs::remove_all(opt.work_dir);
    report["command"] = a.command;
    report["git_commit"] = git_commit();
    std::string md = calibrate::render_cross_validation(report);
    try {
        if (!fs::path(a.out).parent_path().empty())
            fs::create_directories(fs::path(a.out).parent_path());
        report::write_file_atomic(a.out, report.dump(2) + "\n");
        report::write_file_atomic(fs::path(a.out).replace_extension(".md").string(), md);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim calibrate: %s\n", e.what());
        return 1;
    }
    std::printf("%s", md.c_str());
    return 0;
}

}  // namespace swapsim::cli
