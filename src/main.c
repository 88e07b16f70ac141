// main.c — reads the command line: a subcommand goes to src/cli; none steps
// through the default model and sentence (in the terminal until the window lands).
#include "cli/cli.h"

int main(int argc, char **argv) {
    if (argc > 1 && (cli_is_command(argv[1]) || argv[1][0] != '-')) return cli_main(argc, argv);
    // No subcommand: options such as --model and --src apply to the walk.
    return cmd_walk(argc, argv);
}
