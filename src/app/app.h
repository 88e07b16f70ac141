// app.h — the window. app_main reads the same options as the other commands
// (--model, --src, --tgt) plus the window's own; returns the exit status.
#ifndef APP_H
#define APP_H

int app_main(int argc, char **argv);

#endif
