// Redis 7 keyspace memory, as redis-server allocates it through jemalloc (plain: no time).
//
// Models (redis 7.0 src/dict.c, src/sds.c, src/object.c, src/db.c; jemalloc 5.3 size
// classes): each SET of a new key adds a dictEntry (key, value, next: 24 B), an sds copy of the
// key (sdshdr5 below 32 chars, else sdshdr8/16/32, plus the terminating NUL), the value's robj
// (16 B) and, for a value longer than OBJ_ENCODING_EMBSTR_SIZE_LIMIT (44 B), a RAW sds of the
// value; shorter values are EMBSTR (robj and sds in one allocation). Every allocation is rounded
// up to its jemalloc size class: multiples of the quantum up to 4 quanta (and an 8 B tiny class
// when the quantum is 16), then four classes per doubling. The main dict's bucket array is 8 B
// per bucket, a power of two at least the key count (_dictExpandIfNeeded grows it at
// used == size). used_memory is what zmalloc counts: the usable sizes of these allocations.
// Debian's redis-server links the system libjemalloc, built with the default 16 B quantum
// (Redis's bundled jemalloc uses 8 B, --with-lg-quantum=3): 32 + 32 + 16 + 1280 B per key plus
// the buckets, 1,370.5 B per key at 200,000 keys against 1,371.0 measured
// (calibration/workloads/redis-get-1024.json).
// Granularity: bytes. Leaves out: the expires dict (no TTLs), LRU/LFU fields beyond the robj,
// client buffers, the allocator's slab metadata and fragmentation (RSS, not used_memory), the
// second bucket array while a rehash is under way, overwritten keys' reallocation.
#pragma once

#include <cstdint>

namespace swapsim::workload {

// jemalloc: the size class that holds a request of `n` bytes (quantum 8 or 16).
inline uint64_t jemalloc_size_class(uint64_t n, unsigned quantum)
{
    if (n == 0)
        n = 1;
    if (quantum == 16 && n <= 8)
        return 8;
    if (n <= 4 * uint64_t(quantum))
        return (n + quantum - 1) / quantum * quantum;
    unsigned lg = 0;   // 2^lg < n <= 2^(lg+1): four classes 2^(lg-2) apart in (2^lg, 2^(lg+1)]
    while ((uint64_t(2) << lg) < n)
        lg++;
    uint64_t delta = uint64_t(1) << (lg - 2);
    return (n + delta - 1) / delta * delta;
}

// sds header bytes for a string of `len` (sdsReqType; _sdsnewlen keeps SDS_TYPE_5 for len > 0).
inline uint64_t sds_header(uint64_t len)
{
    return len < 32 ? 1 : len < 256 ? 3 : len < 65536 ? 5 : len < (uint64_t(1) << 32) ? 9 : 17;
}

inline uint64_t next_pow2(uint64_t n)
{
    uint64_t p = 4;   // DICT_HT_INITIAL_SIZE
    while (p < n)
        p <<= 1;
    return p;
}

// What one key costs, by allocation, and the keyspace of `keys` keys.
struct RedisLayout {
    uint64_t dict_entry = 0;   // bytes of each allocation (its size class)
    uint64_t key_sds = 0;
    uint64_t robj = 0;
    uint64_t value = 0;        // 0 for an EMBSTR value (in the robj's allocation)
    uint64_t value_used = 0;   // bytes of the value's allocation a GET reads (header, data, NUL)

    uint64_t per_key() const { return dict_entry + key_sds + robj + value; }
    static uint64_t buckets_bytes(uint64_t keys) { return keys ? 8 * next_pow2(keys) : 0; }
    uint64_t used_memory(uint64_t keys) const { return keys * per_key() + buckets_bytes(keys); }
    // Keys a noeviction server takes before used_memory passes `maxmemory` (0: no limit).
    uint64_t keys_within(uint64_t wanted, uint64_t maxmemory) const
    {
        if (!maxmemory || used_memory(wanted) <= maxmemory)
            return wanted;
        uint64_t lo = 0, hi = wanted;   // the largest n with used_memory(n) <= maxmemory
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo + 1) / 2;
            if (used_memory(mid) <= maxmemory)
                lo = mid;
            else
                hi = mid - 1;
        }
        return lo;
    }
};

// redis-benchmark's keys are "key:" and 12 digits (16 chars); values of `value_bytes`.
inline RedisLayout redis_layout(uint64_t value_bytes, unsigned quantum, uint64_t key_len = 16)
{
    RedisLayout l;
    l.dict_entry = jemalloc_size_class(24, quantum);
    l.key_sds = jemalloc_size_class(sds_header(key_len) + key_len + 1, quantum);
    if (value_bytes <= 44) {   // EMBSTR: robj + sdshdr8 + data + NUL in one allocation
        l.robj = jemalloc_size_class(16 + 3 + value_bytes + 1, quantum);
        l.value_used = 0;
    } else {
        l.robj = jemalloc_size_class(16, quantum);
        l.value_used = sds_header(value_bytes) + value_bytes + 1;
        l.value = jemalloc_size_class(l.value_used, quantum);
    }
    return l;
}

}  // namespace swapsim::workload
