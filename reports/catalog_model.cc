// Catalog entries of the model phase: the bundled model trained with a
// parallel layout, by layer: L1 loss and checkpoint contents, L2 layout,
// equivalence with one rank and replica identity, L3 collectives, L4 the
// operators the step needs (the unsupported ones use the OP-* codes of
// `hnprecheck ops`), L7 checkpoint I/O on the shared mount.
#include "reports/catalog.h"

namespace hn::reports::catalog_parts {

namespace {

constexpr CatalogEntry kModelEntries[] = {
    {"MODEL-LOSS", Layer::kL1, "training loss decreases",
     "{layout}: the loss fell from {first} to {last} over {steps} steps",
     "{layout}: the loss did not decrease: {first} in the first steps, {last} in the last "
     "(of {steps})",
     "On this seeded task a correct step always lowers the loss: look for wrong or dropped "
     "gradients (MODEL-EQUIVALENCE, MODEL-REPLICA) or a learning rate far off "
     "(model.optimizer.lr)."},
    {"MODEL-RESUME", Layer::kL1, "resume from a checkpoint is exact",
     "{layout}: resuming from the checkpoint of step {at} reproduced steps {from} to {to} bit for "
     "bit",
     "{layout}: after resuming from the checkpoint of step {at}, step {step} gave loss {resumed} "
     "instead of {uninterrupted}",
     "A checkpoint must restore every parameter, the optimizer state and the step: a difference "
     "means the shards read back are not what was written (see MODEL-CKPT-CHECKSUM) or the "
     "state saved is incomplete."},
    {"MODEL-CKPT-CHECKSUM", Layer::kL1, "checkpoint shards match their manifest",
     "{shards} shards in {dir} match the SHA-256 and size in the manifest",
     "shard {file} of rank {rank} does not match the manifest in {dir}: {detail}",
     "The file changed between the write and the read: check the shared file system for "
     "corruption, a stale client cache or a second writer on {dir}."},
    {"MODEL-EQUIVALENCE", Layer::kL2, "parallel layout computes the single-rank step",
     "{layout}: {steps} SGD steps in f64 match the single-rank run within a relative "
     "{tolerance} ({tolerance_basis}; largest difference {max_diff} at step {step})",
     "{layout}: {diagnosis}: at step {step} of the SGD probe in f64 the loss is {parallel} "
     "against the single-rank run's {reference} (relative difference {diff}, tolerance "
     "{tolerance}: {tolerance_basis})",
     "Every layout must compute the same step as one rank. A gradient scale points at the "
     "gradient reduction (a missing or repeated allreduce, an average taken twice or never); "
     "a skipped update at the optimizer step; a first step that differs at the forward pass "
     "(pipeline exchanges, the layout's split of the batch); a difference in direction at "
     "corrupted or misrouted gradients. Check MODEL-REPLICA and the L3 findings, then the "
     "framework build the cluster runs."},
    {"MODEL-REPLICA", Layer::kL2, "data-parallel replicas are identical",
     "{group} replicas {members} hold bit-identical parameters after step {step}",
     "{group} replicas diverged after step {step}: ranks {diverged} differ from the others in "
     "{members}",
     "Replicas must stay bit-identical; a rank whose parameters differ suffered silent data "
     "corruption (memory, an accelerator, a link flipping bits) or skipped a reduction. Drain "
     "the nodes of ranks {diverged} and rerun."},
    {"MODEL-DEADLINE", Layer::kL2, "model phase within its deadline",
     "{layout}: {steps} steps finished within {timeout_s} s",
     "{layout}: the model phase stopped after {done} of {steps} steps: its {timeout_s} s "
     "deadline passed",
     "Give the phase more time (model.timeout_s) or train a smaller model or fewer steps "
     "(model.size, --steps)."},
    {"MODEL-RANK-DIED", Layer::kL3, "every rank stays alive through the step",
     "every rank completed the model step",
     "rank {dead_rank} died during the model step; rank {rank} stopped in {operation} after "
     "{elapsed_ms} ms",
     "Find out why rank {dead_rank} exited (its output, the OOM killer, the node's health); "
     "the others stopped within the collective timeout."},
    {"MODEL-COLLECTIVE", Layer::kL3, "collectives of the model step complete",
     "every collective of the model step completed",
     "{kind} in {operation} on rank {rank}: {detail}",
     "Check the link to the peer named (its node, the plane it uses: L6 findings) and rerun "
     "`hnprecheck bench` between the two ranks."},
    {"MODEL-OPS", Layer::kL4, "every operator of the model step runs on the backend",
     "{graphs} graphs of the model step ({nodes} nodes, forward and backward) run on {backend}",
     "the model step cannot run on {backend}", "See the OP-* finding that names the operator."},
    {"MODEL-CKPT-WRITE", Layer::kL7, "checkpoint write to shared storage",
     "{shards} shards ({bytes} bytes) and the manifest written to {dir}: {mbps} MB/s in "
     "aggregate, slowest rank {max_ms} ms",
     "checkpoint write to {dir} failed: {detail}",
     "Check the shared mount {dir} on the ranks named (`hnprecheck node` STOR-* findings): "
     "space, permissions, the server."},
    {"MODEL-CKPT-READ", Layer::kL7, "checkpoint read from shared storage",
     "{shards} shards ({bytes} bytes) read back from {dir}: {mbps} MB/s in aggregate, slowest "
     "rank {max_ms} ms",
     "checkpoint read from {dir} failed: {detail}",
     "Check the shared mount {dir} on the ranks named (`hnprecheck node` STOR-* findings)."},
    {"MODEL-CKPT-HUNG", Layer::kL7, "checkpoint I/O returns",
     "checkpoint I/O on {dir} returned within {timeout_s} s",
     "checkpoint {phase} on rank {rank} hung: {call} did not return within {timeout_s} s",
     "The file system behind {dir} is not answering: check the mount on this node (server, "
     "storage plane, `hnprecheck node` STOR-MOUNT-HUNG). Jobs checkpointing there would hang."},
    {"MODEL-CKPT-IO-ERROR", Layer::kL7, "checkpoint I/O succeeds",
     "checkpoint I/O on {dir} succeeded",
     "checkpoint {phase} on rank {rank} failed: {op} {path}: {errno_name}",
     "An I/O error on the shared file system: check the server and the client's kernel log "
     "(`dmesg`); EIO on NFS often means the server lost the file or the export."},
};

}  // namespace

std::span<const CatalogEntry> model() {
  return kModelEntries;
}

}  // namespace hn::reports::catalog_parts
