#include "report/result.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

#include <openssl/evp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>

#include "engine/sim.hpp"
#include "report/invariants.hpp"
#include "kernel/kernel.hpp"
#include "workload/kbuild.hpp"
#include "workload/redis.hpp"
#include "workload/swapinout.hpp"
#include "workload/usemem.hpp"

namespace swapsim { const char* version(); const char* git_commit(); }

namespace swapsim::report {

using nlohmann::json;

std::string sha256_hex(const std::string& data)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
    std::string hex;
    for (unsigned i = 0; i < len; i++)
        hex += fmt::format("{:02x}", md[i]);
    return hex;
}

long peak_rss_kb()
{
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

json distribution(std::vector<double> v)
{
    json d;
    if (v.empty())
        return d;
    std::sort(v.begin(), v.end());
    double sum = 0, sum2 = 0;
    for (double x : v) {
        sum += x;
        sum2 += x * x;
    }
    double n = double(v.size()), mean = sum / n;
    size_t m = v.size() / 2;
    d["min"] = v.front();
    d["median"] = v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
    d["max"] = v.back();
    d["mean"] = mean;
    d["stdev"] = std::sqrt(std::max(0.0, sum2 / n - mean * mean));
    d["jain_fairness"] = sum2 > 0 ? sum * sum / (n * sum2) : 1.0;
    return d;
}

namespace {

json histogram(const hw::WaitHistogram& h)
{
    json out = json::object();
    for (size_t k = 0; k < h.buckets.size(); k++) {
        if (!h.buckets[k])
            continue;
        std::string key = k == 0 ? "0ns" : fmt::format("<{}ns", uint64_t(1) << k);
        out[key] = h.buckets[k];
    }
    return out;
}

// Processes whose core runs another of them (the CPU each was placed on).
int smt_shared_tasks(const hw::Topology& t, const std::vector<workload::UsememProc>& procs)
{
    std::vector<int> per_core(size_t(t.nr_cores()), 0);
    for (const auto& p : procs)
        per_core[size_t(t.core_of(p.cpu))]++;
    int n = 0;
    for (const auto& p : procs)
        n += per_core[size_t(t.core_of(p.cpu))] > 1;
    return n;
}

// Model helpers that price a kernel function under another name.
std::string kernel_name(const std::string& fn)
{
    static const std::map<std::string, std::string> names = {
        {"account_charge", "try_charge_memcg"},
        {"exit_mmap_vma", "zap_pte_range"},
        {"flush_plug", "submit_bio"},
        {"free_folio", "free_unref_folios"},
        {"iaa_compress_batch", "iaa_comp_acompress"},
        {"iaa_decompress", "iaa_comp_adecompress"},
        {"iaa_wait", "check_completion (iaa_crypto)"},
        {"lru_add", "lru_add_fn"},
        {"pte_alloc", "__pte_alloc"},
        {"read_swap_cache_async", "__read_swap_cache_async"},
        {"release_folio", "folios_put_refs"},
        {"swap_cache_del", "__delete_from_swap_cache"},
        {"swap_cache_insert", "add_to_swap_cache"},
        {"tlb_flush_dirty", "try_to_unmap_flush_dirty"},
        {"zone_lock_pcp", "rmqueue_bulk / free_pcppages_bulk"},
    };
    auto it = names.find(fn);
    return it == names.end() ? fn : it->second;
}

// stime by the kernel function that spent it, its spin on locks apart; heaviest first. The
// kernel's tables are keyed by string address, which differs between runs: the terms are
// summed in an order set by name and value only, so the result stays byte-identical.
json sys_profile(const kernel::Kernel& k)
{
    struct Term {
        std::string name;
        double s;
        bool spin;
    };
    std::vector<Term> terms;
    for (const auto& [fn, s] : k.sys_profile)
        terms.push_back({kernel_name(fn), s, false});
    for (const auto& [fn, s] : k.spin_profile)
        terms.push_back({kernel_name(fn), s, true});
    std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) {
        return std::tie(a.name, a.spin, a.s) < std::tie(b.name, b.spin, b.s);
    });
    std::map<std::string, std::pair<double, double>> by;   // name -> (work, spin)
    for (const Term& t : terms)
        (t.spin ? by[t.name].second : by[t.name].first) += t.s;
    std::vector<std::pair<std::string, std::pair<double, double>>> v(by.begin(), by.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
        return a.second.first + a.second.second > b.second.first + b.second.second;
    });
    json rows = json::array();
    for (const auto& [fn, ws] : v)
        rows.push_back({{"function", fn}, {"sys_s", ws.first + ws.second}, {"spin_s", ws.second}});
    return rows;
}

}  // namespace

json build_result(const scenario::Config& cfg, const std::string& scenario_text, const kernel::Kernel& k,
                  const workload::Usemem& um, double wall_s)
{
    json r;
    r["scenario"] = cfg.s("name");
    RunView v{k};
    v.usemem = &um;
    const auto& procs = um.procs();
    std::vector<double> tps;
    json per = json::array();
    for (const auto& p : procs) {
        const kernel::Task& t = k.task(p.pid);
        // An OOM-killed process prints no statistics: averages are over the others.
        v.killed += p.killed;
        if (!p.killed) {
            tps.push_back(double(p.throughput_kbps));
            v.tp_sum += double(p.throughput_kbps);
            v.free_us += p.free_us;
        }
        v.sys += t.stime;
        v.user += t.utime;
        v.elapsed = std::max(v.elapsed, p.t_exit);
        per.push_back({{"pid", p.pid}, {"cpu", p.cpu}, {"cpu_last", t.cpu}, {"migrations", t.migrations}, {"throughput_kbps", p.throughput_kbps},
                       {"write_s", p.t_done}, {"wall_s", p.t_exit - p.t_start}, {"sys_s", t.stime},
                       {"user_s", t.utime}, {"free_latency_us", p.free_us}, {"reclaimed_pages", t.reclaimed},
                       {"throttled_s", t.throttled_s}, {"io_wait_s", t.io_wait_s}, {"oom_killed", p.killed}});
    }
    v.nproc = std::max<size_t>(1, procs.size() - v.killed);
    // Imbalance: the slowest and fastest process, and how many processes shared an SMT core
    // with another usemem process where they started writing.
    json dist = distribution(tps);
    v.tp_min = dist.value("min", 0.0);
    v.tp_max = dist.value("max", 0.0);
    v.smt_shared = smt_shared_tasks(k.cfg().topo, procs);
    r["metrics"] = metric_values(v);
    r["distribution"]["throughput_kbps"] = dist;
    r["per_process"] = per;
    r["accounting"]["at_writes_done"] = census_json(um.census_at_writes_done());
    add_common(r, cfg, scenario_text, k, v.elapsed, wall_s);
    return r;
}

namespace {

// mm_stat of a zram device: orig_data_size compr_data_size mem_used_total mem_limit
// mem_used_max same_pages pages_compacted huge_pages huge_pages_since (bytes, pages as printed).
json mm_stat(const mm::ZramStats& z, uint64_t mem_used_bytes)
{
    return {{"orig_data_size", z.pages_stored * mm::PAGE_SIZE}, {"compr_data_size", z.compr_data_size},
            {"mem_used_total", mem_used_bytes}, {"mem_limit", 0}, {"mem_used_max", z.max_used_pages * mm::PAGE_SIZE},
            {"same_pages", z.same_pages}, {"pages_compacted", 0}, {"huge_pages", z.huge_pages},
            {"huge_pages_since", z.huge_pages_since}, {"objects", z.objects}, {"multi_page_objects", z.multi_objects},
            {"notify_free", z.notify_free}};
}

// The result of a workload that counts its own sys, user and elapsed time (kbuild: every job's
// task, make's real time; Redis: the server over the GET run), `end` the run's last instant.
json timed_result(const scenario::Config& cfg, const std::string& scenario_text, const kernel::Kernel& k, RunView& v,
                  double sys, double user, double elapsed, double end, double wall_s)
{
    v.sys = sys;
    v.user = user;
    v.elapsed = elapsed;
    json r;
    r["scenario"] = cfg.s("name");
    r["metrics"] = metric_values(v);
    add_common(r, cfg, scenario_text, k, end, wall_s);
    return r;
}

}  // namespace

json build_result(const scenario::Config& cfg, const std::string& scenario_text, const kernel::Kernel& k,
                  const workload::Swapinout& si, double wall_s)
{
    using namespace mm;
    json r;
    r["scenario"] = cfg.s("name");
    RunView v{k};
    v.swapinout = &si;
    r["metrics"] = metric_values(v);
    const workload::SwapinoutResult& res = si.result();
    if (k.zram)
        r["devices"]["zram_after_pageout"] = mm_stat(res.zram_after_pageout, res.zram_mem_used_after_pageout);
    r["accounting"]["after_pageout"] = census_json(res.census_after_pageout);
    add_common(r, cfg, scenario_text, k, res.t_end, wall_s);
    return r;
}

json build_result(const scenario::Config& cfg, const std::string& scenario_text, const kernel::Kernel& k,
                  const workload::Kbuild& kb, double wall_s)
{
    const workload::KbuildResult& res = kb.result();
    RunView v{k};
    v.kbuild = &kb;
    return timed_result(cfg, scenario_text, k, v, res.sys_s, res.user_s, res.real_s, res.real_s, wall_s);
}

json build_result(const scenario::Config& cfg, const std::string& scenario_text, const kernel::Kernel& k,
                  const workload::Redis& redis, double wall_s)
{
    const workload::RedisResult& res = redis.result();
    RunView v{k};
    v.redis = &redis;
    json r = timed_result(cfg, scenario_text, k, v, res.server_sys_s, res.server_user_s, res.t_end - res.t_start,
                          res.t_end, wall_s);
    r["redis"] = {{"get_run_s", res.t_end - res.t_start}, {"hits", res.hits}, {"misses", res.misses},
                  {"bgsave_s", res.bgsave_s}, {"bgsave_done", res.bgsave_done},
                  {"bytes_per_key", redis.layout().per_key()}};
    return r;
}

void add_common(json& r, const scenario::Config& cfg, const std::string& scenario_text, const kernel::Kernel& k,
                double elapsed, double wall_s)
{
    using namespace mm;
    const json& m = r["metrics"];
    json& dev = r["devices"];
    const MemcgStat end = k.memcg.stat();   // at the end of the run
    dev["memcg"] = {{"memory_peak_bytes", m["memory_peak"]},
                    {"memory_current_bytes", end.current},
                    {"zswap_bytes", end.zswap},
                    {"pagetables_bytes", end.pagetables}};
    dev["zswap"] = {{"stored_pages", k.zswap.stored_pages},
                    {"pool_total_size", k.zpool.pool_pages() * PAGE_SIZE},
                    {"pool_limit_hit", k.zswap.pool_limit_hit},
                    {"reject_compress_poor", k.zswap.reject_compress_poor},
                    {"reject_large_folio", k.zswap.reject_large}};
    if (k.rootdev)   // a workload with files (kernel/filemap.cpp)
        dev["page_cache"] = {{"file_bytes", end.file},
                             {"major_faults", k.filestat.major},
                             {"minor_faults", k.filestat.minor},
                             {"read_pages", k.filestat.read_pages},
                             {"reads", k.filestat.reads},
                             {"evicted_pages", k.filestat.evicted},
                             {"refaults", k.filestat.refaults},
                             {"refaults_activated", k.filestat.refault_activated},
                             {"io_wait_s", k.filestat.io_wait_s},
                             {"disk_busy_s", k.rootdev->busy_s()}};
    if (k.dcache() || k.slabstat.shadow_calls) {   // slab caches and shrinkers (kernel/shrinker.cpp)
        const kernel::Kernel::SlabStats& ss = k.slabstat;
        dev["slab"] = {{"slab_reclaimable_bytes", end.slab_reclaimable},
                       {"slab_unreclaimable_bytes", end.slab_unreclaimable},
                       {"dentries", k.dcache() ? k.dcache()->cached_dentries() : 0},
                       {"inodes", k.dcache() ? k.dcache()->cached_inodes() : 0},
                       {"lookups", ss.lookups},
                       {"alloc_dentries", ss.alloc_dentries},
                       {"alloc_inodes", ss.alloc_inodes},
                       {"freed_dentries", ss.freed_dentries},
                       {"freed_inodes", ss.freed_inodes},
                       {"rotated", ss.rotated},
                       {"shrinker_calls", ss.shrinker_calls},
                       {"slabs_scanned", ss.slabs_scanned},
                       {"shadow_shrinker_calls", ss.shadow_calls},
                       {"workingset_nodereclaim", ss.shadow_nodes_freed}};
    }
    if (k.zram)
        dev["zram"] = {{"type", "zram"}, {"comp_algorithm", cfg.s("swap.zram.comp_algorithm")},
                       {"disksize", k.zram->nr_slots() * PAGE_SIZE},
                       {"mm_stat", mm_stat(k.zram->stats(), k.zram->pool().pool_pages() * PAGE_SIZE)}};
    if (k.ssd) {
        double sim_end = std::max(elapsed, 1e-9);
        dev["swap"] = {{"type", cfg.s("swap.device")},
                       {"seeks", k.ssd->seeks()},
                       {"positioning_s", k.ssd->positioning_s()},
                       {"requests", k.ssd->requests()},
                       {"bytes_written", k.ssd->bytes_written()},
                       {"bytes_read", k.ssd->bytes_read()},
                       {"busy_s", k.ssd->busy_s()},
                       {"utilisation", k.ssd->busy_s() / sim_end},
                       {"queue_wait_hist", histogram(k.ssd->queue_waits())}};
    }
    if (k.swap && k.cfg().swapfile_slots)
        dev["swapfile"] = {{"free_bytes_start", k.cfg().swapfile_slots * PAGE_SIZE},
                           {"free_bytes_end", k.swap->file_free() * PAGE_SIZE},
                           {"full_at_s", k.swapfile_full_at >= 0 ? json(k.swapfile_full_at) : json(nullptr)}};
    if (k.iaa) {
        double sim_end = std::max(elapsed, 1e-9);
        const hw::IaaParams& ip = k.cfg().iaa.dev;
        json devs = json::array();
        uint64_t submitted = 0, refused = 0;
        for (int d = 0; d < k.iaa->nr_devices(); d++) {
            const hw::IaaDeviceStats& st = k.iaa->stats(d);
            submitted += st.comp_jobs + st.decomp_jobs;
            refused += st.refused;
            devs.push_back({{"device", d}, {"online", k.iaa->online(d)},
                            {"comp_jobs", st.comp_jobs}, {"decomp_jobs", st.decomp_jobs}, {"refused", st.refused},
                            {"comp_engine_utilisation", st.comp_busy_s / (sim_end * ip.comp_engines)},
                            {"decomp_engine_utilisation", st.decomp_busy_s / (sim_end * ip.decomp_engines)}});
        }
        dev["iaa"] = {{"jobs_submitted", submitted}, {"jobs_refused", refused},
                      {"mean_queue_wait_us", k.iaa->jobs() ? 1e6 * k.iaa->queue_wait_s() / double(k.iaa->jobs()) : 0.0},
                      {"queue_wait_hist", histogram(k.iaa->queue_waits())}, {"devices", devs}};
    }
    json locks = json::array();
    for (auto& [name, st] : k.lock_stats())
        locks.push_back({{"lock", name}, {"acquisitions", st->acquisitions}, {"contended", st->contended},
                         {"hold_s", st->hold_s}, {"spin_s", st->spin_s}});
    r["locks"] = locks;
    r["accounting"]["swap_out"] = swap_accounting(k);
    r["accounting"]["memcg"] = memcg_accounting(k);
    if (k.profile)
        r["sys_profile"] = sys_profile(k);
    r["simulation"] = {{"max_lock_plan_ahead_us", 1e6 * k.max_plan_ahead}};
    r["effective_config"] = cfg.effective();

    json params_sources = json::array();
    json fitted = json::object();
    for (const auto& d : cfg.reg().all()) {
        const std::string& o = cfg.origin(d.name);
        if (o != "default" && o != "scenario" &&
            std::find(params_sources.begin(), params_sources.end(), o) == params_sources.end())
            params_sources.push_back(o);
        if (d.cat == scenario::Category::Cost)
            fitted[d.name] = cfg.value(d.name);
    }
    json sets = json::array();   // the what-if: --set values on top of the scenario
    for (const auto& d : cfg.reg().all())
        if (cfg.origin(d.name) == "--set")
            sets.push_back(d.name + "=" + cfg.show(d.name));
    r["provenance"] = {{"program", "swapsim"},
                       {"sets", sets},
                       {"version", version()},
                       {"git_commit", git_commit()},
                       {"simgrid", engine::Sim::simgrid_version()},
                       {"seed", cfg.i("seed")},
                       {"scenario_sha256", sha256_hex(scenario_text)},
                       {"parameter_sources", params_sources},
                       {"parameter_set_sha256", sha256_hex(fitted.dump())}};
    r["wall_clock"] = {{"wall_s", wall_s},
                       {"peak_rss_kb", peak_rss_kb()},
                       {"sim_to_wall", wall_s > 0 ? elapsed / wall_s : 0.0}};
}

std::string format_number(double v, Fmt f)
{
    if (f == Fmt::Seconds)
        return fmt::format("{:.2f}", v);
    if (f == Fmt::Percent)
        return fmt::format("{:.2f}%", v);
    // Thousands separators, as the seeds print counts and KB/s.
    std::string digits = fmt::format("{:.0f}", std::fabs(v));
    std::string out;
    for (size_t i = 0; i < digits.size(); i++) {
        if (i && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return (v < 0 ? "-" : "") + out;
}

std::string format_table(const json& result) { return format_table(std::vector<const json*>{&result}, false); }

std::string format_table(const std::vector<const json*>& cols, bool change)
{
    // Header: the scenario's name, then the --set values applied to it, one a line.
    std::vector<std::vector<std::string>> head;
    size_t width = 16, lines = 1;
    for (size_t c = 0; c < cols.size(); c++) {
        std::string name = cols[c]->value("scenario", std::string());
        std::vector<std::string> h = {(name.empty() ? "model" : name) + (change && c == 0 ? " (baseline)" : "")};
        if (cols[c]->contains("provenance") && (*cols[c])["provenance"].contains("sets"))
            for (const auto& s : (*cols[c])["provenance"]["sets"])
                h.push_back(s.get<std::string>());
        for (const auto& l : h)
            width = std::max(width, l.size() + 2);
        lines = std::max(lines, h.size());
        head.push_back(h);
    }
    const size_t label_w = 34, change_w = 10;
    const std::string line(label_w + width * cols.size() + (change ? change_w : 0), '-');
    std::string out = line + "\n";
    for (size_t l = 0; l < lines; l++) {
        std::string row = fmt::format("{:<{}}", l == 0 ? "swapsim" : "", label_w);
        for (const auto& h : head)
            row += fmt::format("{:>{}}", l < h.size() ? h[l] : "", width);
        if (change && l == 0)
            row += fmt::format("{:>{}}", "change", change_w);
        out += row + "\n";
    }
    out += line + "\n";
    const json& first = (*cols.back())["metrics"];
    for (const Row& r : rows_for(*cols.back())) {
        if (!first.contains(r.metric))
            continue;
        std::string row = fmt::format("{:<{}}", r.metric, label_w);
        for (const json* c : cols) {
            const json& m = (*c)["metrics"];
            row += fmt::format("{:>{}}", m.contains(r.metric) ? format_number(m[r.metric].get<double>(), r.fmt) : "n/a",
                               width);
        }
        if (change && cols.size() == 2) {
            const json& b = (*cols[0])["metrics"];
            std::string ch;
            if (b.contains(r.metric)) {
                double vb = b[r.metric].get<double>(), vn = first[r.metric].get<double>();
                bool better_up = r.fmt == Fmt::Rate, time = r.fmt == Fmt::Seconds;
                if (vb != 0) {
                    double d = better_up ? (vn - vb) / vb : time ? (vb - vn) / vb : (vn - vb) / vb;
                    ch = fmt::format("{:+.1f}%", 100 * d);
                } else {
                    ch = vn == 0 ? "0" : "n/a";
                }
            }
            row += fmt::format("{:>{}}", ch, change_w);
        }
        out += row + "\n";
    }
    out += line + "\n";
    if (change)
        out += "change: as the published tables' \"Change wrt Baseline\", + is better for throughput and times\n"
               "((new - base) / base for KB/s, (base - new) / base for seconds); (new - base) / base for counts\n";
    return out;
}

void write_file_atomic(const std::string& path, const std::string& text)
{
    std::string tmp = path + ".tmp." + std::to_string(getpid());
    auto fail = [&](const std::string& what, int err) {
        std::remove(tmp.c_str());
        throw std::runtime_error(what + std::strerror(err));
    };
    {
        std::ofstream f(tmp, std::ios::binary);
        if (!f)
            fail(tmp + ": cannot write: ", errno);
        f << text;
        if (!f.flush())
            fail(tmp + ": write failed: ", errno ? errno : EIO);
        f.close();
        if (f.fail())
            fail(tmp + ": write failed: ", errno ? errno : EIO);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        fail(path + ": cannot rename into place: ", errno);
}

void write_result(const std::string& dir, const json& doc)
{
    namespace fs = std::filesystem;
    // The folders this creates are removed again if the write fails.
    std::vector<fs::path> made;
    std::error_code ec;
    for (fs::path d = fs::absolute(dir, ec); !d.empty() && !fs::exists(d, ec) && d != d.parent_path();
         d = d.parent_path())
        made.push_back(d);
    fs::create_directories(dir, ec);
    try {
        if (ec)
            throw std::runtime_error(dir + ": cannot create output directory: " + ec.message());
        write_file_atomic((fs::path(dir) / "result.json").string(), doc.dump(2) + "\n");
    } catch (...) {
        for (const fs::path& d : made)
            fs::remove(d, ec);
        throw;
    }
}

std::string check_output_file(const std::string& path)
{
    namespace fs = std::filesystem;
    if (path.empty())
        return "empty file name";
    std::error_code ec;
    fs::path p(path);
    if (fs::is_directory(p, ec))
        return "is a folder, expected a file name";
    if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
        return "not a regular file";
    // The nearest folder that exists must take a new file.
    fs::path dir = fs::absolute(p, ec).parent_path();
    while (!dir.empty() && !fs::exists(dir, ec) && dir != dir.parent_path())
        dir = dir.parent_path();
    if (!fs::is_directory(dir, ec))
        return dir.string() + " is not a folder";
    std::string probe = (dir / (".swapsim-probe." + std::to_string(getpid()))).string();
    std::FILE* f = std::fopen(probe.c_str(), "w");
    if (!f)
        return "cannot write in " + dir.string() + ": " + std::strerror(errno);
    std::fclose(f);
    std::remove(probe.c_str());
    return "";
}

std::string format_profile(const json& result)
{
    if (!result.contains("sys_profile"))
        return "";
    double total = 0;
    for (const auto& row : result["sys_profile"])
        total += row["sys_s"].get<double>();
    std::string out = fmt::format("\n# sys time by model function ({:.2f} s of {:.2f} s sys; spin: waiting on a spinlock)\n",
                                  total, result["metrics"]["sys_s"].get<double>());
    out += fmt::format("{:>8} {:>10} {:>10}  {}\n", "share", "sys (s)", "spin (s)", "function");
    for (const auto& row : result["sys_profile"]) {
        double s = row["sys_s"].get<double>();
        if (s < 0.0005 * total)
            continue;
        out += fmt::format("{:>7.2f}% {:>10.2f} {:>10.2f}  {}\n", total > 0 ? 100 * s / total : 0.0, s,
                           row["spin_s"].get<double>(), row["function"].get<std::string>());
    }
    return out;
}

std::string md_head(const std::vector<std::string>& cols)
{
    std::string head = "|", rule = "|";
    for (const auto& c : cols) {
        head += (c.empty() ? "" : " " + c) + " |";
        rule += "---|";
    }
    return head + "\n" + rule + "\n";
}

}  // namespace swapsim::report
