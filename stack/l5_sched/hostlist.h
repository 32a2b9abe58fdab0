#pragma once
// Slurm hostlist expressions, as in SLURM_JOB_NODELIST: "n01,n02",
// "n[01-04,07]", "rack[1-2]-n[1-3]", "a,b[1-2],c". Ranges keep their
// zero-padding (n[01-03] -> n01 n02 n03). Throws std::invalid_argument naming
// the offending text on anything else (unbalanced brackets, empty items,
// descending ranges, a list that would expand past 100000 hosts).

#include <string>
#include <string_view>
#include <vector>

namespace hn::stack::sched {

std::vector<std::string> expand_hostlist(std::string_view list);

// The first host of the list without expanding the rest (what a rendezvous
// needs from SLURM_JOB_NODELIST). Same errors as expand_hostlist().
std::string first_host(std::string_view list);

}  // namespace hn::stack::sched
