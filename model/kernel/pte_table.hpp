// A VMA's page table: one pte_t per page, stored per run of 16 pages (a 64K folio's span).
//
// Models: the PTE page of the VMA's range, as the model reads it (Vma::pte). A run whose 16
// PTEs are equal (none, or a large folio mapped whole: each PTE holds the folio) or count up by
// one (a large folio's swap entries, or 4K folios allocated in a row) is stored as its first
// PTE; the others as 16 PTEs. A run is folded back when its last PTE is written (the order in
// which faults, swap-out and zap fill a run).
// Granularity: exact; what it saves is memory (8 bytes per 16 pages for a folded run against 64).
// Leaves out: nothing of the kernel; this is storage only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace swapsim::kernel {

// 0 none, PTE_SWAP|offset a swap entry, else folio id + 1 (kernel.hpp has the helpers).
using pte_t = uint32_t;

class PteTable {
public:
    static constexpr unsigned kShift = 4;
    static constexpr size_t kRun = size_t(1) << kShift;

    size_t size() const { return n_; }
    pte_t get(size_t i) const
    {
        const Run& r = runs_[i >> kShift];
        const unsigned k = unsigned(i & (kRun - 1));
        return r.form < kPool ? folded(r, k) : pool_[r.form - kPool].p[k];
    }
    void set(size_t i, pte_t v)
    {
        Run& r = runs_[i >> kShift];
        const unsigned k = unsigned(i & (kRun - 1));
        if (r.form < kPool) {
            if (get(i) == v)
                return;
            unfold(r);
        }
        pool_[r.form - kPool].p[k] = v;
        if (k == kRun - 1)
            fold(r);
    }
    // vector::assign: n PTEs, all v.
    void assign(size_t n, pte_t v)
    {
        n_ = n;
        runs_.assign((n + kRun - 1) >> kShift, Run{v, kEqual});
        pool_.clear();
        free_.clear();
    }
    // The table and its memory go (std::vector<pte_t>().swap).
    void release()
    {
        std::vector<Run>().swap(runs_);
        std::vector<RunPtes>().swap(pool_);
        std::vector<uint32_t>().swap(free_);
        n_ = 0;
    }

    // v.pte[i] reads and writes like a std::vector<pte_t>.
    class Ref {
    public:
        Ref(PteTable& t, size_t i) : t_(t), i_(i) {}
        operator pte_t() const { return t_.get(i_); }
        Ref& operator=(pte_t v)
        {
            t_.set(i_, v);
            return *this;
        }
        Ref& operator=(const Ref& o) { return *this = pte_t(o); }

    private:
        PteTable& t_;
        size_t i_;
    };
    Ref operator[](size_t i) { return {*this, i}; }
    pte_t operator[](size_t i) const { return get(i); }
    pte_t at(size_t i) const;

    class const_iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = pte_t;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = pte_t;
        const_iterator(const PteTable& t, size_t i) : t_(&t), i_(i) {}
        pte_t operator*() const { return t_->get(i_); }
        const_iterator& operator++()
        {
            i_++;
            return *this;
        }
        bool operator!=(const const_iterator& o) const { return i_ != o.i_; }
        bool operator==(const const_iterator& o) const { return i_ == o.i_; }

    private:
        const PteTable* t_;
        size_t i_;
    };
    const_iterator begin() const { return {*this, 0}; }
    const_iterator end() const { return {*this, n_}; }

    size_t unfolded_runs() const { return pool_.size() - free_.size(); }   // tests
    size_t bytes() const;

private:
    enum : uint32_t { kEqual = 0, kCount = 1, kPool = 2 };   // form: else kPool + pool index
    struct Run {
        pte_t first;
        uint32_t form;
    };
    // PTE k of a folded run.
    static pte_t folded(const Run& r, unsigned k) { return r.form == kCount ? r.first + pte_t(k) : r.first; }
    void unfold(Run& r);
    void fold(Run& r);

    struct alignas(64) RunPtes {   // one cache line
        pte_t p[kRun];
    };
    std::vector<Run> runs_;
    std::vector<RunPtes> pool_;   // unfolded runs' PTEs
    std::vector<uint32_t> free_;                  // pool entries to reuse
    size_t n_ = 0;
};

}  // namespace swapsim::kernel
