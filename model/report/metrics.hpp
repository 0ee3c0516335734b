// The metrics, declared once: one table of every result.json metric with its unit, the file a
// user reads the kernel counter from on a real machine, the component of the model that counts
// it, how the run table prints it and the row labels the published (seed) tables give it.
// result.json ("metrics"), the table `swapsim run` prints, compare's targets and published
// rows, and `swapsim metrics` all read this table. Adding a metric: one row in metrics.cpp plus
// the counter it reads (docs/architecture.md, "worked example: a metric").
// Per-size mTHP stats are one entry each with "<size>" in the name (e.g. zswpout_<size>).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace swapsim::kernel { class Kernel; }
namespace swapsim::workload { class Usemem; class Swapinout; class Kbuild; class Redis; }

namespace swapsim::report {

// The workloads whose result.json holds a metric, and whose run table prints it (bit mask).
enum Workload : unsigned { USEMEM = 1, SWAPINOUT = 2, KBUILD = 4, REDIS = 8, ANY = USEMEM | SWAPINOUT | KBUILD | REDIS };

// Where a user reads the counter on a real machine.
enum class Source {
    Benchmark,      // the workload's own output (usemem, the swap-in/out benchmark)
    PerfStat,       // perf stat / task times
    Machine,        // machine-wide, no one kernel file (MemTotal - MemFree, placement)
    MemcgFile,      // memory.peak, memory.current
    MemoryStat,     // memory.stat
    MemoryEvents,   // memory.events, memory.swap.events
    Vmstat,         // /proc/vmstat
    MthpStats,      // /sys/kernel/mm/transparent_hugepage/hugepages-<size>/stats/
    ZramMmStat,     // /sys/block/zramN/mm_stat
};
const char* source_name(Source s);

// How the run table and compare print a value; Rate and Seconds also say which way is better
// in a change column (more KB/s, fewer seconds).
enum class Fmt { Count, Seconds, Rate, Percent };

// What a metric reads at the end of a run: the kernel, the workload that ran, and the usemem
// figures summed over its processes.
struct RunView {
    const kernel::Kernel& k;
    const workload::Usemem* usemem = nullptr;
    const workload::Swapinout* swapinout = nullptr;
    const workload::Kbuild* kbuild = nullptr;   // sys, user and elapsed are filled from it
    const workload::Redis* redis = nullptr;     // sys and user: the server's, over the GET run
    double tp_sum = 0, tp_min = 0, tp_max = 0, sys = 0, user = 0, elapsed = 0, free_us = 0;
    size_t nproc = 1;             // processes that printed statistics (not OOM-killed)
    size_t killed = 0;
    int smt_shared = 0;
    unsigned workload() const { return usemem ? USEMEM : kbuild ? KBUILD : redis ? REDIS : SWAPINOUT; }
};
// The value of a metric; `order` is the folio order of a per-size stat (0 otherwise).
using Getter = std::function<nlohmann::json(const RunView&, unsigned order)>;

struct Metric {
    std::string name;        // result.json key under "metrics" ("<size>": 64kB, 2048kB, ...)
    std::string unit;        // pages, folios, events, s, ms, us, KB/s, bytes, tasks, %
    Source source = Source::Vmstat;
    std::string kernel;      // the counter's kernel name and the file a user reads it from
    std::string mechanism;   // the component that counts it: kernel function (model file)
    Getter get;
    unsigned workloads = ANY;   // results that hold it
    unsigned shown = 0;         // run tables that print it, in table order
    Fmt fmt = Fmt::Count;
    std::vector<std::string> labels;   // the seeds' row labels, "<size>" per size

    bool per_size() const { return name.find("<size>") != std::string::npos; }
    // Builders for the table rows.
    Metric& in(unsigned w) { workloads = w; return *this; }
    Metric& show(unsigned w, Fmt f = Fmt::Count) { shown = w; fmt = f; return *this; }
    Metric& label(std::vector<std::string> l) { labels = std::move(l); return *this; }
};

const std::vector<Metric>& metrics();
// The entry of `name` (a per-size name matches its "<size>" entry), or nullptr.
const Metric* find_metric(const std::string& name);
// `name` with "<size>" replaced by the size of folio `order` ("64kB").
std::string sized(const std::string& name, unsigned order);
// Whether `label` is one of m's seed labels (for a per-size entry, of the size in `metric`;
// 2048kB may print as 2MB).
bool has_label(const Metric& m, const std::string& metric, const std::string& label);

// result.json "metrics" of a run: every entry of its workload; the per-size stats of each
// enabled mTHP size and of any size that counted something.
nlohmann::json metric_values(const RunView& v);

// The value of `metric` in a result.json (its "metrics"); a per-size mTHP stat of a size that
// is not enabled reads 0, as the kernel's counter; no value for a metric the result lacks.
std::optional<double> model_value(const nlohmann::json& result, const std::string& metric);

// How to print `metric`; a published-only metric (no model counter) by its suffix (_s, _pct).
Fmt fmt_of(const std::string& metric);
// For a change column: true when a larger value is better (throughput, requests per second).
bool higher_is_better(const std::string& metric);

// One row of the run table: the result.json name and how it prints.
struct Row {
    std::string metric;
    Fmt fmt = Fmt::Count;
};
// The run table's rows for a result: the entries its workload shows, in table order; a run
// of consecutive per-size entries repeats for each size the result holds, size by size.
std::vector<Row> rows_for(const nlohmann::json& result);

}  // namespace swapsim::report
