// hnprecheck-docgen: writes the man page and the bash completion from the
// command table that `hnprecheck --help` prints. Run by the build; not
// installed.
//   hnprecheck-docgen MAN_PAGE_OUT BASH_COMPLETION_OUT
#include <fstream>
#include <iostream>

#include "preflight/bash_completion.h"
#include "preflight/command_docs.h"
#include "preflight/man_page.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: hnprecheck-docgen MAN_PAGE_OUT BASH_COMPLETION_OUT\n";
    return 2;
  }
  namespace pf = hn::preflight;
  const auto docs = pf::command_docs();
  std::ofstream man(argv[1]), completion(argv[2]);
  man << pf::render_man_page(docs, pf::tool_version(), pf::main_exit_codes());
  completion << pf::render_bash_completion(docs);
  man.close();
  completion.close();
  if (!man || !completion) {
    std::cerr << "hnprecheck-docgen: could not write " << argv[1] << " or " << argv[2] << "\n";
    return 3;
  }
  return 0;
}
