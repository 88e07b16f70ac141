#!/bin/sh
# install_test.sh — make install into a temporary DESTDIR; the installed tviz
# run from another folder finds its models, lessons and translations beside
# itself (also when the tree is moved, or through TVIZ_DATA_DIR), agrees with
# the checkout's build, and names no folder the user did not type; the window
# under Xvfb; the desktop entry, AppStream metainfo, man page and icons
# validated; then make uninstall leaves no file behind.
# Usage (from the checkout): TVIZ=build/tviz [MAKE=make] sh tests/install_test.sh
TVIZ=${TVIZ:-build/tviz}
MAKE=${MAKE:-make}
CHECKOUT=$(pwd)
TVIZ=$(cd "$(dirname "$TVIZ")" && pwd)/$(basename "$TVIZ")
APP=io.github.tviz.tviz
T=$(mktemp -d /tmp/tviz-install-XXXXXX)
D=$T/dest
P=/usr/local
I=$D$P/bin/tviz
E=$T/elsewhere # where the installed tviz is run: neither the checkout nor its tree
mkdir -p "$E"
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
XPID=
trap '[ -n "$XPID" ] && kill $XPID 2>/dev/null; rm -rf "$T"' EXIT
# nothing in the environment points tviz at the checkout
unset TVIZ_DATA_DIR TVIZ_ASSETS TVIZ_LESSONS TVIZ_LOCALE
start=$(date +%s)

# the width and height of a PNG, from its IHDR
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $3*256+$4 "x" $7*256+$8}'; }
# no absolute folder the user did not type: not the install tree, not the checkout
no_paths() { # FILE WHAT
    if grep -a -q -e "$D" -e "$CHECKOUT" -e "$P/share" "$1"; then bad "$2 names a folder: $(grep -a -o -m1 -e "$D[^ \"<]*" -e "$CHECKOUT[^ \"<]*" -e "$P/share[^ \"<]*" "$1" | head -1)"; else ok; fi
}

# ---- make install puts every file in Debian's layout
$MAKE -s install DESTDIR="$D" >"$T/install.log" 2>&1 || { bad "make install DESTDIR=$D failed:"; cat "$T/install.log"; }
[ -x "$I" ] && ok || bad "no executable $P/bin/tviz"
n=0
for f in assets/models/*.safetensors assets/models/*.snapshots/*.safetensors lessons/*/*; do
    to=$D$P/share/tviz/${f#assets/}
    cmp -s "$f" "$to" && n=$((n + 1)) || bad "$f is not installed as ${to#$D}"
done
[ "$n" -ge 12 ] && ok || bad "only $n data files installed"
for po in po/*.po; do
    l=$(basename "$po" .po)
    cmp -s "build/locale/$l/LC_MESSAGES/tviz.mo" "$D$P/share/locale/$l/LC_MESSAGES/tviz.mo" && ok || bad "the $l translation is not in share/locale"
done
for f in share/man/man1/tviz.1 share/applications/$APP.desktop share/metainfo/$APP.metainfo.xml share/icons/hicolor/scalable/apps/$APP.svg; do
    [ -s "$D$P/$f" ] && ok || bad "$P/$f is missing"
done
for s in 16 24 32 48 64 128 256 512; do
    f=$D$P/share/icons/hicolor/${s}x$s/apps/$APP.png
    [ "$(png_size "$f")" = "${s}x$s" ] && ok || bad "icon ${s}x$s: $(png_size "$f" 2>&1)"
done
# the icon is a heatmap, not a blank square: many colours, the diagonal's yellow top-left cell
[ "$(convert "$D$P/share/icons/hicolor/256x256/apps/$APP.png" -format %k info:)" -gt 8 ] && ok || bad "the 256 px icon has few colours"
rsvg-convert -w 64 "$D$P/share/icons/hicolor/scalable/apps/$APP.svg" -o "$T/svg.png" && [ "$(png_size "$T/svg.png")" = 64x64 ] && ok ||
    bad "the SVG icon does not render"
# no folder of the checkout compiled in (debug information aside: it names the sources)
objcopy --strip-debug "$I" "$T/stripped" && ! grep -a -q "$CHECKOUT" "$T/stripped" && ok || bad "the installed tviz names $CHECKOUT"

# ---- the installed tviz, run from another folder, finds its data beside itself
want=$("$TVIZ" translate "She reads the book")
[ "$want" = "او کتاب را می‌خواند" ] && ok || bad "the checkout's tviz translates: $want"
got=$(cd "$E" && "$I" translate "She reads the book" 2>"$T/err")
[ "$got" = "$want" ] && ok || bad "installed translate: '$got' ($(cat "$T/err"))"
(cd "$E" && "$I" export --stage enc.0.self_attn.head.0.weights --width 640 -o attn.png) 2>"$T/err"
sz=$(png_size "$E/attn.png" 2>/dev/null)
[ "${sz%x*}" = 640 ] && [ "${sz#*x}" -gt 200 ] && ok || bad "installed export: $sz $(cat "$T/err")"
"$TVIZ" export --stage enc.0.self_attn.head.0.weights --width 640 -o "$T/attn-checkout.png" 2>/dev/null
cmp -s "$E/attn.png" "$T/attn-checkout.png" && ok || bad "the installed export differs from the checkout's"
(cd "$E" && "$I" model info worked-example) >"$T/out" 2>&1
[ "$(head -1 "$T/out")" = "worked-example (shipped with tviz)" ] && grep -q "parameters: 496" "$T/out" && ok || bad "model info: $(head -2 "$T/out")"
no_paths "$T/out" "model info"
nl=$(ls lessons/*/*.md | wc -l) # every lesson of every language, installed
(cd "$E" && "$I" lesson check) >"$T/out" 2>&1 && grep -q "lesson check: 3 languages, $nl files, .* 0 problems" "$T/out" && ok || bad "lesson check: $(tail -3 "$T/out")"
no_paths "$T/out" "lesson check"
(cd "$E" && "$I" export --lesson inside-transformer --lang fa -o handout.pdf) 2>"$T/err" &&
    [ "$(pdfinfo "$E/handout.pdf" | sed -n 's/^Pages: *//p')" -gt 2 ] && ok || bad "installed handout: $(cat "$T/err")"
grep -q "^tviz: wrote handout.pdf" "$T/err" && ok || bad "handout message: $(cat "$T/err")"
no_paths "$T/err" "the handout's message"

# ---- what it writes and says names models and lessons as the user did
(cd "$E" && "$I" export --model worked-example --all -o slides) 2>"$T/err" && [ -s "$E/slides/index.html" ] && ok || bad "export --all: $(cat "$T/err")"
grep -q "Model <code>worked-example</code>" "$E/slides/index.html" && ok || bad "the index does not name the model as given"
no_paths "$E/slides/index.html" "export --all's index.html"
no_paths "$T/err" "export --all's message"
(cd "$E" && "$I" trace --model worked-example -o t.json) 2>"$T/err" && grep -q '"format": *"tviz-trace/1"' "$E/t.json" && ok || bad "trace: $(cat "$T/err")"
no_paths "$E/t.json" "the trace"
(cd "$E" && "$I" walk --model worked-example --stage src.pe --no-pause) >"$T/out" 2>&1
head -1 "$T/out" | grep -q "^tviz walk — worked-example: d_model 4" && ok || bad "walk: $(head -1 "$T/out")"
no_paths "$T/out" "walk"
(cd "$E" && "$I" trace --model nosuch) >/dev/null 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "^tviz: nosuch: no such model file or shipped model; the shipped ones are en-fa, .*worked-example," "$T/err" && ok ||
    bad "a missing model: $rc $(cat "$T/err")"
no_paths "$T/err" "the missing model's message"
(cd "$E" && "$I" export --lesson nosuch -o x.pdf) >/dev/null 2>"$T/err"
grep -q "^tviz: lessons/en/nosuch.md: no such lesson" "$T/err" && ok || bad "a missing lesson: $(cat "$T/err")"
no_paths "$T/err" "the missing lesson's message"

# ---- a moved tree still finds its data; a lone copy says what to do; TVIZ_DATA_DIR
cp -a "$D$P" "$T/moved"
[ "$(cd "$E" && "$T/moved/bin/tviz" translate "She reads the book")" = "$want" ] && ok || bad "a moved install does not translate"
mkdir -p "$T/lone" && cp "$I" "$T/lone/tviz"
(cd "$E" && "$T/lone/tviz" translate "She reads the book") >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" = 1 ] &&
    grep -q "^tviz: en-fa: not found: .*; give a .safetensors file, set TVIZ_DATA_DIR or reinstall$" "$T/err" && ok || bad "a lone tviz: $rc $(cat "$T/err")"
(cd "$E" && "$T/lone/tviz" lesson check) >/dev/null 2>"$T/err"
grep -q "^tviz: lessons: not found (../share/tviz/lessons beside the program); set TVIZ_DATA_DIR or reinstall" "$T/err" && ok || bad "a lone lesson check: $(cat "$T/err")"
[ "$(cd "$E" && TVIZ_DATA_DIR=$T/moved/share/tviz "$T/lone/tviz" translate "She reads the book")" = "$want" ] && ok || bad "TVIZ_DATA_DIR is not used"
(cd "$E" && TVIZ_DATA_DIR=$T/nowhere "$I" translate hi) >/dev/null 2>"$T/err"
grep -q "no shipped models (TVIZ_DATA_DIR/models)" "$T/err" && ok || bad "TVIZ_DATA_DIR naming no folder: $(cat "$T/err")"

# ---- the window, under Xvfb: the installed lessons and Persian interface, a screenshot, Ctrl+S
. "$(dirname "$0")/xvfb.sh"
xvfb_start 1280x800x24 "$T/xvfb.log"
DPY=$XVFB_DISPLAY
(cd "$E" && DISPLAY=$DPY timeout 120 "$I" --size 800x600 --lang fa --keys "C" --screenshot shot.png --report --quit) >"$T/out" 2>"$T/err" ||
    bad "the installed window did not open: $(cat "$T/err")"
[ "$(png_size "$E/shot.png")" = 800x600 ] && ok || bad "screenshot size $(png_size "$E/shot.png" 2>&1)"
[ "$(convert "$E/shot.png" -format %k info:)" -gt 100 ] && ok || bad "the screenshot is (nearly) blank"
grep -q "^ui_next=بعدی$" "$T/out" && grep -q "^lang=fa$" "$T/out" && ok || bad "no Persian interface: $(grep '^ui_next\|^lang' "$T/out")"
[ "$(sed -n 's/^panel=//p' "$T/out" | wc -c)" -gt 200 ] && ok || bad "no lesson beside the stage"
grep -q "^stage=dec.0.cross_attn.head.0.weights " "$T/out" && ok || bad "C: $(head -1 "$T/out")"
no_paths "$T/out" "the window's report"
(cd "$E" && DISPLAY=$DPY timeout 120 "$I" --size 800x600 --keys "C Ctrl+S" --report --quit) >"$T/out" 2>"$T/err"
grep -q "^message=Saved tviz-dec.0.cross_attn.head.0.weights.png ([0-9]* × [0-9]*)$" "$T/out" && [ -s "$E/tviz-dec.0.cross_attn.head.0.weights.png" ] && ok ||
    bad "Ctrl+S: $(grep '^message' "$T/out") $(ls "$E")"
kill $XPID 2>/dev/null; XPID=

# ---- the desktop entry, metainfo and man page pass their validators, and agree
desktop-file-validate "$D$P/share/applications/$APP.desktop" >"$T/out" 2>&1 && [ ! -s "$T/out" ] && ok || bad "desktop-file-validate: $(cat "$T/out")"
grep -q "^Exec=tviz$" "$D$P/share/applications/$APP.desktop" && grep -q "^Icon=$APP$" "$D$P/share/applications/$APP.desktop" && ok || bad "the desktop entry's Exec or Icon"
appstreamcli validate --no-net --pedantic "$D$P/share/metainfo/$APP.metainfo.xml" >"$T/out" 2>&1 && ok || bad "appstreamcli validate: $(cat "$T/out")"
# (the tree as a whole: the metainfo, its desktop entry and icon found together)
appstreamcli validate-tree --no-net "$D$P" >"$T/out" 2>&1 && ! grep -q "no-metadata-found" "$T/out" && ok || bad "appstreamcli validate-tree: $(cat "$T/out")"
grep -q "<launchable type=\"desktop-id\">$APP.desktop</launchable>" "$D$P/share/metainfo/$APP.metainfo.xml" && ok || bad "the metainfo does not launch the desktop entry"
version=$("$I" --version | sed 's/^tviz //')
grep -q "^\.TH TVIZ 1 \"[0-9-]*\" \"tviz $version\"" "$D$P/share/man/man1/tviz.1" && ok || bad "the man page is not of tviz $version"
grep -q "<release version=\"$version\"" "$D$P/share/metainfo/$APP.metainfo.xml" && ok || bad "the metainfo has no release $version"
head -1 debian/changelog | grep -q "^tviz ($version)" && ok || bad "debian/changelog is not at $version: $(head -1 debian/changelog)"
LC_ALL=C.UTF-8 MANWIDTH=120 man --warnings -E UTF-8 -l "$D$P/share/man/man1/tviz.1" >"$T/man.txt" 2>"$T/err" && [ ! -s "$T/err" ] && ok || bad "man: $(head -5 "$T/err")"
# every option of every help is in the man page, and every command has its section
"$I" --help >"$T/help"
for c in trace walk export model lesson corpus train translate eval icon; do "$I" $c --help >>"$T/help"; done
"$I" --quit --help >>"$T/help"
opts=$(grep -o -- '--[a-z][a-z0-9-]*' "$T/help" | sort -u)
[ "$(echo "$opts" | wc -l)" -gt 40 ] && ok || bad "only $(echo "$opts" | wc -l) options in the helps"
for o in $opts; do grep -q -- "$o\b" "$T/man.txt" || bad "the man page lacks $o"; done
for c in trace walk export model lesson corpus train translate eval icon; do grep -q "^   tviz $c" "$T/man.txt" || bad "the man page has no section for tviz $c"; done
ok

# ---- make uninstall leaves no file behind
$MAKE -s uninstall DESTDIR="$D" >"$T/uninstall.log" 2>&1 || bad "make uninstall failed: $(cat "$T/uninstall.log")"
left=$(find "$D" ! -type d | head -5)
[ -z "$left" ] && ok || bad "left after make uninstall: $left"

echo "install: $pass passed, $fail failed ($(($(date +%s) - start)) s)"
[ "$fail" = 0 ]
