#include "compat/translate/algo_grammar.h"

#include <algorithm>
#include <stdexcept>

#include "compat/translate/values.h"

namespace hn::compat::translate {

namespace {

// N1 (NCCL env docs): algorithm and function names, case-insensitive.
const std::vector<std::string> kNcclAlgos = {
    "Ring", "Tree", "CollnetDirect", "CollnetChain", "NVLS", "NVLSTree", "PAT"};
const std::vector<std::string> kNcclFunctions = {"broadcast", "reduce", "allgather",
                                                 "reducescatter", "allreduce"};
// H-AL: level-1 algorithms; level0 accepts only NA. pairwise is for alltoall.
const std::vector<std::string> kHcclAlgos = {"ring", "H-D_R", "NHR",      "NHR_V1",
                                             "NB",   "AHC",   "pipeline", "pairwise"};
const std::vector<std::string> kHcclOps = {"allreduce", "allgather", "reducescatter", "alltoall"};
// NCCL functions HCCL_ALGO can name per op.
const std::map<std::string, std::string> kNcclToHcclOp = {
    {"allreduce", "allreduce"}, {"allgather", "allgather"}, {"reducescatter", "reducescatter"}};

std::string canonical(const std::vector<std::string>& names, const std::string& token,
                      const std::string& what) {
  for (const auto& n : names)
    if (to_lower(n) == to_lower(token)) return n;
  throw std::invalid_argument("unknown " + what + " '" + token + "' (expected one of " +
                              join(names, ", ") + ")");
}

}  // namespace

std::vector<NcclAlgoGroup> parse_nccl_algo(std::string_view s) {
  std::vector<NcclAlgoGroup> out;
  if (s.empty()) throw std::invalid_argument("expected an algorithm list such as Ring or ^Tree");
  for (auto& group : split(s, ';')) {
    NcclAlgoGroup g;
    std::string list = group;
    size_t colon = group.find(':');
    if (colon != std::string::npos) {
      g.function = to_lower(canonical(kNcclFunctions, group.substr(0, colon), "NCCL function"));
      list = group.substr(colon + 1);
    }
    if (!list.empty() && list[0] == '^') {
      g.exclude = true;
      list.erase(0, 1);
    }
    if (list.empty()) throw std::invalid_argument("empty algorithm list in '" + group + "'");
    for (auto& a : split(list, ',')) g.algos.push_back(canonical(kNcclAlgos, a, "NCCL algorithm"));
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<HcclAlgoEntry> parse_hccl_algo(std::string_view s) {
  std::vector<HcclAlgoEntry> out;
  if (s.empty()) throw std::invalid_argument("expected level0:NA;level1:<algorithm>");
  auto entries = split(s, '/');
  for (auto& entry : entries) {
    HcclAlgoEntry e;
    std::string levels = entry;
    size_t eq = entry.find('=');
    if (eq != std::string::npos) {
      e.op = canonical(kHcclOps, entry.substr(0, eq), "HCCL op");
      levels = entry.substr(eq + 1);
    } else if (entries.size() > 1) {
      throw std::invalid_argument("'" + entry + "': with several entries each needs op=");
    }
    for (auto& part : split(levels, ';')) {
      size_t colon = part.find(':');
      if (colon == std::string::npos || part.rfind("level", 0) != 0)
        throw std::invalid_argument("'" + part + "' is not levelN:<algorithm>");
      auto n = parse_int(part.substr(5, colon - 5));
      if (!n || *n < 0 || *n > 2)
        throw std::invalid_argument("'" + part + "': level must be 0, 1 or 2");
      std::string algo = part.substr(colon + 1);
      if (*n == 0) {
        if (algo != "NA") throw std::invalid_argument("level0 accepts only NA, got '" + algo + "'");
      } else {
        algo = canonical(kHcclAlgos, algo, "HCCL algorithm");
        if (algo == "pairwise" && e.op != "alltoall")
          throw std::invalid_argument("pairwise is only valid for alltoall");
      }
      if (e.levels.count(static_cast<int>(*n)))
        throw std::invalid_argument("level" + std::to_string(*n) + " is given twice");
      e.levels[static_cast<int>(*n)] = algo;
    }
    if (!e.levels.count(1)) throw std::invalid_argument("'" + entry + "' has no level1 algorithm");
    out.push_back(std::move(e));
  }
  return out;
}

std::string format_hccl_algo(const std::vector<HcclAlgoEntry>& entries) {
  std::vector<std::string> parts;
  for (const auto& e : entries) {
    std::string levels;
    for (const auto& [n, a] : e.levels)
      levels += (levels.empty() ? "" : ";") + std::string("level") + std::to_string(n) + ":" + a;
    parts.push_back(e.op.empty() ? levels : e.op + "=" + levels);
  }
  return join(parts, "/");
}

AlgoConversion nccl_algo_to_hccl(const std::vector<NcclAlgoGroup>& groups) {
  AlgoConversion out;
  bool global_ring = false;
  std::vector<std::string> ops;      // ops with ring, in order
  std::vector<std::string> claimed;  // functions named explicitly (mapped or not)
  for (const auto& g : groups) {
    std::string text =
        (g.function.empty() ? "" : g.function + ":") + (g.exclude ? "^" : "") + join(g.algos, ",");
    if (!g.function.empty()) claimed.push_back(g.function);
    bool ring_only = !g.exclude && g.algos.size() == 1 && g.algos[0] == "Ring";
    if (!ring_only) {
      out.unmapped.push_back(text);
      continue;
    }
    if (g.function.empty()) {
      global_ring = true;
    } else if (kNcclToHcclOp.count(g.function)) {
      ops.push_back(kNcclToHcclOp.at(g.function));
    } else {
      out.unmapped.push_back(text);
    }
  }
  std::vector<HcclAlgoEntry> entries;
  if (global_ring && ops.empty() && claimed.empty()) {
    entries.push_back({"", {{0, "NA"}, {1, "ring"}}});
  } else {
    if (global_ring)  // the default group covers every function not named explicitly
      for (const auto& [fn, op] : kNcclToHcclOp)
        if (std::find(claimed.begin(), claimed.end(), fn) == claimed.end()) ops.push_back(op);
    std::sort(ops.begin(), ops.end(), [](const std::string& a, const std::string& b) {
      auto pos = [](const std::string& o) {
        return std::find(kHcclOps.begin(), kHcclOps.end(), o);
      };
      return pos(a) < pos(b);
    });
    for (const auto& op : ops) entries.push_back({op, {{0, "NA"}, {1, "ring"}}});
  }
  out.value = format_hccl_algo(entries);
  return out;
}

AlgoConversion hccl_algo_to_nccl(const std::vector<HcclAlgoEntry>& entries) {
  AlgoConversion out;
  std::vector<std::string> groups;
  for (const auto& e : entries) {
    bool ring = e.levels.at(1) == "ring" && (!e.levels.count(2) || e.levels.at(2) == "ring");
    bool has_fn = e.op.empty() || kNcclToHcclOp.count(e.op);
    if (!ring || !has_fn) {
      out.unmapped.push_back(format_hccl_algo({e}));
      continue;
    }
    groups.push_back(e.op.empty() ? "Ring" : e.op + ":Ring");
  }
  out.value = join(groups, ";");
  return out;
}

}  // namespace hn::compat::translate
