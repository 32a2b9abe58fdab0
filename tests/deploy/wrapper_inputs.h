#pragma once
// What the Slurm wrapper tests run: the wrappers' folder, and a profile and
// snapshot on which `hnprecheck node` fails (a RoCE node missing plane
// addresses), so the wrappers have something to drain for.

#include <string>

namespace hn::test::deploy {

inline const std::string kSlurmDir = std::string(HN_SOURCE_DIR) + "/deploy/slurm";
inline const std::string kFailingProfile =
    std::string(HN_FIXTURE_DIR) + "/profiles/roce-cluster.yaml";
inline const std::string kFailingSnapshot =
    std::string(HN_FIXTURE_DIR) + "/snapshots/roce-node.yaml";

}  // namespace hn::test::deploy
