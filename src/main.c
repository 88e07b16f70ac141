// main.c — reads the command line: a subcommand goes to src/cli; none opens
// the window (src/app), with options such as --model and --src.
#include "app/app.h"
#include "cli/cli.h"

int main(int argc, char **argv) {
    cli_find_data(); // lessons and translations, beside the program or installed
    if (argc > 1 && (cli_is_command(argv[1]) || argv[1][0] != '-')) return cli_main(argc, argv);
    return app_main(argc, argv);
}
