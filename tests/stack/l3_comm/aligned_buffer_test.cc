// AlignedBuffer: page-aligned at every size, grows only when asked for more,
// and keeps its block for smaller requests (the TCP staging and the
// communicator's scratch rely on both: see aligned_buffer.h for why).

#include "stack/l3_comm/aligned_buffer.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

using hn::stack::comm::AlignedBuffer;

namespace {
bool page_aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 4096 == 0;
}
}  // namespace

TEST_CASE("aligned buffer: page-aligned at every size, whole pages, writable") {
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4096},
                            std::size_t{4097}, std::size_t{200000}, std::size_t{3} << 20}) {
    INFO(bytes);
    AlignedBuffer b;
    std::byte* p = b.reserve(bytes);
    CHECK(page_aligned(p));
    CHECK(b.size() >= bytes);
    CHECK(b.size() % 4096 == 0);
    std::memset(p, 0x5a, b.size());  // the whole size is ours (ASan would say otherwise)
  }
}

TEST_CASE("aligned buffer: a smaller request keeps the block, a larger one grows it aligned") {
  AlignedBuffer b;
  std::byte* first = b.reserve(64 << 10);
  CHECK(b.reserve(1000) == first);
  CHECK(b.reserve(64 << 10) == first);
  std::byte* grown = b.reserve((64 << 10) + 1);
  CHECK(page_aligned(grown));
  CHECK(b.size() >= (64u << 10) + 1);
  CHECK(b.data() == grown);
}
