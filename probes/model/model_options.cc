#include "probes/model/model_options.h"

#include <algorithm>

#include "compat/builtin_ops.h"
#include "compat/input_error.h"

namespace hn::probes::model {

namespace {

stack::framework::GroupKind group_kind(const std::string& name) {
  using stack::framework::GroupKind;
  for (GroupKind k : {GroupKind::kTensor, GroupKind::kPipeline, GroupKind::kData,
                      GroupKind::kExpert, GroupKind::kExpertData})
    if (stack::framework::to_string(k) == name) return k;
  throw std::logic_error("unknown group kind " + name);
}

}  // namespace

ResolvedModel resolve_model(const formats::Profile& profile, const ModelOverrides& cli,
                            int world_size, const formats::NodeSpec* node) {
  ResolvedModel r;
  formats::ModelSpec spec = profile.model.value_or(formats::ModelSpec{});
  if (!cli.layout.empty()) {
    try {
      spec.layout = stack::framework::parse_layout(cli.layout, world_size);
    } catch (const stack::framework::LayoutError& e) {
      throw compat::InputError("--layout", 0, 0, "", e.what());
    }
  }
  if (cli.steps) {
    if (*cli.steps < 1 || *cli.steps > 100000)
      throw compat::InputError("--steps", 0, 0, "",
                               "must be in [1, 100000], got " + std::to_string(*cli.steps));
    spec.steps = *cli.steps;
  }
  // The default batch (16 sequences in 2 micro-batches) splits over 1, 2, 4
  // and 8 replicas only: unless the profile sets it, every replica gets a
  // whole number of sequences per micro-batch, at least 16 in all.
  if (!spec.batch_set) {
    const int dp = spec.layout ? spec.layout->dp : world_size;
    const int per = std::max(1, dp) * spec.size.micro_batches;
    spec.size.batch = per * ((16 + per - 1) / per);
  }
  // A layout from the command line is blamed on --layout, one from the
  // profile on its file and line.
  r.options.layout = cli.layout.empty() ? resolve_layout(spec, world_size, profile.source)
                                        : resolve_layout(spec, world_size, "--layout", 0);
  if (!cli.backend.empty() && !cli.matrix_file.empty())
    throw compat::InputError("--matrix", 0, 0, "", "give --backend or --matrix, not both");
  if (!cli.backend.empty() || !cli.matrix_file.empty()) {
    spec.backend = cli.backend;
    spec.matrix_file = cli.matrix_file;
  }
  if (!spec.matrix_file.empty()) {
    r.matrix = std::make_shared<compat::OpMatrix>(compat::load_op_matrix_file(spec.matrix_file));
  } else {
    // Not owned: built-in matrices live for the whole program.
    r.matrix = std::shared_ptr<const compat::OpMatrix>(&compat::builtin_matrix(spec.backend),
                                                       [](const compat::OpMatrix*) {});
  }
  r.options.matrix = r.matrix.get();
  if (!cli.checkpoint_dir.empty()) {
    if (cli.checkpoint_dir[0] != '/')
      throw compat::InputError("--checkpoint-dir", 0, 0, "",
                               "must be an absolute path, got '" + cli.checkpoint_dir + "'");
    r.options.checkpoint_dir = cli.checkpoint_dir;
    r.checkpoint_source = "--checkpoint-dir";
  } else if (!spec.checkpoint_dir.empty()) {
    r.options.checkpoint_dir = spec.checkpoint_dir;
    r.checkpoint_source = "model.checkpoint.dir";
  } else if (!profile.storage.mounts.empty()) {
    r.options.checkpoint_dir = profile.storage.mounts.front().probe_dir;
    r.checkpoint_source = "storage mount " + profile.storage.mounts.front().path;
  }
  for (const auto& [kind, plane] : spec.group_planes) {
    const std::string field = "model.planes." + kind;
    const auto* a = node ? &node->addresses : nullptr;
    if (!a || !a->count(plane))
      throw compat::InputError(
          profile.source, spec.line, 0, field,
          "plane " + plane + " has no address for " +
              (node ? "node " + node->name : std::string("this host (no profile node)")) +
              " under nodes[].addresses: its links cannot be bound");
    stack::comm::LinkParams links;
    links.plane = plane;
    links.bind_address = a->at(plane);
    links.bind_source = field;
    r.options.group_links[group_kind(kind)] = links;
  }
  r.options.spec = spec;
  return r;
}

}  // namespace hn::probes::model
