#pragma once
// A Dockerfile's (or Containerfile's) environment, as the container it builds
// starts with.
//
//   ENV A=1 B="two words" \      each KEY=VALUE is exported into the image;
//       C=$A                     continuation lines belong to the same ENV;
//   ENV D some value             the legacy form: one key, the rest of the line
//   ARG E=default                a build argument: expands in later lines,
//                                never in the running container's environment
//   RUN echo NCCL_X=1 >> /etc/nccl.conf   a file NCCL reads (nccl_conf_input.h)
//   FROM base AS name            a stage; the image is the last stage, which
//                                keeps the ENV of a stage it builds FROM
//
// $VAR and ${VAR} expand to earlier ENV and ARG values (others: dynamic). A
// setting in a RUN step (export inside a shell command) lasts only for that
// step, and an ENV of a stage the image does not build on never reaches it:
// both become notes at their lines, as does any other line that plainly sets
// a communication variable. Throws compat::InputError (file, line) for an
// unterminated quote in an ENV line.

#include <string>

#include "compat/translate/env_entry.h"

namespace hn::compat::translate {

EnvInput read_dockerfile_text(const std::string& text, const std::string& file);

// True for a path named like a Dockerfile: Dockerfile, Containerfile,
// Dockerfile.<x>, <x>.Dockerfile, <x>.dockerfile.
bool names_dockerfile(const std::string& path);

}  // namespace hn::compat::translate
