// Cross-key checks. Each check is a small function over the keys it names; a check whose keys
// are not all in the registry is skipped (tests use reduced registries).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "scenario/detail.hpp"
#include "workload/redis_layout.hpp"

namespace swapsim::workload {
const char* kbuild_profile_json();   // generated from calibration/workloads/ (CMake)
}

namespace swapsim::scenario {
namespace {

struct Ctx {
    const Config& cfg;
    const std::string& file;

    bool has(std::string_view k) const { return cfg.reg().find(k) != nullptr; }
    std::string show(std::string_view k) const { return cfg.show(k); }

    // The error names the input that set `key` (the scenario, a --params file or --set).
    [[noreturn]] void fail(const std::string& key, const std::string& msg) const
    {
        const std::string& o = cfg.origin(key);
        if (o == "--set")
            throw InputError("--set", detail::path_of(key), msg);
        if (o.rfind("params:", 0) == 0)
            throw InputError(o.substr(7), "$.values." + key, msg);
        throw InputError(file, detail::path_of(key), msg);
    }
};

struct Check {
    std::vector<const char*> keys;  // skipped unless all are registered
    void (*run)(const Ctx&);
};

// "1G", or 4 significant digits ("1.953T") when not a whole number of K/M/G/T.
std::string size_str(double bytes)
{
    ParamDef d;
    d.kind = Kind::Size;
    std::string s = format_value(d, bytes);
    if (s.find_first_of("KMGT") != std::string::npos || bytes < 1024)
        return s;
    static const char* suf[] = {"K", "M", "G", "T"};
    int n = 0;
    while (n < 3 && bytes >= std::ldexp(1.0, 10 * (n + 2)))
        n++;
    return fmt::format("{:.4g}{}", std::ldexp(bytes, -10 * (n + 1)), suf[n]);
}

void iaa_offline_devices(const Ctx& c)
{
    const std::string& off = c.cfg.s("machine.iaa.offline");
    if (off.empty())
        return;
    int per = int(c.cfg.i("machine.iaa.devices_per_socket")), sockets = int(c.cfg.i("machine.sockets"));
    int n = per * sockets;
    std::vector<int> ids;
    try {
        ids = parse_cpulist(off, 1 << 20, "IAA device");
    } catch (const std::invalid_argument& e) {
        c.fail("machine.iaa.offline", fmt::format("expected a list of distinct IAA device ids like \"0,3\" or \"0-1\", got \"{}\": {}",
                                                  clip(off), e.what()));
    }
    for (int id : ids)
        if (id >= n)
            c.fail("machine.iaa.offline", fmt::format("IAA device {} does not exist: the machine has {} ({} sockets x {}), ids 0-{}",
                                                      id, n, sockets, per, n - 1));
    bool iaa = c.has("kernel.zswap.compressor") && c.cfg.s("kernel.zswap.compressor").rfind("deflate-iaa", 0) == 0 &&
               c.cfg.b("kernel.zswap.enabled");
    if (iaa && int(ids.size()) >= n)
        c.fail("machine.iaa.offline", fmt::format("every IAA device ({}) is offline, so {} has no device: bring one online or choose zstd",
                                                  off, c.cfg.s("kernel.zswap.compressor")));
}

void memcg_limits_fit_ram(const Ctx& c)
{
    double dram = c.cfg.num("machine.dram");
    for (auto [key, file] : {std::pair{"kernel.memcg.high", "memory.high"}, {"kernel.memcg.max", "memory.max"}}) {
        double v = c.cfg.num(key);
        if (std::isfinite(v) && v > dram)
            c.fail(key, fmt::format("{} {} is above RAM (machine.dram = {}): lower it or set it to \"max\"", file,
                                    c.show(key), c.show("machine.dram")));
    }
}

// More than RAM and swap hold is allowed: the OOM killer ends processes (kernel/page_alloc.cpp).
// Watermarks that reach RAM are not: kswapd could never balance the node.
void watermarks_below_ram(const Ctx& c)
{
    double dram = c.cfg.num("machine.dram");
    double min = c.cfg.num("kernel.vm.min_free_kbytes") * 1024.0;
    double wsf = c.cfg.num("kernel.vm.watermark_scale_factor");
    double high = min + 2 * std::max(min / 4, dram * wsf / 10000);
    if (high >= dram)
        c.fail(c.cfg.explicitly_set("kernel.vm.min_free_kbytes") ? "kernel.vm.min_free_kbytes" : "kernel.vm.watermark_scale_factor",
               fmt::format("the high watermark (min_free_kbytes {} KiB, watermark_scale_factor {}) is {}, not below RAM "
                           "(machine.dram = {}): kswapd could never free that much; lower them",
                           c.cfg.i("kernel.vm.min_free_kbytes"), c.cfg.i("kernel.vm.watermark_scale_factor"),
                           size_str(high), c.show("machine.dram")));
}

void cpus_exist(const Ctx& c)
{
    const Config& cfg = c.cfg;
    const std::string& list = cfg.s("workload.cpus");
    int64_t s = cfg.i("machine.sockets"), cores = cfg.i("machine.cores_per_socket"), t = cfg.i("machine.threads_per_core");
    int64_t nr = s * cores * t;
    if (list == "all")
        return;
    for (const auto& g : detail::parse_cpulist_groups(list)) {
        for (int cpu = g.first; cpu <= g.last; cpu++) {
            if ((cpu - g.first) % g.group >= g.used || cpu < nr)
                continue;
            std::string smt = t > 1 ? fmt::format("; {}-{} are the SMT siblings of {}-{}", nr / t, nr - 1, 0, nr / t - 1) : "";
            c.fail("workload.cpus",
                   fmt::format("CPU {} does not exist: machine.sockets x cores_per_socket x threads_per_core = "
                               "{} x {} x {} = {} logical CPUs (0-{}{})",
                               cpu, s, cores, t, nr, nr - 1, smt));
        }
    }
}

void membind_node_exists(const Ctx& c)
{
    int64_t node = c.cfg.i("workload.membind"), nodes = c.cfg.i("machine.sockets");
    if (node >= nodes)
        c.fail("workload.membind", fmt::format("NUMA node {} does not exist: machine.sockets = {} gives nodes 0-{}; "
                                               "use one of them or -1 for local allocation",
                                               node, nodes, nodes - 1));
}

void memory_nodes_exist(const Ctx& c)
{
    int64_t mem = c.cfg.i("machine.memory_nodes"), nodes = c.cfg.i("machine.sockets"), bind = c.cfg.i("workload.membind");
    if (mem > nodes)
        c.fail("machine.memory_nodes", fmt::format("{} nodes with memory, but machine.sockets = {} gives {} nodes; "
                                                   "use 1-{}, or 0 for memory on every socket",
                                                   mem, nodes, nodes, nodes));
    if (mem > 0 && bind >= mem)
        c.fail("workload.membind", fmt::format("NUMA node {} has no memory: machine.memory_nodes = {} puts it on "
                                               "nodes 0-{}; bind to one of them or use -1",
                                               bind, mem, mem - 1));
}

void iaa_needs_device(const Ctx& c)
{
    const std::string& comp = c.cfg.s("kernel.zswap.compressor");
    if (!c.cfg.b("kernel.zswap.enabled") || comp.rfind("deflate-iaa", 0) != 0)
        return;
    const char* dev = "machine.iaa.devices_per_socket";
    if (c.has(dev) && c.cfg.num(dev) > 0)
        return;
    c.fail("kernel.zswap.compressor",
           fmt::format("{} needs an IAA device: set {} > 0 or choose zstd", comp, dev));
}

// The largest enabled anonymous folio, bytes (PAGE_SIZE without mTHP).
double largest_folio(const Config& cfg)
{
    double big = 4096;
    for (double sz : cfg.list("kernel.mthp.enabled"))
        big = std::max(big, sz);
    return big;
}

void zram_fits_folio(const Ctx& c)
{
    if (c.cfg.s("swap.device") != "zram")
        return;
    double folio = largest_folio(c.cfg), disk = c.cfg.num("swap.zram.disksize");
    if (disk < folio)
        c.fail("swap.zram.disksize", fmt::format("zram disksize {} is smaller than one folio ({}, the largest of "
                                                 "kernel.mthp.enabled or a 4K page): give it at least {}",
                                                 c.show("swap.zram.disksize"), size_str(folio), size_str(folio)));
}

void zram_multi_pages_order(const Ctx& c)
{
    if (c.cfg.s("swap.device") != "zram" || !c.cfg.b("swap.zram.multi_pages"))
        return;
    double folio = largest_folio(c.cfg);
    int64_t order = c.cfg.i("swap.zram.multi_pages_order"), folio_order = 0;
    while (double(4096LL << folio_order) < folio)
        folio_order++;
    if (order > folio_order)
        c.fail("swap.zram.multi_pages_order",
               fmt::format("multi-page order {} ({} objects) is above the largest folio order {} ({}), so no folio "
                           "could use it: lower it or enable a larger size in kernel.mthp.enabled",
                           order, size_str(double(4096LL << order)), folio_order, size_str(folio)));
}

void zswap_needs_swap_device(const Ctx& c)
{
    if (c.cfg.b("kernel.zswap.enabled") && c.cfg.s("swap.device") == "none")
        c.fail("swap.device", "zswap needs a swap device (zswap entries are indexed by swap slots): set swap.device "
                              "or kernel.zswap.enabled=false");
}

// The swap device's slots: at least one cluster (SWAPFILE_CLUSTER = 512 pages, 2M), and with
// the swap file's fewer than 2^31 (a swap PTE keeps the offset in 31 bits).
void swap_device_size(const Ctx& c)
{
    const std::string& dev = c.cfg.s("swap.device");
    if (dev == "none")
        return;
    const char* key = dev == "zram" ? "swap.zram.disksize" : "swap.size";
    if (!c.has(key))
        return;
    const double cluster = 512 * 4096.0, limit = std::ldexp(1.0, 31) * 4096;
    double size = c.cfg.num(key), file = c.has("swap.swapfile_free") ? c.cfg.num("swap.swapfile_free") : 0;
    if (size < cluster)
        c.fail(key, fmt::format("swap device of {} is smaller than one swap cluster (2M, 512 slots): give it at least 2M "
                                "or set swap.device to none", c.show(key)));
    if (size + file >= limit)
        c.fail(key, fmt::format("swap device of {} (plus swap.swapfile_free {}) has 2^31 slots or more, beyond the "
                                "model's swap entries: give it less than 8T", c.show(key), size_str(file)));
}

// One mapping's pages are indexed by 31 bits in the model's page table.
void usemem_mapping_size(const Ctx& c)
{
    if (c.has("workload.type") && c.cfg.s("workload.type") != "usemem")
        return;
    if (c.cfg.num("workload.usemem.size") >= std::ldexp(1.0, 31) * 4096)
        c.fail("workload.usemem.size", fmt::format("a mapping of {} has 2^31 pages or more, beyond the model's page "
                                                   "tables: give each process less than 8T",
                                                   c.show("workload.usemem.size")));
}

// Every simulated task runs on a SimGrid stack of its own: two memory mappings (the stack and
// its guard page) each, so vm.max_map_count bounds the processes this machine can simulate.
void usemem_tasks_fit_machine(const Ctx& c)
{
    if (c.has("workload.type") && c.cfg.s("workload.type") != "usemem")
        return;
    int64_t nproc = c.cfg.i("workload.usemem.nproc"), limit = max_simulated_tasks();
    if (nproc <= limit)
        return;
    int64_t need = 2 * (nproc + sim_daemon_tasks) + sim_other_maps;
    c.fail("workload.usemem.nproc",
           fmt::format("{} processes need about {} memory mappings for their simulated stacks and this machine allows "
                       "{} (vm.max_map_count): use at most {} processes, or raise the limit (sysctl -w "
                       "vm.max_map_count={})",
                       nproc, need, max_map_count(), limit, need));
}

// sim.page_unit (settings.cpp derive_page_unit): a power of two, order-0 folios, kbuild only.
void page_unit_applies(const Ctx& c)
{
    int64_t u = c.cfg.i("sim.page_unit");
    if (u <= 1)
        return;
    if (u & (u - 1))
        c.fail("sim.page_unit", fmt::format("{} is not a power of two: use 1, 2, 4, 8, 16 or 32", u));
    if (c.cfg.s("workload.type") != "kbuild")
        c.fail("sim.page_unit", "only the kbuild workload maps its memory in units of pages: set it to 1");
    if (largest_folio(c.cfg) > 4096)
        c.fail("sim.page_unit", fmt::format("a unit of {} pages needs order-0 folios: set kernel.mthp.enabled to "
                                            "none or sim.page_unit to 1", u));
}

// Fails `key` when `need` bytes exceed the memory the workload's cgroup can use (RAM, or
// memory.max below it) plus the swap device: "<what> but memory (M) plus swap (S) hold T, and the
// model has no OOM policy for <whom>: <fix>".
void check_fits(const Ctx& c, const char* key, double need, const std::string& what, const char* whom,
                const char* fix)
{
    const std::string& dev = c.cfg.s("swap.device");
    const double mem = std::min(c.cfg.num("machine.dram"), c.cfg.num("kernel.memcg.max"));
    const double swap = dev == "none" ? 0 : dev == "zram" ? c.cfg.num("swap.zram.disksize") : c.cfg.num("swap.size");
    if (need > mem + swap)
        c.fail(key, fmt::format("{} but memory ({}) plus swap ({}) hold {}, and the model has no OOM policy for {}: {}",
                                what, size_str(mem), size_str(swap), size_str(mem + swap), whom, fix));
}

// A build whose tmpfs objects plus -j heaps exceed memory plus swap cannot finish, and the model
// has no OOM policy for a build (make would fail at the first killed job).
void kbuild_fits_memory_and_swap(const Ctx& c)
{
    if (c.cfg.s("workload.type") != "kbuild")
        return;
    nlohmann::json p = nlohmann::json::parse(workload::kbuild_profile_json());
    const double page = 4096;
    double obj = std::ceil(p.at("sample").at("object_bytes_mean").get<double>() / page) * page;
    double heap = p.at("per_job").at("maxrss_kib_mean").get<double>() * 1024;
    int64_t jobs = c.cfg.i("workload.kbuild.jobs");
    double need = obj * double(c.cfg.i("workload.kbuild.units")) +
                  double(c.cfg.i("workload.kbuild.link_steps")) * c.cfg.num("workload.kbuild.link_rss") / 4 +
                  double(jobs) * heap;
    check_fits(c, "workload.kbuild.jobs", need,
               fmt::format("make -j{} needs about {} ({} jobs' heaps of {} mean peak RSS plus the objects on tmpfs)", jobs,
                           size_str(need), jobs, size_str(heap)),
               "a build", "lower -j or the units, or raise kernel.memcg.max or the swap size");
}

// Redis (workload/redis.hpp): a jemalloc quantum of 8 or 16; a BGSAVE fork needs order-0 folios;
// a keyspace that memory plus swap cannot hold has no outcome but the OOM killer taking the
// server, which the model does not report as a result.
void redis_fits_memory_and_swap(const Ctx& c)
{
    if (c.cfg.s("workload.type") != "redis")
        return;
    int64_t q = c.cfg.i("workload.redis.jemalloc_quantum");
    if (q != 8 && q != 16)
        c.fail("workload.redis.jemalloc_quantum", fmt::format("{} is not a jemalloc quantum Redis is built with: use 16 "
                                                              "(Debian's libjemalloc) or 8 (Redis's bundled jemalloc)", q));
    if (c.cfg.b("workload.redis.bgsave") && largest_folio(c.cfg) > 4096)
        c.fail("workload.redis.bgsave", "the BGSAVE fork shares order-0 folios only (fork of a large anon folio is not "
                                        "modelled): set kernel.mthp.enabled to none");
    const double k = double(c.cfg.i("workload.redis.keyspace"));
    const double sets = double(c.cfg.i("workload.redis.set_requests"));
    const uint64_t keys = uint64_t(sets > 0 ? k * -std::expm1(sets * std::log1p(-1 / std::max(k, 2.0))) : k);
    workload::RedisLayout lay = workload::redis_layout(uint64_t(c.cfg.num("workload.redis.value_size")), unsigned(q));
    const double need = double(lay.used_memory(lay.keys_within(keys, uint64_t(c.cfg.num("workload.redis.maxmemory")))));
    check_fits(c, "workload.redis.keyspace", need,
               fmt::format("{} keys of {} take {} of used_memory", keys, size_str(c.cfg.num("workload.redis.value_size")),
                           size_str(need)),
               "Redis (the OOM killer would take the server)",
               "fewer keys, a workload.redis.maxmemory, more machine.dram or a larger swap device");
}

const std::vector<Check>& checks()
{
    static const std::vector<Check> list = {
        {{"kernel.memcg.high", "kernel.memcg.max", "machine.dram"}, memcg_limits_fit_ram},
        {{"kernel.vm.min_free_kbytes", "kernel.vm.watermark_scale_factor", "machine.dram"}, watermarks_below_ram},
        {{"workload.cpus", "machine.sockets", "machine.cores_per_socket", "machine.threads_per_core"}, cpus_exist},
        {{"workload.membind", "machine.sockets"}, membind_node_exists},
        {{"machine.memory_nodes", "machine.sockets", "workload.membind"}, memory_nodes_exist},
        {{"kernel.zswap.enabled", "kernel.zswap.compressor"}, iaa_needs_device},
        {{"machine.iaa.offline", "machine.iaa.devices_per_socket", "machine.sockets"}, iaa_offline_devices},
        {{"kernel.zswap.enabled", "swap.device"}, zswap_needs_swap_device},
        {{"swap.device", "swap.zram.disksize", "kernel.mthp.enabled"}, zram_fits_folio},
        {{"swap.device", "swap.zram.multi_pages", "swap.zram.multi_pages_order", "kernel.mthp.enabled"},
         zram_multi_pages_order},
        {{"swap.device"}, swap_device_size},
        {{"workload.usemem.size"}, usemem_mapping_size},
        {{"workload.usemem.nproc"}, usemem_tasks_fit_machine},
        {{"sim.page_unit", "workload.type", "kernel.mthp.enabled"}, page_unit_applies},
        {{"workload.type", "workload.kbuild.jobs", "workload.kbuild.units", "workload.kbuild.link_steps",
          "workload.kbuild.link_rss", "machine.dram", "kernel.memcg.max", "swap.device", "swap.size",
          "swap.zram.disksize"},
         kbuild_fits_memory_and_swap},
        {{"workload.type", "workload.redis.keyspace", "workload.redis.set_requests", "workload.redis.value_size",
          "workload.redis.maxmemory", "workload.redis.jemalloc_quantum", "workload.redis.bgsave", "kernel.mthp.enabled",
          "machine.dram", "kernel.memcg.max", "swap.device", "swap.size", "swap.zram.disksize"},
         redis_fits_memory_and_swap},
    };
    return list;
}

}  // namespace

int64_t max_map_count()
{
    std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r");
    long long v = 65530;   // the kernel's default (DEFAULT_MAX_MAP_COUNT)
    if (f) {
        if (std::fscanf(f, "%lld", &v) != 1)
            v = 65530;
        std::fclose(f);
    }
    return int64_t(v);
}

int64_t max_simulated_tasks() { return std::max<int64_t>(1, (max_map_count() - sim_other_maps) / 2 - sim_daemon_tasks); }

void validate_semantics(const Config& cfg, const std::string& file)
{
    Ctx ctx{cfg, file};
    for (const auto& chk : checks()) {
        bool all = true;
        for (const char* k : chk.keys)
            all = all && ctx.has(k);
        if (all)
            chk.run(ctx);
    }
}

}  // namespace swapsim::scenario
