// File and text helpers shared by the live readers. Everything here is pure
// parsing or a single file read, so it is exercised directly by the tests.

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "stack/l7_physical/live_readers.h"

namespace hn::stack::physical::detail {

namespace {

// /proc/cpuinfo on a large machine is a few MiB; anything far beyond that is
// not a kernel attribute and not worth holding in memory.
constexpr std::size_t kMaxFileBytes = 64u << 20;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Reads the whole file; on failure returns nullopt and leaves errno set.
std::optional<std::string> read_raw(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      errno = saved;
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > kMaxFileBytes) {
      ::close(fd);
      errno = EFBIG;
      return std::nullopt;
    }
  }
  ::close(fd);
  return out;
}

template <typename T>
std::optional<T> parse_number(std::string_view s) {
  s = trim(s);
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::string> read_text(const std::string& path) {
  auto raw = read_raw(path);
  if (!raw) return std::nullopt;
  std::string_view v = *raw;
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
  raw->resize(v.size());
  return raw;
}

std::optional<long long> read_integer(const std::string& path) {
  auto text = read_text(path);
  if (!text) return std::nullopt;
  return parse_number<long long>(*text);
}

std::string read_required(const std::string& path) {
  auto raw = read_raw(path);
  if (!raw) throw SourceError("cannot read " + path + ": " + std::strerror(errno));
  return *raw;
}

std::optional<int> count_cpulist(std::string_view list) {
  list = trim(list);
  int count = 0;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    std::size_t dash = item.find('-');
    auto lo = parse_number<int>(item.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : parse_number<int>(item.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo) return std::nullopt;
    count += *hi - *lo + 1;
  }
  return count;
}

std::optional<std::uint64_t> meminfo_kib(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    // Per-node meminfo prefixes the label with "Node <n> "; the label is the
    // last word before the colon in both formats.
    std::string_view label = trim(line.substr(0, colon));
    std::size_t sp = label.find_last_of(" \t");
    if (sp != std::string_view::npos) label = label.substr(sp + 1);
    if (label != key) continue;
    std::string_view value = trim(line.substr(colon + 1));
    if (value.size() > 2 && value.substr(value.size() - 2) == "kB")
      value = trim(value.substr(0, value.size() - 2));
    return parse_number<std::uint64_t>(value);
  }
  return std::nullopt;
}

std::optional<std::string> cpuinfo_value(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (trim(line.substr(0, colon)) == key) return std::string(trim(line.substr(colon + 1)));
  }
  return std::nullopt;
}

bool looks_like_pci_address(std::string_view s) {
  // dddd:bb:dd.f
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  return s[11] >= '0' && s[11] <= '7';
}

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei])) ++ei;
      while (ej < b.size() && digit(b[ej])) ++ej;
      std::string_view na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      // Compare by value without overflow: strip leading zeros, then length.
      while (na.size() > 1 && na.front() == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb.front() == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // equal up to zero padding: any strict order will do
}

}  // namespace hn::stack::physical::detail
