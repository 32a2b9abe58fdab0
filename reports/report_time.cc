#include "reports/report_time.h"

#include <cstdio>
#include <ctime>
#include <stdexcept>

namespace hn::reports {

std::string format_iso8601_ms(std::int64_t unix_ms) {
  // Floor division, so times before 1970 still format their ms part correctly.
  std::int64_t secs = unix_ms / 1000;
  std::int64_t ms = unix_ms % 1000;
  if (ms < 0) {
    ms += 1000;
    --secs;
  }
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

namespace {

[[noreturn]] void bad_time(std::string_view text) {
  throw std::invalid_argument("'" + std::string(text) +
                              "' is not an ISO-8601 UTC time like 2024-05-01T12:34:56.789Z");
}

// Reads exactly n digits at text[pos].
int digits(std::string_view text, std::size_t& pos, int n) {
  int v = 0;
  for (int i = 0; i < n; ++i, ++pos) {
    if (pos >= text.size() || text[pos] < '0' || text[pos] > '9') bad_time(text);
    v = v * 10 + (text[pos] - '0');
  }
  return v;
}

void expect(std::string_view text, std::size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) bad_time(text);
  ++pos;
}

}  // namespace

std::int64_t parse_iso8601_ms(std::string_view text) {
  std::size_t pos = 0;
  std::tm tm{};
  tm.tm_year = digits(text, pos, 4) - 1900;
  expect(text, pos, '-');
  tm.tm_mon = digits(text, pos, 2) - 1;
  expect(text, pos, '-');
  tm.tm_mday = digits(text, pos, 2);
  expect(text, pos, 'T');
  tm.tm_hour = digits(text, pos, 2);
  expect(text, pos, ':');
  tm.tm_min = digits(text, pos, 2);
  expect(text, pos, ':');
  tm.tm_sec = digits(text, pos, 2);
  int ms = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int n = 0;
    for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++n)
      if (n < 3) ms = ms * 10 + (text[pos] - '0');
    if (n == 0 || n > 9) bad_time(text);
    for (; n < 3; ++n) ms *= 10;
  }
  expect(text, pos, 'Z');
  if (pos != text.size()) bad_time(text);
  // timegm would silently normalise 2024-02-30 into March; refuse instead.
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60)
    bad_time(text);
  std::tm check = tm;
  std::time_t secs = timegm(&check);
  if (check.tm_mday != tm.tm_mday) bad_time(text);
  return static_cast<std::int64_t>(secs) * 1000 + ms;
}

}  // namespace hn::reports
