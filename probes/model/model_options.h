#pragma once
// From the profile's `model:` section and the command line to the options
// of run_model_phase(): what certify's model phase (and bench/model_step)
// call before any rank talks to another.
//
// Precedence: a command-line value, else the profile's model section, else
// the defaults of formats/model_spec.h. The layout is resolved against the
// world (absent: every rank a data-parallel replica); the operator matrix
// is a built-in backend or a matrix file; the checkpoint directory is
// --checkpoint-dir, else model.checkpoint.dir, else the first storage
// mount's probe_dir, else none (the checkpoint findings are SKIPs that say
// so). Throws compat::InputError naming the option or profile field and the
// numbers (exit 2 in the CLI).

#include <memory>
#include <optional>
#include <string>

#include "compat/op_matrix.h"
#include "formats/profile.h"
#include "probes/model/model_phase.h"

namespace hn::probes::model {

struct ModelOverrides {
  std::string layout;          // --layout "tp=2,pp=2,dp=2"
  std::optional<int> steps;    // --steps N
  std::string checkpoint_dir;  // --checkpoint-dir DIR
  std::string backend;         // --backend NAME
  std::string matrix_file;     // --matrix FILE
};

struct ResolvedModel {
  ModelPhaseOptions options;
  std::shared_ptr<const compat::OpMatrix> matrix;  // owns options.matrix when it is a file
  std::string checkpoint_source;  // "--checkpoint-dir", "model.checkpoint.dir", "storage mount", ""
};

// `node` is this host's profile entry (probes/node_context.h), needed only
// when model.planes puts a group on a plane: the group's links bind to the
// node's address on it (nodes[].addresses), and a node without one is an
// InputError naming the plane and the node.
ResolvedModel resolve_model(const formats::Profile& profile, const ModelOverrides& cli,
                            int world_size, const formats::NodeSpec* node = nullptr);

}  // namespace hn::probes::model
