#include "compare/markdown.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "report/metrics.hpp"
#include "report/result.hpp"
#include "workload/usemem.hpp"

namespace swapsim::compare {

using nlohmann::json;
using report::md_head;

namespace {

bool is_seconds(const std::string& metric) { return report::fmt_of(metric) == report::Fmt::Seconds; }

std::string fmt_value(const std::string& metric, double v) { return report::format_number(v, report::fmt_of(metric)); }

std::string fmt_pct(double x)
{
    return fmt::format("{:+.1f}%", 100 * x);
}

// Markdown table cell text: a '|' in a published label would split the cell.
std::string md_cell(const std::string& s)
{
    std::string out;
    for (char ch : s) {
        if (ch == '|')
            out += '\\';
        out += ch;
    }
    return out;
}

}  // namespace

std::string render_summary(const json& summary, const std::vector<Cell>& cells, size_t worst, double min_published)
{
    static const std::vector<std::string> headline = {"throughput_kbps", "elapsed_s", "sys_s", "zswpout",
                                                      "pswpout", "memcg_high", "memcg_swap_fail", "(all)"};
    std::vector<std::string> head = {"table"};
    head.insert(head.end(), headline.begin(), headline.end());
    std::string md = "MAPE over cells with a nonzero published value (cells compared in brackets).\n\n" + md_head(head);
    auto row = [&](const std::string& name, const json& per) {
        md += "| " + name + " |";
        for (const auto& m : headline)
            md += per.contains(m) ? fmt::format(" {:.1f}% ({}) |", 100 * per[m]["mape"].get<double>(),
                                                per[m]["cells"].get<int>())
                                  : std::string(" |");
        md += "\n";
    };
    const json per_table = summary.value("per_table", json::object());
    for (auto& [t, per] : per_table.items())
        row(t, per);
    row("**all tables**", summary.value("per_metric", json::object()));
    // The model's own noise: how far its runs with different seeds lie apart.
    std::string spread;
    const json per_metric = summary.value("per_metric", json::object());
    for (const auto& m : headline)
        if (m != "(all)" && per_metric.contains(m) && per_metric[m].contains("run_spread"))
            spread += fmt::format("{}{} {:.1f}% (max {:.1f}%)", spread.empty() ? "" : ", ", m,
                                  100 * per_metric[m]["run_spread"]["mean"].get<double>(),
                                  100 * per_metric[m]["run_spread"]["max"].get<double>());
    if (!spread.empty())
        md += "\nThe model's run-to-run range, (max - min) / mean over its seeds, mean over cells: " + spread + ".\n";

    std::vector<const Cell*> big, small;
    for (const Cell& c : cells)
        if (c.rel_error && c.published && *c.published != 0)
            (std::fabs(*c.published) >= min_published || is_seconds(c.metric) || c.metric == "throughput_kbps"
                 ? big : small).push_back(&c);
    auto by_error = [](const Cell* a, const Cell* b) {
        double ea = std::fabs(*a->rel_error), eb = std::fabs(*b->rel_error);
        return ea != eb ? ea > eb : std::tie(a->table, a->column, a->metric) < std::tie(b->table, b->column, b->metric);
    };
    std::sort(big.begin(), big.end(), by_error);
    md += fmt::format("\nThe {} worst cells (published value >= {:g}, or a time or throughput):\n\n"
                      "| table | column | metric | published | model | error |\n|---|---|---|---|---|---|\n",
                      std::min(worst, big.size()), min_published);
    for (size_t i = 0; i < big.size() && i < worst; i++) {
        const Cell& c = *big[i];
        md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", c.table, c.column, c.metric,
                          fmt_value(c.metric, *c.published), fmt_value(c.metric, *c.model), fmt_pct(*c.rel_error));
    }
    if (!small.empty())
        md += fmt::format("\n{} further cells have published counts below {:g} (e.g. swap_ra, pswpin); their "
                          "relative errors are in summary.json.\n", small.size(), min_published);
    return md;
}

namespace {

// "published / model" run / write of column c, from the usemem options the scenario ran.
std::string run_to_write_cell(const Table& t, size_t c, const json& result)
{
    const json um = result.value("effective_config", json::object()).value("workload", json::object()).value("usemem", json::object());
    double sleep = um.value("sleep", 0.0);
    double credited = double(workload::credited_bytes(um.value("size", uint64_t(0)), um.value("repeat", 1),
                                                      um.value("read_again", false)));
    int tp = t.row_of("throughput_kbps"), el = t.row_of("elapsed_s");
    std::optional<double> pub, mod;
    if (tp >= 0 && el >= 0 && t.values[size_t(tp)][c] && t.values[size_t(el)][c])
        pub = run_to_write_ratio(*t.values[size_t(tp)][c], *t.values[size_t(el)][c], sleep, credited);
    auto mtp = model_value(result, "throughput_kbps"), mel = model_value(result, "elapsed_s");
    if (mtp && mel)
        mod = run_to_write_ratio(*mtp, *mel, sleep, credited);
    auto str = [](std::optional<double> r) { return r ? fmt::format("{:.2f}", *r) : std::string("n/a"); };
    return str(pub) + " / " + str(mod);
}

}  // namespace

std::string render_table(const Table& t, const std::vector<Target>& targets, const std::map<std::string, json>& results,
                         int* sign_matches, int* sign_total)
{
    std::map<std::string, const json*> col_result;
    for (const Target& tg : targets)
        if (tg.table == t.id) {
            auto it = results.find(tg.scenario);
            if (it != results.end())
                col_result[tg.column] = &it->second;
        }
    std::string md = fmt::format("## {}\n\n{}\n\n", t.id, t.title);
    md += "Each cell: published / model (relative error). Columns without a scenario yet: published only.\n\n";
    std::vector<std::string> head = {"metric"};
    for (const auto& l : t.column_labels)
        head.push_back(md_cell(l));
    for (const auto& ch : t.changes)
        head.push_back(md_cell(ch.label.empty() ? ch.key : ch.label) + " (published / model)");
    md += md_head(head);
    for (size_t r = 0; r < t.metrics.size(); r++) {
        const std::string& m = t.metrics[r];
        md += "| " + md_cell(t.labels[r]) + " |";
        for (size_t c = 0; c < t.columns.size(); c++) {
            std::optional<double> pub = t.values[r][c];
            std::string cell = pub ? fmt_value(m, *pub) : "n/a";
            auto it = col_result.find(t.columns[c]);
            if (it != col_result.end()) {
                std::optional<double> mod = model_value(*it->second, m);
                if (mod) {
                    cell += " / " + fmt_value(m, *mod);
                    if (auto e = rel_error(pub, mod))
                        cell += " (" + fmt_pct(*e) + ")";
                }
            }
            md += " " + cell + " |";
        }
        for (const ChangeColumn& ch : t.changes) {
            auto pc = t.published_change.find({m, ch.key});
            std::string cell;
            if (pc != t.published_change.end())
                cell = fmt::format("{}%", pc->second);
            auto a = col_result.find(ch.new_col), b = col_result.find(ch.base_col);
            int cn = t.col_of(ch.new_col), cb = t.col_of(ch.base_col);
            if (pc != t.published_change.end() && a != col_result.end() && b != col_result.end() && cn >= 0 && cb >= 0) {
                auto vn = model_value(*a->second, m), vb = model_value(*b->second, m);
                if (vn && vb) {
                    double mc = t.change_formula == "relative_change" ? (*vb ? (*vn - *vb) / *vb : 0.0)
                                                                      : relative_improvement(m, *vb, *vn);
                    bool match = (mc > 0) == (pc->second > 0) || (mc == 0 && pc->second == 0);
                    cell += " / " + fmt_pct(mc) + (match ? "" : " **sign differs**");
                    if (sign_total)
                        (*sign_total)++;
                    if (match && sign_matches)
                        (*sign_matches)++;
                }
            }
            md += " " + cell + " |";
        }
        md += "\n";
    }
    // Per-process throughput distribution of each modelled column (usemem workloads only).
    std::string dist_rows;
    for (size_t c = 0; c < t.columns.size(); c++) {
        auto it = col_result.find(t.columns[c]);
        if (it == col_result.end() || !it->second->contains("distribution"))
            continue;
        const json& d = (*it->second)["distribution"]["throughput_kbps"];
        dist_rows += fmt::format("| {} | {} | {} | {} | {} | {:.3f} | {} |\n", md_cell(t.column_labels[c]),
                                 report::format_number(d["min"].get<double>(), report::Fmt::Count),
                                 report::format_number(d["median"].get<double>(), report::Fmt::Count),
                                 report::format_number(d["max"].get<double>(), report::Fmt::Count),
                                 report::format_number(d["stdev"].get<double>(), report::Fmt::Count),
                                 d["jain_fairness"].get<double>(), run_to_write_cell(t, c, *it->second));
    }
    if (dist_rows.empty())
        return md + "\n";
    md += "\nPer-process throughput (KB/s) in the model: min / median / max, stdev, Jain's fairness index. "
          "Run / write, published / model: (elapsed - sleep) over the write time that the mean throughput implies "
          "(usemem's credited bytes / mean; size x 9/8 for one pass); 1 when every process writes for the whole "
          "run, above 1 when some finish early or the run spends time outside the writes (fork, munmap, exit).\n\n";
    md += "| column | min | median | max | stdev | Jain | run / write |\n|---|---|---|---|---|---|---|\n" + dist_rows;
    return md + "\n";
}

}  // namespace swapsim::compare
