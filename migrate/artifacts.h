#pragma once
// The files `migrate --out-dir DIR` writes: the translated environment (an
// env file, as `translate --out` writes it) and a copy of the launch script
// with the environment changes applied, every change commented.
//
// In the copy of the script, a line that only assigns variables (`export
// NCCL_IB_TC=106`, `A=1 B=2`) is replaced: the original stays as a comment and
// each variable becomes its translation (`export HCCL_RDMA_TC=104  #
// hnprecheck migrate: from NCCL_IB_TC=106, converted`), a comment saying why
// it was dropped or needs review, or itself when it holds as it is. Other
// lines (a variable set as a prefix of a command, a value spanning lines) are
// never edited; the translated values they would have set, and the values
// added by cross-variable rules, go into one block before the first command.
// `header` starts with "hnprecheck migrate"; every generated file carries it
// as a comment in its first two lines.
//
// Every file ends with a seal (seal_artifact): a comment holding the FNV-1a
// 64-bit checksum of the lines above it, so a re-run can tell its own output
// from one edited by hand since.
//
// Never overwrites the user's files: check_artifact_paths() refuses (compat::
// InputError, exit 2, before any work) a path that is one of the job's inputs,
// an existing file that hnprecheck migrate did not write, one it wrote that
// was edited since (its seal no longer matches), a link that is not
// ours or root's (anywhere on the path), and a directory of another user that
// every user may write in.

#include <string>
#include <vector>

#include "compat/translate/translator.h"

namespace hn::migrate {

inline constexpr const char* kArtifactMarker = "hnprecheck migrate";

// The job keeps this setting as it is on the target: the same name with the
// same value (or a value computed at run time that stays in the script).
bool unchanged_setting(const compat::translate::VarResult& v);

// For an NPU target (npu = true) the copy also moves the job off its GPUs:
// `#SBATCH --gres=gpu:N` becomes `--gres=npu:N` (the GRES name is the
// cluster's: gres.conf), GPU-only options (--gpus*, --gpu-bind,
// --mem-per-gpu, --cpus-per-gpu) become `##SBATCH` (which sbatch skips),
// and lines that only assign CUDA_VISIBLE_DEVICES or PYTORCH_CUDA_ALLOC_CONF
// get torch_npu's ASCEND_RT_VISIBLE_DEVICES / PYTORCH_NPU_ALLOC_CONF, while
// an LD_PRELOAD of libnccl is commented out; the header lists each change.
std::string render_migrated_script(const std::string& text, const std::string& file,
                                   const compat::translate::Translation& t,
                                   const std::string& header, bool npu = false);

// `content` with its seal appended; artifact_sealed() is true when a text
// ends with a seal that matches the lines above it.
std::string seal_artifact(const std::string& content);
bool artifact_sealed(const std::string& text);

// "<dir>/<job>.<to>.env" and "<dir>/<stem>.migrated<ext>" (train.sbatch ->
// train.migrated.sbatch).
std::string env_artifact_path(const std::string& dir, const std::string& job,
                              const std::string& to);
std::string script_artifact_path(const std::string& dir, const std::string& script);

// Creates `dir` when it is missing (its parent must exist; a link in its
// place is not followed) and checks every path as above. Throws
// compat::InputError (field "--out-dir").
void check_artifact_paths(const std::string& dir, const std::vector<std::string>& paths,
                          const std::vector<std::string>& inputs);

}  // namespace hn::migrate
