#include "compat/translate/value_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "compat/translate/algo_grammar.h"
#include "compat/translate/values.h"

namespace hn::compat::translate {

namespace {

// The token as the table spells it, among the values valid on the platform
// (a [[var.platform]] row may give its own list).
std::string canonical_token(const VarSpec& spec, const std::string& token,
                            const std::string& platform) {
  const std::vector<std::string> values = effective_range(spec, platform).values;
  for (const auto& v : values)
    if (spec.case_insensitive ? to_lower(v) == to_lower(token) : v == token) return v;
  bool elsewhere = false;
  for (const auto& p : spec.platforms)
    for (const auto& v : p.values)
      elsewhere =
          elsewhere || (spec.case_insensitive ? to_lower(v) == to_lower(token) : v == token);
  throw std::invalid_argument(
      "'" + token + "' is not one of " + join(values, ", ") +
      (spec.case_insensitive ? " (any case)" : "") +
      (elsewhere ? " on " + platform + " (other platforms take it: see --platform)" : ""));
}

void check_names(const std::string& text, bool allow_cidr, bool allow_caret_items) {
  if (text.empty()) throw std::invalid_argument("expected a comma list of interface names");
  for (auto item : split(text, ',')) {
    if (allow_caret_items && !item.empty() && item[0] == '^') item.erase(0, 1);
    size_t slash = item.find('/');
    if (allow_cidr && slash != std::string::npos) {
      auto bits = parse_int(item.substr(slash + 1));
      long long max_bits = item.find(':') == std::string::npos ? 32 : 128;
      if (is_ip_address(item.substr(0, slash)) && bits && *bits >= 0 && *bits <= max_bits) continue;
      throw std::invalid_argument("'" + item + "' is not a CIDR subnet such as 10.0.0.0/16");
    }
    if (!is_ifname(item))
      throw std::invalid_argument("'" + item + "' is not an interface name" +
                                  (allow_cidr ? " or CIDR subnet" : ""));
  }
}

void check_ib_hca(std::string text) {
  if (!text.empty() && text[0] == '^') text.erase(0, 1);
  if (!text.empty() && text[0] == '=') text.erase(0, 1);
  auto items = split(text, ',');
  if (items.size() > 32) throw std::invalid_argument("NCCL_IB_HCA takes at most 32 entries");
  for (const auto& item : items) {
    auto parts = split(item, ':');
    if (parts.size() > 4 || parts[0].empty() || !is_ifname(parts[0]))
      throw std::invalid_argument("'" + item + "' is not <hca>[:port[:rail[:plane]]]");
    for (size_t i = 1; i < parts.size(); ++i)
      if (!parse_int(parts[i]) || *parse_int(parts[i]) < 0)
        throw std::invalid_argument("'" + item + "': port, rail and plane are numbers");
  }
}

void check_host_port(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw std::invalid_argument("expected host:port (IPv6 as [addr]:port)");
  auto port = parse_int(text.substr(colon + 1));
  if (!port || *port < 1 || *port > 65535)
    throw std::invalid_argument("'" + text.substr(colon + 1) + "' is not a port (1-65535)");
}

}  // namespace

ParsedValue parse_typed(const VarSpec& spec, const std::string& text, const std::string& platform) {
  ParsedValue pv;
  pv.text = text;
  const std::string& t = spec.type;
  if (t == "int" || (t == "enum" && spec.also_int && parse_int(text))) {
    auto v = parse_int(text);
    if (!v) throw std::invalid_argument("expected an integer, got '" + text + "'");
    pv.number = *v;
    pv.infinite =
        std::find(spec.infinite_at.begin(), spec.infinite_at.end(), *v) != spec.infinite_at.end() ||
        (spec.infinite_from && *v >= *spec.infinite_from);
    EffectiveRange r = effective_range(spec, platform);
    pv.outside_range =
        (r.min && (*v < *r.min || (r.min_exclusive && *v == *r.min))) || (r.max && *v > *r.max);
    if (pv.infinite &&
        std::find(spec.infinite_at.begin(), spec.infinite_at.end(), *v) != spec.infinite_at.end() &&
        !(r.max && *v > *r.max))
      pv.outside_range = false;  // a documented "no limit" value is in range
    return pv;
  }
  if (t == "enum") {
    pv.text = canonical_token(spec, text, platform);
    return pv;
  }
  if (t == "tokens") {
    std::string body = text;
    bool exclude = !body.empty() && body[0] == '^';
    if (exclude) body.erase(0, 1);
    if (body.empty())
      throw std::invalid_argument("expected a comma list of " + join(spec.values, ", "));
    std::vector<std::string> out;
    for (const auto& tok : split(body, ',')) out.push_back(canonical_token(spec, tok, platform));
    pv.text = (exclude ? "^" : "") + join(out, ",");
    return pv;
  }
  if (t == "bool") {
    if (text != "0" && text != "1")
      throw std::invalid_argument("expected 0 or 1, got '" + text + "'");
    pv.number = text == "1";
    return pv;
  }
  if (t == "ip") {
    if (!is_ip_address(text))
      throw std::invalid_argument("'" + text + "' is not an IPv4 or IPv6 address");
    return pv;
  }
  if (t == "host-port") {
    check_host_port(text);
    return pv;
  }
  if (t == "ports") {
    PortSpec p = parse_port_spec(text);
    for (const auto& r : p.ranges)
      if (r.lo < 1) throw std::invalid_argument("port 0 is not usable");
    pv.text = p.is_auto ? "auto" : format_port_ranges(p.ranges);
    return pv;
  }
  if (t == "kv") {
    std::vector<std::string> keys;
    for (const auto& [k, range] : spec.keys) keys.push_back(k);
    auto kv = parse_kv(text, keys);
    for (const auto& [k, v] : kv) {
      auto [lo, hi] = spec.keys.at(k);
      if (v < lo || v > hi) pv.outside_range = true;
    }
    return pv;
  }
  if (t == "ifname") {
    pv.text = format_ifname_spec(parse_ifname_spec(text));
    return pv;
  }
  if (t == "ifname-list") {
    check_names(text, false, false);
    return pv;
  }
  if (t == "ifname-ompi" || t == "ifname-ompi-exclude") {
    check_names(text, true, false);
    return pv;
  }
  if (t == "ifname-ccl") {
    check_names(text, false, true);
    return pv;
  }
  if (t == "nccl-algo") {
    parse_nccl_algo(text);
    return pv;
  }
  if (t == "hccl-algo") {
    pv.text = format_hccl_algo(parse_hccl_algo(text));
    return pv;
  }
  if (t == "ib-hca") {
    check_ib_hca(text);
    return pv;
  }
  return pv;  // string, path: anything
}

FitResult fit_number(const VarSpec& spec, long long v, bool infinite, const std::string& platform) {
  EffectiveRange r = effective_range(spec, platform);
  auto in_range = [&](long long x) {
    return !(r.min && (x < *r.min || (r.min_exclusive && x == *r.min))) && !(r.max && x > *r.max);
  };
  FitResult f{FitResult::kOk, v, ""};
  if (infinite) {
    for (long long inf : spec.infinite_at)
      if (in_range(inf)) return FitResult{FitResult::kOk, inf, "no limit"};
    if (!r.max) return FitResult{FitResult::kOk, v, ""};
    return FitResult{FitResult::kClamped, *r.max,
                     "clamped to the maximum " + std::to_string(*r.max)};
  }
  if (r.min && (v < *r.min || (r.min_exclusive && v == *r.min))) {
    long long lo = *r.min + (r.min_exclusive ? 1 : 0);
    f = FitResult{FitResult::kClamped, lo, "raised to the minimum " + std::to_string(lo)};
  } else if (r.max && v > *r.max) {
    f = FitResult{FitResult::kClamped, *r.max, "lowered to the maximum " + std::to_string(*r.max)};
  }
  // multiple_of is enforced by the library, step is its own rounding.
  for (auto [m, enforced] : {std::pair{spec.multiple_of, true}, std::pair{r.step, false}}) {
    if (m <= 0 || f.value % m == 0) continue;
    long long down = f.value - ((f.value % m) + m) % m;
    long long chosen = in_range(down) ? down : down + m;
    std::string how = "rounded " + std::string(chosen < f.value ? "down" : "up") +
                      " to a multiple of " + std::to_string(m);
    if (f.status == FitResult::kOk) f.status = FitResult::kRounded;
    f.off_multiple = f.off_multiple || enforced;
    f.detail = f.detail.empty() ? how : f.detail + ", " + how;
    f.value = chosen;
  }
  return f;
}

std::string plausibility_problem(const VarSpec& spec, long long v) {
  std::string unit = spec.unit.empty() ? "" : " " + spec.unit;
  std::string s;
  if (spec.plausible_min && v < *spec.plausible_min)
    s = std::to_string(v) + unit + " is below the plausible minimum of " +
        std::to_string(*spec.plausible_min) + unit;
  else if (spec.plausible_max && v > *spec.plausible_max)
    s = std::to_string(v) + unit + " is above the plausible maximum of " +
        std::to_string(*spec.plausible_max) + unit;
  else
    return "";
  return s + " for " + spec.name + ": " + spec.plausible_note;
}

std::string format_seconds(double s) {
  if (std::isinf(s)) return "infinite";
  char buf[64];
  if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.0f µs", s * 1e6);
  else if (s < 1)
    std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  else if (s < 3600)  // timeouts are configured in seconds: keep them in seconds
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 86400 * 365.0)
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  else
    std::snprintf(buf, sizeof buf, "%.2g years", s / (86400 * 365.0));
  return buf;
}

double ib_timeout_seconds(long long exponent) {
  return 4.096e-6 * std::pow(2.0, static_cast<double>(exponent));
}

}  // namespace hn::compat::translate
