// struct zs_pool: size classes and the pages a pool occupies.
//
// Models (mm/zsmalloc.c): size classes from ZS_MIN_ALLOC_SIZE (32 B) in ZS_SIZE_CLASS_DELTA
// (16 B) steps up to PAGE_SIZE; per class the zspage length (1..CONFIG_ZSMALLOC_CHAIN_SIZE
// pages) that wastes least (calculate_zspage_chain_size); objects per zspage; "huge" classes
// of one object per page; the class spinlock identity (one lock per class).
// With multi-page objects (Tangquan Zheng's RFC "mm: zsmalloc: support objects compressed based
// on multiple pages", CONFIG_ZSMALLOC_MULTI_PAGES_ORDER = `multi_order`): a second set of
// classes above PAGE_SIZE up to PAGE_SIZE << order in (PAGE_SIZE << order) >> 8 steps, whose
// zspages chain order-`multi_order` pages (class_size_to_zs_order), with their own huge size.
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
    unsigned pages_per_zspage = 1;  // components chained (order-`order` pages each)
    unsigned objs_per_zspage = 1;
    unsigned order = 0;             // component page order: 0, or the multi-page order
    uint64_t objs = 0;              // objects allocated
};

class ZsPool {
public:
    // multi_order 0: base-page classes only (mainline).
    explicit ZsPool(unsigned chain_size = 8, unsigned multi_order = 0);

    unsigned class_index(unsigned size) const;  // get_size_class_index
    const ZsClass& cls(unsigned idx) const { return classes_[idx]; }
    unsigned nr_classes() const { return unsigned(classes_.size()); }
    unsigned multi_order() const { return multi_order_; }
    uint64_t max_alloc_size() const;             // ZS_MAX_ALLOC_SIZE

    unsigned zs_malloc(unsigned size);           // returns the class index
    void zs_free(unsigned class_idx);
    uint64_t pool_pages() const { return pages_; }   // zs_get_total_pages (4 KiB pages)
    uint64_t objs() const { return objs_; }
    unsigned huge_class_size() const { return huge_size_; }   // zs_huge_class_size(BASEPAGE)
    unsigned huge_class_size_multi() const { return huge_multi_; }   // (MULTI_PAGES)

private:
    uint64_t class_pages(const ZsClass& c) const;
    std::vector<ZsClass> classes_;
    unsigned nr_base_ = 0, multi_order_ = 0, multi_delta_ = 0;
    uint64_t pages_ = 0, objs_ = 0;
    unsigned huge_size_ = 0, huge_multi_ = 0;
};

}  // namespace swapsim::mm
