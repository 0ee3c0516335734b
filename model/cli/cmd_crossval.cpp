// swapsim calibrate --cross-validate --out results/cross-validation.json
//
// Leave one table family out, fit the free costs on the others, simulate the left-out family
// (calibrate/crossval.hpp says how the fit is kept affordable). Writes the report as JSON and,
// next to it, as markdown (.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "calibrate/crossval.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "report/result.hpp"
#include "scenario/registry.hpp"

namespace swapsim { const char* git_commit(); }

namespace swapsim::cli {

using nlohmann::json;
namespace fs = std::filesystem;

int cmd_cross_validate(int argc, char** argv)
{
    std::string out, published = "calibration/published/seed-tables.json", targets_path = "calibration/targets.json";
    std::string weights_arg = "throughput_kbps=1,elapsed_s=1,sys_s=1";
    std::vector<std::string> free_names, table_ids;
    std::vector<std::string>* list = nullptr;
    calibrate::CrossValOptions opt;
    opt.jobs = default_jobs();
    std::string command = "swapsim calibrate";
    for (int i = 1; i < argc; i++)
        command += std::string(" ") + argv[i];
    try {
        for (int i = 1; i < argc; i++) {
            std::string a = argv[i];
            auto need = [&]() -> std::string {
                list = nullptr;
                return option_value(argc, argv, i);
            };
            if (a == "--cross-validate") {
                list = nullptr;
            } else if (a == "--out") {
                out = need();
            } else if (a == "--published") {
                published = need();
            } else if (a == "--targets") {
                targets_path = need();
            } else if (a == "--weights") {
                weights_arg = need();
            } else if (a == "--levels") {
                opt.levels = calibrate::load_cells(need());
            } else if (a == "--scale") {
                opt.scale = int_arg(a, need(), 1, 1024);
            } else if (a == "-j") {
                opt.jobs = int_arg(a, need(), 1, 256);
            } else if (a == "--free") {
                list = &free_names;
            } else if (a == "--tables") {
                list = &table_ids;
            } else if (!a.empty() && a[0] == '-') {
                throw std::invalid_argument("unknown option '" + a + "' with --cross-validate (see swapsim calibrate --help)");
            } else if (list) {
                list->push_back(a);
            } else {
                throw std::invalid_argument("unexpected argument '" + a + "'");
            }
        }
        if (out.empty())
            throw std::invalid_argument("--cross-validate needs --out FILE.json (see swapsim calibrate --help)");
        if (std::string bad = report::check_output_file(out); !bad.empty())
            throw std::invalid_argument("--out " + out + ": " + bad);
        const scenario::Registry& reg = scenario::registry();
        if (free_names.empty())
            free_names = reg.fit_defaults();
        // Start: the committed parameter set (compiled in), each free cost within its physical range.
        scenario::Config start = scenario::load_defaults(scenario::LoadOptions{});
        for (const auto& n : free_names) {
            const scenario::ParamDef* d = reg.find(n);
            if (!d)
                throw std::invalid_argument("--free " + n + ": unknown parameter");
            if (!d->fitted)
                throw std::invalid_argument("--free " + n + ": not a fitted model cost (see swapsim params)");
            if (!(d->min > 0) || !std::isfinite(d->max))
                throw std::invalid_argument("--free " + n + ": has no physical range to fit it in (see swapsim params)");
            opt.free.push_back({n, start.num(n), std::log(d->min), std::log(d->max)});
        }
        opt.weights = parse_weights(weights_arg);
        auto all = calibrate::load_targets(targets_path);
        opt.tables = calibrate::load_tables(published);
        for (const auto& id : table_ids)
            if (!opt.tables.count(id) || std::none_of(all.begin(), all.end(), [&](const auto& t) { return t.table == id; }))
                throw std::invalid_argument("--tables " + scenario::clip(id, 100) + ": no target of " + targets_path +
                                            " reproduces a published table of that id");
        for (const auto& t : all)
            if (opt.tables.count(t.table) &&
                (table_ids.empty() || std::find(table_ids.begin(), table_ids.end(), t.table) != table_ids.end()))
                opt.targets.push_back(t);
        if (calibrate::families(opt.targets).size() < 2)
            throw std::invalid_argument("--tables: leaving a family out needs tables of two families or more (" +
                                        std::to_string(calibrate::families(opt.targets).size()) +
                                        " given; a family is a setup at several folio sizes)");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s%s\n", dynamic_cast<const scenario::InputError*>(&e) ? "" : "swapsim calibrate: ", e.what());
        return 2;
    }
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
    report["command"] = command;
    report["git_commit"] = git_commit();
    std::string md = calibrate::render_cross_validation(report);
    try {
        if (!fs::path(out).parent_path().empty())
            fs::create_directories(fs::path(out).parent_path());
        report::write_file_atomic(out, report.dump(2) + "\n");
        report::write_file_atomic(fs::path(out).replace_extension(".md").string(), md);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim calibrate: %s\n", e.what());
        return 1;
    }
    std::printf("%s", md.c_str());
    return 0;
}

}  // namespace swapsim::cli
