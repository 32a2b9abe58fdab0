#include "preflight/cli.h"

int main(int argc, char** argv) {
  return hn::preflight::run_cli(argc, argv);
}
