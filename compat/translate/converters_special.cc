// Conversions that need more than one value or the cluster profile:
// interface selection, socket retries <-> connect timeout, port ranges,
// service level <-> PFC priority, algorithm grammars, log subsystems.
#include <cmath>
#include <stdexcept>

#include "compat/input_error.h"
#include "compat/translate/algo_grammar.h"
#include "compat/translate/converters.h"

namespace hn::compat::translate::detail {

namespace {

RowResult converted(std::vector<std::pair<std::string, std::string>> outputs, std::string detail,
                    Outcome o = Outcome::kConverted) {
  RowResult r;
  r.outcome = o;
  r.outputs = std::move(outputs);
  r.detail = std::move(detail);
  return r;
}

RowResult dropped(std::string detail) {
  RowResult r;
  r.outcome = Outcome::kDropped;
  r.detail = std::move(detail);
  return r;
}

// A source interface selection, whatever its grammar.
struct Selection {
  IfnameSpec spec;        // names part
  bool has_cidr = false;  // OMPI items that are subnets
  bool ip = false;        // HCCL_IF_IP: one address, no names
};

Selection read_selection(const VarSpec* src, const EnvEntry& e, const std::string& platform) {
  parse_entry(src, e, platform);  // grammar check with file:line errors
  std::string type = src ? src->type : "ifname";
  Selection s;
  if (type == "ip") {
    s.ip = true;
    return s;
  }
  if (type == "ifname") {
    s.spec = parse_ifname_spec(e.value);
    return s;
  }
  s.spec.exact = true;
  s.spec.exclude = type == "ifname-ompi-exclude";
  for (const auto& item : split(e.value, ',')) {
    if (item.find('/') != std::string::npos)
      s.has_cidr = true;
    else
      s.spec.items.push_back(item);
  }
  return s;
}

}  // namespace

RowResult convert_ifname(const RowInput& in) {
  const EnvEntry& e = *in.present.front();
  const std::string& to = in.row.to.front();
  const std::string to_ip = in.row.to.size() > 1 ? in.row.to[1] : "";
  const bool hccl = to.rfind("HCCL_", 0) == 0;
  Selection sel = read_selection(in.rules.source(e.name), e, in.ctx.platform);
  std::string first_note =
      hccl ? "; HCCL uses only the first matching NIC, so it is named exactly" : "";
  if (in.ctx.param) {
    const ParamPlane& p = *in.ctx.param;
    if (p.plane.empty())
      return needs_review(p.unresolved,
                          "Add a plane of type parameter to the profile, or pass --plane NAME.");
    std::string plane = "parameter plane " + p.plane;
    if (sel.ip) {
      if (p.contains_ip && p.contains_ip(e.value) && !p.nic_exact.empty())
        return converted({{to, "=" + p.nic_exact}},
                         e.value + " is on the " + plane + ", whose NIC is " + p.nic_exact);
      return needs_review(e.value + " is not an address of the " + plane + " with one fixed NIC" +
                              (p.unresolved.empty() ? "" : " (" + p.unresolved + ")"),
                          "Set " + to + "==<the parameter-plane NIC> by hand.");
    }
    if (!p.nic_exact.empty()) {
      std::string d = "the profile's " + plane + " uses " + p.nic_exact + first_note;
      if (!sel.has_cidr && !ifname_selects(sel.spec, p.nic_exact))
        d += "; note that " + e.name + "=" + e.value + " did not select " + p.nic_exact +
             ": the old setting pointed at another network";
      std::string v = "=" + p.nic_exact;
      return converted({{to, v}}, d, v == e.value ? Outcome::kTranslated : Outcome::kConverted);
    }
    if (!to_ip.empty() && !p.node_ip.empty())
      return converted({{to_ip, p.node_ip}}, "this node's address on the " + plane + " (" + to_ip +
                                                 " outranks " + to +
                                                 "); the file is for this node only");
    if (!p.nic_prefix.empty())
      return converted({{to, p.nic_prefix}}, "the " + plane + " NICs are " + p.nic_prefix + "*" +
                                                 (hccl ? "; HCCL takes the first of them" : ""));
    return needs_review(
        "the " + plane + " has no single NIC name: " + p.unresolved,
        "Name the NIC in the profile (planes[].nic or nodes[].nics), or pass --node "
        "NAME with nodes[].addresses so " +
            (to_ip.empty() ? to : to_ip) + " can be set.");
  }
  // No profile: only selections that mean the same on both sides carry over.
  if (!sel.ip && !sel.has_cidr && !sel.spec.exclude && sel.spec.exact &&
      sel.spec.items.size() == 1) {
    std::string v = "=" + sel.spec.items.front();
    return converted({{to, v}}, "one exact NIC name means the same to both libraries",
                     v == e.value ? Outcome::kTranslated : Outcome::kConverted);
  }
  if (!hccl && !sel.ip && !sel.has_cidr && sel.spec.exact && e.name.rfind("HCCL_", 0) != 0)
    return converted({{to, format_ifname_spec(sel.spec)}},
                     "exact names keep their meaning; NCCL uses every listed NIC");
  return needs_review("without a cluster profile the parameter-plane NIC is unknown, and " +
                          e.name + "=" + e.value +
                          (hccl ? " may match several NICs where HCCL uses only the first"
                                : " does not carry over to NCCL's grammar unchanged"),
                      "Pass --profile CLUSTER.yaml (its parameter plane names the NIC), or set " +
                          to + "==<parameter-plane NIC> by hand.");
}

RowResult convert_socket_retry(const RowInput& in) {
  const std::string& to = in.row.to.front();
  const VarSpec* dst = in.rules.target(to);
  if (!dst) throw std::logic_error("rules: no target row for " + to);
  // convert_row already sent values outside NCCL's own range (>= 1) to review.
  SourceValue n = source_int(in, in.row.from.at(0)), s = source_int(in, in.row.from.at(1));
  // Integer milliseconds: 1400 ms x 210 must be exactly 294 s, not 294.00000000000006.
  long long retries = std::max(0LL, n.number);
  long long total_ms = std::max(0LL, s.number) * retries * (retries + 1) / 2;
  double total_s = static_cast<double>(total_ms) / 1000;
  long long want = (total_ms + 999) / 1000 - 20;
  FitResult f = fit_number(*dst, want, false, in.ctx.platform);
  std::string budget = "NCCL retries a failed connect " + std::to_string(n.number) +
                       " times with a linear back-off of " + std::to_string(s.number) + " ms, " +
                       format_seconds(total_s) + " in all; HCCL waits " + to + " + 20 s";
  RowResult r = converted({{to, std::to_string(f.value)}}, "");
  r.range = range_text(effective_range(*dst, in.ctx.platform));
  if (f.status == FitResult::kClamped) {
    r.outcome = Outcome::kClamped;
    budget += ", and " + to + " must lie in " + r.range + ": " + to + "=" +
              std::to_string(f.value) + " waits " + std::to_string(f.value + 20) + " s";
    r.todo = "Check that a link-setup wait of " + std::to_string(f.value + 20) +
             " s is acceptable; HCCL cannot give up sooner.";
  } else {
    budget += ", so " + to + "=" + std::to_string(f.value) + " keeps the same budget";
  }
  r.detail = budget;
  return r;
}

RowResult convert_connect_timeout_retry(const RowInput& in) {
  const EnvEntry& e = *in.present.front();
  ParsedValue pv = parse_entry(in.rules.source(e.name), e, in.ctx.platform);
  const VarSpec* sleep_spec = in.rules.target(in.row.to.at(1));
  long long sleep_ms = sleep_spec ? parse_int(sleep_spec->default_value).value_or(100) : 100;
  double budget_s = static_cast<double>(*pv.number) + 20;
  long long n = 1;
  while (sleep_ms * 1e-3 * n * (n + 1) / 2.0 < budget_s) ++n;
  RowResult r =
      converted({{in.row.to.at(0), std::to_string(n)}, {in.row.to.at(1), std::to_string(sleep_ms)}},
                "HCCL waits " + e.value + " + 20 s = " + format_seconds(budget_s) +
                    "; NCCL (2.24+) retries with a linear back-off, and " + std::to_string(n) +
                    " retries of " + std::to_string(sleep_ms) + " ms cover " +
                    format_seconds(sleep_ms * 1e-3 * n * (n + 1) / 2.0));
  return r;
}

RowResult convert_port_min_range(const RowInput& in) {
  const std::string& to = in.row.to.front();
  const VarSpec* dst = in.rules.target(to);
  SourceValue lo = source_int(in, in.row.from.at(0)), count = source_int(in, in.row.from.at(1));
  if (count.number < 1 || lo.number < 0 || lo.number > 65535)
    return needs_review("the port range starts at " + std::to_string(lo.number) + " with " +
                            std::to_string(count.number) + " ports, which is no range",
                        "Set " + to + " to the ports the firewall allows, e.g. 60000-60031.");
  long long hi = std::min(65535LL, lo.number + count.number - 1);
  long long start = lo.number;
  RowResult r = converted({}, "Open MPI's TCP ports " + std::to_string(lo.number) + " + " +
                                  std::to_string(count.number) + " become one HCCL range");
  if (dst && dst->min && start < *dst->min) {
    if (hi < *dst->min)
      return needs_review(
          "every port of " + std::to_string(start) + "-" + std::to_string(hi) + " is below " +
              std::to_string(*dst->min) +
              (dst->range_note.empty() ? "" : " (" + dst->range_note + ")"),
          "Choose ports above 1023 and outside ip_local_port_range for " + to + ".");
    start = *dst->min;
    r.outcome = Outcome::kClamped;
    r.detail += "; ports below " + std::to_string(*dst->min) + " are left out" +
                (dst->range_note.empty() ? "" : " (" + dst->range_note + ")");
    r.todo =
        "Check that the firewall opens " + std::to_string(start) + "-" + std::to_string(hi) + ".";
  }
  r.outputs = {{to, std::to_string(start) + "-" + std::to_string(hi)}};
  return r;
}

RowResult convert_pfc(const RowInput& in) {
  const EnvEntry& e = *in.present.front();
  const std::string& to = in.row.to.front();
  parse_entry(in.rules.source(e.name), e, in.ctx.platform);
  if (!in.ctx.pfc_priority)
    return needs_review(to +
                            " must equal the PFC priority of the RoCE NICs (defaults: NCCL 0, "
                            "HCCL 4); " +
                            e.name + "=" + e.value + " was chosen for the old fabric",
                        "Set comm.pfc_priority in the cluster profile and pass --profile, or set " +
                            to + " to the NICs' PFC priority by hand.");
  std::string v = std::to_string(*in.ctx.pfc_priority);
  return converted(
      {{to, v}},
      to + " must equal the RoCE NICs' PFC priority, " + v + " in the profile" +
          (v == e.value ? "" : " (" + e.name + "=" + e.value + " served the old fabric)"),
      v == e.value ? Outcome::kTranslated : Outcome::kConverted);
}

RowResult convert_nccl_algo(const RowInput& in) {
  const EnvEntry& e = *in.present.front();
  parse_entry(in.rules.source(e.name), e, in.ctx.platform);
  AlgoConversion c = nccl_algo_to_hccl(parse_nccl_algo(e.value));
  const std::string& to = in.row.to.front();
  std::string unmapped = join(c.unmapped, ";");
  if (c.unmapped.empty()) return converted({{to, c.value}}, in.row.why);
  if (c.value.empty())
    return dropped(unmapped + " has no " + to +
                   " counterpart (only ring exists on both sides); "
                   "left unset, HCCL chooses its algorithm itself");
  return needs_review(
      "only part of it maps: " + to + "=" + c.value + "; no counterpart for " + unmapped,
      "Set " + to + "=" + c.value +
          " only if ring is really wanted for those ops; "
          "otherwise leave " +
          to + " unset so HCCL chooses.");
}

RowResult convert_hccl_algo(const RowInput& in) {
  const EnvEntry& e = *in.present.front();
  parse_entry(in.rules.source(e.name), e, in.ctx.platform);
  AlgoConversion c = hccl_algo_to_nccl(parse_hccl_algo(e.value));
  const std::string& to = in.row.to.front();
  std::string unmapped = join(c.unmapped, "/");
  if (c.unmapped.empty()) return converted({{to, c.value}}, in.row.why);
  if (c.value.empty())
    return dropped(unmapped + " has no " + to + " counterpart; left unset, NCCL chooses itself");
  return needs_review(
      "only part of it maps: " + to + "=" + c.value + "; no counterpart for " + unmapped,
      "Set " + to + "=" + c.value + " only if ring is really wanted; otherwise leave it unset.");
}

RowResult convert_debug_subsys(const RowInput& in) {
  const EnvEntry& e = *in.present.front();
  ParsedValue pv = parse_entry(in.rules.source(e.name), e, in.ctx.platform);
  bool exclude = !pv.text.empty() && pv.text[0] == '^';
  auto tokens = split(exclude ? pv.text.substr(1) : pv.text, ',');
  bool coll = false, all = false;
  for (const auto& t : tokens) {
    coll = coll || t == "COLL";
    all = all || t == "ALL";
  }
  bool logs_calls = exclude ? !(coll || all) : (coll || all);
  if (!logs_calls)
    return dropped("CANN has no per-subsystem filter for " + pv.text +
                   "; ASCEND_GLOBAL_LOG_LEVEL sets the level for everything");
  return converted({{in.row.to.front(), "1"}}, in.row.why);
}

RowResult convert_ccl_mnic(const RowInput& in) {
  const EnvEntry& e = *in.present.front();
  parse_entry(in.rules.source(e.name), e, in.ctx.platform);
  std::vector<std::string> pos, neg;
  for (const auto& item : split(e.value, ','))
    (item[0] == '^' ? neg : pos).push_back(item[0] == '^' ? item.substr(1) : item);
  const std::string& to = in.row.to.front();
  if (!pos.empty() && !neg.empty())
    return needs_review(
        "oneCCL's '^' is per item, " + to + "'s applies to the whole list; " + e.value +
            " mixes both",
        "Set " + to + " to either the NICs to use or (with one leading ^) the ones to avoid.");
  std::string v = neg.empty() ? join(pos, ",") : "^" + join(neg, ",");
  return converted({{to, v}}, in.row.why);
}

}  // namespace hn::compat::translate::detail
