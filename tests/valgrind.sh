#!/bin/sh
# valgrind.sh TVIZ — a short scripted window run (and a trace) under
# valgrind's memcheck on a private Xvfb: no invalid reads or writes, no use
# of uninitialised memory, no definite leak outside the font and window
# libraries' own caches (tests/valgrind.supp). SDL's software renderer keeps
# Mesa (whose drivers are unloaded at exit, hiding their stacks) out of it.
TVIZ=${1:-build/tviz}
TVIZ=$(cd "$(dirname "$TVIZ")" && pwd)/$(basename "$TVIZ")
SUPP=$(cd "$(dirname "$0")" && pwd)/valgrind.supp
T=$(mktemp -d /tmp/tviz-vg-XXXXXX)
. "$(dirname "$0")/xvfb.sh"
xvfb_start 1280x800x24 "$T/xvfb.log"
D=$XVFB_DISPLAY
trap 'kill $XPID 2>/dev/null; rm -rf "$T"' EXIT
VG="valgrind --keep-debuginfo=yes --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --num-callers=30 --suppressions=$SUPP"
rc=0
cd "$T" || exit 1
# shellcheck disable=SC2086
$VG "$TVIZ" trace --tgt "من واقعاً" -o trace.json >trace.log 2>&1 || { rc=1; tail -40 trace.log; }
echo "valgrind: tviz trace: $(grep -o 'ERROR SUMMARY: .*' trace.log | tail -1); $(grep -o 'definitely lost: .*' trace.log | tail -1)"
# shellcheck disable=SC2086
DISPLAY=$D SDL_RENDER_DRIVER=software timeout 900 $VG "$TVIZ" --size 1000x700 \
    --keys "Right Right C 2 move:500,400 click:500,400 wheel:1 Tab End type:_today Return Shift+Tab type:_من Return L Q Q = F P H [ ] resize:800x600 E" \
    --quit >window.log 2>&1 || { rc=1; grep -A30 'ERROR SUMMARY\|Invalid\|uninitialised\|definitely lost in' window.log | head -80; }
echo "valgrind: the window: $(grep -o 'ERROR SUMMARY: .*' window.log | tail -1); $(grep -o 'definitely lost: .*' window.log | tail -1)"
exit $rc
