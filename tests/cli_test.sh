#!/bin/sh
# cli_test.sh — tviz as a user runs it: good runs, and every bad input giving
# one clear line on stderr, a non-zero exit, no crash and no half-written file.
# Usage: TVIZ=build/tviz sh tests/cli_test.sh
TVIZ=${TVIZ:-build/tviz}
T=$(mktemp -d /tmp/tviz-cli-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_error NAME PHRASE CMD...: exit 1, exactly one stderr line "tviz: …" containing PHRASE.
expect_error() {
    name=$1 phrase=$2; shift 2
    "$@" >"$T/out" 2>"$T/err"; rc=$?
    lines=$(wc -l <"$T/err")
    if [ "$rc" -ne 1 ]; then bad "$name: exit $rc (want 1)"; cat "$T/err"; return; fi
    if [ "$lines" -ne 1 ]; then bad "$name: $lines lines on stderr (want 1)"; cat "$T/err"; return; fi
    if ! grep -q '^tviz: ' "$T/err"; then bad "$name: stderr does not start with 'tviz: '"; cat "$T/err"; return; fi
    if ! grep -qF -- "$phrase" "$T/err"; then bad "$name: stderr lacks \"$phrase\": $(cat "$T/err")"; return; fi
    ok
}

# expect_ok NAME CMD...: exit 0.
expect_ok() {
    name=$1; shift
    if "$@" >"$T/out" 2>"$T/err"; then ok; else bad "$name: exit $? — $(cat "$T/err")"; fi
}

S="I really enjoy learning transformers"

# ---- good runs
expect_ok "help" "$TVIZ" --help
grep -q "tviz trace" "$T/out" || bad "help does not list trace"
expect_ok "version" "$TVIZ" --version
grep -q "^tviz [0-9]" "$T/out" || bad "version prints no version"
expect_ok "trace to stdout" "$TVIZ" trace --model worked-example --src "$S"
head -c 40 "$T/out" | grep -q '{"format":"tviz-trace/1"' || bad "trace JSON does not start with its format"
[ "$(grep -o '"id":"' "$T/out" | wc -l)" -eq 67 ] || bad "worked example trace has $(grep -o '"id":"' "$T/out" | wc -l) stages, want 67"
grep -q '"id":"src.pe","title":"Positional encoding"' "$T/out" || bad "trace lacks src.pe"
# each stage's identity as fields, beside its id
grep -q '"id":"dec.0.cross_attn.head.1.weights","title":"Attention weights","formula":"[^"]*","kind":"probabilities","family":"transformer","side":"decoder","layer":0,"sublayer":"cross_attn","op":"weights","index":null,"head":1,"step":null' "$T/out" || bad "trace lacks the fields of dec.0.cross_attn.head.1.weights"
grep -q '"id":"enc.0.norm2",[^{]*"side":"encoder","layer":0,"sublayer":"add_norm","op":"norm","index":2,"head":null' "$T/out" || bad "trace lacks the fields of enc.0.norm2"
grep -q '\[0.9092974,-0.41614684,0.019998666,0.9998\]' "$T/out" || bad "src.pe row 2 is not the slides' 0.90930 -0.41615 0.02000 0.99980"
grep -q '"id":"src.input".*"data":\[\[0.1,1.3,0.4,1.8\],\[1.7414709,0.6403023,0.5099998,1.19995\]' "$T/out" || bad "src.input rows 0-1 are not E + PE (0.1 1.3 0.4 1.8 / 1.74 0.64 0.51 1.20)"
grep -q 'null' "$T/out" || bad "the decoder's masked scores are not written as null"
grep -q '"norm_first":0},"without":\[\]' "$T/out" || bad "trace: config lacks norm_first 0 or the empty without list"
# what if? parts switched off: listed in the trace, the stages say so, the numbers change
expect_ok "trace --without" "$TVIZ" trace --model worked-example --src "$S" --without "pe, mask"
grep -q '"without":\["pe","mask"\]' "$T/out" || bad "trace --without pe,mask: \"without\" does not list them"
grep -q '"id":"src.pe","title":"Positional encoding (switched off)"' "$T/out" || bad "trace --without pe: src.pe's title does not say so"
grep -q '"id":"src.pe",[^{]*"data":\[\[0,0,0,0\]' "$T/out" || bad "trace --without pe: src.pe is not zero"
grep -q '[[,]null[],]' "$T/out" && bad "trace --without mask: a score is still masked (null)"
expect_ok "walk --without" "$TVIZ" walk --model worked-example --src "$S" --without scale --stage 'enc.0.self_attn.head.0.scaled' --no-pause
grep -q "what if: without scale" "$T/out" || bad "walk --without scale does not say so"
grep -q "Scores, not scaled" "$T/out" || bad "walk --without scale: the scaled stage's title does not say so"
expect_ok "translate --without" "$TVIZ" translate --model tests/fixtures/multihead.safetensors --without residual "the white house falls"
expect_ok "eval --without" "$TVIZ" eval --model tests/fixtures/multihead.safetensors --without pe,scale tests/fixtures/everyday.tsv
grep -q "without pe,scale on" "$T/out" || bad "eval --without does not say which parts are off"
# a pre-LN model (norm_first): its own stage ids for the norms before the sublayers
expect_ok "trace pre-LN" "$TVIZ" trace --model tests/fixtures/prenorm.safetensors --src "a green car runs"
grep -q '"norm_first":1' "$T/out" || bad "trace of a pre-LN model: config lacks norm_first 1"
grep -q '"id":"enc.0.pre_norm1",[^{]*"sublayer":"pre_norm","op":"norm","index":1' "$T/out" || bad "trace of a pre-LN model lacks enc.0.pre_norm1 and its fields"
grep -q '"id":"dec.1.pre_norm3"' "$T/out" || bad "trace of a pre-LN model lacks dec.1.pre_norm3"
grep -q '"id":"enc.0.norm1"' "$T/out" && bad "trace of a pre-LN model has a post-LN enc.0.norm1"
expect_ok "trace to file" "$TVIZ" trace --src "$S" --tgt "من واقعاً" -o "$T/t.json"
grep -q '"tgt_tokens":\["<bos>","من","واقعاً"\]' "$T/t.json" || bad "trace -o: target tokens wrong"
expect_ok "unknown word" "$TVIZ" trace --model worked-example --src "I really enjoy quantum physics" -o "$T/unk.json"
grep -q '"src_tokens":\["I","really","enjoy","<unk>","<unk>"[],]' "$T/unk.json" || bad "unknown words are not <unk> in the trace"
grep -q '"quantum" is not in the source vocabulary' "$T/err" || bad "no note about the unknown word"
expect_ok "a word never seen, in pieces" "$TVIZ" trace --src "I really enjoy quantum physics" -o "$T/pieces.json"
grep -q '"src_tokens":\["I","really",[^]]*@@' "$T/pieces.json" || bad "the translator does not split a word it never saw into pieces: $(grep -o '"src_tokens":[^]]*' "$T/pieces.json")"
grep -q '"src_tokens":[^]]*<unk>' "$T/pieces.json" && bad "the translator reads a piece as <unk>"
expect_ok "walk" "$TVIZ" walk --model worked-example --no-pause
[ "$(grep -c '^\[[0-9]*/67\]' "$T/out")" -eq 67 ] || bad "walk did not print 67 stages"
grep -q "0.9093  *-0.4161  *0.0200  *0.9998" "$T/out" || bad "walk does not show the slides' PE row"
expect_ok "walk one stage" "$TVIZ" walk --stage 'dec.0.cross_attn.head.1.weights' --tgt "من"
[ "$(grep -c '^\[' "$T/out")" -eq 1 ] || bad "walk --stage printed other stages"
printf '\nb\nq\n' | "$TVIZ" walk --stage 'src.*' >"$T/out" 2>&1 || bad "walk reading commands from a pipe failed"
expect_ok "model info" "$TVIZ" model info worked-example
grep -q "parameters: 496" "$T/out" || bad "model info: parameter count"
grep -q "^layers: post-LN .* trained without: nothing" "$T/out" || bad "model info: the layers' order and the parts trained without"
expect_ok "model init" "$TVIZ" model init --preset worked-example -o "$T/we.safetensors"
cmp -s "$T/we.safetensors" assets/models/worked-example.safetensors || bad "the shipped worked example differs from the one tviz makes"
expect_ok "model init another seed" "$TVIZ" model init --preset worked-example --seed 9 -o "$T/we9.safetensors"
expect_ok "model by path" "$TVIZ" trace --model "$T/we.safetensors" --src "$S" -o "$T/p.json"

# ---- a MarianMT checkpoint folder (the tiny test one: 2 + 2 layers, d_model 16, SiLU)
MA=tests/fixtures/marian/tiny
expect_ok "marian: trace" "$TVIZ" trace --model "$MA" --src "I enjoy learning." --tgt "أنا أستمتع بتعلم." -o "$T/m.json"
grep -q '"family":"marian"' "$T/m.json" || bad "marian: the trace's config does not say family marian"
grep -q '"activation":"silu"' "$T/m.json" || bad "marian: the trace's config does not name SiLU"
[ "$(grep -o '"id":"' "$T/m.json" | wc -l)" -eq 126 ] || bad "marian: $(grep -o '"id":"' "$T/m.json" | wc -l) stages, want 126"
grep -q '"tgt_tokens":\["<pad>"' "$T/m.json" || bad "marian: the decoder input does not start with <pad> (decoder_start_token_id)"
grep -q '"</s>"\],"tgt_tokens"' "$T/m.json" || bad "marian: the source does not end with </s>"
expect_ok "marian: translate" "$TVIZ" translate --model "$MA/" ">>ara<< The cat sleeps."
expect_ok "marian: model info" "$TVIZ" model info "$MA"
grep -q "a MarianMT checkpoint folder: feed-forward SiLU" "$T/out" || bad "marian: model info does not name the checkpoint's kind"
expect_ok "marian: export" "$TVIZ" export --model "$MA" --src "I enjoy learning." --stage out.probs -o "$T/m.png"
expect_ok "marian: walk" "$TVIZ" walk --model "$MA" --src "I enjoy learning."

# ---- bad sentences, model files, lesson files and output paths: tests/bad_input.sh

# ---- bad options, stages and outputs
expect_error "unknown option" "unknown option for 'trace'" "$TVIZ" trace --frobnicate
expect_error "missing value" "--src: needs a value" "$TVIZ" trace --src
expect_error "unknown command" "unknown command" "$TVIZ" transmogrify
expect_error "unknown stage" "matches no stage" "$TVIZ" walk --stage enc.9.nothing
expect_error "unknown preset" "not a preset" "$TVIZ" model init --preset huge -o "$T/x.safetensors"
expect_error "bad seed" "not a whole number" "$TVIZ" model init --preset base --seed abc -o "$T/x.safetensors"
expect_error "init without -o" "needs -o FILE" "$TVIZ" model init --preset base
[ -z "$(ls "$T" | grep -E '\.tmp')" ] || bad "a temporary file was left behind: $(ls "$T")"
[ ! -e "$T/x.safetensors" ] || bad "a failed init left a file"

# ---- export: files that other programs can read, and bad requests
W=dec.0.self_attn.head.0.weights
expect_ok "export png" "$TVIZ" export --tgt "من واقعاً" --stage $W -o "$T/w.png"
[ "$(head -c 4 "$T/w.png" | od -An -c | tr -d ' \n')" = "211PNG" ] || bad "export png: not a PNG"
expect_ok "export svg" "$TVIZ" export --tgt "من واقعاً" --stage $W -o "$T/w.svg"
if command -v rsvg-convert >/dev/null; then
    rsvg-convert -o "$T/w-svg.png" "$T/w.svg" && [ -s "$T/w-svg.png" ] && ok || bad "rsvg-convert cannot read the SVG"
fi
expect_ok "export pdf" "$TVIZ" export --tgt "من واقعاً" --stage $W --format pdf -o "$T/w.pdf"
if command -v pdfinfo >/dev/null; then
    pdfinfo "$T/w.pdf" >"$T/info" 2>&1 && grep -q "^Pages: *1" "$T/info" && ok || bad "pdfinfo cannot read the PDF: $(cat "$T/info")"
fi
if command -v pdftotext >/dev/null; then # the text is text, not paths: a slide can be searched
    pdftotext "$T/w.pdf" - | grep -q "Attention weights" && ok || bad "the PDF's title is not text"
fi
expect_ok "export width and scale" "$TVIZ" export --model worked-example --stage src.pe --width 600 --scale 2 -o "$T/pe.png"
[ "$(od -An -tu1 -j16 -N8 "$T/pe.png" | awk '{print $3*256+$4, $7*256+$8}')" = "1200 480" ] || bad "--width 600 --scale 2: size is $(od -An -tu1 -j16 -N8 "$T/pe.png" | awk '{print $3*256+$4, $7*256+$8}')"
for v in heatmap matrix heads grid pe-heatmap pe-curves pe-similarity architecture; do
    expect_ok "view $v" "$TVIZ" export --stage $W --view $v -o "$T/v-$v.png"
done
# the new views in each format: lines (one head, every head), top-k of the output
for f in png svg pdf; do
    expect_ok "lines $f" "$TVIZ" export --stage dec.1.cross_attn.head.3.weights --view lines -o "$T/lines.$f"
    expect_ok "lines-heads $f" "$TVIZ" export --stage enc.0.self_attn.head.0.weights --view lines-heads -o "$T/lines-heads.$f"
    expect_ok "top-k $f" "$TVIZ" export --stage out.probs --view top-k -o "$T/topk.$f"
    expect_ok "heads $f" "$TVIZ" export --stage dec.1.cross_attn.head.3.weights --view heads -o "$T/heads.$f"
    expect_ok "grid $f" "$TVIZ" export --stage dec.1.cross_attn.head.3.weights --view grid -o "$T/grid.$f"
done
for v in lines lines-heads topk heads grid; do
    [ "$(head -c 4 "$T/$v.png" | od -An -c | tr -d ' \n')" = "211PNG" ] || bad "$v.png is not a PNG"
    if command -v rsvg-convert >/dev/null; then rsvg-convert -o "$T/$v-svg.png" "$T/$v.svg" && [ -s "$T/$v-svg.png" ] && ok || bad "rsvg-convert cannot read $v.svg"; fi
    if command -v pdfinfo >/dev/null; then pdfinfo "$T/$v.pdf" 2>&1 | grep -q "^Pages: *1" && ok || bad "pdfinfo cannot read $v.pdf"; fi
done
if command -v pdftotext >/dev/null; then
    # every word of the sentence labels the lines; every head is in the legend
    pdftotext "$T/lines.pdf" - | tr -s ' \n' '\n\n' >"$T/lines.txt"
    for w in really learning "<eos>" "<bos>"; do grep -qx -- "$w" "$T/lines.txt" || bad "the lines view lacks the word $w"; done
    pdftotext "$T/lines-heads.pdf" - | grep -q "Head 4" && ok || bad "the lines of every head: no Head 4 in the legend"
    # top-k: each row's first token is what greedy decoding took next (the decoded sentence), and <eos> ends it
    "$TVIZ" trace -o "$T/tk.json" 2>/dev/null
    toks=$(sed 's/.*"tgt_tokens":\[\([^]]*\)\].*/\1/' "$T/tk.json" | tr -d '"' | tr ',' ' ')
    # (pdftotext's text of right-to-left runs has direction marks, spaces and no ZWNJ: compared without them)
    nomarks() { LC_ALL=C sed 's/\xe2\x80[\x8c\x8e\x8f\xaa-\xae]//g' | tr -d ' \n'; }
    pdftotext "$T/topk.pdf" - | nomarks >"$T/topk.txt"
    n=0; for tok in $toks; do n=$((n + 1)); [ $n -eq 1 ] && continue
        grep -qF -- "$(printf %s "$tok" | nomarks)" "$T/topk.txt" || bad "top-k lacks the decoded token $tok"; done
    grep -q "<eos>" "$T/topk.txt" && ok || bad "top-k: <eos> is not among the last row's guesses"
    [ "$n" -gt 3 ] && ok || bad "top-k: no decoded sentence to compare with ($toks)"
    # with a typed target, the target's tokens are marked (their column and the legend)
    expect_ok "top-k with a target" "$TVIZ" export --stage out.logits --view top-k --tgt "من از یادگیری لذت می‌برم" -o "$T/topk-t.pdf"
    pdftotext "$T/topk-t.pdf" - | grep -q "typed target" && ok || bad "top-k with a typed target does not say so"
fi
expect_error "lines of a stage that is not attention weights" "draws attention weights" "$TVIZ" export --stage enc.0.self_attn.head.0.scores --view lines -o "$T/x.png"
expect_error "top-k of a stage that is not the output" "out.probs" "$TVIZ" export --stage $W --view top-k -o "$T/x.png"
expect_error "top-k: k out of range" "--top-k" "$TVIZ" export --stage out.probs --view top-k --top-k 0 -o "$T/x.png"
expect_ok "top-k: k = 10" "$TVIZ" export --stage out.probs --view top-k --top-k 10 -o "$T/topk10.pdf"
if command -v pdftotext >/dev/null; then pdftotext "$T/topk10.pdf" - | grep -q "10 most likely" && ok || bad "--top-k 10 is not what the picture says"; fi
# ---- beam search: the same output as greedy at width 1, the beams in the trace, the beam view in every format
for m in en-fa lstm-en-fa rnn-attn-en-fa; do
    g=$("$TVIZ" translate --model $m "$S" "the cat sleeps" 2>/dev/null); b=$("$TVIZ" translate --model $m --beam 1 "$S" "the cat sleeps" 2>/dev/null)
    [ -n "$g" ] && [ "$g" = "$b" ] && ok || bad "$m: --beam 1 wrote \"$b\", greedy \"$g\""
done
expect_ok "trace --beam" "$TVIZ" trace --beam 3 --alpha 0.6 -o "$T/beam.json"
python3 - "$T/beam.json" <<'PY' && ok || bad "trace --beam: the beam in the JSON"
import json, sys
d = json.load(open(sys.argv[1])); b = d["beam"]
assert b["size"] == 3 and b["alpha"] == 0.6 and len(b["steps"]) >= 1
c = b["choice"]; node = b["steps"][c["step"]][c["index"]]
assert node["fate"] == "ended" and abs(node["score"] - c["score"]) < 1e-12
toks, t, i = [], c["step"], c["index"]
while i >= 0:
    toks.append(b["steps"][t][i]["token"]); i, t = b["steps"][t][i]["parent"], t - 1
toks = toks[::-1]
assert d["tgt_tokens"][1:] == [x for x in toks if x != "<eos>"], (d["tgt_tokens"], toks)
for step in b["steps"]:
    assert [n["logp"] for n in step] == sorted((n["logp"] for n in step), reverse=True)
PY
for f in png svg pdf; do
    expect_ok "beam view ($f)" "$TVIZ" export --beam 4 --stage out.probs --view beam --format $f -o "$T/beam.$f"
done
if command -v pdftotext >/dev/null; then pdftotext "$T/beam.pdf" - | grep -q "beam size 4" && ok || bad "the beam view does not say its beam size"; fi
if command -v identify >/dev/null; then
    expect_ok "animate beam" "$TVIZ" export --beam 2 --animate beam -o "$T/beam.gif"
    "$TVIZ" trace --beam 2 -o "$T/beam2.json" 2>/dev/null
    n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['beam']['steps']))" "$T/beam2.json")
    [ "$(identify "$T/beam.gif" | wc -l)" -eq "$n" ] && ok || bad "animate beam: $(identify "$T/beam.gif" | wc -l) frames for $n steps"
fi
# ---- watching it learn: a model with snapshots beside it (the worked example, and three others of its kind as steps 0, 10, 40)
mkdir -p "$T/tl/we.snapshots" && cp assets/models/worked-example.safetensors "$T/tl/we.safetensors"
# (three others of its kind: one weight of the cross-attention's W_Q and W_K apart, less and less: steps 0, 10 and 40)
for s in 0 10 40; do f="$T/tl/we.snapshots/step-$(printf %06d $s).safetensors"; v=$((4 - s / 10))
    "${MKBAD:-build/mkbad}" assets/models/worked-example.safetensors "$f.1" value decoder.layers.0.multihead_attn.in_proj_weight 8 $v &&
    "${MKBAD:-build/mkbad}" "$f.1" "$f" value decoder.layers.0.multihead_attn.in_proj_weight 24 $v && rm "$f.1" || bad "mkbad: snapshot $s"; done
for f in png svg pdf; do
    expect_ok "timeline $f" "$TVIZ" export --model "$T/tl/we.safetensors" --timeline --stage dec.0.cross_attn.head.1.weights -o "$T/strip.$f"
done
grep -q "at 4 points of training, steps 0 to 41" "$T/err" && ok || bad "the timeline: $(cat "$T/err")" # (the model itself says no step: after the last)
if command -v pdftotext >/dev/null; then
    pdftotext "$T/strip.pdf" - >"$T/strip.txt"
    for s in "step 0" "step 10" "step 40" "step 41" "over training"; do grep -q "$s" "$T/strip.txt" || bad "the timeline strip lacks \"$s\""; done
fi
# four panels side by side: wider than tall
[ "$(od -An -tu1 -j16 -N8 "$T/strip.png" | awk '{print ($3*256+$4 > 1.5 * ($7*256+$8))}')" = 1 ] && ok || bad "the strip is not a strip: $(od -An -tu1 -j16 -N8 "$T/strip.png")"
expect_ok "timeline of lines" "$TVIZ" export --model "$T/tl/we.safetensors" --timeline --stage dec.0.cross_attn.head.1.weights --view lines -o "$T/strip-lines.png"
expect_error "timeline without snapshots" "has no training snapshots" "$TVIZ" export --model worked-example --timeline --stage $W -o "$T/x.png"
expect_error "timeline without a stage" "needs --stage" "$TVIZ" export --model "$T/tl/we.safetensors" --timeline -o "$T/x.png"
expect_error "timeline of a figure" "a timeline shows a stage" "$TVIZ" export --model "$T/tl/we.safetensors" --timeline --view pe-curves --stage $W -o "$T/x.png"
# ---- animations (GIF, giflib): one frame a step, checked by ImageMagick
if command -v identify >/dev/null; then
    expect_ok "animate decoding" "$TVIZ" export --animate decoding --stage dec.0.cross_attn.head.0.weights -o "$T/dec.gif"
    steps=$("$TVIZ" trace 2>/dev/null | sed 's/.*"tgt_tokens":\[\([^]]*\)\].*/\1/' | tr ',' '\n' | wc -l) # <bos> and each token decoded
    [ "$(identify "$T/dec.gif" | wc -l)" -eq "$steps" ] && ok || bad "decoding: $(identify "$T/dec.gif" | wc -l) frames for $steps decoding steps"
    [ "$(identify -format '%wx%h %T\n' "$T/dec.gif" | sort -u)" = "800x600 80" ] && ok || bad "decoding frames: $(identify -format '%wx%h %T\n' "$T/dec.gif" | sort -u)"
    expect_ok "animate timeline" "$TVIZ" export --model "$T/tl/we.safetensors" --animate timeline --stage dec.0.cross_attn.head.1.weights --view lines --delay 500 --size 640x480 -o "$T/tl.gif"
    [ "$(identify -format '%wx%h %T\n' "$T/tl.gif" | sort | uniq -c | awk '{print $1, $2, $3}')" = "4 640x480 50" ] && ok || bad "timeline: $(identify -format '%wx%h %T\n' "$T/tl.gif")"
    expect_ok "animate stages" "$TVIZ" export --model worked-example --animate stages --stage src.embed --to enc.0.self_attn.head.0.weights -o "$T/st.gif"
    # (as many as tviz walk lists from the one to the other)
    want=$("$TVIZ" walk --model worked-example --no-pause | grep '^\[' | sed -n '/ src.embed /,/ enc.0.self_attn.head.0.weights /p' | wc -l)
    [ "$(identify "$T/st.gif" | wc -l)" -eq "$want" ] && [ "$want" -gt 5 ] && ok || bad "stages: $(identify "$T/st.gif" | wc -l) frames, want $want"
    # each frame is its own picture
    [ "$(identify -format '%#\n' "$T/st.gif" | sort -u | wc -l)" -eq "$want" ] && ok || bad "stages: frames repeat"
fi
expect_error "animate: not a GIF" "give -o FILE.gif" "$TVIZ" export --animate decoding --stage $W -o "$T/x.png"
expect_error "animate: no such animation" "is not an animation" "$TVIZ" export --animate dance --stage $W -o "$T/x.gif"
expect_error "animate: no stage" "needs --stage" "$TVIZ" export --animate decoding -o "$T/x.gif"
expect_error "animate: bad delay" "--delay" "$TVIZ" export --animate decoding --stage $W --delay 5 -o "$T/x.gif"
expect_error "animate: bad size" "is not WIDTHxHEIGHT" "$TVIZ" export --animate decoding --stage $W --size 10x10 -o "$T/x.gif"
expect_error "animate: --to backwards" "comes before" "$TVIZ" export --animate stages --stage $W --to src.pe -o "$T/x.gif"
expect_error "animate: timeline without snapshots" "has no training snapshots" "$TVIZ" export --model worked-example --animate timeline --stage $W -o "$T/x.gif"
[ ! -e "$T/x.gif" ] || bad "a failed animation left x.gif"
# ---- a slide deck: 16:9, a page a stage (as many as tviz walk lists), its title and the lesson's lines, in each language
n_stages=$("$TVIZ" walk --no-pause | grep -c '^\[[0-9]*/')
for lang in en fa ar; do
    expect_ok "slides $lang" "$TVIZ" export --slides --lang $lang -o "$T/deck-$lang.pdf"
    if command -v pdfinfo >/dev/null; then
        [ "$(pdfinfo "$T/deck-$lang.pdf" | awk '/^Pages:/ {print $2}')" = "$n_stages" ] && ok || bad "slides $lang: $(pdfinfo "$T/deck-$lang.pdf" | awk '/^Pages:/ {print $2}') pages for $n_stages stages"
        pdfinfo "$T/deck-$lang.pdf" | grep -q "^Page size: *960 x 540 pts" && ok || bad "slides $lang are not 16:9: $(pdfinfo "$T/deck-$lang.pdf" | grep 'Page size')"
    fi
done
if command -v pdftotext >/dev/null; then
    # page 10 is the encoder's first attention weights: its title, and the lesson on softmax
    pdftotext -f 10 -l 10 "$T/deck-en.pdf" - >"$T/p10.txt"
    grep -q "Encoder layer 1 · Self-attention · Head 1 — Attention weights" "$T/p10.txt" && grep -q "softmax turns each row" "$T/p10.txt" && ok || bad "slide 10: $(head -c 300 "$T/p10.txt")"
    pdftotext -f 10 -l 10 "$T/deck-fa.pdf" - | nomarks >"$T/p10fa.txt"
    grep -q "$(printf %s 'وزن‌های توجه' | nomarks)" "$T/p10fa.txt" && ok || bad "the Persian slide 10 has no Persian title"
    pdftotext -f "$n_stages" -l "$n_stages" "$T/deck-en.pdf" - | grep -q "Output probabilities" && ok || bad "the last slide is not the output"
fi
expect_error "slides: not a PDF" "give -o FILE.pdf" "$TVIZ" export --slides -o "$T/x.png"
# the shipped translator's snapshots, from its first step to its last
if [ "$(ls assets/models/en-fa.snapshots/step-*.safetensors 2>/dev/null | wc -l)" -ge 8 ]; then
    expect_ok "shipped timeline" "$TVIZ" export --timeline --stage dec.1.cross_attn.head.3.weights -o "$T/en-fa-strip.pdf"
    grep -q "steps 0 to " "$T/err" && ok || bad "the shipped timeline does not start at step 0: $(cat "$T/err")"
    [ "$(pdftotext "$T/en-fa-strip.pdf" - | grep -c '^step [0-9]')" -ge 8 ] && ok || bad "the shipped timeline has fewer than 8 points"
fi
expect_ok "arithmetic view" "$TVIZ" export --stage $W --view arithmetic --cell 1,0 -o "$T/arith.png"
# what if? the compare view (PNG, SVG, PDF), the JSON of a comparison, the loss view of several models
for f in png svg pdf; do
    expect_ok "view compare ($f)" "$TVIZ" export --stage $W --view compare --without scale -o "$T/cmp.$f"
    [ -s "$T/cmp.$f" ] || bad "compare view: no $f"
done
if command -v pdftotext >/dev/null; then
    pdftotext "$T/cmp.pdf" - | tr '\n' ' ' | grep -q "Rows almost one-hot" || bad "the compare view of attention weights does not count the one-hot rows"
fi
expect_error "view compare with nothing off" "nothing is switched off" "$TVIZ" export --stage $W --view compare -o "$T/cmp0.png"
[ ! -e "$T/cmp0.png" ] || bad "a refused compare view wrote a file"
expect_ok "trace --compare" "$TVIZ" trace --model worked-example --src "$S" --without scale --compare -o "$T/cmp.json"
grep -q '"without":\["scale"\].*"compare":{"without":\[\],"stages":\[{"id":"src.embed"' "$T/cmp.json" || bad "trace --compare: no \"compare\" with every part on"
[ "$(grep -o '"id":"enc.0.self_attn.head.0.scaled"' "$T/cmp.json" | wc -l)" -eq 2 ] || bad "trace --compare: a stage is not in both runs"
expect_error "view loss of a model without curves" "keeps no training curve" "$TVIZ" export --model worked-example --view loss -o "$T/loss0.png"
expect_error "several models for another view" "several models are for --view loss" "$TVIZ" export --model worked-example --model worked-example --stage src.pe -o "$T/x.png"
expect_ok "figure without a stage" "$TVIZ" export --view pe-curves -o "$T/curves.svg"
expect_ok "export all" "$TVIZ" export --model worked-example --all -o "$T/all"
[ "$(ls "$T/all" | grep -c '^[0-9][0-9][0-9]-.*\.png$')" -eq 67 ] || bad "export --all: $(ls "$T/all" | grep -c '^[0-9]') stage pictures, want 67"
grep -q 'src="001-src.embed.png"' "$T/all/index.html" || bad "export --all: the index does not list 001-src.embed.png"
[ -s "$T/all/figure-architecture.png" ] && [ -s "$T/all/heads-dec.0.cross_attn.png" ] && [ -s "$T/all/grid-enc.self_attn.png" ] || bad "export --all: figures missing"
expect_error "export unknown stage" "is not a stage" "$TVIZ" export --stage enc.7.nothing -o "$T/x.png"
expect_error "export unknown view" "is not a view" "$TVIZ" export --stage $W --view pie -o "$T/x.png"
expect_error "export heads of a non-attention stage" "shows attention heads" "$TVIZ" export --stage src.pe --view heads -o "$T/x.png"
expect_error "export cell outside" "is outside" "$TVIZ" export --stage $W --view arithmetic --cell 99,0 -o "$T/x.png"
expect_error "export arithmetic without cell" "needs --cell" "$TVIZ" export --stage $W --view arithmetic -o "$T/x.png"
expect_error "export bad cell" "is not ROW,COL" "$TVIZ" export --stage $W --view arithmetic --cell 1 -o "$T/x.png"
expect_error "export bad format" "is not a format" "$TVIZ" export --stage $W --format gif -o "$T/x.gif"
expect_error "export unknown extension" "add one or give --format" "$TVIZ" export --stage $W -o "$T/x.bmp"
expect_error "export bad colormap" "is not a colour map" "$TVIZ" export --stage $W --colormap jet -o "$T/x.png"
expect_error "export bad width" "--width" "$TVIZ" export --stage $W --width 10 -o "$T/x.png"
expect_error "export too big" "more than 16384" "$TVIZ" export --stage $W --width 9000 --scale 4 -o "$T/x.png"
expect_error "export without -o" "needs -o FILE" "$TVIZ" export --stage $W
expect_error "export without stage" "needs --stage" "$TVIZ" export -o "$T/x.png"
expect_error "export all onto a file" "is a file, not a folder" "$TVIZ" export --all -o "$T/w.png"
[ ! -e "$T/x.png" ] || bad "a failed export left x.png"
[ -z "$(find "$T" -name '*.tmp*')" ] || bad "a temporary file was left behind: $(find "$T" -name '*.tmp*')"

# ---- handouts: a lesson with its diagrams, as a PDF or PNG pages
expect_ok "handout pdf" "$TVIZ" export --lesson inside-transformer --lang ar -o "$T/h.pdf"
if command -v pdfinfo >/dev/null; then
    [ "$(pdfinfo "$T/h.pdf" | awk '/^Pages:/ {print $2}')" -ge 8 ] && ok || bad "the handout has $(pdfinfo "$T/h.pdf" | awk '/^Pages:/ {print $2}') pages"
fi
# stage ids in one piece, never split over two lines (a code span is
# unbreakable), and no word joiners holding them together: every id-like word
# of the text is a whole stage id of the model (a split one leaves "dec.1.cross_attn.head.")
expect_ok "handout pdf fa" "$TVIZ" export --lesson inside-transformer --lang fa -o "$T/h-fa.pdf"
if command -v pdftotext >/dev/null; then
    "$TVIZ" trace -o "$T/ids.json" && grep -o '"id":"[^"]*"' "$T/ids.json" | cut -d'"' -f4 >"$T/ids"
    for h in h.pdf h-fa.pdf; do
        pdftotext "$T/$h" "$T/h.txt"
        grep -q "$(printf '\342\201\240')" "$T/h.txt" && bad "$h: the text has a word joiner (U+2060)"
        grep -q 'dec\.1\.cross_attn\.head\.3\.weights' "$T/h.txt" || bad "$h: the lesson's dec.1.cross_attn.head.3.weights is not in one piece"
        grep -oE '(src|tgt|enc|dec|out)\.[A-Za-z0-9_.]+' "$T/h.txt" | sed 's/\.$//' | sort -u >"$T/h.ids"
        broken=$(grep -vxF -f "$T/ids" "$T/h.ids" | tr '\n' ' ')
        [ -z "$broken" ] && ok || bad "$h: stage ids broken over two lines: $broken"
    done
fi
expect_ok "handout png pages" "$TVIZ" export --lesson rnn-or-transformer --lang fa --format png -o "$T/pages"
[ -s "$T/pages/page-01.png" ] && [ -s "$T/pages/page-02.png" ] && ok || bad "handout pages: $(ls "$T/pages" 2>&1)"
expect_error "handout: no such lesson" "no such lesson" "$TVIZ" export --lesson nosuch -o "$T/x.pdf"
expect_error "handout: no such language" "no such lesson" "$TVIZ" export --lesson inside-transformer --lang xx -o "$T/x.pdf"
expect_error "handout as svg" "a handout is a PDF or PNG pages" "$TVIZ" export --lesson inside-transformer --format svg -o "$T/x.svg"
[ ! -e "$T/x.pdf" ] || bad "a failed handout left x.pdf"

# ---- lesson check: a folder with one mistake each time, named by file and line
L="$T/lessons"
mk_lessons() {
    rm -rf "$L"; mkdir -p "$L/en" "$L/fa"
    printf '# T\n\n## src.pe\nPositional encoding.\n\n## check\nQ: Why?\nA: Order.\n' >"$L/en/a.md"
    printf '# ت\n\n## src.pe\nرمزگذاری موقعیت.\n\n## check\nQ: چرا؟\nA: ترتیب.\n' >"$L/fa/a.md"
    for k in attention query key value head mask softmax layer-normalization residual-connection embedding encoder decoder feed-forward; do
        echo "$k = $k" >>"$L/en/glossary.txt"; echo "$k = $k" >>"$L/fa/glossary.txt"; done
    echo "positional-encoding = Positional encoding" >>"$L/en/glossary.txt"; echo "positional-encoding = رمزگذاری موقعیت" >>"$L/fa/glossary.txt"
}
mk_lessons
"$TVIZ" lesson check "$L" >"$T/out" 2>"$T/err" || true
# (the made-up glossary words such as "query" are not used in these tiny lessons: those are reported)
grep -q 'is never used in the en lessons' "$T/err" && ok || bad "lesson check: unused glossary words not reported"
mk_lessons
for k in attention query key value head mask softmax layer-normalization residual-connection embedding encoder decoder feed-forward; do
    printf '\n## *.head.*.weights\n%s\n' "$k" >>"$L/en/a.md"; printf '\n## *.head.*.weights\n%s\n' "$k" >>"$L/fa/a.md"; done
expect_ok "lesson check on a good folder" "$TVIZ" lesson check "$L"
grep -q "2 languages, 2 files" "$T/out" && ok || bad "lesson check summary: $(cat "$T/out")"
# (each kind of mistake in a lesson or glossary file: tests/bad_input.sh)

# ---- corpus: the English→Persian training corpus, and corpus files checked by line
expect_ok "corpus" "$TVIZ" corpus --seed 3 -o "$T/corpus"
[ "$(wc -l <"$T/corpus/train.tsv")" -eq 30000 ] || bad "corpus: train.tsv has $(wc -l <"$T/corpus/train.tsv") lines, want 30000"
head -1 "$T/corpus/heldout.tsv" | grep -qF "$(printf 'I really enjoy learning transformers\tمن واقعاً از یادگیری ترنسفورمرها لذت می\342\200\214برم\t0 1 2 3 4 2 2')" \
    || bad "corpus: heldout.tsv does not start with the default sentence: $(head -1 "$T/corpus/heldout.tsv")"
expect_ok "corpus again" "$TVIZ" corpus --seed 3 -o "$T/corpus2"
cmp -s "$T/corpus/train.tsv" "$T/corpus2/train.tsv" || bad "corpus: the same seed gave another train.tsv"
expect_ok "corpus check" "$TVIZ" corpus --check "$T/corpus/heldout.tsv"
grep -q "^$T/corpus/heldout.tsv: $(wc -l <"$T/corpus/heldout.tsv") pairs" "$T/out" || bad "corpus --check: $(cat "$T/out")"
expect_ok "corpus check-lists" "$TVIZ" corpus --check-lists
grep -q "verbs (3[0-9][0-9] English verbs)" "$T/out" || bad "corpus --check-lists: $(cat "$T/out")"
expect_ok "corpus --pairs" "$TVIZ" corpus --pairs 500 -o "$T/corpus4"
[ "$(wc -l <"$T/corpus4/train.tsv")" -ge 500 ] && [ "$(wc -l <"$T/corpus4/train.tsv")" -lt 520 ] || bad "corpus --pairs 500: $(wc -l <"$T/corpus4/train.tsv") lines"
expect_ok "corpus help" "$TVIZ" corpus --help
printf 'I read\tمن می\342\200\214خوانم\t0 1\n\n# note\nbad line without a tab\n' >"$T/bad.tsv"
expect_error "corpus: missing tab" "$T/bad.tsv:4: has no tab" "$TVIZ" corpus --check "$T/bad.tsv"
printf 'a b\tx y\t0 7\n' >"$T/bad.tsv"
expect_error "corpus: alignment out of range" "$T/bad.tsv:1: the alignment 7" "$TVIZ" corpus --check "$T/bad.tsv"
printf '# only a comment\n' >"$T/bad.tsv"
expect_error "corpus: no pairs" "$T/bad.tsv: has no sentence pairs" "$TVIZ" corpus --check "$T/bad.tsv"
expect_error "corpus: missing file" "cannot open the corpus" "$TVIZ" corpus --check "$T/none.tsv"
expect_error "corpus without -o" "needs -o DIR" "$TVIZ" corpus
expect_error "corpus bad seed" "not a whole number" "$TVIZ" corpus --seed x -o "$T/c3"
expect_error "corpus onto a file" "is a file, not a folder" "$TVIZ" corpus -o "$T/bad.tsv"
expect_error "corpus into a missing parent" "cannot create the folder" "$TVIZ" corpus -o "$T/no/such/dir"
[ ! -e "$T/c3" ] || bad "a failed corpus run left a folder"
[ -z "$(find "$T/corpus" -name '*.tmp*')" ] || bad "corpus: a temporary file was left behind"

# tviz translate and tviz train (bad input; the training itself is in test_train)
expect_ok "translate" "$TVIZ" translate "I really enjoy learning transformers" "She reads the book"
[ "$(cat "$T/out")" = "$(printf 'من واقعاً از یادگیری ترنسفورمرها لذت می‌برم\nاو کتاب را می‌خواند')" ] || bad "translate: $(cat "$T/out")"
printf 'I like\n' >"$T/bad.tsv"
expect_error "train: a corpus line without a tab" "bad.tsv:1: has no tab" "$TVIZ" train --corpus "$T/bad.tsv" -o "$T/m.safetensors"
[ ! -e "$T/m.safetensors" ] && [ ! -e "$T/m.snapshots" ] || bad "train: a bad corpus left files"
printf 'I really enjoy\tمن واقعاً لذت می‌برم\n' >"$T/ok.tsv"
expect_ok "train: a short run" "$TVIZ" train --corpus "$T/ok.tsv" -o "$T/m.safetensors" --steps 4 --save-every 2 --threads 1 --d-model 8 --heads 2 --d-ff 8 --layers 1
[ -s "$T/m.safetensors" ] && [ -s "$T/m.loss.png" ] && [ -s "$T/m.snapshots/step-000004.state" ] || bad "train: model, loss curve or snapshot missing"
printf 'I like zebras\tمن گورخرها را دوست دارم\n' >"$T/other.tsv"
expect_error "train: resume on another vocabulary" 'is not in the model'"'"'s source vocabulary' "$TVIZ" train --corpus "$T/other.tsv" -o "$T/m2.safetensors" --resume "$T/m.snapshots/step-000002.safetensors" --steps 8
expect_error "train: held-out words a word-level model lacks" "give held-out pairs made of them, or train with --bpe" "$TVIZ" train --corpus "$T/ok.tsv" --heldout "$T/other.tsv" -o "$T/m4.safetensors" --steps 2 --threads 1 --d-model 8 --heads 2 --d-ff 8 --layers 1
[ -s "$T/m.snapshots/step-000000.safetensors" ] || bad "train: no snapshot of the untrained model (step 0)"
expect_ok "model convert --f16" "$TVIZ" model convert "$T/m.safetensors" --f16 -o "$T/m16.safetensors"
expect_ok "model info: F16 and the training record" "$TVIZ" model info "$T/m16.safetensors"
grep -q "stored as F16" "$T/out" && grep -q "^trained: step 4 · loss [0-9.]*" "$T/out" || bad "model info on an F16 snapshot: $(tail -2 "$T/out")"
grep -q "^loss curve: 1 point, each the mean of 10 steps, from [0-9.]* to [0-9.]*$" "$T/out" || bad "model info: the loss curve: $(tail -2 "$T/out")"
[ "$(stat -c %s "$T/m16.safetensors")" -lt "$(stat -c %s "$T/m.safetensors")" ] || bad "model convert --f16: the file is not smaller"
expect_error "model convert without a precision" "needs --f16 or --f32" "$TVIZ" model convert "$T/m.safetensors" -o "$T/m32.safetensors"
[ ! -e "$T/m32.safetensors" ] || bad "model convert: a failed run wrote a file"
expect_error "train: resume without its state" "training state" "$TVIZ" train --corpus "$T/ok.tsv" -o "$T/m2.safetensors" --resume "$T/m.safetensors" --steps 8
[ ! -e "$T/m2.safetensors" ] || bad "train: a failed resume wrote a model"
printf 'I really enjoy\tمن واقعاً لذت می‌برم\nWe really enjoy\tما واقعاً لذت می‌بریم\nThey enjoy\tآن‌ها لذت می‌برند\n' >"$T/bpe.tsv"
# what if? a pre-LN model trained without positional encoding keeps both, and runs so
expect_ok "train: --norm-first --without pe" "$TVIZ" train --corpus "$T/ok.tsv" -o "$T/pre.safetensors" --norm-first --without pe --steps 2 --save-every 0 --threads 1 --d-model 8 --heads 2 --d-ff 8 --layers 1
grep -q "pre-LN, without pe" "$T/err" || bad "train --norm-first --without pe does not say so: $(head -1 "$T/err")"
expect_ok "model info: a variant" "$TVIZ" model info "$T/pre.safetensors"
grep -q "^layers: pre-LN .* trained without: pe" "$T/out" && grep -q "final norms: encoder yes, decoder yes" "$T/out" || bad "model info on a pre-LN model without pe: $(sed -n 3,5p "$T/out")"
expect_ok "trace: a model trained without pe" "$TVIZ" trace --model "$T/pre.safetensors" --src "a b"
grep -q '"without":\["pe"\]' "$T/out" && grep -q '"id":"enc.0.pre_norm1"' "$T/out" || bad "trace of a model trained without pe: its run is not without pe, or not pre-LN"
expect_ok "train: a post-LN model for the loss view" "$TVIZ" train --corpus "$T/ok.tsv" -o "$T/post.safetensors" --steps 4 --eval-every 2 --save-every 0 --threads 1 --d-model 8 --heads 2 --d-ff 8 --layers 1
expect_ok "view loss of two models" "$TVIZ" export --model "$T/post.safetensors" --model "$T/pre.safetensors" --view loss -o "$T/loss.svg"
[ -s "$T/loss.svg" ] || bad "loss view: no picture"
expect_error "train: --without an unknown part" '"wings" is not a part' "$TVIZ" train --corpus "$T/ok.tsv" -o "$T/w.safetensors" --without wings
expect_error "train: --norm-first on a snapshot" "shapes a new model" "$TVIZ" train --corpus "$T/ok.tsv" -o "$T/w.safetensors" --resume "$T/m.snapshots/step-000002.safetensors" --norm-first
expect_error "train: nothing to merge" "--bpe: the corpus has no pair of characters seen twice" "$TVIZ" train --corpus "$T/ok.tsv" -o "$T/bpe.safetensors" --bpe 20
expect_ok "train: subword pieces" "$TVIZ" train --corpus "$T/bpe.tsv" -o "$T/bpe.safetensors" --bpe 20 --steps 2 --save-every 0 --threads 1 --d-model 8 --heads 2 --d-ff 8 --layers 1
expect_ok "model info: merges" "$TVIZ" model info "$T/bpe.safetensors"
grep -q "^subword merges (BPE): [1-9][0-9]* source" "$T/out" || bad "model info does not show the merges: $(cat "$T/out")"
expect_ok "walk: pieces as rows" "$TVIZ" walk --model "$T/bpe.safetensors" --src "yearly" --stage src.embed --no-pause
grep -q "^source: [^ ]*@@ .*<eos>" "$T/out" || bad "walk: a word never seen is not split into pieces: $(grep '^source' "$T/out")"
grep -q "<unk>" "$T/err" && bad "walk: a piece read as <unk>: $(cat "$T/err")"
expect_ok "eval" "$TVIZ" eval --threads 1 tests/fixtures/everyday.tsv
grep -q "on tests/fixtures/everyday.tsv: 30 sentence pairs" "$T/out" && grep -q "^21-30 " "$T/out" && grep -q "^all  *30 " "$T/out" || bad "eval: $(cat "$T/out")"
expect_ok "eval --show" "$TVIZ" eval --show tests/fixtures/everyday.tsv
want=$(awk '$1 == "all" { printf "%d", $2 - $2 * $3 / 100 + 0.5 }' "$T/out")
[ "$(grep -c '^wrong: ' "$T/out")" -eq "$want" ] && [ "$(grep -c '^  got:  ' "$T/out")" -eq "$want" ] && [ "$(grep -c '^  want: ' "$T/out")" -eq "$want" ] \
    || bad "eval --show: $(grep -c '^wrong: ' "$T/out") wrong sentences listed, the table says $want"
expect_error "eval without a file" "needs a corpus file" "$TVIZ" eval
expect_error "eval: a bad line" "$T/bad.tsv:1: has no tab" "$TVIZ" eval "$T/bad.tsv"
# the recurrent models (issue 16): training, and every command on them
expect_error "train: an unknown arch" '--arch: "gru" is not an architecture' "$TVIZ" train --arch gru -o "$T/l.safetensors"
expect_error "train: attention without lstm" "--attention: is for --arch lstm" "$TVIZ" train --attention dot -o "$T/l.safetensors"
expect_error "train: an unknown attention" '--attention: "general" is not an attention' "$TVIZ" train --arch lstm --attention general -o "$T/l.safetensors"
expect_ok "train: an RNN with attention" "$TVIZ" train --arch lstm --attention dot --corpus "$T/bpe.tsv" -o "$T/rnn.safetensors" --bpe 20 --steps 3 --save-every 0 --threads 1 --embed-dim 8 --hidden 8 --layers 2
grep -q "LSTM: embed_dim 8, hidden_size 8, 2+2 layers, attention dot, source reversed; Adam at 0.001, clipping at 5" "$T/err" || bad "train --arch lstm: $(head -3 "$T/err")"
expect_ok "model info: an LSTM" "$TVIZ" model info "$T/rnn.safetensors"
grep -q "^arch lstm: an LSTM encoder-decoder" "$T/out" && grep -q "attn.combine.weight  *\[8, 16\]" "$T/out" || bad "model info on an LSTM: $(head -4 "$T/out")"
L=tests/fixtures/lstm/lstm3_attn_rev.safetensors
expect_ok "trace: an LSTM" "$TVIZ" trace --model "$L" -o "$T/l.json"
grep -q '"config":{"arch":"lstm","embed_dim":4,"hidden_size":6,"num_layers":3,"attention":"dot","reverse_source":1' "$T/l.json" \
    && grep -q '"src_tokens":\["transformers","learning","enjoy","really","i","<eos>"\]' "$T/l.json" \
    && grep -q '"id":"enc.final.h","title":"Final hidden state (v)"' "$T/l.json" && grep -q '"family":"lstm","side":"decoder","layer":null,"sublayer":"cross_attn","op":"weights"' "$T/l.json" \
    || bad "trace on an LSTM: $(head -c 400 "$T/l.json")"
expect_ok "walk: an LSTM" "$TVIZ" walk --model "$L" --stage 'enc.final.*' --no-pause
grep -q "LSTM encoder-decoder, embed_dim 4, hidden_size 6, 3+3 layers, attention dot, source read in reverse" "$T/out" && grep -q "^layer 3 " "$T/out" || bad "walk on an LSTM: $(head -3 "$T/out")"
expect_ok "translate: an LSTM" "$TVIZ" translate --model "$L" "the cat sleeps"
expect_ok "export: an LSTM's gate at a time step" "$TVIZ" export --model "$L" --stage dec.1.f --step 2 -o "$T/gate.png"
expect_ok "export: an LSTM's arithmetic" "$TVIZ" export --model "$L" --stage enc.2.c --view arithmetic --cell 3,1 --lang fa -o "$T/cell.pdf"
expect_ok "export: the unrolled map" "$TVIZ" export --model "$L" --view architecture --stage enc.1.h --step 1 -o "$T/map.svg"
expect_ok "export: side by side" "$TVIZ" export --view side-by-side --model en-fa --model "$L" -o "$T/side.png"
expect_ok "export: compare-length" "$TVIZ" export --view compare-length --model "$L" --model tests/fixtures/lstm/lstm2_rev.safetensors --heldout tests/fixtures/everyday.tsv -o "$T/cmp.png"
expect_ok "export --all: an LSTM beside another model" "$TVIZ" export --all --model tests/fixtures/lstm/lstm1.safetensors --model "$L" --heldout tests/fixtures/everyday.tsv -o "$T/lall"
[ -s "$T/lall/figure-compare-length.png" ] && [ -s "$T/lall/figure-side-by-side.png" ] && [ -s "$T/lall/020-enc.final.h.png" ] && [ ! -e "$T/lall/figure-pe-heatmap.png" ] \
    || bad "export --all on an LSTM: $(ls "$T/lall" | head -30 | tr '\n' ' ')"
expect_ok "eval: models side by side" "$TVIZ" eval --threads 1 --model en-fa --model "$L" tests/fixtures/everyday.tsv
grep -q "^2 models on tests/fixtures/everyday.tsv: 30 sentence pairs" "$T/out" && grep -q "^exact match by source length" "$T/out" && grep -q "^token accuracy by source length" "$T/out" \
    && [ "$(grep -c '^all  *30 ' "$T/out")" -eq 2 ] || bad "eval with two models: $(cat "$T/out")"
expect_error "export: side by side with a missing second model" "nosuchmodel: " "$TVIZ" export --view side-by-side --model nosuchmodel --model "$L" -o "$T/side2.png"
expect_ok "train: resume" "$TVIZ" train --corpus "$T/ok.tsv" -o "$T/m3.safetensors" --resume "$T/m.snapshots/step-000002.safetensors" --steps 6 --threads 1
grep -q "6 steps: 3 to 6 in" "$T/err" && ok || bad "train --resume: the steps of this run are not named: $(tail -1 "$T/err")"
# a recurrent run resumed from its snapshot ends exactly where the run in one go does
# (its learning rate and clipping are the recurrent defaults again, not the Transformer's schedule)
R="--corpus $T/ok.tsv --arch lstm --embed-dim 8 --hidden 8 --layers 1 --eval-every 0 --threads 1"
expect_ok "train lstm: in one go" "$TVIZ" train $R --steps 6 --save-every 0 -o "$T/lstm6.safetensors"
expect_ok "train lstm: 3 steps" "$TVIZ" train $R --steps 3 --save-every 3 -o "$T/lstm3.safetensors"
expect_ok "train lstm: resumed" "$TVIZ" train --corpus "$T/ok.tsv" --threads 1 --save-every 0 -o "$T/lstm36.safetensors" \
    --resume "$T/lstm3.snapshots/step-000003.safetensors" --steps 6
cmp -s "$T/lstm6.safetensors" "$T/lstm36.safetensors" && ok || bad "train lstm: 3 + 3 resumed steps differ from 6 in one go"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
