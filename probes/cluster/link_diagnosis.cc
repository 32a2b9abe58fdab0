#include "probes/cluster/link_diagnosis.h"

#include <algorithm>
#include <functional>
#include <set>

namespace hn::probes::cluster {

const char* to_string(SuspectKind k) {
  switch (k) {
    case SuspectKind::kSend:
      return "send";
    case SuspectKind::kReceive:
      return "receive";
    case SuspectKind::kPair:
      return "pair";
    case SuspectKind::kGroup:
      return "group";
    case SuspectKind::kPlane:
      return "plane";
  }
  return "?";
}

namespace {

std::size_t at(int i) {
  return static_cast<std::size_t>(i);
}

// Upper quartile (nearest rank below): the healthy level while fewer than
// about a quarter of the values (5/8 of the hosts' pairs of values) are low.
double upper_quartile(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) * 3 / 4];
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

LinkScreen screen_links(int hosts, const std::vector<LinkSample>& samples, double fraction,
                        double line_floor_gbps, std::size_t max_confirm_links) {
  LinkScreen s;
  s.hosts = hosts;
  s.fraction = fraction;
  s.line_floor = line_floor_gbps;
  s.budget = max_confirm_links;
  s.send.assign(at(hosts), 0);
  s.receive.assign(at(hosts), 0);
  for (const auto& m : samples) {
    if (m.from == m.to || m.from < 0 || m.to < 0 || m.from >= hosts || m.to >= hosts ||
        !(m.gbps > 0))
      continue;
    double& b = s.best[{m.from, m.to}];
    b = std::max(b, m.gbps);
  }
  if (s.best.empty()) return s;
  // Each host's links out and in (peer, figure): every step below walks
  // these, so the whole screening is O(links), O(n log n) for the pattern.
  std::vector<std::vector<std::pair<int, double>>> outs(at(hosts)), ins(at(hosts));
  for (const auto& [l, v] : s.best) {
    s.send[at(l.first)] = std::max(s.send[at(l.first)], v);
    s.receive[at(l.second)] = std::max(s.receive[at(l.second)], v);
    outs[at(l.first)].emplace_back(l.second, v);
    ins[at(l.second)].emplace_back(l.first, v);
  }
  std::vector<double> capacities;
  for (int h = 0; h < hosts; ++h) {
    if (s.send[at(h)] > 0) capacities.push_back(s.send[at(h)]);
    if (s.receive[at(h)] > 0) capacities.push_back(s.receive[at(h)]);
  }
  s.reference = upper_quartile(capacities);
  // Screening is a sieve: it casts its net a little wider than the verdict
  // (the second look decides), because concurrent pairs share what the
  // reference shares too (on 8 namespace hosts over 2 CPUs the healthy
  // level fell from 0.048 to 0.043 GB/s while a host capped at 0.030 was
  // 0.70 of it on screening and 0.62 of the reference measured alone).
  const double sieve = std::min(1.0, fraction + kSieveMargin);
  const double limit = sieve * s.reference;
  const double witness = fraction * s.reference;  // a peer that shows it is not the cause

  // Host suspects: every link one way is slow, and a peer at the other end
  // shows it can do better with someone else.
  std::vector<char> slow_send(at(hosts), 0), slow_receive(at(hosts), 0);
  for (int h = 0; h < hosts; ++h) {
    bool out_witness = false, in_witness = false;
    for (const auto& [peer, v] : outs[at(h)]) out_witness |= s.receive[at(peer)] >= witness;
    for (const auto& [peer, v] : ins[at(h)]) in_witness |= s.send[at(peer)] >= witness;
    slow_send[at(h)] = s.send[at(h)] > 0 && s.send[at(h)] < limit && out_witness;
    slow_receive[at(h)] = s.receive[at(h)] > 0 && s.receive[at(h)] < limit && in_witness;
  }
  auto suspect_host = [&](int h) { return slow_send[at(h)] || slow_receive[at(h)]; };

  std::vector<Suspect> found;
  // A host's confirm partner: its peer the other way with the best
  // capacity, preferring hosts under no suspicion.
  auto partner = [&](int h, bool sending) {
    int best = -1;
    double best_v = -1;
    bool best_clean = false;
    for (const auto& [other, v] : (sending ? outs : ins)[at(h)]) {
      const double cap = sending ? s.receive[at(other)] : s.send[at(other)];
      const bool clean = !suspect_host(other);
      if (std::make_pair(clean, cap) > std::make_pair(best_clean, best_v)) {
        best = other;
        best_v = cap;
        best_clean = clean;
      }
    }
    return best;
  };
  for (int h = 0; h < hosts; ++h)
    for (bool sending : {true, false}) {
      if (!(sending ? slow_send : slow_receive)[at(h)]) continue;
      Suspect x;
      x.kind = sending ? SuspectKind::kSend : SuspectKind::kReceive;
      x.host = h;
      x.value = sending ? s.send[at(h)] : s.receive[at(h)];
      x.expected = s.reference;
      const int p = partner(h, sending);
      x.confirm.push_back(sending ? HostLink{h, p} : HostLink{p, h});
      found.push_back(std::move(x));
    }

  // Pair suspects: slower than both ends can do, neither end a suspect host
  // (a link touching one is its echo: TCP's acknowledgements cross that
  // host's NIC the other way).
  // What its ends do with other hosts: the best of the sender's other
  // outgoing and of the receiver's other incoming links (a median would be
  // the slow links' own for a host behind a slow uplink, most of whose
  // links cross it). Against a best, the link must fall below the fraction
  // itself, not the sieve: a lucky round sets the bar. With two hosts the
  // ends have no other link, and the reference is what it falls short of.
  std::set<HostLink> slow_pairs;
  std::map<HostLink, double> pair_expected;
  for (const auto& [l, v] : s.best) {
    // A suspect end explains the link when the link is about as fast as
    // that end can go (in either direction: TCP's acknowledgements cross
    // the end's NIC the other way); a link far slower than even its slow
    // end is a fault of its own.
    double end_cap = 0;
    for (int h : {l.first, l.second})
      if (suspect_host(h)) {
        const double cap = std::min(slow_send[at(h)] ? s.send[at(h)] : s.reference,
                                    slow_receive[at(h)] ? s.receive[at(h)] : s.reference);
        end_cap = end_cap > 0 ? std::min(end_cap, cap) : cap;
      }
    if (end_cap > 0 && v >= sieve * end_cap) continue;
    double out_best = 0, in_best = 0;
    for (const auto& [peer, w] : outs[at(l.first)])
      if (peer != l.second) out_best = std::max(out_best, w);
    for (const auto& [peer, w] : ins[at(l.second)])
      if (peer != l.first) in_best = std::max(in_best, w);
    double expected = 0;
    if (out_best > 0 && in_best > 0) {
      const double ends = std::min(out_best, in_best);
      if (v < fraction * ends) expected = ends;
    } else if (v < limit) {
      expected = s.reference;
    }
    if (expected <= 0) continue;
    pair_expected[l] = expected;
    slow_pairs.insert(l);
  }

  // Groups: split the hosts under no suspicion by the links that are fast
  // both ways; a part whose every measured link to the others is slow is a
  // group behind something they share.
  std::vector<int> comp(at(hosts), -1);
  std::vector<std::vector<int>> comps;
  for (int h = 0; h < hosts; ++h) {
    if (comp[at(h)] >= 0 || suspect_host(h) || (s.send[at(h)] == 0 && s.receive[at(h)] == 0))
      continue;
    comps.emplace_back();
    std::vector<int> stack = {h};
    comp[at(h)] = static_cast<int>(comps.size()) - 1;
    while (!stack.empty()) {
      int a = stack.back();
      stack.pop_back();
      comps.back().push_back(a);
      for (const auto* side : {&outs[at(a)], &ins[at(a)]})
        for (const auto& [b, v] : *side) {
          if (comp[at(b)] >= 0 || suspect_host(b)) continue;
          if (slow_pairs.count({a, b}) || slow_pairs.count({b, a})) continue;
          comp[at(b)] = comp[at(h)];
          stack.push_back(b);
        }
    }
  }
  if (comps.size() > 1) {
    std::size_t largest = 0;
    for (std::size_t i = 1; i < comps.size(); ++i)
      if (comps[i].size() > comps[largest].size()) largest = i;
    for (std::size_t i = 0; i < comps.size(); ++i) {
      if (i == largest || comps[i].size() < 2) continue;
      std::vector<int> group = comps[i];
      std::sort(group.begin(), group.end());
      std::set<int> in(group.begin(), group.end());
      std::vector<double> cross;
      std::vector<HostLink> cross_links;
      bool all_slow = true;
      for (const auto& [l, v] : s.best) {
        const bool a = in.count(l.first) > 0, b = in.count(l.second) > 0;
        if (a == b || suspect_host(l.first) || suspect_host(l.second)) continue;
        if (!slow_pairs.count(l) && !slow_pairs.count({l.second, l.first})) all_slow = false;
        if (slow_pairs.count(l)) {
          cross.push_back(v);
          cross_links.push_back(l);
        }
      }
      if (!all_slow || cross.empty()) continue;
      Suspect x;
      x.kind = SuspectKind::kGroup;
      x.group = group;
      for (int h = 0; h < hosts; ++h)
        if (!in.count(h) && !suspect_host(h) && comp[at(h)] >= 0) x.rest.push_back(h);
      x.value = median(cross);
      x.expected = s.reference;
      // Two links across the split, the slowest first, one each way when
      // the split is slow both ways.
      std::sort(cross_links.begin(), cross_links.end(),
                [&](const HostLink& p, const HostLink& q) { return s.best.at(p) < s.best.at(q); });
      x.confirm.push_back(cross_links.front());
      for (const auto& l : cross_links)
        if (in.count(l.first) != in.count(cross_links.front().first)) {
          x.confirm.push_back(l);
          break;
        }
      for (const auto& l : cross_links) slow_pairs.erase(l);
      found.push_back(std::move(x));
    }
  }
  for (const auto& l : slow_pairs) {
    Suspect x;
    x.kind = SuspectKind::kPair;
    x.link = l;
    x.value = s.best.at(l);
    x.expected = pair_expected.at(l);
    x.confirm.push_back(l);
    found.push_back(std::move(x));
  }

  // The reference links: links that passed the screening (however their
  // ends fared in the other direction: a host that only sends slowly still
  // receives at full speed), fastest first; failing those (2 hosts), the
  // fastest that is not itself to be confirmed.
  std::set<HostLink> confirming;
  for (const auto& x : found) confirming.insert(x.confirm.begin(), x.confirm.end());
  for (int pass = 0; pass < 2 && s.reference_links.empty(); ++pass)
    for (const auto& [l, v] : s.best) {
      const bool healthy = v >= limit && !slow_send[at(l.first)] && !slow_receive[at(l.second)];
      if (!confirming.count(l) && (pass == 1 || healthy)) s.reference_links.push_back(l);
    }
  std::stable_sort(
      s.reference_links.begin(), s.reference_links.end(),
      [&](const HostLink& a, const HostLink& b) { return s.best.at(a) > s.best.at(b); });

  if (line_floor_gbps > 0 && s.reference < line_floor_gbps && !s.reference_links.empty()) {
    Suspect x;
    x.kind = SuspectKind::kPlane;
    x.value = s.reference;
    x.expected = line_floor_gbps;
    found.push_back(std::move(x));
  }

  // Most severe first; beyond the link budget, not measured again.
  std::stable_sort(found.begin(), found.end(), [](const Suspect& a, const Suspect& b) {
    return a.value / std::max(a.expected, 1e-12) < b.value / std::max(b.expected, 1e-12);
  });
  std::size_t links = 0;
  for (auto& x : found) {
    if (links + x.confirm.size() > max_confirm_links || s.reference_links.empty()) {
      s.unconfirmable.push_back(std::move(x));
      continue;
    }
    links += x.confirm.size();
    s.suspects.push_back(std::move(x));
  }
  return s;
}

std::vector<std::vector<HostLink>> confirm_rounds(const LinkScreen& screen, int repeats,
                                                  const std::vector<std::size_t>& which) {
  std::vector<std::vector<HostLink>> out;
  if (screen.suspects.empty() || screen.reference_links.empty()) return out;
  std::vector<HostLink> links;
  bool any = false;
  for (std::size_t i = 0; i < screen.suspects.size(); ++i) {
    if (!which.empty() && std::find(which.begin(), which.end(), i) == which.end()) continue;
    any = true;
    for (const auto& l : screen.suspects[i].confirm)
      if (std::find(links.begin(), links.end(), l) == links.end()) links.push_back(l);
  }
  if (!any) return out;
  auto shares = [](const HostLink& a, const HostLink& b) {
    return a.first == b.first || a.first == b.second || a.second == b.first || a.second == b.second;
  };
  auto fits = [&](const std::vector<HostLink>& r, const HostLink& l) {
    return std::none_of(r.begin(), r.end(), [&](const HostLink& m) { return shares(m, l); });
  };
  // Greedy packing: a host once per round (its NIC carries one stream, and
  // its counters belong to one link); then each round's reference.
  std::vector<std::vector<HostLink>> batches;
  for (const auto& l : links) {
    auto it = std::find_if(batches.begin(), batches.end(), [&](const std::vector<HostLink>& r) {
      return r.size() < kMaxBeside && fits(r, l);
    });
    if (it == batches.end())
      batches.push_back({l});
    else
      it->push_back(l);
  }
  // A batch no reference fits (2 or 3 hosts, or suspects on every host):
  // each of its links alone, then a reference alone, so both run under the
  // same conditions (on one machine, a lone stream is several times faster
  // than one of four).
  std::vector<std::vector<HostLink>> plan;
  for (auto& b : batches) {
    auto ref = std::find_if(screen.reference_links.begin(), screen.reference_links.end(),
                            [&](const HostLink& r) { return fits(b, r); });
    if (ref != screen.reference_links.end()) {
      b.push_back(*ref);
      plan.push_back(b);
      continue;
    }
    for (const auto& l : b) {
      auto lone = std::find_if(screen.reference_links.begin(), screen.reference_links.end(),
                               [&](const HostLink& r) { return !shares(r, l); });
      if (lone != screen.reference_links.end()) {
        plan.push_back({l, *lone});
      } else {
        plan.push_back({l});
        plan.push_back({screen.reference_links.front()});
      }
    }
  }
  // Only the plane itself is in question: the reference alone.
  if (plan.empty()) plan.push_back({screen.reference_links.front()});
  for (int r = 0; r < repeats; ++r) out.insert(out.end(), plan.begin(), plan.end());
  return out;
}

namespace {

// A suspect's figures again, each paired with the reference measured beside
// it: in the same round, else in the round right after (its own).
struct Matched {
  std::vector<double> mine, reference;  // paired, same length
  bool all_links = true;
};

Matched match(const LinkScreen& screen, const Suspect& x, const std::vector<LinkSample>& again) {
  Matched m;
  std::map<int, double> ref_by_round;
  const auto& refs = screen.reference_links;
  for (const auto& a : again)
    if (a.gbps > 0 && std::find(refs.begin(), refs.end(), HostLink{a.from, a.to}) != refs.end())
      ref_by_round[a.round] = a.gbps;
  for (const auto& l : x.confirm) {
    bool seen = false;
    for (const auto& a : again) {
      if (!(a.gbps > 0) || HostLink{a.from, a.to} != l) continue;
      for (int r : {a.round, a.round + 1})
        if (auto it = ref_by_round.find(r); it != ref_by_round.end()) {
          m.mine.push_back(a.gbps);
          m.reference.push_back(it->second);
          seen = true;
          break;
        }
    }
    m.all_links = m.all_links && seen;
  }
  return m;
}

}  // namespace

std::vector<SuspectVerdict> judge_suspects(const LinkScreen& screen,
                                           const std::vector<LinkSample>& again) {
  double any = 0;
  bool reference_seen = false;
  std::vector<double> any_ref;
  for (const auto& m : again) {
    if (!(m.gbps > 0)) continue;
    any = std::max(any, m.gbps);
    if (std::find(screen.reference_links.begin(), screen.reference_links.end(),
                  HostLink{m.from, m.to}) != screen.reference_links.end()) {
      reference_seen = true;
      any_ref.push_back(m.gbps);
    }
  }
  std::vector<SuspectVerdict> out;
  for (const auto& x : screen.suspects) {
    SuspectVerdict v;
    v.suspect = x;
    if (x.kind == SuspectKind::kPlane) {
      v.measured = reference_seen;
      v.again_reference = any;
      v.again = any;
      v.reference_samples = any_ref;
      v.confirmed = v.measured && any < screen.line_floor;
      out.push_back(std::move(v));
      continue;
    }
    // The suspect's best showing against a reference under the same
    // conditions at the same moment: a link capped by a fault stays below in
    // every round, while a link that only met busy moments (or the slower
    // place on a shared machine) matches its reference at least once.
    Matched m = match(screen, x, again);
    v.samples = m.mine;
    v.reference_samples = m.reference;
    v.measured = m.all_links && !m.reference.empty();
    if (v.measured) {
      std::size_t best = 0;
      for (std::size_t i = 1; i < m.mine.size(); ++i)
        if (m.mine[i] * m.reference[best] > m.mine[best] * m.reference[i]) best = i;
      v.again = m.mine[best];
      v.again_reference = m.reference[best];
      for (std::size_t i = 0; i < m.mine.size(); ++i)
        v.matched += m.mine[i] >= screen.fraction * m.reference[i] ? 1 : 0;
      const int needed = std::min<int>(kRoundsToClear, static_cast<int>(m.mine.size()));
      v.confirmed = v.matched < needed;
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<std::size_t> still_suspect(const LinkScreen& screen,
                                       const std::vector<LinkSample>& again) {
  std::vector<std::size_t> out;
  const auto v = judge_suspects(screen, again);
  for (std::size_t i = 0; i < v.size(); ++i) {
    // Below half the fraction in every round so far: no busy moment on the
    // test machine ever held a healthy link that low against its
    // neighbour, so more rounds would not change the verdict.
    const bool conclusive = v[i].confirmed && v[i].suspect.kind != SuspectKind::kPlane &&
                            v[i].again < 0.5 * screen.fraction * v[i].again_reference;
    if ((v[i].confirmed && !conclusive) || !v[i].measured) out.push_back(i);
  }
  return out;
}

}  // namespace hn::probes::cluster
