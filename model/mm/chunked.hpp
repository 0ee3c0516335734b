// A table of records addressed by a 32-bit id, grown in chunks of 2^Shift records.
//
// It never copies itself (a run's folio or zram object table reaches tens of millions of
// records: a std::vector would hold the old and the new array at each growth) and a reference
// to a record stays valid while the table grows. New records are value-initialised. Ids given
// back with release() are handed out again by alloc(), the last released first; such a record
// keeps its old contents (the caller resets what it uses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace swapsim::mm {

template <class T, unsigned Shift = 16>
class ChunkedTable {
public:
    T& operator[](uint32_t i) { return chunks_[i >> Shift][i & (kChunk - 1)]; }
    const T& operator[](uint32_t i) const { return chunks_[i >> Shift][i & (kChunk - 1)]; }
    size_t size() const { return size_; }
    // Appends a record and returns its id.
    uint32_t push()
    {
        if ((size_ & (kChunk - 1)) == 0)
            chunks_.push_back(std::make_unique<T[]>(kChunk));
        return uint32_t(size_++);
    }
    // An id to use: the last one released, else a new record.
    uint32_t alloc()
    {
        if (free_.empty())
            return push();
        uint32_t i = free_.back();
        free_.pop_back();
        return i;
    }
    void release(uint32_t i) { free_.push_back(i); }
    size_t released() const { return free_.size(); }   // ids waiting for alloc()

private:
    static constexpr size_t kChunk = size_t(1) << Shift;
    std::vector<std::unique_ptr<T[]>> chunks_;
    size_t size_ = 0;
    std::vector<uint32_t> free_;
};

}  // namespace swapsim::mm
