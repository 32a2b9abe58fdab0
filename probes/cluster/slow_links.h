#pragma once
// Findings from certify's bandwidth phase: the suspects of link_diagnosis.h,
// confirmed or dismissed by their second look, become COMM-LINK-SLOW
// (a host slow sending, receiving or both; a pair; a group) and the plane's
// level against its NICs' line rate COMM-LINK-LINE-RATE. Pure.
//
//   * a confirmed suspect is a FAIL naming the entity (host set for a host
//     or a pair's sender), its screening figure against what it was compared
//     with, and its second figure against the reference link measured beside
//     it; a host slow both ways is one finding;
//   * a suspect whose second look was fast is dismissed: no verdict, a note
//     in the PASS finding's evidence ("dismissed");
//   * a suspect that could not be measured again (its link broke, or more
//     suspects than the re-measurement budget) is a WARN: a slow link is
//     never a FAIL on one look;
//   * the figures: link.bandwidth per directed host pair (best of every
//     measurement), link.reference per plane.

#include <string>
#include <vector>

#include "probes/cluster/link_diagnosis.h"
#include "reports/finding.h"
#include "reports/measurement.h"

namespace hn::probes::cluster {

// What the plane's NICs promise, for the absolute reference.
struct LineRate {
  double gbps = 0;      // the slowest host's plane NIC, GB/s; 0: unknown
  std::string source;   // "live speed of the plane NICs" / "the profile's speed_mbps"
  double fraction = 0;  // the share of it a link must reach (profile)
};

// The share of the line rate one TCP stream is held to: a stream rarely
// exceeds about 100 Gbit/s, so the line rate counts up to that.
constexpr double kLineCapGbps = 100e9 / 8 / 1e9;
// fraction x min(line, cap); 0 when the line rate is unknown.
double line_floor(const LineRate& line);

struct SlowLinkResult {
  std::vector<reports::Finding> findings;
  std::vector<reports::Measurement> metrics;
};

SlowLinkResult judge_links(const std::string& plane, const std::vector<std::string>& host_names,
                           const LinkScreen& screen, const std::vector<SuspectVerdict>& verdicts,
                           const LineRate& line, int repeats, const std::string& phase);

}  // namespace hn::probes::cluster
