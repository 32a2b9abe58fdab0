#include "probes/cluster/slow_links.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "reports/catalog.h"

namespace hn::probes::cluster {

using reports::Finding;
using reports::make_finding;
using reports::Status;

namespace {

std::string gbps(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v < 0.1 ? "%.4f" : "%.3f", v);
  return b;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

std::string percent(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v * 100);
  return b;
}

std::string list(const std::vector<int>& hosts, const std::vector<std::string>& names) {
  std::string s;
  for (int h : hosts) s += (s.empty() ? "" : ", ") + names.at(static_cast<std::size_t>(h));
  return s;
}

std::string link_name(const HostLink& l, const std::vector<std::string>& names) {
  return names.at(static_cast<std::size_t>(l.first)) + " -> " +
         names.at(static_cast<std::size_t>(l.second));
}

std::string figures(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : " ") + gbps(x);
  return s;
}

std::string second_look(const SuspectVerdict& v) {
  if (!v.measured)
    return "it could not be measured again (a link failed or the deadline came), and one look "
           "is not a verdict";
  std::string s = "measured again " + std::to_string(v.samples.size()) +
                  " times beside links under no suspicion, it came closest at " + gbps(v.again) +
                  " GB/s against " + gbps(v.again_reference) + " GB/s (" +
                  num(v.again_reference > 0 ? v.again / v.again_reference : 0) + " of it)";
  // A confirmed suspect that came close once: say why one round did not clear it.
  if (v.confirmed && v.matched > 0)
    s += ", but reached the fraction in only " + std::to_string(v.matched) + " of " +
         std::to_string(v.samples.size()) + " rounds (" + std::to_string(kRoundsToClear) +
         " clear it)";
  return s;
}

// The second look's figures, in the order measured, as evidence.
Finding with_samples(Finding f, const SuspectVerdict& v, const std::string& prefix = "") {
  if (!v.samples.empty()) f.evidence[prefix + "again_gbps"] = figures(v.samples);
  if (!v.reference_samples.empty())
    f.evidence[prefix + "beside_gbps"] = figures(v.reference_samples);
  return f;
}

struct Described {
  std::string entity, what, against, suspect;
  std::string host;  // Finding::host
};

Described describe(const Suspect& x, const LinkScreen& s, const std::vector<std::string>& names,
                   bool both) {
  Described d;
  auto name = [&](int h) { return names.at(static_cast<std::size_t>(h)); };
  switch (x.kind) {
    case SuspectKind::kSend:
    case SuspectKind::kReceive:
      d.entity = d.suspect = d.host = name(x.host);
      d.what = name(x.host) +
               (both                           ? " sends and receives slowly"
                : x.kind == SuspectKind::kSend ? " sends slowly"
                                               : " receives slowly") +
               (both                           ? " (its best links out and in)"
                : x.kind == SuspectKind::kSend ? " (its best link to another host)"
                                               : " (its best link from another host)");
      d.against = "the plane's healthy level";
      break;
    case SuspectKind::kPair: {
      d.entity = link_name(x.link, names);
      d.suspect = name(x.link.first) + " and " + name(x.link.second) + " and the path between them";
      d.host = name(x.link.first);
      const bool two = s.hosts == 2;
      const bool ends = x.expected < s.reference * 0.999;
      d.what = "link " + d.entity + " is slow" +
               (two    ? " (with two hosts the slow end cannot be told)"
                : ends ? " (both ends are fast with other hosts)"
                       : "");
      d.against = ends ? "what its ends reach with other hosts" : "the plane's healthy level";
      break;
    }
    case SuspectKind::kGroup:
      d.entity = list(x.group, names);
      d.suspect = "what hosts " + d.entity + " share (a switch, its uplink, a rail)";
      d.host = name(x.group.front());
      d.what = "the links between hosts " + d.entity + " and the other " +
               std::to_string(x.rest.size()) + " host(s) (" + list(x.rest, names) +
               ") are slow, while the group's own links are fast";
      d.against = "the plane's healthy level";
      break;
    case SuspectKind::kPlane:
      break;
  }
  return d;
}

Finding slow_finding(const std::string& plane, const Described& d, Status st, double value,
                     double expected, const std::string& second, const std::string& direction) {
  Finding f = make_finding("COMM-LINK-SLOW", st,
                           (d.entity.empty() ? "" : d.entity + " ") + "plane " + plane,
                           {{"plane", plane},
                            {"what", d.what},
                            {"value", gbps(value)},
                            {"against", d.against},
                            {"expected", gbps(expected)},
                            {"ratio", num(expected > 0 ? value / expected : 0)},
                            {"second", second},
                            {"suspect", d.suspect},
                            {"direction", direction}});
  f.host = d.host;
  f.metrics["bandwidth"] = {value, "GB/s"};
  f.metrics["expected"] = {expected, "GB/s"};
  return f;
}

}  // namespace

double line_floor(const LineRate& line) {
  if (!(line.gbps > 0) || !(line.fraction > 0)) return 0;
  return line.fraction * std::min(line.gbps, kLineCapGbps);
}

SlowLinkResult judge_links(const std::string& plane, const std::vector<std::string>& names,
                           const LinkScreen& s, const std::vector<SuspectVerdict>& verdicts,
                           const LineRate& line, int repeats, const std::string& phase) {
  SlowLinkResult out;
  std::set<int> hosts_seen;
  for (const auto& [l, v] : s.best) {
    hosts_seen.insert(l.first);
    hosts_seen.insert(l.second);
    reports::Measurement m;
    m.name = "link.bandwidth";
    m.labels = {{"plane", plane},
                {"from", names.at(static_cast<std::size_t>(l.first))},
                {"to", names.at(static_cast<std::size_t>(l.second))}};
    m.value = v;
    m.unit = "GB/s";
    m.better = reports::Better::kHigher;
    m.phase = phase;
    out.metrics.push_back(m);
  }
  if (s.best.size() < 2) {
    const std::string why = s.best.empty()
                                ? "no link between two hosts was measured on plane " + plane +
                                      " (every rank is on one host, or the links failed)"
                                : "only one directed link between hosts was measured on plane " +
                                      plane + "; there is nothing to compare it with";
    out.findings.push_back(
        make_finding("COMM-LINK-SLOW", Status::kSkip, "plane " + plane, {{"reason", why}}));
    out.findings.push_back(
        make_finding("COMM-LINK-LINE-RATE", Status::kSkip, "plane " + plane, {{"reason", why}}));
    return out;
  }
  {
    reports::Measurement m;
    m.name = "link.reference";
    m.labels = {{"plane", plane}};
    m.value = s.reference;
    m.unit = "GB/s";
    m.better = reports::Better::kHigher;
    m.phase = phase;
    out.metrics.push_back(m);
  }

  std::vector<std::string> dismissed;
  auto dismiss = [&](const Described& d, const SuspectVerdict& v) {
    dismissed.push_back(d.entity + ": " + num(v.suspect.value / v.suspect.expected) + " of " +
                        d.against + " at first, " + second_look(v));
  };
  // Hosts first, a host's two directions as one finding.
  std::map<int, std::pair<const SuspectVerdict*, const SuspectVerdict*>> by_host;
  for (const auto& v : verdicts) {
    if (v.suspect.kind == SuspectKind::kSend) by_host[v.suspect.host].first = &v;
    if (v.suspect.kind == SuspectKind::kReceive) by_host[v.suspect.host].second = &v;
  }
  for (const auto& [h, pr] : by_host) {
    const auto* snd = pr.first;
    const auto* rcv = pr.second;
    const bool cs = snd && snd->confirmed, cr = rcv && rcv->confirmed;
    if (cs && cr) {
      Described d = describe(snd->suspect, s, names, true);
      const SuspectVerdict& worse = snd->suspect.value <= rcv->suspect.value ? *snd : *rcv;
      out.findings.push_back(with_samples(
          with_samples(
              slow_finding(
                  plane, d, Status::kFail, worse.suspect.value, worse.suspect.expected,
                  "measured again " + std::to_string(snd->samples.size()) +
                      " times each way beside links under no suspicion, it came closest sending " +
                      gbps(snd->again) + " against " + gbps(snd->again_reference) +
                      " GB/s and receiving " + gbps(rcv->again) + " against " +
                      gbps(rcv->again_reference) + " GB/s",
                  "both"),
              *snd, "send_"),
          *rcv, "receive_"));
      continue;
    }
    for (const auto* v : {snd, rcv}) {
      if (!v) continue;
      Described d = describe(v->suspect, s, names, false);
      if (v->confirmed || !v->measured)
        out.findings.push_back(with_samples(
            slow_finding(plane, d, v->confirmed ? Status::kFail : Status::kWarn, v->suspect.value,
                         v->suspect.expected, second_look(*v), to_string(v->suspect.kind)),
            *v));
      else
        dismiss(d, *v);
    }
  }
  std::optional<SuspectVerdict> plane_verdict;
  for (const auto& v : verdicts) {
    const SuspectKind k = v.suspect.kind;
    if (k == SuspectKind::kSend || k == SuspectKind::kReceive) continue;
    if (k == SuspectKind::kPlane) {
      plane_verdict = v;
      continue;
    }
    Described d = describe(v.suspect, s, names, false);
    if (v.confirmed || !v.measured)
      out.findings.push_back(with_samples(
          slow_finding(plane, d, v.confirmed ? Status::kFail : Status::kWarn, v.suspect.value,
                       v.suspect.expected, second_look(v), to_string(k)),
          v));
    else
      dismiss(d, v);
  }
  // Beyond the re-measurement budget (the mildest suspects, since the
  // budget goes to the worst first): those below the fraction itself are one
  // WARN, one look not being a verdict; those only the screening's wider net
  // caught are a note.
  std::vector<const Suspect*> unmeasured;
  int mild = 0;
  for (const auto& x : s.unconfirmable) {
    if (x.kind == SuspectKind::kPlane) continue;
    if (x.value < s.fraction * x.expected)
      unmeasured.push_back(&x);
    else
      ++mild;
  }
  if (!unmeasured.empty()) {
    std::string which;
    for (const auto* x : unmeasured) {
      Described d = describe(*x, s, names, false);
      which += (which.empty() ? "" : ", ") + d.entity + " (" + num(x->value / x->expected) + ")";
    }
    const Suspect& worst = *unmeasured.front();
    Described d;
    d.entity = "";
    d.suspect = "the links listed";
    d.what = std::to_string(unmeasured.size()) + " suspect(s) left unmeasured: " + which;
    d.against = "the worst against its reference,";
    out.findings.push_back(
        slow_finding(plane, d, Status::kWarn, worst.value, worst.expected,
                     "not measured again: more suspects than the re-measurement budget of " +
                         std::to_string(s.budget) + " links, and one look is not a verdict",
                     "unmeasured"));
  }

  bool any_slow = false;
  for (const auto& f : out.findings) any_slow = any_slow || f.code == "COMM-LINK-SLOW";
  std::string dismissed_text;
  for (const auto& t : dismissed) dismissed_text += (dismissed_text.empty() ? "" : "; ") + t;
  if (!any_slow) {
    Finding f =
        make_finding("COMM-LINK-SLOW", Status::kPass, "plane " + plane,
                     {{"plane", plane},
                      {"links", std::to_string(s.best.size())},
                      {"hosts", std::to_string(hosts_seen.size())},
                      {"fraction", num(s.fraction)},
                      {"reference", gbps(s.reference)},
                      {"dismissed_text",
                       dismissed.empty() ? ""
                                         : "; " + std::to_string(dismissed.size()) +
                                               " first-look dip(s) were fast when measured again " +
                                               std::to_string(repeats) + " times"}});
    f.metrics["reference"] = {s.reference, "GB/s"};
    if (!dismissed.empty()) f.evidence["dismissed"] = dismissed_text;
    if (mild > 0)
      f.evidence["not_measured_again"] =
          std::to_string(mild) +
          " first-look suspect(s) between the fraction and the screening's wider net, beyond "
          "the re-measurement budget";
    out.findings.push_back(std::move(f));
  } else if (!dismissed.empty()) {
    for (auto& f : out.findings)
      if (f.code == "COMM-LINK-SLOW") f.evidence["dismissed"] = dismissed_text;
  }

  // The absolute reference.
  const double floor = line_floor(line);
  if (floor <= 0) {
    out.findings.push_back(make_finding(
        "COMM-LINK-LINE-RATE", Status::kSkip, "plane " + plane,
        {{"reason", line.gbps > 0 ? "the profile sets link_line_fraction 0 for plane " + plane
                                  : "the line rate of plane " + plane +
                                        "'s NICs is not known (no live link speed, no "
                                        "speed_mbps in the profile)"}}));
    return out;
  }
  const bool failed = plane_verdict && plane_verdict->confirmed;
  const bool unsure = plane_verdict && !plane_verdict->measured;
  const double level = failed ? std::max(plane_verdict->again, s.reference) : s.reference;
  Finding f = make_finding(
      "COMM-LINK-LINE-RATE",
      failed   ? Status::kFail
      : unsure ? Status::kWarn
               : Status::kPass,
      "plane " + plane,
      {{"plane", plane},
       {"reference", gbps(level)},
       {"percent", percent(line.gbps > 0 ? level / std::min(line.gbps, kLineCapGbps) : 0)},
       {"line", num(line.gbps * 8) + " Gbit/s"},
       {"line_source",
        line.source + (line.gbps > kLineCapGbps ? ", counted up to 100 Gbit/s" : "")},
       {"floor_percent", percent(line.fraction)},
       {"second",
        !plane_verdict ? "no second look was needed"
        : unsure       ? "it could not be measured again, and one look is not a verdict"
                 : "the best link measured again ran at " + gbps(plane_verdict->again) + " GB/s"}});
  f.metrics["reference"] = {level, "GB/s"};
  f.metrics["floor"] = {floor, "GB/s"};
  out.findings.push_back(std::move(f));
  return out;
}

}  // namespace hn::probes::cluster
