#include "preflight/commands/commands.h"

namespace hn::preflight {

const std::vector<Command>& command_table() {
  static const std::vector<Command> table = {
      commands::node(),      commands::snapshot(),    commands::diff(),  commands::ops(),
      commands::translate(), commands::consistency(), commands::bench(), commands::certify(),
      commands::gate(), commands::migrate(),
  };
  return table;
}

const char* tool_version() {
  return HN_VERSION;
}

}  // namespace hn::preflight
