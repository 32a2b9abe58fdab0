// Catalog entries for `hnprecheck migrate`: the checks of a job's move that
// `ops` and `translate` do not already make (their OP-* and COMM-PARAM-*
// findings are reused as they are). Grouped by concern; the layer is the one
// the check is about.
#include "reports/catalog.h"

namespace hn::reports::catalog_parts {

namespace {
constexpr CatalogEntry kMigrateEntries[] = {
    // ---- operators ---------------------------------------------------------
    {"MIG-OPS-NO-MODEL", Layer::kL4, "the job's model is known", "the model is {model}",
     "the job names no model (ONNX, torch.profiler trace or op list), so its operators were "
     "not checked against {backend}",
     "Name the model in the manifest ([model] file = ...) or with --model FILE, then re-run."},

    {"MIG-OPS-NO-MATRIX", Layer::kL4, "the target's operator matrix is known",
     "the operator matrix is named",
     "the target's operator matrix is not named, so the operators of {model} were not checked",
     "Name it in the manifest ([target] backend, built in: {backends}; or [target] matrix = "
     "FILE) or with --backend NAME / --matrix FILE, then re-run."},

    // ---- comm parameters ---------------------------------------------------
    {"MIG-COMM-NO-LAUNCH", Layer::kL3, "the job's launch material is known",
     "the launch material is {inputs}",
     "the job names no launch script, env file or Kubernetes manifest, so its communication "
     "settings, scheduler directives and paths were not read",
     "Name the launch material in the manifest ([launch] script, env_files or k8s) or with "
     "--script, --env or --k8s, then re-run."},
    {"MIG-COMM-APPLY", Layer::kL3, "communication settings hold on the target",
     "the {count} communication setting(s) of {inputs} hold as they are on {to}",
     "{changed} of the {count} communication setting(s) of {inputs} change for {to} "
     "({detail}); the translated environment has {lines} line(s)",
     "{apply}"},
    {"MIG-COMM-LINK-SETUP", Layer::kL3, "link-setup wait kept by the translation",
     "link setup waits {after} on {to} ({after_from}); before: {before} ({before_from})",
     "link setup waits {after} on {to} ({after_from}) but waited {before} before "
     "({before_from}): links that took longer than {after} to come up will now fail",
     "Set HCCL_CONNECT_TIMEOUT to at least {need_s} s (HCCL waits it + 20 s), or find out why "
     "links took that long to come up."},

    // ---- storage access ----------------------------------------------------
    {"MIG-STOR-NO-MOUNTS", Layer::kL7, "the target declares shared storage",
     "the profile declares the shared mounts {mounts}",
     "the profile {profile} declares no shared mounts (storage.mounts), so no path of the job "
     "can be shown to be on shared storage",
     "Add the cluster's shared file systems to the profile's storage.mounts, then re-run."},
    {"MIG-STOR-NO-PATHS", Layer::kL7, "the job's paths are known",
     "the job's {role} paths are known",
     "no {role} path was found in {sources}, so {what} was not checked",
     "List the paths in the manifest ({key}) or pass them on the job's command line "
     "({flags}), then re-run."},
    {"MIG-STOR-PATH", Layer::kL7, "path on shared storage",
     "{role} path {path} ({where}) is on the shared mount {mount}{seen}",
     "{role} path {path} ({where}) is {kind}{seen}; on {cluster} every rank must reach it, so "
     "it must be on a shared mount ({mounts})",
     "Move {path} onto a shared mount (for example {suggest}) and change it at {where}."},
    {"MIG-STOR-PATH-UNRESOLVED", Layer::kL7, "path can be placed",
     "{role} path {path} ({where}) is known",
     "{role} path {path} ({where}) cannot be placed: {why}",
     "Write it as an absolute path, or state it in the manifest's [storage] section, so it can "
     "be checked against the shared mounts."},
    {"MIG-STOR-CKPT-SPACE", Layer::kL7, "checkpoint fits the mount",
     "a {size} checkpoint fits on {mount}: {free} free ({from})",
     "a {size} checkpoint does not fit on {mount}: {free} free ({from})",
     "Free space on {mount} or write checkpoints to a mount with room for at least {size} "
     "(keep fewer checkpoints, e.g. delete old iterations)."},
    {"MIG-STOR-CKPT-TIME", Layer::kL7, "checkpoint time estimate",
     "saving a {size} checkpoint to {mount} takes about {time} at {mbps} MB/s, as {from} "
     "measured (one node writing alone; nodes writing at once share the file system)",
     "saving a {size} checkpoint to {mount} takes about {time} at {mbps} MB/s ({from})",
     "Nothing to do; plan the checkpoint interval with this time."},

    // ---- network policy ----------------------------------------------------
    {"MIG-NET-TRAFFIC", Layer::kL6, "traffic class on its plane",
     "{class} traffic uses {plane} via {how}", "{class} traffic uses {plane} via {how}: {why}",
     "{todo}"},
    {"MIG-NET-PINNED", Layer::kL6, "job setting keeps traffic off management and business planes",
     "{var}={value} ({where}) selects {plane}",
     "{var}={value} ({where}) pins {class} traffic to the {type} plane {plane}",
     "Point {var} at the parameter plane instead{param_hint}, or drop it and let the translated "
     "environment choose."},

    // ---- scheduling --------------------------------------------------------
    {"MIG-SCHED-UNKNOWN", Layer::kL5, "the job's size is known", "the job's size is known",
     "the {what} is not known ({why}), so scheduling was not checked",
     "State the layout in the manifest ([layout] nodes, ranks_per_node, tp, pp) or in the "
     "script (#SBATCH --nodes and --ntasks-per-node, Megatron's "
     "--tensor-model-parallel-size), then re-run."},
    {"MIG-SCHED-WORLD", Layer::kL5, "layout consistent with the world size",
     "{world} ranks: {nodes} node(s) x {per_node} ({from}); layout {layout}", "{detail}",
     "Make tp x pp x cp divide the world size ({world}), or change the node or rank counts."},
    {"MIG-SCHED-CAPACITY", Layer::kL5, "job fits the cluster",
     "{nodes} node(s) x {per_node} rank(s) fit {cluster}: {hosts} node(s) x {accel} "
     "accelerator(s)",
     "the job needs {nodes} node(s) x {per_node} rank(s), but {cluster} has {hosts} node(s) x "
     "{accel} accelerator(s): {detail}",
     "{todo}"},
    {"MIG-SCHED-TP-DOMAIN", Layer::kL5, "TP groups inside one high-speed domain",
     "each of the {groups} TP group(s) of {tp} ranks lies inside one high-speed domain "
     "({placement})",
     "TP group {group} (ranks {ranks}) spans {spans}: its tensor-parallel traffic, every layer's "
     "allreduce, leaves the high-speed link ({placement})",
     "{todo}"},
    {"MIG-SCHED-DIRECTIVE", Layer::kL5, "scheduler directive suits the target",
     "{text} ({where}) suits {cluster}", "{text} ({where}) {problem}", "{todo}"},

    // ---- observability -----------------------------------------------------
    {"MIG-OBS-COMM-LOG", Layer::kL3, "communication logs collected",
     "{library} logs at {level} and writes {dest}",
     "{library} logs at {level} and writes {dest}: {why}", "{todo}"},
    {"MIG-OBS-NO-LOGS", Layer::kL7, "the job's log destination is known",
     "the job's logs go to {logs}",
     "no log destination was found in {sources} ({checked}), so where the job's output goes "
     "was not checked",
     "Name the log files (#SBATCH --output/--error, a redirection, or [storage] logs in the "
     "manifest) on a shared mount."},
    {"MIG-OBS-METRICS", Layer::kL1, "training metrics exported",
     "the job writes its training metrics to {dest} ({where})",
     "the job exports no training metrics (no --tensorboard-dir, --wandb-project or "
     "--wandb-save-dir, no [observability] metrics), so step time and loss on {cluster} cannot be "
     "compared with the old cluster",
     "Write metrics to shared storage (for example --tensorboard-dir {suggest}) or to a metrics "
     "service, and list it in the manifest's [observability] metrics."},
    {"MIG-OBS-CHECKS", Layer::kL5, "per-layer checks of the target cover the job",
     "{layer_name} ({uses}) is covered by {checks}{evidence}",
     "{layer_name} ({uses}) is covered by {checks}, but {evidence}", "{todo}"},
};
}  // namespace

std::span<const CatalogEntry> migrate() {
  return kMigrateEntries;
}

}  // namespace hn::reports::catalog_parts
