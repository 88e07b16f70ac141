# xvfb.sh — sourced by the tests that open windows: xvfb_start SCREEN LOG
# starts a private X server and sets XVFB_DISPLAY (":N") and XPID. Xvfb picks a
# free display number itself (-displayfd), so suites run side by side (make
# test runs two at a time) never take the same one.
xvfb_start() {
    _fd=$(mktemp /tmp/tviz-xvfb-XXXXXX)
    Xvfb -displayfd 3 -screen 0 "$1" -nolisten tcp 3>"$_fd" >"$2" 2>&1 &
    XPID=$!
    for _i in $(seq 1 100); do [ -s "$_fd" ] && break; sleep 0.1; done
    XVFB_DISPLAY=:$(head -n 1 "$_fd")
    rm -f "$_fd"
}
