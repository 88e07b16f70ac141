#!/bin/sh
# screenshots.sh — remakes the README's pictures with tviz itself: the window
# under Xvfb (scripted keys, --screenshot) and `tviz export`.
# Usage: sh docs/screenshots.sh [build/tviz]   (run from the repository root)
set -e
TVIZ=${1:-build/tviz}
TGT="من واقعاً از یادگیری ترنسفورمرها لذت می‌برم"
D=:89
Xvfb $D -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
XPID=$!
trap 'kill $XPID 2>/dev/null' EXIT
sleep 1
DISPLAY=$D "$TVIZ" --size 1440x900 --tgt "$TGT" --keys "C 2 move:640,420" --screenshot docs/window.png --quit
DISPLAY=$D "$TVIZ" --size 1440x900 --tgt "$TGT" --keys "D click:600,560" --screenshot docs/window-arithmetic.png --quit
DISPLAY=$D "$TVIZ" --size 1440x900 --lang fa --tgt "$TGT" --keys "Right" --screenshot docs/window-fa.png --quit
"$TVIZ" export --tgt "$TGT" --stage dec.0.cross_attn.head.1.weights --width 900 -o docs/cross-attention.png
"$TVIZ" export --tgt "$TGT" --stage dec.0.self_attn.head.0.masked --width 900 -o docs/masked-scores.png
"$TVIZ" export --view pe-heatmap --width 900 -o docs/pe-heatmap.png
"$TVIZ" export --view pe-curves --width 900 -o docs/pe-curves.png
echo "docs: pictures remade"
