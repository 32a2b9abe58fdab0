#pragma once
// The link-setup contract between `hnprecheck translate` and the collective
// layer (stack/l3_comm): the environment variables the comm layer reads to set
// up a link, with the meaning the translator gives them. The translator
// writes exactly these names; the comm layer calls link_env_from(environment)
// and honours the result as described here. Header-only, no dependencies
// beyond compat/input_error.h, so the stack can include it.
//
// Budget and retries (what "the link fails after the translated timeout with
// the translated retry count" means):
//   HCCL_CONNECT_TIMEOUT=T        HCCL semantics: seconds; the link-setup budget is
//                                 T + 20 s (HCCL waits 20 s longer than the value,
//                                 docs/comm-sources.md A1, key H-CT). Within the budget the
//                                 comm layer keeps retrying. Every connect attempt is
//                                 bounded by the time left, so an unreachable
//                                 (black-holed) peer cannot stretch it.
//   NCCL_SOCKET_RETRY_CNT=N       NCCL 2.24+ semantics: after a failed attempt k
//   NCCL_SOCKET_RETRY_SLEEP_MSEC=S   (k = 1..N) sleep k*S ms and try again; give up
//                                 after N retries, i.e. N+1 attempts, N(N+1)/2*S ms of
//                                 sleeping in all (key N1).
//   both set                      both limits apply; the link fails at whichever is
//                                 reached first.
//   neither set                   the comm layer's own defaults; for reference HCCL
//                                 waits 120 + 20 s and NCCL retries 34 times x 100 ms.
// A failed link setup is a classified error naming the peer, the attempts made
// and the budget, reported no later than link_deadline_s() plus the comm
// layer's stated tolerance.
//
// Interface (what the link binds to), in HCCL's priority order (key H-IP):
//   HCCL_IF_IP=A                  bind to local address A; if no local interface has
//                                 it, link setup fails (classified), never falls back.
//   HCCL_SOCKET_IFNAME=SPEC       else the interfaces SPEC selects, HCCL grammar
//                                 (prefix list; ^ excludes; = exact; ^= both);
//   NCCL_SOCKET_IFNAME=SPEC       else the same grammar with NCCL's reading.
//                                 Either way the comm layer binds the first match in
//                                 interface-name order, as HCCL does (key H-SI).
//   HCCL_SOCKET_FAMILY / NCCL_SOCKET_FAMILY = AF_INET | AF_INET6 (HCCL's wins).
//
// Range checks are the translator's job (`hnprecheck translate --check`), not
// this parser's: it accepts any positive value, so tests may use a one-second
// budget although HCCL itself accepts only [120, 7200].

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "compat/input_error.h"

namespace hn::compat::translate {

struct LinkEnv {
  std::optional<double> connect_timeout_s;  // HCCL_CONNECT_TIMEOUT as written (without the +20 s)
  std::optional<int> retry_count;           // NCCL_SOCKET_RETRY_CNT
  std::optional<int> retry_sleep_ms;        // NCCL_SOCKET_RETRY_SLEEP_MSEC
  std::string ifname_spec;                  // HCCL_SOCKET_IFNAME, else NCCL_SOCKET_IFNAME
  std::string ifname_var;                   // which of the two it came from; empty if neither
  std::string if_ip;                        // HCCL_IF_IP
  std::string socket_family;                // AF_INET, AF_INET6 or empty

  static constexpr double kHcclExtraWaitS = 20;  // HCCL waits HCCL_CONNECT_TIMEOUT + 20 s
  // No link budget is longer than a day (the cap of every --timeout): a
  // value like HCCL_CONNECT_TIMEOUT=99999999999999999999 or
  // NCCL_SOCKET_RETRY_CNT=1000000000 means "wait as long as it takes", and
  // its milliseconds would overflow the clock's integer.
  static constexpr double kMaxLinkDeadlineS = 86400;

  // The wall-clock budget for setting up one link, or nullopt when neither
  // limit is set (the comm layer's defaults apply).
  std::optional<double> link_deadline_s() const {
    std::optional<double> d;
    if (connect_timeout_s) d = *connect_timeout_s + kHcclExtraWaitS;
    if (retry_count) {
      double n = *retry_count, s = retry_sleep_ms.value_or(100) / 1000.0;
      double r = n * (n + 1) / 2 * s;
      d = d ? std::min(*d, r) : r;
    }
    if (d) d = std::min(*d, kMaxLinkDeadlineS);
    return d;
  }
  // How many connect attempts at most, or nullopt when only the budget limits them.
  std::optional<int> max_attempts() const {
    if (!retry_count) return std::nullopt;
    return *retry_count == std::numeric_limits<int>::max() ? *retry_count : *retry_count + 1;
  }
  // The sleep after failed attempt k (1-based): linear back-off.
  int sleep_after_attempt_ms(int k) const {
    const long long ms = static_cast<long long>(retry_sleep_ms.value_or(100)) * k;
    return static_cast<int>(
        std::min<long long>(ms, static_cast<long long>(kMaxLinkDeadlineS) * 1000));
  }
};

namespace link_env_detail {

inline const std::string* find(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? nullptr : &it->second;
}

[[noreturn]] inline void bad(const char* name, const std::string& value, const char* expected) {
  throw InputError("environment", 0, 0, name, "'" + value + "': expected " + expected);
}

inline int positive_int(const char* name, const std::string& v) {
  int out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || out <= 0)
    bad(name, v, "a positive integer");
  return out;
}

inline double positive_seconds(const char* name, const std::string& v) {
  double out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || !(out > 0))
    bad(name, v, "a positive number of seconds");
  return out;
}

}  // namespace link_env_detail

// Reads the contract's variables from an environment map. Absent variables
// stay unset. Throws compat::InputError (file "environment", field = the
// variable) for a value that is not a positive number, an empty interface
// spec, or a family other than AF_INET/AF_INET6.
inline LinkEnv link_env_from(const std::map<std::string, std::string>& env) {
  using namespace link_env_detail;
  LinkEnv l;
  if (auto v = find(env, "HCCL_CONNECT_TIMEOUT"))
    l.connect_timeout_s = positive_seconds("HCCL_CONNECT_TIMEOUT", *v);
  if (auto v = find(env, "NCCL_SOCKET_RETRY_CNT"))
    l.retry_count = positive_int("NCCL_SOCKET_RETRY_CNT", *v);
  if (auto v = find(env, "NCCL_SOCKET_RETRY_SLEEP_MSEC"))
    l.retry_sleep_ms = positive_int("NCCL_SOCKET_RETRY_SLEEP_MSEC", *v);
  for (const char* name : {"HCCL_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME"}) {
    auto v = find(env, name);
    if (!v) continue;
    if (v->empty() || *v == "^" || *v == "=" || *v == "^=") bad(name, *v, "[^][=]name[,name...]");
    l.ifname_spec = *v;
    l.ifname_var = name;
    break;
  }
  if (auto v = find(env, "HCCL_IF_IP")) {
    if (v->empty()) bad("HCCL_IF_IP", *v, "an IPv4 or IPv6 address");
    l.if_ip = *v;
  }
  for (const char* name : {"HCCL_SOCKET_FAMILY", "NCCL_SOCKET_FAMILY"}) {
    auto v = find(env, name);
    if (!v) continue;
    if (*v != "AF_INET" && *v != "AF_INET6") bad(name, *v, "AF_INET or AF_INET6");
    l.socket_family = *v;
    break;
  }
  return l;
}

}  // namespace hn::compat::translate
