#include "workload/redis.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "workload/usemem.hpp"   // Barrier

namespace swapsim::workload {

using namespace kernel;

namespace {
double unit_draw(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }   // [0, 1), any libc
uint64_t pages_of(uint64_t bytes) { return (bytes + mm::PAGE_SIZE - 1) / mm::PAGE_SIZE; }
// siphash stands in: any fixed mix spreads keys over the buckets as uniformly.
uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
constexpr unsigned CHILD_STEP = 64;   // keys per simulated step of the BGSAVE child
}  // namespace

Redis::Redis(Kernel& k, const RedisConfig& cfg)
    : k_(k), cfg_(cfg), lay_(redis_layout(cfg.value_bytes, cfg.jemalloc_quantum)),
      server_((k.reserve(k.nr_tasks() + 16, k.mms.size() + 16), k), cfg.cpu)   // room for the child (and kthreads)
{
    if (!cfg.keyspace || !cfg.requests || !cfg.clients || !cfg.pipeline)
        throw std::invalid_argument("redis: keyspace, requests, clients and pipeline must be at least 1");
    if (cfg.keyspace >= NONE)
        throw std::invalid_argument("redis: at most 2^32 - 2 keys");
    // The populating SET run: a key's first SET allocates it (in that order) while used_memory
    // stays within maxmemory (noeviction refuses the rest).
    slot_of_key_.assign(cfg.keyspace, NONE);
    const uint64_t most = lay_.keys_within(cfg.keyspace, cfg.maxmemory);
    auto add = [&](uint64_t key) {
        if (slot_of_key_[key] != NONE || loaded_.size() >= most)
            return;
        slot_of_key_[key] = uint32_t(loaded_.size());
        loaded_.push_back(uint32_t(key));
    };
    if (cfg.set_requests == 0) {
        for (uint64_t key = 0; key < cfg.keyspace; key++)
            add(key);
    } else {
        std::mt19937_64 rng(cfg.seed * 1000003u + 17);
        for (uint64_t r = 0; r < cfg.set_requests; r++)
            add(uint64_t(unit_draw(rng) * double(cfg.keyspace)));
    }
    const uint64_t n = loaded_.size();
    res_.keys = n;
    res_.used_memory = lay_.used_memory(n);
    buckets_ = n ? next_pow2(n) : 4;
    // The keyspace VMA: each region page-aligned, in the order of the Region enum.
    const uint64_t bytes[NR_REGIONS] = {8 * buckets_, n * lay_.dict_entry, n * lay_.key_sds, n * lay_.robj,
                                        n * lay_.value};
    uint64_t at = 0;
    for (int r = 0; r < NR_REGIONS; r++) {
        region_start_[r] = at;
        at += pages_of(bytes[r]) * mm::PAGE_SIZE;
    }
    heap_ = server_.mmap_anon(std::max<uint64_t>(1, at / mm::PAGE_SIZE));
    clients_vma_ = server_.mmap_anon(cfg.clients);   // a reply buffer page per client
    std::vector<int> cpus = {cfg.cpu, cfg.child_cpu};
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    k.set_allowed_cpus(cpus);
}

uint64_t Redis::obj_size(Region r) const
{
    const uint64_t size[NR_REGIONS] = {8, lay_.dict_entry, lay_.key_sds, lay_.robj, lay_.value};
    return size[r];
}

uint64_t Redis::page_of(Region r, uint64_t index) const { return (region_start_[r] + index * obj_size(r)) / mm::PAGE_SIZE; }

uint64_t Redis::bucket_of(uint64_t key) const { return mix(key ^ (cfg_.seed << 32)) & (buckets_ - 1); }

void Redis::touch_object(Ctx& c, Process& p, Region r, uint64_t slot, bool write)
{
    uint64_t first = page_of(r, slot), last = first;
    if (r == VALUE) {
        if (!lay_.value)
            return;
        last = (region_start_[r] + slot * lay_.value + lay_.value_used - 1) / mm::PAGE_SIZE;
    }
    for (uint64_t pg = first; pg <= last && !c.task.oom_victim; pg++)
        p.touch(c, heap_, pg, write);
}

// The SET run, a chunk of keys at a time: each region's pages for those keys written in turn;
// the bucket array when the dict last doubled (at half its final size).
void Redis::populate(Ctx& c)
{
    const uint64_t n = loaded_.size(), step = 4096;
    bool buckets_written = false;
    auto write_buckets = [&] {
        server_.access(c, heap_, page_of(BUCKETS, 0), pages_of(8 * buckets_), false, true, cfg_.user_bw, cfg_.chunk);
        buckets_written = true;
    };
    for (uint64_t a = 0; a < n && !c.task.oom_victim; a += step) {
        uint64_t b = std::min(n, a + step);
        if (!buckets_written && b > buckets_ / 2)
            write_buckets();
        for (Region r : {DICT_ENTRY, KEY, ROBJ, VALUE}) {
            if (r == VALUE && !lay_.value)
                continue;
            uint64_t first = page_of(r, a);
            uint64_t end = pages_of(region_start_[r] + b * obj_size(r));
            server_.access(c, heap_, first, end - first, false, true, cfg_.user_bw, cfg_.chunk);
        }
    }
    if (!buckets_written)
        write_buckets();
    server_.access(c, clients_vma_, 0, cfg_.clients, false, true, cfg_.user_bw, cfg_.chunk);
    c.flush();
}

void Redis::fork_child(Ctx& c)
{
    // rdbSaveBackground: the server is stopped in fork() (latest_fork_usec).
    const double t0 = c.now();
    child_.push_back(server_.fork(c, cfg_.child_cpu));
    child_pid_ = child_.back().pid();
    res_.fork_s = c.now() - t0;
    child_active_ = true;
}

void Redis::serve(Ctx& c)
{
    Task& t = c.task;
    serving_ = true;
    std::mt19937_64 rng(cfg_.seed * 7919u + 3);
    uint64_t done = 0;
    unsigned client = 0;
    while (done < cfg_.requests && !t.oom_victim) {
        const uint64_t n = std::min<uint64_t>(cfg_.pipeline, cfg_.requests - done);
        for (uint64_t i = 0; i < n && !t.oom_victim; i++) {
            const uint64_t key = std::min(cfg_.keyspace - 1, uint64_t(unit_draw(rng) * double(cfg_.keyspace)));
            server_.touch(c, heap_, page_of(BUCKETS, bucket_of(key)), false);
            const uint32_t slot = slot_of_key_[key];
            if (slot == NONE) {
                res_.misses++;
            } else {
                res_.hits++;
                touch_object(c, server_, DICT_ENTRY, slot, false);
                touch_object(c, server_, KEY, slot, false);
                touch_object(c, server_, ROBJ, slot, !child_active_);   // lookupKey's LRU update
                touch_object(c, server_, VALUE, slot, false);
            }
            c.user(cfg_.get_s);
        }
        server_.touch(c, clients_vma_, client, true);   // the replies, into the client's buffer
        c.flush();
        client = (client + 1) % cfg_.clients;
        done += n;
    }
    serving_ = false;
    res_.requests_done = done;
}

void Redis::run_server(Clock& clk, Barrier& forked)
{
    Task& t = server_.task();
    Ctx c(k_, t, clk);
    populate(c);
    res_.t_start = clk.now();
    const double utime0 = t.utime, stime0 = t.stime;
    if (cfg_.bgsave && !t.oom_victim) {
        serving_ = true;   // the child walks while the server serves
        fork_child(c);
        c.flush();
        res_.fork_s = clk.now() - res_.t_start;
        forked.wait();   // the child's task starts (it has waited there since the start)
    }
    serve(c);
    res_.t_end = clk.now();
    const double run = res_.t_end - res_.t_start;
    res_.rps = run > 0 ? double(res_.requests_done) / run : 0;
    res_.server_user_s = t.utime - utime0;
    res_.server_sys_s = t.stime - stime0;
}

void Redis::run_child(Clock& clk, Barrier& forked)
{
    forked.wait();
    if (child_.empty())
        return;
    Process& p = child_.back();
    Ctx c(k_, p.task(), clk);
    walk(c);
    p.exit(c);
    p.release();
    child_active_ = false;
    res_.bgsave_s = clk.now() - res_.t_start;
}

void Redis::walk(Ctx& c, bool stop_with_server)
{
    Process& p = child_.back();
    // rdbSaveRio: the dict in bucket order (random with respect to memory).
    std::vector<std::pair<uint64_t, uint32_t>> order;   // (bucket, key), in allocation order within a bucket
    order.reserve(loaded_.size());
    for (uint32_t key : loaded_)
        order.push_back({bucket_of(key), key});
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    uint64_t i = 0;
    for (; i < order.size() && (serving_ || !stop_with_server) && !p.task().oom_victim; i++) {
        const uint32_t slot = slot_of_key_[order[i].second];
        p.touch(c, heap_, page_of(BUCKETS, order[i].first), false);
        for (Region r : {DICT_ENTRY, KEY, ROBJ, VALUE})
            touch_object(c, p, r, slot, false);
        c.user(cfg_.rdb_key_s);
        if ((i + 1) % CHILD_STEP == 0)
            c.flush();
    }
    c.flush();
    res_.bgsave_keys = i;
    res_.bgsave_done = i == order.size();
}

}  // namespace swapsim::workload
