// Redis (or Valkey) serving `redis-benchmark -r K -n N -d D -c C -P P -t get`, optionally while
// a BGSAVE child writes the RDB.
//
// Models: one redis-server process whose keyspace is laid out as Redis 7 allocates it
// (workload/redis_layout.hpp: the bucket array, then the dictEntry, key sds, robj and value
// slabs, each region filled in SET order, as jemalloc packs one size class's slab); the
// populating SET run (redis-benchmark -t set over the same -r keyspace: a key's first SET
// allocates it, in that order; with set_requests = 0 every key once, in order), written through
// the fault path a chunk of keys at a time, memory pressure and swap-out included; then the
// measured GET run. The main thread executes every command (one task): each GET draws a key
// uniformly from the keyspace, reads its bucket's page, and for a key that exists its
// dictEntry, key and robj pages and the pages its value spans (a swapped page faults in:
// zram reads synchronously in the fault), then pays the measured per-GET CPU time
// (cost.redis.get_ns). Without a child, lookupKey writes the robj's LRU clock (the robj page is
// written); while a child exists it does not (hasActiveChildProcess). Each client's pipeline
// of P GETs is one simulated step, after which the server writes that client's reply buffer
// (its page of the clients' area). RPS = N / the GET run's simulated time (redis-benchmark's
// "requests per second").
// BGSAVE: at the start of the GET run the server forks (rdbSaveBackground -> redisFork:
// copy_page_range, kernel/fork.cpp; the server is stopped meanwhile); the child walks the
// dict in bucket order, reading every key's pages (a page swapped out before the fork has
// swap count 2: no SWP_SYNCHRONOUS_IO bypass, the folio stays in the swap cache, where the
// parent's fault finds it), paying cost.redis.rdb_key_ns per key (rdbSaveKeyValuePair: LZF
// attempt and rio write); it writes no dataset page, so it breaks no COW, while the parent's
// writes (reply buffers, and the robj LRU field after the child is gone) do.
// Granularity: a simulated step is one client's pipeline (P GETs) for the server and 64 keys
// for the child; pages are 4 KiB and order-0 (fork refuses large folios).
// Leaves out: redis-benchmark's own processes (on other CPUs, memory not modelled), the
// network stack, the RDB file's page cache and its disk writes (the child's write cost is in
// rdb_key_ns), the end of a BGSAVE that outlasts the GET run (the run ends with the benchmark:
// the child then exits), incremental rehashing, expires, io-threads, active defrag.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/kernel.hpp"
#include "workload/process.hpp"
#include "workload/redis_layout.hpp"

namespace swapsim::workload {

class Barrier;

struct RedisConfig {
    uint64_t keyspace = 2000000;     // redis-benchmark -r
    uint64_t requests = 2000000;     // -n of the GET run
    uint64_t set_requests = 0;       // -n of the populating SET run (0: every key once, in order)
    uint64_t value_bytes = 1024;     // -d
    unsigned clients = 12;           // -c
    unsigned pipeline = 32;          // -P
    uint64_t maxmemory = 0;          // bytes; SETs past it fail (noeviction); 0: no limit
    unsigned jemalloc_quantum = 16;  // 16: Debian's system jemalloc; 8: Redis's bundled one
    bool bgsave = false;             // BGSAVE at the start of the GET run
    double get_s = 1.6e-6;           // server CPU per GET, no memory pressure
    double rdb_key_s = 8e-6;         // the child's CPU per key written to the RDB
    double user_bw = 1e10;           // bytes/s of the populating writes
    uint64_t chunk = 256 * 1024;     // bytes per simulated step of the populating writes
    uint64_t seed = 1;
    int cpu = 0, child_cpu = 1;      // where the server and the BGSAVE child run
};

struct RedisResult {
    uint64_t keys = 0;               // keys loaded
    uint64_t used_memory = 0;        // INFO used_memory of the keyspace (bytes)
    uint64_t hits = 0, misses = 0;   // keyspace_hits / keyspace_misses of the GET run
    double t_start = 0, t_end = 0;   // the GET run
    double rps = 0;
    uint64_t requests_done = 0;
    double fork_s = 0;               // latest_fork_usec / 1e6
    double bgsave_s = 0;             // the child's walk, fork to exit (cut at the end of the run)
    uint64_t bgsave_keys = 0;        // keys the child wrote
    bool bgsave_done = false;        // the child walked the whole dict within the run
    double server_sys_s = 0, server_user_s = 0;   // the server's task, GET run only
};

class Redis {
public:
    Redis(kernel::Kernel& k, const RedisConfig& cfg);
    // The server's task: populate, then the GET run (forking the child first with bgsave).
    void run_server(kernel::Clock& clk, Barrier& forked);
    // Its steps, on the server's Ctx (tests drive them on a plain clock): the SET run; the
    // BGSAVE fork (the child's Process is then child()); the GET run.
    void populate(kernel::Ctx& c);
    void fork_child(kernel::Ctx& c);
    void serve(kernel::Ctx& c);
    // The child's dict walk on its Ctx (stopping when the GET run ends, unless told not to).
    void walk(kernel::Ctx& c, bool stop_with_server = true);
    Process& server() { return server_; }
    Process& child() { return child_.back(); }
    // The BGSAVE child's body: waits for the fork, walks the dict, exits.
    void run_child(kernel::Clock& clk, Barrier& forked);
    const RedisConfig& cfg() const { return cfg_; }
    const RedisLayout& layout() const { return lay_; }
    const RedisResult& result() const { return res_; }
    int server_pid() const { return server_.pid(); }
    int child_pid() const { return child_pid_; }
    uint32_t server_mm() const { return server_.mm(); }

    // The page of the keyspace VMA where object `index` of region r starts (tests read it).
    enum Region { BUCKETS, DICT_ENTRY, KEY, ROBJ, VALUE, NR_REGIONS };
    uint64_t page_of(Region r, uint64_t index) const;
    uint32_t heap_vma() const { return heap_; }

private:
    // Reads (or writes) the pages of the object `slot` of region r.
    void touch_object(kernel::Ctx& c, Process& p, Region r, uint64_t slot, bool write);
    uint64_t obj_size(Region r) const;   // bytes of one object of region r (its size class)
    uint64_t bucket_of(uint64_t key) const;
    kernel::Kernel& k_;
    RedisConfig cfg_;
    RedisLayout lay_;
    Process server_;
    uint32_t heap_ = 0, clients_vma_ = 0;
    uint64_t region_start_[NR_REGIONS] = {};   // bytes into the heap VMA
    uint64_t buckets_ = 0;
    std::vector<uint32_t> slot_of_key_;        // allocation order of each key, or NONE
    std::vector<uint32_t> loaded_;             // keys in allocation order
    static constexpr uint32_t NONE = UINT32_MAX;
    std::vector<Process> child_;               // the BGSAVE child once forked
    int child_pid_ = -1;
    bool child_active_ = false, serving_ = false;
    RedisResult res_;
};

}  // namespace swapsim::workload
