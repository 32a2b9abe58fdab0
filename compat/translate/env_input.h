#pragma once
// The one entry point for translation inputs: a file in any supported format
// (env file, shell/Slurm script, Kubernetes manifest) or the process
// environment. Every entry keeps its file and line.
//
// Format detection (kAuto): *.yaml/*.yml/*.json, or text that starts with
// apiVersion:/kind:/---, is a manifest (any YAML with environments, see
// k8s_input.h); *.env is a strict env file; anything
// else is read as a shell script (an env file is also a valid script).
// Throws compat::InputError for an unreadable file or malformed content.

#include <string>
#include <vector>

#include "compat/translate/env_entry.h"

namespace hn::compat::translate {

enum class InputFormat { kAuto, kEnvFile, kScript, kManifest, kNcclConf, kDockerfile };

// "auto", "env", "script", "k8s", "nccl-conf", "dockerfile"; throws InputError
// naming the choices.
InputFormat input_format_from_string(const std::string& s);
InputFormat detect_format(const std::string& path, const std::string& text);

// The whole reading (settings, notes, framework flags); a file in which
// nothing was recognised is listed in EnvInput::empty_files.
EnvInput parse_env_input_full(const std::string& text, const std::string& file, InputFormat format);
EnvInput read_env_input_full(const std::string& path, InputFormat format);
// The settings only.
std::vector<EnvEntry> parse_env_input(const std::string& text, const std::string& file,
                                      InputFormat format);
std::vector<EnvEntry> read_env_input(const std::string& path, InputFormat format);
// envp as in main() / environ; file is "environment", line 0.
std::vector<EnvEntry> entries_from_environment(char** envp);

}  // namespace hn::compat::translate
