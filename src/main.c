// main.c — reads the command line: a subcommand goes to src/cli; none opens
// the window (src/app), with options such as --model and --src.
#include "app/app.h"
#include "cli/cli.h"
#include "model/tf.h"

#include <stdio.h>
#include <stdlib.h>

// Out of memory anywhere (TF_OOM): one line that says where, then status 1.
static void out_of_memory(const char *file, int line) {
    fprintf(stderr, "tviz: %s:%d: out of memory; close other programs or use a smaller model\n", file, line);
    exit(1);
}

int main(int argc, char **argv) {
    tf_set_oom_handler(out_of_memory);
    cli_find_data(); // lessons and translations, beside the program or installed
    if (argc > 1 && (cli_is_command(argv[1]) || argv[1][0] != '-')) return cli_main(argc, argv);
    return app_main(argc, argv);
}
