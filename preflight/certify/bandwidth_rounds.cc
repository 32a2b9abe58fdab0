#include "preflight/certify/bandwidth_rounds.h"

#include <algorithm>
#include <functional>

#include "drivers/cluster/gather.h"
#include "drivers/cluster/link_mesh.h"
#include "drivers/cluster/link_pattern.h"
#include "preflight/certify/message.h"
#include "preflight/certify/plane_bind.h"
#include "probes/cluster/link_diagnosis.h"
#include "stack/l6_netplane/nic_counters.h"

namespace hn::preflight::certify {

namespace {

using nlohmann::json;
namespace netplane = stack::netplane;
namespace cluster = probes::cluster;

// Tags of the re-measurement rounds start here, so a host still screening
// can never take one for a screening round.
constexpr std::uint32_t kAgainTag = 1u << 20;

// Both ends of a round must be in it: a partner may still be in earlier
// rounds, at most this long each.
Deadline round_deadline(Deadline phase, milliseconds round, long long rounds_left) {
  const auto wait = (round + milliseconds(2000)) * std::max(1LL, rounds_left + 2);
  return std::min(phase, Clock::now() + std::chrono::duration_cast<Clock::duration>(wait));
}

json delta_json(const netplane::NicCounters& d) {
  json j = json::object();
  for (const auto& [nic, b] : d) j[nic] = {b.rx, b.tx};
  return j;
}

struct Rounds {
  drivers::cluster::LinkMesh* mesh = nullptr;
  netplane::NicCounterSource* counters = nullptr;
  milliseconds duration{200};
  json records = json::array();

  void run(int peer, std::uint32_t tag, bool send, const char* kind, int round, Deadline deadline) {
    netplane::NicCounters before, after;
    auto x = mesh->exchange(
        peer, tag, send, duration, deadline, [&] { before = counters->read(); },
        [&] { after = counters->read(); });
    json r = {{"kind", kind},           {"round", round},    {"peer", peer},    {"sent", x.sent},
              {"received", x.received}, {"gbps", x.rx_gbps}, {"error", x.error}};
    if (x.error.empty()) r["nics"] = delta_json(netplane::counter_delta(before, after));
    records.push_back(std::move(r));
  }
};

// Rank 0's host: gathers every host's figures through the store and plans
// the two stages of the second look (link_diagnosis.h).
class Planner {
 public:
  Planner(RankState& st, const std::string& plane, const json& args, Deadline deadline)
      : st_(st), plane_(plane), args_(args), deadline_(deadline) {}

  // Screening figures in, the first stage's rounds out.
  json first(const json& mine) {
    const int hosts = args_.at("hosts");
    std::vector<int> speeds(static_cast<std::size_t>(hosts), 0);
    auto samples = collect("screen", mine, &speeds);
    const auto line = plane_line_rate(speeds, args_.value("profile_speed_mbps", 0),
                                      args_.at("line_fraction").get<double>());
    screen_ = cluster::screen_links(hosts, samples, args_.at("fraction").get<double>(),
                                    cluster::line_floor(line));
    return to_json(cluster::confirm_rounds(screen_, args_.at("repeats_first").get<int>()));
  }

  std::size_t suspects() const { return screen_.suspects.size(); }

  // The first stage's figures in, the second stage's rounds (for the
  // suspects still slow) out.
  json second(const json& mine) {
    auto samples = collect("again1", mine, nullptr);
    const auto which = cluster::still_suspect(screen_, samples);
    if (which.empty()) return json::array();
    return to_json(cluster::confirm_rounds(screen_, args_.at("repeats_second").get<int>(), which));
  }

 private:
  std::vector<cluster::LinkSample> collect(const std::string& key, const json& mine,
                                           std::vector<int>* speeds) {
    const int hosts = args_.at("hosts");
    const auto leaders = args_.at("leaders").get<std::vector<int>>();
    std::vector<cluster::LinkSample> samples;
    auto take = [&](int h, const json& j) {
      if (speeds) (*speeds)[static_cast<std::size_t>(h)] = j.value("speed_mbps", 0);
      for (const auto& r : j.at("rates"))
        samples.push_back(
            {r.at(0).get<int>(), r.at(1).get<int>(), r.at(2).get<double>(), r.at(3).get<int>()});
    };
    take(0, mine);
    std::vector<int> others;
    for (int h = 1; h < hosts; ++h) others.push_back(h);
    drivers::cluster::gather(
        st_.store(), "bw/" + plane_ + "/" + key, others, deadline_,
        [&](int h) {
          return st_.control->dead().count(leaders.at(static_cast<std::size_t>(h))) > 0;
        },
        [&](int h, std::string&& v) { take(h, parse_message(v)); });
    return samples;
  }

  static json to_json(const std::vector<std::vector<cluster::HostLink>>& rounds) {
    json plan = json::array();
    for (const auto& round : rounds) {
      json r = json::array();
      for (const auto& [a, b] : round) r.push_back({a, b});
      plan.push_back(std::move(r));
    }
    return plan;
  }

  RankState& st_;
  std::string plane_;
  const json& args_;
  Deadline deadline_;
  cluster::LinkScreen screen_;
};

// The figures this host received in rounds of `kind`: [from, to, GB/s, round].
json received(const json& records, const std::string& kind, int me, int speed_mbps) {
  json mine = {{"speed_mbps", speed_mbps}, {"rates", json::array()}};
  for (const auto& rec : records)
    if (rec.at("kind") == kind && rec.at("error").get<std::string>().empty() &&
        rec.at("gbps").get<double>() > 0)
      mine["rates"].push_back({rec.at("peer"), me, rec.at("gbps"), rec.at("round")});
  return mine;
}

}  // namespace

probes::cluster::LineRate plane_line_rate(const std::vector<int>& speeds_mbps, int profile_mbps,
                                          double fraction) {
  probes::cluster::LineRate line;
  line.fraction = fraction;
  int slowest = 0;
  bool all = !speeds_mbps.empty();
  for (int s : speeds_mbps) {
    if (s <= 0) all = false;
    if (s > 0 && (slowest == 0 || s < slowest)) slowest = s;
  }
  if (all) {
    line.gbps = slowest / 8000.0;
    line.source = "live link speed of the slowest plane NIC, " + std::to_string(slowest) + " Mb/s";
  } else if (profile_mbps > 0) {
    line.gbps = profile_mbps / 8000.0;
    line.source = "the profile's speed_mbps " + std::to_string(profile_mbps) +
                  " (not every host reports its NIC's speed)";
  }
  return line;
}

json measure_plane_links(RankState& st, const std::string& plane, const json& args,
                         Deadline deadline) {
  const auto t0 = Clock::now();
  const int hosts = args.at("hosts");
  const int me = st.role.host;
  const milliseconds duration(args.at("link_test_ms").get<long long>());
  json out = {{"host", me},
              {"rounds", json::array()},
              {"failed", json::array()},
              {"seen_from", json::object()}};
  std::unique_ptr<drivers::cluster::LinkMesh> mesh;
  std::unique_ptr<netplane::NicCounterSource> counters;
  try {
    PlaneBinding b = plane_binding(st, plane);
    out["nic"] = b.bind.nic;
    out["nics"] = b.nics;
    out["address"] = b.bind.address;
    out["speed_mbps"] = b.speed_mbps;
    out["error"] = b.bind.error;
    drivers::cluster::MeshSetup s;
    s.rank = me;
    s.world = hosts;
    s.store = &st.store();
    s.prefix = "bw/" + plane;
    s.creds = st.base.creds;
    s.params.connect_timeout = milliseconds(args.at("budget_ms").get<long long>());
    s.params.budget_source = "--link-timeout";
    s.params.plane = plane;
    s.bind = b.bind;
    s.bind_device = false;
    s.deadline = deadline;
    mesh = drivers::cluster::LinkMesh::build(s);
    for (const auto& o : mesh->outcomes())
      if (o.status != "ok")
        out["failed"].push_back({{"from", o.from},
                                 {"to", o.to},
                                 {"status", o.status},
                                 {"detail", o.detail},
                                 {"from_address", o.from_address},
                                 {"to_address", o.to_address}});
    for (int p : drivers::cluster::link_peers(me, hosts)) {
      if (p > me) continue;  // this host connected to it: its own source
      std::string a = mesh->peer_address(p);
      if (a.empty()) continue;
      const auto colon = a.rfind(':');
      a = a.substr(0, colon);
      if (!a.empty() && a.front() == '[') a = a.substr(1, a.size() - 2);
      out["seen_from"][std::to_string(p)] = a;
    }
    counters = netplane::make_live_nic_counters();
  } catch (const std::exception& e) {
    out["error"] = std::string("the host cannot take part: ") + e.what();
    mesh.reset();
  }

  const auto t_mesh = Clock::now();
  Rounds r;
  r.mesh = mesh.get();
  r.counters = counters.get();
  r.duration = duration;
  const auto schedule = drivers::cluster::matching_rounds(hosts);
  const int passes = args.at("passes").get<int>();
  const long long total = static_cast<long long>(schedule.size()) * passes;
  std::uint32_t tag = 0;
  if (mesh) {
    for (int pass = 0; pass < passes; ++pass)
      for (const auto& round : schedule) {
        ++tag;
        for (const auto& [a, b] : round) {
          if (a != me && b != me) continue;
          r.run(a == me ? b : a, tag, true, "screen", static_cast<int>(tag),
                round_deadline(deadline, duration, total - static_cast<long long>(tag)));
        }
      }
  }
  const auto t_screen = Clock::now();
  // Every host posts its figures, rank 0's host plans, every host follows.
  Planner planner(st, plane, args, deadline);
  auto agree = [&](const std::string& post, const json& mine, const std::string& plan_key,
                   const std::function<json(const json&)>& make) {
    json plan = json::array();
    const std::string key = "bw/" + plane + "/" + plan_key;
    if (me == 0) {
      try {
        plan = make(mine);
      } catch (const std::exception& e) {
        out["error"] = std::string("planning the second look failed: ") + e.what();
      }
      st.store().set(key, plan.dump());
      return plan;
    }
    st.store().set(drivers::cluster::gather_key("bw/" + plane + "/" + post, me), mine.dump());
    return parse_message(st.store().get(
        key, std::max(milliseconds(1), std::chrono::ceil<milliseconds>(deadline - Clock::now()))));
  };
  r.duration = milliseconds(args.at("again_ms").get<long long>());
  int next_round = 0;
  auto run_plan = [&](const json& plan) {
    const auto n = static_cast<long long>(plan.size());
    for (long long k = 0; k < n; ++k, ++next_round)
      for (const auto& link : plan.at(static_cast<std::size_t>(k))) {
        const int from = link.at(0), to = link.at(1);
        if (!mesh || (from != me && to != me)) continue;
        r.run(from == me ? to : from, kAgainTag + static_cast<std::uint32_t>(next_round),
              from == me, "again", next_round, round_deadline(deadline, r.duration, n - k));
      }
  };
  const int speed = out.value("speed_mbps", 0);
  const json plan1 = agree("screen", received(r.records, "screen", me, speed), "again1",
                           [&](const json& m) { return planner.first(m); });
  run_plan(plan1);
  std::size_t again_rounds = plan1.size(), second_rounds = 0;
  if (!plan1.empty()) {
    const json plan2 = agree("again1", received(r.records, "again", me, speed), "again2",
                             [&](const json& m) { return planner.second(m); });
    run_plan(plan2);
    second_rounds = plan2.size();
  }
  const auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  out["timing_ms"] = {{"mesh", ms(t0, t_mesh)},
                      {"screen", ms(t_mesh, t_screen)},
                      {"again", ms(t_screen, Clock::now())},
                      {"screen_rounds", total},
                      {"again_rounds", again_rounds + second_rounds},
                      {"first_stage_rounds", again_rounds},
                      {"suspects", planner.suspects()}};
  out["rounds"] = std::move(r.records);
  return out;
}

}  // namespace hn::preflight::certify
