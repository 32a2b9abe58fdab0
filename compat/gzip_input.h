#pragma once
// Inflates a gzip file a user handed us (torch.profiler writes
// *.pt.trace.json.gz) under two limits, so that a small file cannot make a
// large allocation (a "gzip bomb": deflate reaches 1032:1, so 2 MB can
// inflate to 2 GiB):
//  * a ratio: past `free_bytes` (the size any text input may have), the
//    output may grow to `max_ratio` times the compressed size and no further.
//    Real profiler traces inflate 10 to 30 times (the corpus trace 26);
//  * an absolute cap, `max_bytes`: the size limit of an uncompressed trace.
// Both are checked as the output grows, so memory stays within the limit
// (plus one 64 KiB chunk) whatever the file claims. Concatenated members
// (`cat a.gz b.gz`, which gzip -d reads whole) are all inflated; zero bytes
// after the last member (tape padding) are ignored; anything else after it is
// an error rather than data silently left out.
// Throws InputError naming the path: not gzip, corrupt, truncated, trailing
// data, or over a limit (saying which limit, and how far it got).

#include <cstddef>
#include <string>
#include <string_view>

#include "compat/text_file.h"

namespace hn::compat {

struct GzipLimits {
  std::size_t max_ratio = 100;
  std::size_t free_bytes = kMaxInputBytes;
  std::size_t max_bytes = kMaxModelBytes;
};

// The gzip magic (1f 8b) at the start.
bool is_gzip(std::string_view bytes);

std::string gunzip(std::string_view bytes, const std::string& path, const GzipLimits& limits = {});

}  // namespace hn::compat
