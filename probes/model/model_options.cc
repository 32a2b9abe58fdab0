#include "probes/model/model_options.h"

#include "compat/builtin_ops.h"
#include "compat/input_error.h"

namespace hn::probes::model {

ResolvedModel resolve_model(const Profile& profile, const ModelOverrides& cli, int world_size) {
  ResolvedModel r;
  ModelSpec spec = profile.model.value_or(ModelSpec{});
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
  r.options.spec = spec;
  return r;
}

}  // namespace hn::probes::model
