#include "workload/kbuild.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "workload/usemem.hpp"   // Barrier

namespace swapsim::workload {

const char* kbuild_profile_json();   // generated from calibration/workloads/ (CMake)
const char* kbuild_headers_json();

namespace {
uint64_t pages_of(uint64_t bytes) { return (bytes + mm::PAGE_SIZE - 1) / mm::PAGE_SIZE; }
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
double unit_draw(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }   // [0, 1), any libc
}  // namespace

std::vector<KbuildJob> kbuild_profile()
{
    nlohmann::json j = nlohmann::json::parse(kbuild_profile_json());
    std::vector<KbuildJob> out;
    for (const auto& row : j.at("jobs"))   // jobs_columns: user_s, sys_s, maxrss_kib
        out.push_back({row.at(0).get<double>(), row.at(1).get<double>(), row.at(2).get<uint64_t>() * 1024});
    return out;
}

uint64_t kbuild_object_bytes()
{
    nlohmann::json j = nlohmann::json::parse(kbuild_profile_json());
    return j.at("sample").at("object_bytes_mean").get<uint64_t>();
}

using namespace kernel;

Kbuild::Kbuild(Kernel& k, const KbuildConfig& cfg) : k_(k), cfg_(cfg)
{
    if (cfg.jobs < 1)
        throw std::invalid_argument("make -j needs at least one job");
    if (cfg.profile.empty())
        throw std::invalid_argument("kbuild: no measured job profile");
    std::mt19937_64 rng(cfg.seed);
    for (int u = 0; u < cfg.units; u++)
        drawn_.push_back(cfg.profile[size_t(unit_draw(rng) * double(cfg.profile.size()))]);
    std::vector<int> allowed(cfg.cpus);
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    k.set_allowed_cpus(allowed);
    // Every job and link step is a task with an mm, made while the build runs, and so are the
    // tree's copy and make's walk (tasks must not move: running slots hold references).
    size_t tasks = k.nr_tasks() + size_t(cfg.units) + cfg.links.size() + 2;
    k.reserve(tasks, k.mms.size() + tasks + 3);   // + the objects' and the tree's tmpfs files, the toolchain
    if (cfg.page_unit < 1)
        throw std::invalid_argument("kbuild: page_unit must be at least 1");
    // In units (sim.page_unit): the objects back to back, then each link step's output
    // (inferred: a quarter of its RSS).
    res_.object_pages = ceil_div(pages_of(cfg.object_bytes) * uint64_t(cfg.units), cfg.page_unit);
    uint64_t pages = res_.object_pages;
    for (const KbuildJob& l : cfg.links)
        pages += ceil_div(pages_of(l.rss_bytes / 4), cfg.page_unit);
    tmpfs_ = k.shmem_create(pages);
    // The toolchain file and the pages of it a compile job maps, spread evenly over it.
    const uint64_t tool = ceil_div(cfg.toolchain_pages, cfg.page_unit);
    const uint64_t text = std::min(tool, ceil_div(cfg.text_pages, cfg.page_unit));
    // The tree's dentry and inode caches: object sizes measured (kbuild-slab-6.1.json): a cold
    // ext4 walk charges 1,351 B per entry (slabinfo: dentry 192 B, ext4_inode_cache 1,128 B, each
    // with its objcg pointer), a copy into tmpfs 1,245 B (dentry, shmem inode 752 B, the file's
    // XArray nodes).
    // With no memcg limit the build runs in the root memcg, which the tree was copied into:
    // its pages and its dentries and inodes are in the build's memory.
    const KConfig& kc = k.cfg();
    if (cfg_.fs == KbuildFs::Tmpfs && kc.memcg_high == UINT64_MAX && kc.memcg_max == UINT64_MAX)
        cfg_.fs = KbuildFs::TmpfsCharged;
    if (cfg_.fs == KbuildFs::TmpfsCharged && cfg.tree_pages) {
        tree_ = k.shmem_create(ceil_div(cfg.tree_pages, cfg.page_unit));
        nlohmann::json h = nlohmann::json::parse(kbuild_headers_json());
        header_cdf_.emplace_back(0.0, 0.0);
        for (const auto& pt : h.at("hottest_pages_for_reads_share"))
            header_cdf_.emplace_back(pt.at("reads_share").get<double>(), pt.at("pages").get<double>());
        header_cdf_.emplace_back(1.0, h.at("union").at("pages").get<double>());
    }
    if (cfg_.fs != KbuildFs::Tmpfs && cfg.fs_entries) {
        const bool disk = cfg_.fs == KbuildFs::Disk;
        k.dcache_create(cfg.fs_entries, 196, disk ? 1155 : 1049, disk);
    }
    if (text) {
        toolchain_ = k.file_create(tool);
        for (uint64_t i = 0; i < text; i++)
            text_.push_back(uint32_t(i * tool / text));
    }
}

// One recipe: fork + exec, the heap grows to its peak with re-touches, the user CPU time,
// the object written to tmpfs (a link step first reads every object), exit.
void Kbuild::job(Clock& clk, int cpu, const KbuildJob& j, uint64_t out_first, uint64_t out_pages, bool link,
                 uint64_t seed)
{
    Process p(k_, cpu);
    pids_.push_back(p.pid());
    Ctx c(k_, p.task(), clk);
    c.sys(cfg_.fork_exec_s + j.sys_s);   // fork + exec, and the job's measured syscalls
    if (!link && k_.dcache() && cfg_.fs == KbuildFs::Disk) {   // its source and headers' lookups
        std::mt19937_64 lrng(seed ^ 0x9e3779b97f4a7c15ull);
        for (uint32_t i = 0; i < cfg_.fs_lookups; i++)
            k_.fs_lookup(c, uint32_t(unit_draw(lrng) * double(cfg_.fs_entries)));
    }
    if (!link && tree_ && cfg_.header_reads) {   // the preprocessor opens its headers
        std::mt19937_64 hrng(seed ^ 0xc2b2ae3d27d4eb4full);
        std::vector<uint32_t> reads(ceil_div(cfg_.header_reads, cfg_.page_unit));
        for (uint32_t& r : reads)
            r = header_unit(unit_draw(hrng));
        p.file_read_pages(c, tree_, reads, cfg_.chunk);
    }
    // The measured peak RSS counts the toolchain pages the job maps: the rest is its heap.
    const bool text = !link && !text_.empty();
    const uint64_t rss_units = ceil_div(pages_of(j.rss_bytes), cfg_.page_unit);
    const uint64_t mapped = text ? text_.size() : 0;
    const uint64_t heap_pages = rss_units > mapped ? rss_units - mapped : 1;
    uint32_t heap = p.mmap_anon(heap_pages);
    const uint32_t code = text ? p.mmap_file(toolchain_) : 0;
    if (link)
        p.file_access(c, tmpfs_, 0, res_.object_pages, false, cfg_.user_bw, cfg_.chunk);
    std::mt19937_64 rng(seed);
    const uint64_t chunk_pages = std::max<uint64_t>(1, cfg_.chunk / mm::PAGE_SIZE);
    std::vector<uint32_t> again;
    uint64_t have = 0;
    const int steps = std::max(1, cfg_.steps);
    for (int s = 1; s <= steps; s++) {
        uint64_t to = heap_pages * uint64_t(s) / uint64_t(steps);
        if (text) {   // the step's instruction fetches: every text page (faults: filemap.cpp)
            for (size_t i = 0; i < text_.size(); i++) {
                p.touch(c, code, text_[i], false);
                if ((i + 1) % chunk_pages == 0)
                    c.flush();
            }
        }
        p.access(c, heap, have, to - have, false, true, cfg_.user_bw, cfg_.chunk);
        have = to;
        p.user(c, j.user_s / steps);
        uint64_t n = uint64_t(cfg_.heap_reuse * double(have) / steps + 0.5);
        if (!n || !have)
            continue;
        again.clear();
        for (uint64_t i = 0; i < n; i++)
            again.push_back(uint32_t(unit_draw(rng) * double(have)));
        p.touch_pages(c, heap, again, true, cfg_.user_bw, cfg_.chunk);
    }
    p.file_access(c, tmpfs_, out_first, out_pages, true, cfg_.user_bw, cfg_.chunk);
    p.exit(c);
    p.release();
}

// The header page read at quantile u of the measured reads (the hottest pages first, linear
// between the measured points), in tree units.
uint32_t Kbuild::header_unit(double u) const
{
    size_t i = 1;
    while (i + 1 < header_cdf_.size() && header_cdf_[i].first < u)
        i++;
    const auto& [u0, p0] = header_cdf_[i - 1];
    const auto& [u1, p1] = header_cdf_[i];
    double page = p0 + (u1 > u0 ? (u - u0) / (u1 - u0) : 0.0) * (p1 - p0);
    uint64_t units = ceil_div(cfg_.tree_pages, cfg_.page_unit);
    return uint32_t(std::min<uint64_t>(units - 1, uint64_t(page) / cfg_.page_unit));
}

// The copy of the tree into tmpfs before make starts: its time is not the build's.
void Kbuild::copy_tree(Clock& clk, int cpu)
{
    Process p(k_, cpu);
    Ctx c(k_, p.task(), clk);
    p.file_access(c, tree_, 0, ceil_div(cfg_.tree_pages, cfg_.page_unit), true, cfg_.user_bw, cfg_.chunk);
    p.exit(c);
    p.release();
}

double Kbuild::walk_tree(Clock& clk, int cpu)
{
    Process p(k_, cpu);
    Ctx c(k_, p.task(), clk);
    for (uint32_t e = 0; e < cfg_.fs_entries; e++) {
        k_.fs_lookup(c, e);
        if ((e + 1) % 1024 == 0)
            c.flush();
    }
    p.exit(c);
    double sys = p.task().stime;
    p.release();
    return sys;
}

void Kbuild::run_slot(int s, Clock& clk, Barrier& done, Barrier* walked)
{
    const int cpu = cfg_.cpus[size_t(s) % cfg_.cpus.size()];
    // The copy into tmpfs (its pages, then its entries' dentries and inodes) and make's walk of
    // a tree on disk before any recipe: slot 0 runs them, the others wait. Only the walk is the
    // build's time.
    if ((k_.dcache() || tree_) && walked) {
        if (s == 0) {
            const bool copied = cfg_.fs == KbuildFs::TmpfsCharged;
            if (tree_)
                copy_tree(clk, cpu);
            if (k_.dcache() && copied)
                walk_tree(clk, cpu);
            make_start_ = clk.now();
            if (k_.dcache() && !copied)
                walk_sys_s_ = walk_tree(clk, cpu);
        }
        walked->wait();
    }
    const uint64_t obj = pages_of(cfg_.object_bytes), unit = cfg_.page_unit;
    while (next_unit_ < cfg_.units) {
        int u = next_unit_++;
        res_.peak_concurrency = std::max(res_.peak_concurrency, ++running_);
        // This object's pages [obj u, obj (u + 1)) in units; a unit shared by two objects is
        // written by the first.
        uint64_t first = ceil_div(obj * uint64_t(u), unit), end = ceil_div(obj * uint64_t(u + 1), unit);
        job(clk, cpu, drawn_[size_t(u)], first, end - first, false, cfg_.seed * 1000003u + uint64_t(u));
        running_--;
        res_.jobs_run++;
    }
    done.wait();
    if (s != 0)
        return;
    uint64_t out = res_.object_pages;
    for (size_t l = 0; l < cfg_.links.size(); l++) {
        uint64_t n = ceil_div(pages_of(cfg_.links[l].rss_bytes / 4), cfg_.page_unit);
        res_.peak_concurrency = std::max(res_.peak_concurrency, ++running_);
        job(clk, cpu, cfg_.links[l], out, n, true, cfg_.seed * 1000003u + uint64_t(cfg_.units) + l);
        running_--;
        res_.jobs_run++;
        out += n;
    }
    res_.real_s = clk.now() - make_start_;
    res_.sys_s += walk_sys_s_;
    for (int pid : pids_) {
        res_.user_s += k_.task(pid).utime;
        res_.sys_s += k_.task(pid).stime;
    }
}

}  // namespace swapsim::workload
