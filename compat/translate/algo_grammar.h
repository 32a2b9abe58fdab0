#pragma once
// The algorithm-selection grammars, which differ between the libraries
// (docs/comm-sources.md A3, A7.9):
//   NCCL_ALGO  "Ring", "^Tree", "ring;allreduce:tree,ring" (2.24+: per function,
//              ';' between groups; an unknown token is an error in NCCL)
//   HCCL_ALGO  "level0:NA;level1:ring" or per op
//              "allreduce=level0:NA;level1:ring/alltoall=level0:NA;level1:pairwise"
// Only ring exists on both sides, and only by name; NCCL's Tree, CollNet,
// NVLS and PAT have no HCCL counterpart. Parsers throw std::invalid_argument
// naming the bad token and the accepted ones.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hn::compat::translate {

struct NcclAlgoGroup {
  std::string function;  // lower case; empty = every function
  bool exclude = false;
  std::vector<std::string> algos;  // canonical spelling: Ring, Tree, ...
};
std::vector<NcclAlgoGroup> parse_nccl_algo(std::string_view s);

struct HcclAlgoEntry {
  std::string op;                     // empty = every op
  std::map<int, std::string> levels;  // level -> algorithm (level0 is always NA)
};
std::vector<HcclAlgoEntry> parse_hccl_algo(std::string_view s);
std::string format_hccl_algo(const std::vector<HcclAlgoEntry>& entries);

// The translated value (empty when nothing maps) and the parts that did not.
struct AlgoConversion {
  std::string value;
  std::vector<std::string> unmapped;
};
AlgoConversion nccl_algo_to_hccl(const std::vector<NcclAlgoGroup>& groups);
AlgoConversion hccl_algo_to_nccl(const std::vector<HcclAlgoEntry>& entries);

}  // namespace hn::compat::translate
