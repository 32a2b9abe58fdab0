// Catalog entries of `hnprecheck gate`: figures, checks and node state of new
// runs compared with a baseline. The layer given here is a default: the gate
// files each finding under the layer of the figure, check or state it compares.
#include "reports/catalog.h"

namespace hn::reports::catalog_parts {

namespace {
constexpr CatalogEntry kGateEntries[] = {
    {"GATE-METRIC", Layer::kL3, "figure within the baseline's noise band",
     "{name} {value} {unit} ({change}) vs baseline {centre}: {verdict}, band {band_low} .. "
     "{band_high} ({scale} scale, {basis}; {n} baseline run(s), {runs} new; catches {detectable})",
     "{name} regressed: {value} {unit} ({change}) vs baseline {centre} {unit}, {sense}; noise "
     "ends at {edge} ({scale} scale, {basis}; {n} baseline run(s), {runs} new){confirm}",
     "Something made this figure worse since the baseline: a driver, firmware, switch or profile "
     "change, or a degraded node. Compare a baseline snapshot with a new one (`hnprecheck diff`) "
     "and re-run to rule out a one-off. If the change is intended, build a new baseline with "
     "`hnprecheck gate baseline`. Rule applied: {rule}."},
    {"GATE-METRIC-INSENSITIVE", Layer::kL3, "figure can catch the loss the gate is for",
     "{identity} can catch a loss of {detect}",
     "{name} could lose {detect} and still pass: with this baseline it catches only {detectable} "
     "(9 times in 10) because {why}",
     "Make the figure able to fail: gate 3 new runs at once (a loss must show in each, a dip "
     "rarely does), record more baseline runs (10 or more), quieten the machine while measuring, "
     "or drop the figure (ignore = true) if it cannot be measured steadily here. Rule applied: "
     "{rule}."},
    {"GATE-RULE-UNUSED", Layer::kL7, "every rule of the rules file matches something",
     "{rule} matches a figure or check", "{rule} matches no figure or check of the baseline or "
     "the new runs: it changes nothing",
     "Correct its name, labels, code or entity (the figure identities are in `gate --json`, "
     "extra.gate.metrics[].identity), or delete it."},
    {"GATE-MACHINE", Layer::kL7, "run measured on the baseline's machine",
     "{host} is the machine the baseline measured", "{how}",
     "A figure measured on another host, CPU, kernel or NIC is not the same measurement: build "
     "the baseline on the machine the gate judges (one baseline per machine type), or rebuild "
     "it after an intended upgrade."},
    {"GATE-METRIC-MISSING", Layer::kL3, "every baseline figure was measured again",
     "{identity} was measured again",
     "{name} is in the baseline ({n} run(s), centre {centre} {unit}) but no new run measured "
     "it{detail}",
     "Run what the baseline ran (the same command, sizes, hosts and phases), or build a new "
     "baseline. To accept its loss, set missing = \"warn\" or ignore = true for it in a rules file "
     "(rule applied: {rule})."},
    {"GATE-METRIC-NEW", Layer::kL3, "figure is in the baseline", "{identity} is in the baseline",
     "{identity} is not in the baseline", "Build a new baseline that includes it."},
    {"GATE-METRIC-UNJUDGED", Layer::kL3, "figure has a known direction",
     "{identity} has a known direction",
     "{name} {value} {unit} vs baseline {centre} {unit}, not judged: {detail}",
     "Give it a direction in a rules file ([[metric]] name = \"{name}\" with better = \"higher\" "
     "or "
     "\"lower\"), or ignore = true if it should not be judged."},
    {"GATE-METRIC-MISMATCH", Layer::kL3, "figure is comparable with the baseline",
     "{name} is comparable with the baseline", "{name} cannot be compared: {detail}",
     "Compare like with like: build the baseline from runs of the same command, options and "
     "hnprecheck version as the new runs, or fix the rules file."},
    {"GATE-CHECK", Layer::kL7, "check holds as in the baseline", "{check} {how}", "{check} {how}",
     "Look at the check's own finding for the cause."},
    {"GATE-CHECK-REGRESSED", Layer::kL7, "check did not regress", "{check} did not regress",
     "{check} regressed: {before} in the baseline, {now} now: {message}",
     "This check {held} when the baseline was taken. Its own remediation ({check} in the report of "
     "the new run) names the cause; `hnprecheck diff` of a baseline snapshot and a new one shows "
     "what changed on the node."},
    {"GATE-CHECK-STILL-FAILING", Layer::kL7, "check passes again", "{check} passes again",
     "{check} still does not pass ({before} in the baseline, {now} now): {message}",
     "Not a regression: it already failed when the baseline was taken. Fix it with the check's own "
     "remediation, or accept it in a rules file ([[check]] code = \"{check}\", ignore = true)."},
    {"GATE-CHECK-MISSING", Layer::kL7, "every baseline check was judged again",
     "{check} was judged again",
     "{check} was {before} in the baseline and is not judged now ({now})",
     "Run the same checks as the baseline (the same command, profile and hosts); a check that is "
     "SKIP or ERROR now lost its input or could not run. To accept it, set missing = \"warn\" for "
     "it in a rules file (rule applied: {rule})."},
    {"GATE-DRIFT", Layer::kL7, "node state matches the baseline snapshot",
     "{host}: no difference from the baseline snapshot that matters ({none} not significant: "
     "{fields})",
     "{field}: {a} -> {b} ({impact}: {why})",
     "If the change is intended (a planned driver, firmware or configuration change), build a new "
     "baseline; otherwise restore the previous setting. Classified by {origin}."},
    {"GATE-DRIFT-MISSING", Layer::kL7, "every baseline snapshot has a new one",
     "{host} has a new snapshot",
     "the baseline has a snapshot of {host} but no new run is a snapshot of {host}",
     "Capture one with `hnprecheck snapshot` on {host} and pass it to gate, or set [missing] "
     "snapshot = \"warn\" in a rules file."},
};
}  // namespace

std::span<const CatalogEntry> gate() {
  return kGateEntries;
}

}  // namespace hn::reports::catalog_parts
