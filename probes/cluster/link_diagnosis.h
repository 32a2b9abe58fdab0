#pragma once
// Where a slow host, pair or group sits on a plane, from per-link bandwidth
// figures between hosts (certify's bandwidth phase). Pure: figures in,
// suspects and the plan to measure them again out; slow_links.h turns the
// confirmed ones into findings.
//
// The model. A directed link i -> j runs at most at the smaller of what i
// can send and what j can receive (a NIC, cable, shaper or PCIe slot at
// either end caps it), and noise only ever makes a measurement slower. So:
//
//   * a link's figure is the best of its measurements;
//   * a host's send capacity is at least its best outgoing link, its
//     receive capacity at least its best incoming link;
//   * the healthy level (the reference) is the upper quartile of all hosts'
//     send and receive capacities. A slow host pulls down only its own two
//     values, so the reference holds while fewer than about 5/8 of the
//     hosts are slow, on 2 hosts as on 1,024. (The median of the links does
//     not: one host slow both ways touches 4 of the 6 links of 3 hosts.)
//
// Suspects, each compared with a figure the fault cannot move (on
// screening at fraction + kSieveMargin: the second look decides):
//   kSend     a host whose best outgoing link is below fraction x reference,
//             while one of its receivers receives fast from another host
//             (so the receiver is not the cause);
//   kReceive  the same for incoming links;
//   kPair     a link below fraction x the smaller of its two ends'
//             capacities, neither end a suspect host: the path between two
//             healthy hosts (with 2 hosts, the ends cannot be told apart);
//   kGroup    hosts whose links to the others are slow while their links
//             among themselves are fast: a switch uplink, a rail. Found as a
//             split of the fast links into components; it replaces the
//             pair suspects across the split;
//   kPlane    the reference itself below `line_floor_gbps` (a fraction of
//             what the NICs promise): uniformly slow is not healthy.
//
// Confirm before blaming: confirm_rounds() plans suspects' links to be
// measured again, one direction at a time, `repeats` times, beside a
// reference link (a link between hosts under no suspicion) under the same
// conditions: in the same round, sharing no host; where no reference fits
// (2 or 3 hosts), each alone and paired with a reference alone.
// judge_suspects() keeps a suspect only if, in every round, its figure stays
// below fraction x the reference's figure beside it (kPlane: the best new
// figure of any link below the floor): a link capped by a fault stays below
// in every round, while a link that met busy moments, or the slower place
// on a shared machine, matches its reference at least once. Two stages keep
// this short: every suspect a few times, then the ones still slow many more
// times (the certify phase runs 4 then 8).

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hn::probes::cluster {

using HostLink = std::pair<int, int>;  // directed: (from host, to host), host indices

struct LinkSample {
  int from = -1, to = -1;  // host indices
  double gbps = 0;         // > 0; failed measurements are not samples
  int round = -1;          // second-look samples: the round of confirm_rounds()
};

enum class SuspectKind { kSend, kReceive, kPair, kGroup, kPlane };
const char* to_string(SuspectKind k);

struct Suspect {
  SuspectKind kind = SuspectKind::kPair;
  int host = -1;                  // kSend, kReceive
  HostLink link{-1, -1};          // kPair
  std::vector<int> group, rest;   // kGroup: its hosts, and the hosts it reaches slowly
  double value = 0;               // the screening figure, GB/s
  double expected = 0;            // what it was compared with, GB/s
  std::vector<HostLink> confirm;  // the directed links to measure again
};

struct LinkScreen {
  int hosts = 0;
  double fraction = 0;
  double line_floor = 0;              // GB/s; 0: no absolute reference
  std::map<HostLink, double> best;    // every measured directed link, its best figure
  std::vector<double> send, receive;  // per host: best outgoing / incoming link (0: none)
  double reference = 0;               // the healthy level, GB/s
  // Links that passed the screening, fastest first: measured again beside
  // the suspects (the first also alone, where no other fits).
  std::vector<HostLink> reference_links;
  std::vector<Suspect> suspects;       // most severe first
  std::vector<Suspect> unconfirmable;  // beyond max_confirm_links: not measured again
  std::size_t budget = 0;              // max_confirm_links
};

// `samples` may hold several figures per link. fraction in (0, 1];
// line_floor_gbps >= 0. Never throws for odd data: links of a host with
// itself and figures <= 0 are ignored. At most max_confirm_links links are
// planned for re-measurement, the most severe suspects first; the rest are
// in `unconfirmable`.
// Screening flags suspects below fraction + this (the second look then
// judges at fraction itself).
constexpr double kSieveMargin = 0.1;
// At most this many suspects' links share a round of the second look (and
// its reference). Where hosts share CPUs (namespaces on one machine), the
// streams of a round share them unevenly, the more the streams the more
// unevenly: on 32 namespace hosts over 2 CPUs, rounds of 15 links held
// healthy links at under 0.4 of their reference 4 times running.
constexpr std::size_t kMaxBeside = 3;

constexpr std::size_t kMaxConfirmLinks = 32;
LinkScreen screen_links(int hosts, const std::vector<LinkSample>& samples, double fraction,
                        double line_floor_gbps, std::size_t max_confirm_links = kMaxConfirmLinks);

// The re-measurement plan for the suspects (indices into screen.suspects;
// all when `which` is empty): per repeat, the suspects' links packed into
// rounds where no host appears twice, each round with a reference link that
// shares no host with them; a round for which none is left gets one of its
// own right after it, the reference alone. Empty when there is nothing to
// confirm. The caller numbers the rounds (LinkSample::round) across stages.
std::vector<std::vector<HostLink>> confirm_rounds(const LinkScreen& screen, int repeats,
                                                  const std::vector<std::size_t>& which = {});

// The suspects (indices) that the samples so far still hold slow, or could
// not judge: the second stage measures these again. A suspect below half
// the fraction in every round is conclusive and not measured again.
std::vector<std::size_t> still_suspect(const LinkScreen& screen,
                                       const std::vector<LinkSample>& again);

struct SuspectVerdict {
  Suspect suspect;
  bool measured = false;   // its links and the reference were measured again
  bool confirmed = false;  // still slow against the reference measured beside it
  // Its figure in the round where it came closest to its reference, and
  // that reference's figure (kPlane: the best new figure of any link).
  double again = 0, again_reference = 0;
  // Its new figures and the reference's beside each, paired, in order.
  std::vector<double> samples, reference_samples;
  // Rounds in which it reached the fraction of the reference beside it.
  int matched = 0;
};

// A suspect is cleared when it reaches the fraction of the reference beside
// it in this many rounds (or in every round, when fewer were measured). One
// round is not enough: the reference dips too (on 8 namespace hosts over 2
// CPUs a reference link fell once to 0.75 of its level in 4 rounds, and a
// host capped at 0.6 was cleared by that round alone). With noise as bad as
// the test machine's (every figure at full rate or 0.575 of it, at random) a
// healthy suspect fails to reach it in 11 of 12 rounds with probability
// 2e-6, against 6e-8 for one round.
inline constexpr int kRoundsToClear = 2;

// One verdict per suspect of `screen` (not the unconfirmable ones).
std::vector<SuspectVerdict> judge_suspects(const LinkScreen& screen,
                                           const std::vector<LinkSample>& again);

}  // namespace hn::probes::cluster
