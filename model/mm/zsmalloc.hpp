// struct zs_pool: size classes and the pages a pool occupies.
//
// Models (mm/zsmalloc.c): size classes from ZS_MIN_ALLOC_SIZE (32 B) in ZS_SIZE_CLASS_DELTA
// (16 B) steps up to PAGE_SIZE; per class the zspage length (1..CONFIG_ZSMALLOC_CHAIN_SIZE
// pages) that wastes least (calculate_zspage_chain_size); objects per zspage; "huge" classes
// of one object per page; the class spinlock identity (one lock per class).
// Granularity: object counts per class; zspages needed = ceil(objects / objs_per_zspage),
// i.e. as after compaction. Leaves out: fullness groups and fragmentation, handles,
// migration, and merging of classes with identical geometry (only the lock identity differs).
#pragma once

#include <cstdint>
#include <vector>

namespace swapsim::mm {

constexpr unsigned ZS_MIN_ALLOC_SIZE = 32;
constexpr unsigned ZS_SIZE_CLASS_DELTA = 16;   // PAGE_SIZE >> CLASS_BITS(8)

struct ZsClass {
    unsigned size = 0;              // object slot size in bytes
    unsigned pages_per_zspage = 1;
    unsigned objs_per_zspage = 1;
    uint64_t objs = 0;              // objects allocated
};

class ZsPool {
public:
    explicit ZsPool(unsigned chain_size = 8);

    unsigned class_index(unsigned size) const;  // get_size_class_index
    const ZsClass& cls(unsigned idx) const { return classes_[idx]; }
    unsigned nr_classes() const { return unsigned(classes_.size()); }

    unsigned zs_malloc(unsigned size);           // returns the class index
    void zs_free(unsigned class_idx);
    uint64_t pool_pages() const { return pages_; }   // zs_get_total_pages
    uint64_t objs() const { return objs_; }
    unsigned huge_class_size() const { return huge_size_; }   // zs_huge_class_size

private:
    uint64_t class_pages(const ZsClass& c) const;
    std::vector<ZsClass> classes_;
    uint64_t pages_ = 0, objs_ = 0;
    unsigned huge_size_ = 0;
};

}  // namespace swapsim::mm
