#include "compat/gzip_input.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "compat/input_error.h"

namespace hn::compat {

namespace {

std::string inflate_size_text(std::size_t n) {
  if (n < (std::size_t{1} << 20)) return std::to_string(n) + " bytes";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(n) / (1 << 20));
  return buf;
}

// The most the output may grow to for a file of `compressed` bytes.
std::size_t output_limit(std::size_t compressed, const GzipLimits& l) {
  const std::size_t by_ratio =
      l.max_ratio != 0 && compressed > SIZE_MAX / l.max_ratio ? SIZE_MAX : compressed * l.max_ratio;
  return std::min(l.max_bytes, std::max(l.free_bytes, by_ratio));
}

// ISIZE, the last member's size (mod 2^32) as the file states it: a hint for
// one allocation instead of repeated doubling, never trusted past the limit.
std::size_t stated_size(std::string_view bytes) {
  if (bytes.size() < 18) return 0;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - 4);
  return std::size_t{p[0]} | std::size_t{p[1]} << 8 | std::size_t{p[2]} << 16 |
         std::size_t{p[3]} << 24;
}

class Inflater {
 public:
  explicit Inflater(const std::string& path) {
    if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK)
      throw InputError(path, 0, 0, "", "cannot start gzip decompression (out of memory?)");
  }
  ~Inflater() { inflateEnd(&z_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  z_stream* operator->() { return &z_; }
  z_stream* get() { return &z_; }

 private:
  z_stream z_{};
};

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(std::string_view bytes, const std::string& path, const GzipLimits& limits) {
  if (!is_gzip(bytes))
    throw InputError(path, 0, 0, "", "not a gzip file (expected the gzip magic bytes 1f 8b)");
  if (bytes.size() > std::numeric_limits<uInt>::max())
    throw InputError(path, 0, 0, "", "gzip file too large (" + inflate_size_text(bytes.size()) + ")");
  const std::size_t limit = output_limit(bytes.size(), limits);
  std::string out;
  out.reserve(std::min(limit, stated_size(bytes)));
  Inflater z(path);
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z->avail_in = static_cast<uInt>(bytes.size());
  char buf[1 << 16];
  for (;;) {
    z->next_out = reinterpret_cast<Bytef*>(buf);
    z->avail_out = sizeof buf;
    const int rc = inflate(z.get(), Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
      throw InputError(path, 0, 0, "",
                       "not a valid gzip file (" + std::string(z->msg ? z->msg : "corrupt data") +
                           ") after " + std::to_string(out.size()) + " inflated bytes");
    const std::size_t got = sizeof buf - z->avail_out;
    if (got > limit - out.size()) {
      if (limit == limits.max_bytes)
        throw InputError(path, 0, 0, "",
                         "inflates to more than " + inflate_size_text(limit) +
                             ", the size limit for models and traces, compressed or not");
      throw InputError(path, 0, 0, "",
                       "inflates to more than " + inflate_size_text(limit) + " from " +
                           inflate_size_text(bytes.size()) + " (expected at most " +
                           std::to_string(limits.max_ratio) + " times the compressed size past " +
                           inflate_size_text(limits.free_bytes) +
                           "; profiler traces inflate 10 to 30 times): a decompression bomb?");
    }
    out.append(buf, got);
    if (rc == Z_STREAM_END) {
      const std::size_t at = bytes.size() - z->avail_in;
      const std::string_view rest = bytes.substr(at);
      if (rest.find_first_not_of('\0') == std::string_view::npos) break;
      if (!is_gzip(rest))
        throw InputError(path, 0, 0, "",
                         "unexpected data after the gzip stream at byte " + std::to_string(at) +
                             " (expected the end of the file or another gzip member)");
      inflateReset(z.get());
      continue;
    }
    if (z->avail_in == 0 && z->avail_out != 0)
      throw InputError(
          path, 0, 0, "",
          "truncated gzip file (ends after " + std::to_string(out.size()) + " inflated bytes)");
  }
  return out;
}

}  // namespace hn::compat
