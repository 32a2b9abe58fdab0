#include "compat/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace hn::compat {

std::uint64_t parse_size(std::string_view text) {
  auto fail = [&](const char* why) {
    return std::invalid_argument("invalid size '" + std::string(text) + "': " + why +
                                 " (expected e.g. 4096, 64K, 1MiB, 2G)");
  };
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  if (i == 0) throw fail("no number");
  std::string num(text.substr(0, i));
  std::string_view suffix = text.substr(i);
  while (!suffix.empty() && suffix.front() == ' ') suffix.remove_prefix(1);
  double value = 0;
  try {
    size_t used = 0;
    value = std::stod(num, &used);
    if (used != num.size()) throw fail("bad number");
  } catch (const std::invalid_argument&) {
    throw fail("bad number");
  } catch (const std::out_of_range&) {
    throw fail("too large");
  }
  double mult = 1;
  std::string s;
  for (char c : suffix) s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (s.empty() || s == "B")
    mult = 1;
  else if (s == "K" || s == "KB" || s == "KIB")
    mult = 1024.0;
  else if (s == "M" || s == "MB" || s == "MIB")
    mult = 1024.0 * 1024;
  else if (s == "G" || s == "GB" || s == "GIB")
    mult = 1024.0 * 1024 * 1024;
  else if (s == "T" || s == "TB" || s == "TIB")
    mult = 1024.0 * 1024 * 1024 * 1024;
  else
    throw fail("unknown unit");
  double bytes = value * mult;
  if (!std::isfinite(bytes) || bytes > 1.8e19) throw fail("too large");
  if (bytes != std::floor(bytes)) throw fail("not a whole number of bytes");
  return static_cast<std::uint64_t>(bytes);
}

std::string format_size(std::uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0 || v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f%s", v, kUnits[u]);
  else
    std::snprintf(buf, sizeof buf, "%.4g%s", v, kUnits[u]);
  return buf;
}

}  // namespace hn::compat
