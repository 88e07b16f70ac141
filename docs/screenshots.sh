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
# the default model: the aligning cross-attention head, and the lesson quoting its numbers
DISPLAY=$D "$TVIZ" --size 1440x900 --keys "C Up 4" --screenshot docs/window.png --quit
DISPLAY=$D "$TVIZ" --model worked-example --size 1440x900 --tgt "$TGT" --keys "D click:600,560" --screenshot docs/window-arithmetic.png --quit
DISPLAY=$D "$TVIZ" --size 1440x900 --lang fa --keys "N" --screenshot docs/window-fa.png --quit
# the trained translator (the default model): a cross-attention head that aligns the words
"$TVIZ" export --stage dec.1.cross_attn.head.3.weights --width 900 -o docs/cross-attention.png
"$TVIZ" export --model worked-example --tgt "$TGT" --stage dec.0.self_attn.head.0.masked --width 900 -o docs/masked-scores.png
"$TVIZ" export --model worked-example --view pe-heatmap --width 900 -o docs/pe-heatmap.png
"$TVIZ" export --model worked-example --view pe-curves --width 900 -o docs/pe-curves.png
# diagrams for Persian and Arabic slides: an arithmetic card and all heads
"$TVIZ" export --lang fa --stage dec.1.cross_attn.head.3.weights --view arithmetic --cell 3,2 --width 900 -o docs/card-fa.png
"$TVIZ" export --lang ar --stage dec.1.cross_attn.head.3.weights --view heads -o docs/heads-ar.png
# the views teachers reach for: attention as lines, the next-token top-k, all heads, every layer and head
"$TVIZ" export --stage dec.1.cross_attn.head.3.weights --view lines --width 900 -o docs/lines.png
"$TVIZ" export --stage enc.0.self_attn.head.0.weights --view lines-heads --width 900 -o docs/lines-heads.png
"$TVIZ" export --stage out.probs --view top-k --tgt "$TGT" --width 1100 -o docs/top-k.png
"$TVIZ" export --stage dec.1.cross_attn.head.3.weights --view heads --width 1100 -o docs/heads.png
"$TVIZ" export --stage dec.1.cross_attn.head.3.weights --view grid --width 1100 -o docs/grid.png
DISPLAY=$D "$TVIZ" --size 1440x900 --keys "C Up 4 V move:930,500" --screenshot docs/window-lines.png --quit
DISPLAY=$D "$TVIZ" --size 1440x900 --lang ar --keys "K" --screenshot docs/window-top-k-ar.png --quit
# watching it learn: the snapshots beside the translator, in the window and as a strip; greedy decoding as a GIF
DISPLAY=$D "$TVIZ" --size 1440x900 --keys "C Up 4 , , , ," --screenshot docs/window-timeline.png --quit
"$TVIZ" export --timeline --stage dec.1.cross_attn.head.3.weights -o docs/timeline.png
"$TVIZ" export --animate decoding --stage dec.1.cross_attn.head.3.weights --size 640x480 --delay 700 -o docs/decoding.gif
# a page of the Persian slide deck
"$TVIZ" export --slides --lang fa -o build/deck-fa.pdf
pdftoppm -png -r 72 -f 175 -l 175 -singlefile build/deck-fa.pdf docs/slide-fa
# what if? the softmax without √d_k on the paper's base sizes (d_k = 64), and the pre-LN Figure 1
"$TVIZ" model init --preset base --seed 1 -o build/base.safetensors >/dev/null
"$TVIZ" export --model build/base.safetensors --without scale --view compare --stage enc.0.self_attn.head.0.weights --width 1400 -o docs/whatif-scale.png
"$TVIZ" export --model en-fa-pre-ln --view architecture --stage enc.0.pre_norm1 --width 700 -o docs/pre-ln.png
"$TVIZ" export --view loss --model en-fa --model en-fa-pre-ln --width 1000 -o docs/loss-pre-ln.png
"$TVIZ" export --view loss --model en-fa --model en-fa-no-mask --model en-fa-no-pe --width 1000 -o docs/loss-whatif.png
DISPLAY=$D "$TVIZ" --size 1440x900 --keys "C W 2" --screenshot docs/window-whatif.png --quit
# the recurrent models: the RNN with attention unrolled in time at its third decoder step; the same sentence
# through both families; held-out accuracy by source length; an LSTM's forget gates for a Persian slide
DISPLAY=$D "$TVIZ" --model rnn-attn-en-fa --size 1440x900 --keys "C ] ] ]" --screenshot docs/window-rnn.png --quit
"$TVIZ" export --view side-by-side --model en-fa --model rnn-attn-en-fa --width 1400 -o docs/side-by-side.png
"$TVIZ" export --view compare-length --model en-fa --model lstm-en-fa --model rnn-attn-en-fa --width 1000 -o docs/compare-length.png
"$TVIZ" export --lang fa --model lstm-en-fa --stage enc.1.f --width 1000 -o docs/lstm-forget-fa.png
# the browser build (make web) in headless chromium: the picture its own test takes
node tests/web/web_test.mjs "$TVIZ" build/web build/web-test >/dev/null
cp build/web-test/web-fa.png docs/browser-fa.png
echo "docs: pictures remade"
