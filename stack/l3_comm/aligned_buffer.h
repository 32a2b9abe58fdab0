#pragma once
// A page-aligned byte buffer that grows on demand (contents unspecified after
// a growth). Why page-aligned: the kernel copies socket data with rep movsb,
// which on this class of CPU runs at a fraction of its speed when source and
// destination sit 16-48 bytes apart modulo 64, and a std::vector's heap block
// starts 16 bytes into a page. With the TCP transport's receive staging in a
// vector, a 2-rank allreduce over a veth ran 0.7-1.4 GB/s at 256 KiB-16 MiB;
// page-aligned, 1.1-2.4 (bench/README.md "Tuning"). Throws std::bad_alloc.

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace hn::stack::comm {

class AlignedBuffer {
 public:
  // At least `bytes` (rounded up to whole pages); reallocates only to grow.
  std::byte* reserve(std::size_t bytes) {
    if (bytes > size_ || !data_) {
      const std::size_t want = std::max<std::size_t>((bytes + 4095) / 4096 * 4096, 4096);
      data_.reset(static_cast<std::byte*>(std::aligned_alloc(4096, want)));
      if (!data_) {
        size_ = 0;
        throw std::bad_alloc();
      }
      size_ = want;
    }
    return data_.get();
  }
  std::byte* data() const { return data_.get(); }
  std::size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::unique_ptr<std::byte, Free> data_;
  std::size_t size_ = 0;
};

}  // namespace hn::stack::comm
