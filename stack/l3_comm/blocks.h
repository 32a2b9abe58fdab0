#pragma once
// Splits `count` elements into n nearly equal blocks (the first count % n
// get one more), in bytes. Internal to the collectives.

#include <cstddef>
#include <vector>

namespace hn::stack::comm {

struct Blocks {
  std::vector<std::size_t> off, len;  // bytes
  Blocks(std::size_t count, int n, std::size_t esz) : off(n), len(n) {
    std::size_t base = count / n, rem = count % n, o = 0;
    for (int i = 0; i < n; ++i) {
      std::size_t c = base + (static_cast<std::size_t>(i) < rem ? 1 : 0);
      off[i] = o * esz;
      len[i] = c * esz;
      o += c;
    }
  }
};

inline int mod(int a, int n) {
  return ((a % n) + n) % n;
}

}  // namespace hn::stack::comm
