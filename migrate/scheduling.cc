// Concern 5, scheduling: the job's size and layout against the target's
// topology (hosts x accelerators, high-speed domains) and the scheduler
// directives that must change.
#include <algorithm>
#include <numeric>
#include <set>

#include "migrate/concerns.h"
#include "reports/catalog.h"
#include "stack/l2_framework/layout.h"

namespace hn::migrate {

namespace fw = stack::framework;
using reports::Status;

namespace {

std::string from_text(const Job& job, const char* key) {
  auto it = job.layout.find(key);
  return it == job.layout.end() ? "" : it->second.origin + " " + it->second.where;
}

std::string where_of(const Job& job, const char* key) {
  auto it = job.layout.find(key);
  return it == job.layout.end() ? "" : it->second.where;
}

// Nodes in placement order: domain by domain, as topology-aware scheduling
// fills them; profile nodes in no domain come last, each on its own.
struct Placement {
  std::vector<std::string> nodes;
  std::vector<std::string> domain;  // per node
};

Placement placement(const formats::Profile& p) {
  Placement out;
  std::set<std::string> seen;
  for (const auto& d : p.domains)
    for (const auto& n : d.nodes)
      if (seen.insert(n).second) {
        out.nodes.push_back(n);
        out.domain.push_back(d.name);
      }
  for (const auto& n : p.nodes)
    if (seen.insert(n.name).second) {
      out.nodes.push_back(n.name);
      out.domain.push_back("(no domain: " + n.name + ")");
    }
  return out;
}

std::string range_text(const std::vector<int>& g) {
  return g.size() == 1 ? std::to_string(g.front())
                       : std::to_string(g.front()) + "-" + std::to_string(g.back());
}

// TP groups from the stack's layout (Megatron's rank order: tp fastest).
void check_tp_domains(Concern& c, const Job& job, const fw::Layout& layout, long long nodes,
                      long long per_node) {
  const long long tp = layout.tp, world = layout.world();
  if (job.profile.domains.empty()) {
    c.add(reports::make_finding(
        "MIG-SCHED-TP-DOMAIN", Status::kSkip, "tp groups",
        {{"reason",
          "the profile has no topology.domains, so the high-speed domains are not known"}}));
    return;
  }
  Placement pl = placement(job.profile);
  if (static_cast<long long>(pl.nodes.size()) < nodes) {
    c.add(reports::make_finding(
        "MIG-SCHED-TP-DOMAIN", Status::kSkip, "tp groups",
        {{"reason", "the job needs " + std::to_string(nodes) + " nodes but the profile names " +
                        std::to_string(pl.nodes.size())}}));
    return;
  }
  std::string placed;
  for (long long n = 0; n < nodes; ++n)
    placed += (n ? ", " : "") + pl.nodes[n] + " in " + pl.domain[n];
  placed = "ranks " + std::to_string(per_node) + " per node, node by node: " + placed;
  const auto groups = layout.groups(fw::GroupKind::kTensor);
  int straddling = 0;
  const std::vector<int>* first = nullptr;
  std::string spans;
  for (const auto& g : groups) {
    std::vector<std::string> doms;
    for (int r : g) {
      const std::string& d = pl.domain[static_cast<size_t>(r / per_node)];
      if (std::find(doms.begin(), doms.end(), d) == doms.end()) doms.push_back(d);
    }
    if (doms.size() < 2) continue;
    if (!first) {
      first = &g;
      for (size_t i = 0; i < doms.size(); ++i) spans += (i ? " and " : "domains ") + doms[i];
    }
    ++straddling;
  }
  if (!first) {
    c.add(reports::make_finding("MIG-SCHED-TP-DOMAIN", Status::kPass, "tp groups",
                                {{"groups", std::to_string(groups.size())},
                                 {"tp", std::to_string(tp)},
                                 {"placement", placed}}));
    return;
  }
  // A TP size that fits: the largest divisor of one domain's ranks (the
  // smallest domain the job uses) that is at most tp.
  long long domain_ranks = 0;
  for (const auto& d : job.profile.domains) {
    long long r = static_cast<long long>(d.nodes.size()) * per_node;
    if (r > 0 && (domain_ranks == 0 || r < domain_ranks)) domain_ranks = r;
  }
  long long fit = 1;
  for (long long k = std::min(tp, domain_ranks); k >= 1; --k)
    if (domain_ranks % k == 0 && world % k == 0) {
      fit = k;
      break;
    }
  std::string todo =
      "Keep every TP group inside one domain: use a TP size that divides the " +
      std::to_string(domain_ranks) + " ranks of a domain (tp=" + std::to_string(fit) +
      " fits, with pp or dp larger to keep the world size), "
      "or place the job so that each TP group's nodes share a domain. " +
      std::to_string(straddling) + " of " + std::to_string(groups.size()) + " TP groups straddle.";
  c.add(reports::make_finding("MIG-SCHED-TP-DOMAIN", Status::kFail, "tp groups",
                              {{"group", std::to_string(first - groups.data())},
                               {"ranks", range_text(*first)},
                               {"spans", spans},
                               {"placement", placed},
                               {"todo", todo}}),
        false, where_of(job, "tp"));
}

bool requests_gpus(const Directive& d) {
  static const std::set<std::string> kGpuOptions = {
      "--gpus",        "--gpus-per-node", "--gpus-per-task", "--gpus-per-socket",
      "--mem-per-gpu", "--cpus-per-gpu",  "--gpu-bind"};
  if (kGpuOptions.count(d.option)) return true;
  return d.option == "--gres" &&
         (d.value.rfind("gpu", 0) == 0 || d.value.find(",gpu") != std::string::npos);
}

bool requests_npus(const Directive& d) {
  return d.option == "--gres" &&
         (d.value.rfind("npu", 0) == 0 || d.value.find(",npu") != std::string::npos);
}

void check_directives(Concern& c, const Job& job) {
  const std::string vendor =
      job.profile.physical.accelerators ? job.profile.physical.accelerators->vendor : "";
  const std::string count = job.profile.physical.accelerators
                                ? std::to_string(job.profile.physical.accelerators->count)
                                : "N";
  for (const auto& d : job.discovery.directives) {
    if (d.tool == "torchrun") continue;
    bool gpu = requests_gpus(d), npu = requests_npus(d);
    if (!gpu && !npu) continue;
    reports::Params p{{"text", d.tool == "sbatch" ? "#SBATCH " + d.text : "srun " + d.text},
                      {"where", d.where()},
                      {"cluster", cluster_name(job)}};
    if (vendor.empty()) {
      p["reason"] =
          "the profile does not say which accelerators the nodes have "
          "(physical.accelerators.vendor)";
      c.add(reports::make_finding("MIG-SCHED-DIRECTIVE", Status::kSkip, d.option, p));
      continue;
    }
    const bool npu_cluster = vendor == "huawei";
    if (gpu == !npu_cluster || (npu && npu_cluster)) {
      c.add(reports::make_finding("MIG-SCHED-DIRECTIVE", Status::kPass, d.option, p));
      continue;
    }
    if (npu_cluster) {
      p["problem"] = "requests GPUs (Slurm's gpu GRES), but the nodes of " + cluster_name(job) +
                     " have huawei NPUs";
      p["todo"] =
          "Request the NPUs by the GRES name the cluster's Slurm gives them (gres.conf; "
          "`scontrol show node` shows it), e.g. --gres=npu:" +
          count + ", and drop the GPU options.";
    } else {
      p["problem"] =
          "requests NPUs, but the nodes of " + cluster_name(job) + " have " + vendor + " GPUs";
      p["todo"] =
          "Request the GPUs with --gres=gpu:" + count + " (or --gpus-per-node=" + count + ").";
    }
    c.add(reports::make_finding("MIG-SCHED-DIRECTIVE", Status::kFail, d.option, p), false,
          d.where());
  }
  for (const auto& d : job.discovery.ignored)
    c.add(reports::make_finding(
              "MIG-SCHED-DIRECTIVE", Status::kWarn, "#SBATCH",
              {{"text", d.text},
               {"where", d.where()},
               {"cluster", cluster_name(job)},
               {"problem", "comes after the first command, so sbatch ignores it"},
               {"todo",
                "Move it above the first command of the script (sbatch reads #SBATCH "
                "lines only until then)."}}),
          false, d.where());
}

// A product of layout sizes (up to 27 digits) in decimal.
std::string int_text(__int128 v) {
  if (v == 0) return "0";
  std::string s;
  for (; v > 0; v /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
  return s;
}

// The profile's hosts: its nodes, else the nodes its domains name.
long long profile_hosts(const Job& job) {
  return !job.profile.nodes.empty() ? static_cast<long long>(job.profile.nodes.size())
                                    : static_cast<long long>(placement(job.profile).nodes.size());
}

// The node count alone: a job that asks for more nodes than the target has
// cannot run there, whatever else is known.
bool check_node_count(Concern& c, const Job& job, long long nodes) {
  const long long hosts = profile_hosts(job);
  if (hosts == 0 || nodes <= hosts) return false;
  reports::Params p{
      {"nodes", std::to_string(nodes)},
      {"per_node", job.count("ranks_per_node") ? std::to_string(*job.count("ranks_per_node"))
                                               : std::string("?")},
      {"cluster", cluster_name(job)},
      {"hosts", std::to_string(hosts)},
      {"accel", job.profile.physical.accelerators
                    ? std::to_string(job.profile.physical.accelerators->count)
                    : std::string("?")},
      {"detail", "it has " + std::to_string(hosts) + " node(s) in all"},
      {"todo", "Shrink the job to at most " + std::to_string(hosts) +
                   " node(s), changing dp first, or move it to a larger cluster."}};
  c.add(reports::make_finding("MIG-SCHED-CAPACITY", Status::kFail, "capacity", p), true,
        where_of(job, "nodes"));
  return true;
}

}  // namespace

Concern check_scheduling(const Job& job) {
  Concern c("scheduling", "Scheduling");
  check_directives(c, job);
  auto nodes = job.count("nodes");
  auto per_node = job.count("ranks_per_node");
  if (!nodes || !per_node) {
    const bool too_many_nodes = nodes && check_node_count(c, job, *nodes);
    std::string what = !nodes && !per_node ? "number of nodes and of ranks per node"
                       : !nodes            ? "number of nodes"
                                           : "number of ranks per node";
    auto why = [&](const char* key) {
      auto it = job.layout.find(key);
      return it == job.layout.end()
                 ? std::string(key) + " not found"
                 : std::string(key) + " is " + it->second.value + ", only known at run time";
    };
    c.add(reports::make_finding(
        "MIG-SCHED-UNKNOWN", Status::kWarn, "layout",
        {{"what", what}, {"why", !nodes ? why("nodes") : why("ranks_per_node")}}));
    c.set_summary((too_many_nodes ? std::to_string(*nodes) + " nodes on a cluster of " +
                                        std::to_string(profile_hosts(job)) + "; "
                                  : std::string()) +
                  "the layout is not checked: the " + what + " is not known");
    return c;
  }
  const long long world = *nodes * *per_node;
  const long long tp = job.count("tp").value_or(1), pp = job.count("pp").value_or(1),
                  cp = job.count("cp").value_or(1), ep = job.count("ep").value_or(1);
  // Each factor may be up to 9 digits: products in 128 bits.
  const __int128 mp = static_cast<__int128>(tp) * pp * cp;
  // --expert-tensor-parallel-size: Megatron-Core's expert grid replaces the
  // stack's "ep divides dp" (which is the same rule when etp = tp).
  const std::optional<long long> etp = job.count("etp");
  std::string layout = "tp " + std::to_string(tp) + ", pp " + std::to_string(pp) + ", cp " +
                       std::to_string(cp) + ", ep " + std::to_string(ep) +
                       (etp ? ", etp " + std::to_string(*etp) : "");
  // The stack's layout has no cp: a context-parallel group sits inside the
  // data-parallel axis (Megatron's order tp-cp-ep-dp-pp), so cp is checked
  // here and folded into dp there; TP groups are the same either way.
  std::string detail;
  std::optional<fw::Layout> l;
  if (world > (1 << 24))
    detail = "the world size " + std::to_string(world) + " is not a plausible job size";
  else if (mp > world || world % static_cast<long long>(mp) != 0)
    detail = "tp x pp x cp = " + int_text(mp) + " does not divide the world size " +
             std::to_string(world) + " (" + std::to_string(*nodes) + " node(s) x " +
             std::to_string(*per_node) + ")";
  else if (etp && (static_cast<__int128>(*etp) * ep * pp > world || world % (*etp * ep * pp) != 0))
    // Megatron-Core (parallel_state.py) with a separate expert-tensor size:
    // the expert grid etp x ep x pp must divide the world; dp need not be a
    // multiple of ep.
    detail = "expert-tensor x expert x pipeline = " + std::to_string(*etp) + " x " +
             std::to_string(ep) + " x " + std::to_string(pp) + " = " +
             int_text(static_cast<__int128>(*etp) * ep * pp) + " does not divide the world size " +
             std::to_string(world) + " (Megatron-Core's expert grid)";
  else
    try {
      auto dp = job.count("dp");
      fw::Layout candidate{static_cast<int>(tp), static_cast<int>(pp),
                           static_cast<int>(dp ? *dp * cp : world / (tp * pp)),
                           static_cast<int>(etp ? 1 : ep)};
      candidate.fits(static_cast<int>(world));
      l = candidate;
      layout += ", dp " + std::to_string(world / static_cast<long long>(mp));
    } catch (const fw::LayoutError& e) {
      detail = e.what();
    }
  c.add(reports::make_finding(
            "MIG-SCHED-WORLD", detail.empty() ? Status::kPass : Status::kFail, "layout",
            {{"world", std::to_string(world)},
             {"nodes", std::to_string(*nodes)},
             {"per_node", std::to_string(*per_node)},
             {"from", "nodes: " + from_text(job, "nodes") +
                          "; ranks per node: " + from_text(job, "ranks_per_node")},
             {"layout", layout},
             {"detail", detail}}),
        false, where_of(job, "tp"));

  // Capacity: hosts x accelerators; without the accelerators, the node count alone.
  const long long hosts = profile_hosts(job);
  if (hosts == 0 || !job.profile.physical.accelerators) {
    if (!check_node_count(c, job, *nodes))
      c.add(reports::make_finding(
          "MIG-SCHED-CAPACITY", Status::kSkip, "capacity",
          {{"reason", hosts == 0 ? "the profile lists no nodes (nodes, topology.domains)"
                                 : "the profile does not say how many accelerators a node has "
                                   "(physical.accelerators)"}}));
  } else {
    const long long accel = job.profile.physical.accelerators->count;
    reports::Params p{{"nodes", std::to_string(*nodes)},
                      {"per_node", std::to_string(*per_node)},
                      {"cluster", cluster_name(job)},
                      {"hosts", std::to_string(hosts)},
                      {"accel", std::to_string(accel)}};
    Status st = Status::kPass;
    if (*nodes > hosts || *per_node > accel) {
      st = Status::kFail;
      p["detail"] = *nodes > hosts
                        ? "it has " + std::to_string(hosts) + " node(s) in all"
                        : "each node has only " + std::to_string(accel) + " accelerator(s) for " +
                              std::to_string(*per_node) + " rank(s)";
      p["todo"] = "Shrink the job to at most " + std::to_string(hosts) + " node(s) x " +
                  std::to_string(accel) + " rank(s) (world " + std::to_string(hosts * accel) +
                  "), changing dp first, or move it to a larger cluster.";
    } else if (*per_node < accel) {
      st = Status::kWarn;
      const long long needed = (world + accel - 1) / accel;
      p["detail"] = std::to_string(accel - *per_node) + " of each node's " + std::to_string(accel) +
                    " accelerators would stay idle";
      p["todo"] = "Run " + std::to_string(accel) + " ranks per node" +
                  (world % accel == 0 ? " on " + std::to_string(needed) + " node(s)" : "") +
                  " (#SBATCH --ntasks-per-node, torchrun --nproc-per-node) to use whole nodes.";
    }
    c.add(reports::make_finding("MIG-SCHED-CAPACITY", st, "capacity", p), st == Status::kFail,
          where_of(job, "nodes"));
  }
  if (l) check_tp_domains(c, job, *l, *nodes, *per_node);

  int problems = 0;
  for (const auto& i : c.items()) problems += is_problem(i.finding);
  c.set_summary(std::to_string(world) + " ranks (" + std::to_string(*nodes) + " x " +
                std::to_string(*per_node) + "), " + layout +
                (problems ? "; " + std::to_string(problems) + " problem(s)" : ""));
  return c;
}

}  // namespace hn::migrate
