#!/bin/sh
# bad_input.sh — every kind of bad input tviz reads, per file type, in one
# place: model files, sentences, lesson and glossary files, output paths.
# Each case must give a non-zero exit (not a signal: < 128), exactly one line
# on stderr, "tviz: <file>: …" (with ":<line>" where there is one) and the
# phrase that says what is wrong, no sanitizer report (it would be more
# lines), and no output or temporary file left behind.
# The loader's exact message for each header mistake is also checked, at the
# library level, by tests/test_weights.c; the options of each command by
# tests/cli_test.sh.
# Usage: TVIZ=build/tviz MKBAD=build/mkbad sh tests/bad_input.sh
TVIZ=${TVIZ:-build/tviz}
MKBAD=${MKBAD:-build/mkbad}
TVIZ=$(cd "$(dirname "$TVIZ")" && pwd)/$(basename "$TVIZ")
T=$(mktemp -d /tmp/tviz-bad-XXXXXX)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
OUT="$T/out"
mkdir -p "$OUT"

# expect NAME WHERE PHRASE CMD...: the command fails cleanly; its one stderr
# line starts "tviz: WHERE" and contains PHRASE; $OUT stays empty.
expect() {
    name=$1 where=$2 phrase=$3; shift 3
    "$@" >"$T/stdout" 2>"$T/err"; rc=$?
    if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then bad "$name: exit $rc (want 1..127)"; head -5 "$T/err"; return; fi
    if [ "$(wc -l <"$T/err")" -ne 1 ]; then bad "$name: $(wc -l <"$T/err") lines on stderr (want 1):"; head -5 "$T/err"; return; fi
    case "$(cat "$T/err")" in
    "tviz: $where"*) ;;
    *) bad "$name: stderr does not start with \"tviz: $where\": $(cat "$T/err")"; return ;;
    esac
    if ! grep -qF -- "$phrase" "$T/err"; then bad "$name: stderr lacks \"$phrase\": $(cat "$T/err")"; return; fi
    if [ -n "$(ls -A "$OUT")" ]; then bad "$name: left files behind: $(ls -A "$OUT")"; rm -rf "${OUT:?}"/*; return; fi
    ok
}

# ================================================================ model files
# Made from the shipped worked example: 32 tensors, d_model 4, 2 heads.
WE=assets/models/worked-example.safetensors
M="$T/models"
mkdir -p "$M"
mk() { out=$1; shift; "$MKBAD" "$WE" "$M/$out" "$@" || bad "mkbad $out $*"; }
model() { # model NAME FILE PHRASE: tviz trace on the broken file
    expect "model: $1" "$M/$2: " "$3" "$TVIZ" trace --model "$M/$2" -o "$OUT/t.json"
}
size=$(wc -c <"$WE")
# -- truncated anywhere: in the length, in the header, in the data, one byte short
for n in 0 4 7 8 20 300 $((size - 4)) $((size - 1)); do
    mk "trunc-$n.safetensors" truncate $n
    case $n in
    0|4|7) phrase="too few for safetensors" ;;
    8|20|300) phrase="larger than the file" ;;
    *) phrase="the file is truncated" ;;
    esac
    model "truncated to $n bytes" "trunc-$n.safetensors" "$phrase"
done
# -- the header length
mk hlen-huge.safetensors hlen 18446744073709551615
model "header length 2^64-1" hlen-huge.safetensors "is larger than the file"
mk hlen-over.safetensors hlen $((size - 7))
model "header length one past the file" hlen-over.safetensors "is larger than the file"
mk hlen-0.safetensors hlen 0
model "header length 0" hlen-0.safetensors "too short for JSON"
mk hlen-short.safetensors hlen 100
model "header length cuts the JSON" hlen-short.safetensors "not a JSON object"
printf '\014\000\000\000\000\000\000\000{"a":"\377\376"}  ' >"$M/not-utf8.safetensors"
model "header not UTF-8" not-utf8.safetensors "the header is not UTF-8"
printf '\010\000\000\000\000\000\000\000[1,2,3]\n' >"$M/array.safetensors"
model "header is an array" array.safetensors "not a JSON object"
# -- offsets
mk off-out.safetensors set src_embed.weight data_offsets '[0, 999999]'
model "offsets past the data" off-out.safetensors '"src_embed.weight" ends at byte 999999'
mk off-reversed.safetensors set src_embed.weight data_offsets '[96, 0]'
model "offsets begin > end" off-reversed.safetensors '"src_embed.weight" has bad data_offsets'
mk off-negative.safetensors set src_embed.weight data_offsets '[-8, 88]'
model "negative offset" off-negative.safetensors '"src_embed.weight" has bad data_offsets'
mk off-fraction.safetensors set src_embed.weight data_offsets '[0.5, 96.5]'
model "fractional offset" off-fraction.safetensors '"src_embed.weight" has bad data_offsets'
mk off-count.safetensors set src_embed.weight data_offsets '[0, 92]'
model "byte count disagrees with the shape" off-count.safetensors '"src_embed.weight" has 92 bytes of data but its shape needs 96'
mk off-overlap.safetensors set decoder.layers.0.norm1.bias data_offsets '[0, 16]'
model "overlapping tensors" off-overlap.safetensors "overlap in the data"
# -- dtypes and shapes
mk dtype.safetensors set src_embed.weight dtype '"BF16"'
model "dtype BF16" dtype.safetensors '"src_embed.weight" is BF16'
# F16 is read (widened to float32), but its data must be 2 bytes a number
mk f16size.safetensors set src_embed.weight dtype '"F16"'
model "F16 with F32's bytes" f16size.safetensors '"src_embed.weight" has 96 bytes of data but its shape needs 48'
mk shape.safetensors set encoder.layers.0.linear1.weight shape '[4, 8]'
model "shape transposed" shape.safetensors '"encoder.layers.0.linear1.weight" has shape [4, 8] but the config'
mk rank3.safetensors set src_embed.weight shape '[6, 2, 2]'
model "three dimensions" rank3.safetensors '"src_embed.weight" has 3 dimensions'
mk dmodel.safetensors meta d_model 8
model "d_model disagrees with the tensors" dmodel.safetensors "the config (d_model 8"
mk heads.safetensors meta nhead 3
model "d_model not divisible by nhead" heads.safetensors "d_model 4 is not divisible by nhead 3"
mk ffn.safetensors meta dim_feedforward 16
model "dim_feedforward disagrees" ffn.safetensors "dim_feedforward 16"
mk curve.safetensors meta heldout_curve "1400:0.8 2800:"
model "a held-out curve cut short" curve.safetensors '"heldout_curve": item 2 is not step:fraction'
mk missing.safetensors del decoder.layers.0.norm3.bias
model "a tensor missing" missing.safetensors '"decoder.layers.0.norm3.bias" is missing'
mk without.safetensors meta without "pe,wings"
model "without names an unknown part" without.safetensors '__metadata__ "without" is "pe,wings": "wings" is not a part'
mk norm-first.safetensors meta norm_first 2
model "norm_first not 0 or 1" norm-first.safetensors '"norm_first" must be "0"'
mk no-meta.safetensors del __metadata__
model "no __metadata__" no-meta.safetensors "no __metadata__"
mk no-dmodel.safetensors meta d_model -
model "no d_model" no-dmodel.safetensors 'no "d_model"'
mk bad-eps.safetensors meta layer_norm_eps 0
model "layer_norm_eps 0" bad-eps.safetensors "layer_norm_eps must be a positive number"
mk bad-maxlen.safetensors meta max_len 0x10
model "max_len not a number" bad-maxlen.safetensors '"max_len" is "0x10", not a whole number'
# -- subword merges (src_merges / tgt_merges): one "a b" a line
mk merges-one.safetensors meta src_merges "$(printf 'r e\nrea')"
model "a merge without a space" merges-one.safetensors '"src_merges" line 2 ("rea") is not two pieces separated by one space'
mk merges-three.safetensors meta tgt_merges "a b c"
model "a merge of three pieces" merges-three.safetensors '"tgt_merges" line 1 ("a b c") is not two pieces'
mk merges-dup.safetensors meta src_merges "$(printf 'r e\nl l\nr e')"
model "a merge twice" merges-dup.safetensors '"src_merges" line 3 ("r e") repeats merge 1'
mk merges-empty.safetensors meta src_merges ""
model "no merges" merges-empty.safetensors '"src_merges" has no merges'
mk merges-tab.safetensors meta src_merges "$(printf 'r\te x')"
model "a control character in a merge" merges-tab.safetensors 'is not two pieces separated by one space'
# -- weights that are not numbers: refused, naming the tensor and the index
mk nan.safetensors value decoder.layers.0.linear2.weight 5 nan
model "NaN weight" nan.safetensors '"decoder.layers.0.linear2.weight" holds NaN at index 5'
mk inf.safetensors value src_embed.weight 0 inf
model "+inf weight" inf.safetensors '"src_embed.weight" holds an infinity at index 0'
mk ninf.safetensors value encoder.layers.0.norm1.bias 3 -inf
model "-inf weight" ninf.safetensors '"encoder.layers.0.norm1.bias" holds an infinity at index 3'
# -- vocabularies
mk no-unk.safetensors meta src_vocab "$(printf 'x\nI\nreally\nenjoy\nlearning\ntransformers')"
model "source vocabulary without <unk>" no-unk.safetensors "src_vocab has no <unk> token"
mk no-bos.safetensors meta tgt_vocab "$(printf '<unk>\nx\n<eos>\na\nb\nc\nd\ne\nf\ng')"
model "target vocabulary without <bos>" no-bos.safetensors "no <bos>"
mk no-eos.safetensors meta tgt_vocab "$(printf '<unk>\n<bos>\nx\na\nb\nc\nd\ne\nf\ng')"
model "target vocabulary without <eos>" no-eos.safetensors "no <eos>"
mk dup.safetensors meta src_vocab "$(printf '<unk>\nI\nI\nenjoy\nlearning\ntransformers')"
model "a token twice" dup.safetensors 'lists the token "I" twice'
mk blank-token.safetensors meta src_vocab "$(printf '<unk>\nI\n\nenjoy\nlearning\ntransformers')"
model "an empty token" blank-token.safetensors "empty token at index 2"
mk vocab-utf8.safetensors meta src_vocab "$(printf '<unk>\nI\n\300\nenjoy\nlearning\ntransformers')"
model "a vocabulary not UTF-8" vocab-utf8.safetensors "not UTF-8"
mk vocab-size.safetensors meta src_vocab "$(printf '<unk>\nI\nreally')"
model "vocabulary size disagrees with the embedding" vocab-size.safetensors '"src_embed.weight" has shape [6, 4]'
mk vocab-newline.safetensors meta embed_scale "$(printf 'one\ntwo\033[31m')"
model "control characters quoted from the file stay on one line" vocab-newline.safetensors 'is "one\ntwo\x1B[31m"'
# -- not a model file at all
: >"$M/empty.safetensors"
model "empty file" empty.safetensors "has 0 bytes"
mkdir -p "$M/dir.safetensors"
expect "model: a folder" "$M/dir.safetensors/config.json: " "is not a MarianMT checkpoint" "$TVIZ" trace --model "$M/dir.safetensors" -o "$OUT/t.json"
model "no such file" none.safetensors "cannot open the model"
expect "model: no such shipped model" "nosuchmodel: " "no such model" "$TVIZ" trace --model nosuchmodel -o "$OUT/t.json"
# -- huge but finite weights are a model: it loads and runs, and gives no NaN
mk huge1.safetensors value decoder.layers.0.linear1.weight 0 3e38
"$MKBAD" "$M/huge1.safetensors" "$M/huge2.safetensors" value src_embed.weight 4 -3e38
"$MKBAD" "$M/huge2.safetensors" "$M/huge.safetensors" value encoder.layers.0.self_attn.in_proj_weight 2 1e30
if "$TVIZ" trace --model "$M/huge.safetensors" -o "$T/huge.json" 2>"$T/err"; then
    grep -qi 'nan\|inf' "$T/huge.json" && bad "huge weights: NaN or inf in the trace" || ok
else bad "huge weights refused: $(cat "$T/err")"; fi

# -- training snapshots beside a model (<model>.snapshots/step-N.safetensors): one that does
#    not load, one of another model; each named, nothing written
mkdir -p "$M/tl/we.snapshots" && cp "$WE" "$M/tl/we.safetensors"
"$TVIZ" model init --preset worked-example --seed 5 -o "$M/tl/we.snapshots/step-000000.safetensors" 2>/dev/null
"$MKBAD" "$WE" "$M/tl/we.snapshots/step-000010.safetensors" truncate 300 || bad "mkbad truncate"
expect "snapshots: one is truncated" "$M/tl/we.snapshots/step-000010.safetensors: " "larger than the file" \
    "$TVIZ" export --model "$M/tl/we.safetensors" --timeline --stage src.pe -o "$OUT/s.png"
rm "$M/tl/we.snapshots/step-000010.safetensors"
cp tests/fixtures/multihead.safetensors "$M/tl/we.snapshots/step-000020.safetensors"
expect "snapshots: another model's" "$M/tl/we.snapshots/step-000020.safetensors: " "is not a snapshot of this model" \
    "$TVIZ" export --model "$M/tl/we.safetensors" --timeline --stage src.pe -o "$OUT/s.png"
rm -r "$M/tl"
# -- recurrent models (arch lstm): made from a 2-layer RNN with attention of
# the PyTorch fixtures (embed_dim 5, hidden_size 7, with the reversed 2-layer LSTM)
LS=tests/fixtures/lstm/lstm2_attn.safetensors
mkl() { out=$1; shift; "$MKBAD" "$LS" "$M/$out" "$@" || bad "mkbad $out $*"; }
mkl lstm-gate.safetensors set encoder.weight_hh_l1 shape '[25, 4]'
model "lstm: a wrong gate dimension" lstm-gate.safetensors '"encoder.weight_hh_l1" has shape [25, 4] but the config (embed_dim 8, hidden_size 5, num_layers 2, 20+18 tokens) needs [20, 5]'
mkl lstm-layers.safetensors meta num_layers 3
model "lstm: a missing layer" lstm-layers.safetensors '"encoder.weight_ih_l2" is missing; a recurrent model of this config (num_layers 3'
mkl lstm-del.safetensors del decoder.bias_hh_l0
model "lstm: a tensor missing" lstm-del.safetensors '"decoder.bias_hh_l0" is missing'
mkl lstm-arch.safetensors meta arch gru
model "lstm: an unknown arch" lstm-arch.safetensors '"arch" is "gru"; tviz reads "transformer" (the default) and "lstm"'
mkl lstm-attn.safetensors meta attention general
model "lstm: an unknown attention" lstm-attn.safetensors '"attention" is "general"; tviz knows "none" and "dot"'
mkl lstm-hidden.safetensors meta hidden_size 6
model "lstm: hidden_size disagrees with the tensors" lstm-hidden.safetensors 'the config (embed_dim 8, hidden_size 6'
mkl lstm-gen.safetensors set generator.weight shape '[9, 10]'
model "lstm: the generator's width disagrees with hidden_size" lstm-gen.safetensors '"generator.weight" has shape [9, 10] but the config (embed_dim 8, hidden_size 5, num_layers 2, 20+18 tokens) needs [18, 5]'
mkl lstm-noattn.safetensors del attn.combine.weight
model "lstm: attention = dot without W_c" lstm-noattn.safetensors '"attn.combine.weight" is missing; a recurrent model of this config (num_layers 2, attention dot)'
mkl lstm-rev.safetensors meta reverse_source 2
model "lstm: reverse_source 2" lstm-rev.safetensors '"reverse_source" must be "0" or "1"'
mkl lstm-nolayers.safetensors meta num_layers -
model "lstm: no num_layers" lstm-nolayers.safetensors 'no "num_layers"'
mkl lstm-embed.safetensors meta embed_dim 0
model "lstm: embed_dim 0" lstm-embed.safetensors '"embed_dim" 0 is outside 1..'
mkl lstm-gatebias.safetensors set decoder.bias_ih_l1 shape '[4, 5]'
model "lstm: a gate bias of the wrong size" lstm-gatebias.safetensors '"decoder.bias_ih_l1" has shape [4, 5] but the config (embed_dim 8, hidden_size 5, num_layers 2, 20+18 tokens) needs [20]'

# -- MarianMT checkpoint folders (--model DIR): made from the tiny test checkpoint
MS=tests/fixtures/marian/tiny
MD="$T/marian"
mfresh() { rm -rf "$MD"; cp -r "$MS" "$MD"; }
marian() { # marian NAME WHERE PHRASE: tviz trace on the broken folder
    expect "marian: $1" "$MD/$2" "$3" "$TVIZ" trace --model "$MD" --src "I enjoy learning." -o "$OUT/t.json"
}
line_of() { grep -n "\"$1\"" "$MD/$2" | head -1 | cut -d: -f1; }
for f in config.json model.safetensors vocab.json source.spm target.spm; do
    mfresh; rm "$MD/$f"
    case $f in config.json) phrase="is not a MarianMT checkpoint" ;; *) phrase="download all of them" ;; esac
    marian "no $f" "$f: missing" "$phrase"
done
mfresh; mv "$MD/model.safetensors" "$MD/pytorch_model.bin"
marian "only pytorch_model.bin" "model.safetensors: " "a Python pickle that tviz never opens"
mfresh; printf 'PK\003\004 a zip of pickles' >"$M/pytorch_model.bin"
expect "marian: a pytorch_model.bin file" "$M/pytorch_model.bin: " "is a PyTorch pickle" "$TVIZ" trace --model "$M/pytorch_model.bin" -o "$OUT/t.json"
mfresh; sed -i 's/"encoder_ffn_dim": 32/"encoder_ffn_dim": 64/; s/"decoder_ffn_dim": 32/"decoder_ffn_dim": 64/' "$MD/config.json"
marian "sizes disagree" "model.safetensors: " 'has shape [32, 16] but config.json (d_model 16, encoder_ffn_dim 64, vocab_size 132) needs [64, 16]'
mfresh; sed -i 's/"decoder_ffn_dim": 32/"decoder_ffn_dim": 48/' "$MD/config.json"
marian "stacks of different d_ff" "config.json:$(line_of decoder_ffn_dim config.json): " "decoder_ffn_dim 48 differs from encoder_ffn_dim 32"
mfresh; sed -i 's/"swish"/"mish"/' "$MD/config.json"
marian "an unknown activation" "config.json:$(line_of activation_function config.json): " 'activation_function is "mish"; tviz knows swish (SiLU)'
mfresh; sed -i 's/"normalize_before": false/"normalize_before": true/' "$MD/config.json"
marian "normalize_before" "config.json:$(line_of normalize_before config.json): " '"normalize_before" is true (LayerNorm before each sublayer (pre-LN))'
mfresh; sed -i 's/"add_final_layer_norm": false/"add_final_layer_norm": true/' "$MD/config.json"
marian "add_final_layer_norm" "config.json:$(line_of add_final_layer_norm config.json): " '"add_final_layer_norm" is true'
mfresh; sed -i 's/"model_type": "marian"/"model_type": "bart"/' "$MD/config.json"
marian "another model type" "config.json:$(line_of model_type config.json): " 'model_type is "bart", not "marian"'
mfresh; sed -i 's/"d_model": 16,/"d_model": "16",/' "$MD/config.json"
marian "d_model a string" "config.json:$(line_of d_model config.json): " '"d_model" must be a whole number'
mfresh; sed -i 's/"vocab_size"/"vocab_count"/' "$MD/config.json"
marian "no vocab_size" "config.json:1: " 'has no "vocab_size"'
mfresh; head -c 300 "$MS/config.json" >"$MD/config.json"
marian "config.json cut short" "config.json:" "is not valid JSON"
mfresh; printf '[1, 2]' >"$MD/config.json"
marian "config.json an array" "config.json:1: " "is JSON but not an object"
mfresh; sed -i 's/\xe2\x96\x81/_/g' "$MD/vocab.json"
marian "vocab.json without the pieces" "vocab.json:1: " "lacks"
mfresh; sed -i 's/"<unk>": 1,/"<unk>": 0,/' "$MD/vocab.json"
marian "two pieces with one id" "vocab.json:$(line_of '<unk>' vocab.json): " 'both have id 0'
mfresh; sed -i '/"<unk>": 1,/d' "$MD/vocab.json"
marian "vocab.json one piece short" "vocab.json:1: " "holds 131 pieces but config.json's vocab_size is 132"
mfresh; sed -i 's/"<unk>": 1,/"<unk>": 1.5,/' "$MD/vocab.json"
marian "an id that is not whole" "vocab.json:$(line_of '<unk>' vocab.json): " 'must be a whole number from 0 to 131'
mfresh; echo "not a sentencepiece model" >"$MD/source.spm"
marian "a text file as source.spm" "source.spm: " "is not a SentencePiece model"
mfresh; : >"$MD/target.spm"
marian "an empty target.spm" "target.spm: " "is not a SentencePiece model"
mfresh
expect "marian: model convert" "$OUT/m.safetensors: " "reads but does not write or train" "$TVIZ" model convert "$MD" --f16 -o "$OUT/m.safetensors"
expect "marian: train --resume" "$MD: " "reads but does not write or train" "$TVIZ" train --resume "$MD" -o "$OUT/m.safetensors"
rm -rf "$MD"

# ================================================================ sentences (--src, --tgt)
sentence() { # sentence NAME OPTION PHRASE TEXT (on the worked example: max_len 16)
    if [ "$2" = --src ]; then expect "sentence: $1" "--src: " "$3" "$TVIZ" trace --model worked-example --src "$4" -o "$OUT/t.json"
    else expect "sentence: $1" "--tgt: " "$3" "$TVIZ" trace --model worked-example --tgt "$4" -o "$OUT/t.json"; fi
}
sentence "empty" --src "the source sentence is empty" ""
sentence "white space only" --src "is empty" "$(printf ' \t \342\200\203 ')"
sentence "blank target" --tgt "the target sentence is empty" " "
sentence "too many words" --src "has 17 tokens but this model takes at most 16" "I I I I I I I I I I I I I I I I I"
# (one enormous word is a sentence to a word-level model: one <unk>, and a short note)
big=$(head -c 100000 /dev/zero | tr '\0' 'x')
if "$TVIZ" trace --model worked-example --src "$big" -o "$T/big.json" 2>"$T/err" && [ "$(wc -c <"$T/err")" -lt 300 ]; then ok
else bad "one enormous word: exit $?, $(wc -c <"$T/err") bytes on stderr"; fi
# (a subword model splits it: too many pieces, or too long to split)
expect "sentence: one enormous word in pieces" "--src: " "longer than tviz splits into pieces (4096)" "$TVIZ" trace --src "$big" -o "$OUT/t.json"
expect "sentence: a long word in pieces" "--src: " "but this model takes at most" "$TVIZ" trace --src "$(head -c 3000 /dev/zero | tr '\0' 'x')" -o "$OUT/t.json"
words=$(head -c 60000 /dev/zero | tr '\0' 'I' | sed 's/I/I /g')
sentence "enormous sentence" --src "has 60000 tokens but this model takes at most 16" "$words"
sentence "enormous target" --tgt "has 60001 tokens" "$words"
sentence "invalid UTF-8 byte" --src "not valid UTF-8 (byte 3)" "$(printf 'I \377 enjoy')"
sentence "lone continuation byte" --src "not valid UTF-8 (byte 1)" "$(printf '\200I')"
sentence "overlong encoding" --src "not valid UTF-8" "$(printf 'I \300\257')"
sentence "UTF-16 surrogate" --tgt "not valid UTF-8" "$(printf '\355\240\200')"
sentence "beyond U+10FFFF" --src "not valid UTF-8" "$(printf '\364\220\200\200')"
sentence "sequence cut at the end" --src "not valid UTF-8 (byte 3)" "$(printf 'I \342\202')"
sentence "bell" --src "control character U+0007" "$(printf 'I \a enjoy')"
sentence "escape" --tgt "control character U+001B" "$(printf '\033[31m')"
sentence "delete" --src "control character U+007F" "$(printf 'I\177')"
sentence "C1 control" --src "control character U+0085" "$(printf 'I \302\205 x')"
# what if? an unknown part to switch off, on every command that takes --without
for cmd in trace walk export translate eval; do
    expect "sentence: $cmd --without an unknown part" "--without: " '"attention" is not a part tviz can switch off; the parts are pe, scale, mask and residual' \
        "$TVIZ" $cmd --model worked-example --without pe,attention -o "$OUT/t.json"
done
expect "sentence: window --without an unknown part" "--without: " '"Pe" is not a part' "$TVIZ" --model worked-example --without Pe --quit
# a failed run leaves an existing output file as it was
echo '{"keep": true}' >"$T/keep.json"
expect "sentence: existing output kept" "--src: " "is empty" "$TVIZ" trace --src "" -o "$T/keep.json"
grep -q '"keep"' "$T/keep.json" && ok || bad "a failed run changed the existing output file"
# (a sentence file does not exist: sentences are arguments, and the window's
#  box; the window test types a too-long one)

# ================================================================ links to a view (tviz --open)
# Checked before the window appears (SDL's dummy driver: no display needed);
# the window test opens good ones and a bad one in the running window.
link() { # link NAME PHRASE LINK
    expect "link: $1" "--open: " "$2" env SDL_VIDEODRIVER=dummy "$TVIZ" --model worked-example --open "$3" --quit
}
i17=$(for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do printf 'I%%20'; done)
link "no fragment" "the address has no # part; the view follows it" "https://example.org/tviz/index.html"
link "empty" "the link is empty; the view follows #" "https://example.org/tviz/index.html#"
link "broken percent-encoding" "percent-encoding is broken at character 7: % must be followed by two hexadecimal digits" "#src=I%2Genjoy"
link "percent sign at the end" "broken at character 19" "#stage=src.pe&zoom%"
link "not UTF-8 once decoded" "src= in the link is not valid UTF-8 text once decoded (byte 2)" "#src=I%FF"
link "a control character" "tgt= in the link holds a control character" "#tgt=%1B%5B31m"
link "unknown model" "model=nosuch in the link is not a model tviz has; the models are en-fa" "#model=nosuch"
link "a model file that is not one" "model=$M/trunc-300.safetensors in the link could not be read: " "#model=$M/trunc-300.safetensors"
link "unknown stage" "stage=enc.5.ffn.hidden is not a stage of this model; its stages go from src.embed to out.probs" "#stage=enc.5.ffn.hidden"
link "a head it does not have" "stage=enc.0.self_attn.head.2.weights is not a stage" "#stage=enc.0.self_attn.head.2.weights"
link "not a stage id" "stage=../x in the link is not a stage id" "#stage=../x"
link "unknown view" "view=pie in the link is not a view of the window; the views are heatmap, matrix" "#view=pie"
link "a view the stage has not" "view=lines draws attention weights as lines; stage src.embed is not attention weights" "#stage=src.embed&view=lines"
link "compare with nothing off" "view=compare needs parts switched off" "#stage=src.pe&view=compare"
link "unknown part" "without=pe,attention in the link names a part tviz cannot switch off" "#without=pe,attention"
link "a sentence over the model's length" "the source sentence has 17 tokens but the model worked-example takes at most 16; shorten it" "#src=${i17%???}"
link "a target over the model's length" "the target sentence has 19 tokens but the model worked-example takes at most 16" "#tgt=${i17}I"
link "a sentence of spaces" "the source sentence has no words" "#src=%20%20"
link "zoom out of range" "zoom=64 in the link is not a number from 1 (the whole view) to 32" "#zoom=64"
link "pan out of range" "pan=0,99 in the link is not two numbers X,Y from -32 to 32" "#pan=0,99"
link "a cell outside the stage" "cell=9,0 is outside src.embed, which is 5 × 4" "#stage=src.embed&cell=9,0"
link "a time step of a Transformer" "time=1: the rows of src.embed are not time steps" "#stage=src.embed&time=1"
link "a language without lessons" "lang=de in the link: tviz has no lessons in that language; the languages are ar, en, fa" "#lang=de"
link "a language code that is a path" "lang=../../etc in the link is not a language code" "#lang=../../etc"
link "too long" "the link is longer than 8192 bytes" "#src=$(head -c 9000 /dev/zero | tr '\0' 'a')"

# ================================================================ lesson and glossary files
# Each case: a copy of lessons/ with one mistake, through tviz lesson check.
L="$T/lessons"
fresh() { rm -rf "$L"; cp -r lessons "$L"; }
F=en/inside-transformer.md
G=fa/glossary.txt
lesson() { # lesson NAME FILE:LINE PHRASE
    expect "lesson: $1" "$L/$2" "$3" "$TVIZ" lesson check "$L"
}
put_line() { # put_line FILE N TEXT: TEXT becomes line N (the rest moves down)
    awk -v n="$2" -v t="$3" 'NR == n { print t } { print }' "$L/$1" >"$L/$1.new" && mv "$L/$1.new" "$L/$1"
}
fresh; "$TVIZ" lesson check "$L" >/dev/null 2>&1 && ok || bad "lesson: the unchanged copy does not pass"
n=$(grep -n '^## ' "$L/$F" | sed -n 2p | cut -d: -f1); n=$((n + 1)) # the first line of the second section
fresh; sed -i '1s/^# /Title: /' "$L/$F"
lesson "no title" "$F:1: " 'starts with its title'
fresh; : >"$L/$F"
lesson "empty file" "$F:1: " "the file is empty"
fresh; { printf '# T\n\nearly text\n'; sed 1d "$L/$F"; } >"$L/$F.new"; mv "$L/$F.new" "$L/$F"
lesson "text before the first section" "$F:3: " 'text before the first "## " section'
fresh; put_line "$F" $n "An **unclosed bold"; put_line "$F" $((n + 1)) ""
lesson "bold never closed" "$F:$n: " "**bold** is opened and never closed"
fresh; put_line "$F" $n "An *unclosed italic"; put_line "$F" $((n + 1)) ""
lesson "italic never closed" "$F:$n: " "*italic* is opened and never closed"
fresh; put_line "$F" $n 'Code `x + 1 never closed'; put_line "$F" $((n + 1)) ""
lesson "code never closed" "$F:$n: " 'opens code that is never closed'
fresh; put_line "$F" $n "| a | b |"
lesson "a table" "$F:$n: " "tables, images and HTML are not part"
fresh; put_line "$F" $n "![figure](x.png)"
lesson "an image" "$F:$n: " "tables, images and HTML are not part"
fresh; put_line "$F" $n "<div>html</div>"
lesson "HTML" "$F:$n: " "tables, images and HTML are not part"
fresh; put_line "$F" $n "#### too deep"
lesson "a fourth-level heading" "$F:$n: " 'only "# Title" (first line)'
fresh; put_line "$F" $n ""; put_line "$F" $((n + 1)) "A: an answer"; put_line "$F" $((n + 2)) ""
lesson "an answer without its question" "$F:$((n + 1)): " 'an "A:" answer must follow its "Q:" question'
fresh; put_line "$F" $n "## ,"
lesson "a section without ids" "$F:$n: " "a section needs the stage ids"
fresh; put_line "$F" $n "A live value {{src.embed 0 never closed"; put_line "$F" $((n + 1)) ""
lesson "a live value never closed" "$F:$n: " "a {{ opens a live value that is never closed"
fresh; put_line "$F" $n "The tenth word is {{src 9}}."; put_line "$F" $((n + 1)) ""
lesson "a live value that cannot be read" "$F:$n: " "{{src 9}} cannot be read (a small model on a two-word sentence, beside src.embed): src 9: no such token"
fresh; put_line "$F" $n "A value of {{enc.7.add1 0 0}}."; put_line "$F" $((n + 1)) ""
lesson "a live value of a stage no model has" "$F:$n: " "enc.7.add1: no such stage"
fresh; put_line "$F" $n "[if lucky] Only on a good day."; put_line "$F" $((n + 1)) ""
lesson "an unknown condition" "$F:$n: " "[if lucky]: not a condition tviz knows"
fresh; put_line "$F" $n "[if model=en-fa Only for en-fa."; put_line "$F" $((n + 1)) ""
lesson "a condition never closed" "$F:$n: " "an [if …] is never closed"
fresh; put_line "fa/inside-transformer.md" 1 "$(printf '\377\376')"
lesson "not UTF-8" "fa/inside-transformer.md:1: " "not UTF-8"
fresh; put_line "$F" $n "$(head -c 9000 /dev/zero | tr '\0' 'a')"
lesson "a paragraph too long" "$F:$n: " "too long"
fresh; printf '\n## enc.9.nothing\nText.\n' >>"$L/ar/inside-transformer.md"
m=$(grep -n 'enc.9.nothing' "$L/ar/inside-transformer.md" | cut -d: -f1)
lesson "a stage id that matches no stage" "ar/inside-transformer.md:$m: " '"enc.9.nothing" matches no stage'
fresh; awk '/^## /{n++} n!=3' "$L/fa/inside-transformer.md" >"$L/x" && mv "$L/x" "$L/fa/inside-transformer.md"
sec=$(grep "^## " "$L/en/inside-transformer.md" | sed -n 3p | cut -d, -f1)
lesson "a section missing in one language" "fa/inside-transformer.md: " "the section \"$sec\" of en/inside-transformer.md"
fresh; rm "$L/fa/rnn-or-transformer.md"
lesson "a lesson missing in one language" "fa/rnn-or-transformer.md: " "missing; every language has every lesson"
fresh; printf '# T\n\n## src.pe\nx\n' >"$L/fa/extra.md"
lesson "a lesson with no English original" "fa/extra.md: " "there is no English extra.md"
fresh; sed -i 's/^attention = .*/attention/' "$L/$G"
m=$(grep -n '^attention$' "$L/$G" | cut -d: -f1)
lesson "glossary line without =" "$G:$m: " 'a glossary line is "key = word"'
fresh; printf 'query = again\n' >>"$L/$G"
m=$(wc -l <"$L/$G")
lesson "glossary key twice" "$G:$m: " '"query" is listed twice'
fresh; printf '%s = x\n' "$(head -c 60 /dev/zero | tr '\0' k)" >>"$L/$G"
m=$(wc -l <"$L/$G")
lesson "glossary key too long" "$G:$m: " "a key under 48 bytes"
fresh; printf 'zzz-unknown = x\n' >>"$L/$G"
lesson "glossary key English lacks" "$G: " '"zzz-unknown" is not an English glossary key'
fresh; sed -i 's/^key = .*/key = کلید | | کلیدها/' "$L/$G"
m=$(grep -n '^key = ' "$L/$G" | cut -d: -f1)
lesson "glossary: an empty form between bars" "$G:$m: " 'an empty form beside a "|"'
fresh; sed -i 's/^key = .*/& |/' "$L/ar/glossary.txt"
m=$(grep -n '^key = ' "$L/ar/glossary.txt" | cut -d: -f1)
lesson "glossary: a bar with no form after it" "ar/glossary.txt:$m: " 'an empty form beside a "|"'
fresh; sed -i 's/^value = .*/value = مقدار | كليد/' "$L/$G"
m=$(grep -n '^value = ' "$L/$G" | cut -d: -f1)
lesson "glossary: one form under two keys" "$G:$m: " '"كليد" is already a form of "key"'
fresh; sed -i 's/^head = .*/head = سر = رأس/' "$L/$G"
m=$(grep -n '^head = ' "$L/$G" | cut -d: -f1)
lesson "glossary: a second =" "$G:$m: " 'has one "="'
fresh; sed -i '/^softmax = /d' "$L/$G"
lesson "glossary key missing" "$G: " 'has no "softmax"'
fresh; sed -i 's/^softmax = .*/softmax = قطعاً-نیست/' "$L/$G"
lesson "glossary word never used" "$G: " "is never used in the fa lessons"
# one digit rule (lessons/README.md): 0–9 in every language, each other digit named with its line
for lang in fa ar; do
    m=$(grep -n '^## ' "$L/$lang/inside-transformer.md" | sed -n 2p | cut -d: -f1); m=$((m + 1))
    eval "m_$lang=$m"
done
fresh; put_line fa/inside-transformer.md "$m_fa" "مدل پایهٔ مقاله ۸ سر دارد."; put_line fa/inside-transformer.md $((m_fa + 1)) ""
lesson "a Persian digit" "fa/inside-transformer.md:$m_fa: " "a Persian digit ۸ (U+06F8); write 8"
fresh; put_line ar/inside-transformer.md "$m_ar" "وتستعمل الورقة ٨ رؤوس."; put_line ar/inside-transformer.md $((m_ar + 1)) ""
lesson "an Arabic-Indic digit" "ar/inside-transformer.md:$m_ar: " "an Arabic-Indic digit ٨ (U+0668); write 8"
fresh; put_line ar/inside-transformer.md "$m_ar" "انظر القسم 3٫4 من الورقة."; put_line ar/inside-transformer.md $((m_ar + 1)) ""
lesson "an Arabic decimal separator" "ar/inside-transformer.md:$m_ar: " "the Arabic decimal separator ٫ (U+066B)"
fresh; put_line ar/inside-transformer.md "$m_ar" "$(printf 'الصيغة `pos /\342\201\240 10000` هنا.')"; put_line ar/inside-transformer.md $((m_ar + 1)) ""
lesson "a word joiner (U+2060) in a code span" "ar/inside-transformer.md:$m_ar: " "an invisible word joiner (U+2060); remove it"
fresh; put_line "$G" 1 "# واژه‌های جدولِ ۲"
lesson "a Persian digit in a glossary comment" "$G:1: " "a Persian digit ۲ (U+06F2); write 2"
fresh; rm -r "$L/en"
expect "lesson: no en/ folder" "$L: " "has no en/ folder" "$TVIZ" lesson check "$L"
expect "lesson: no such folder" "$T/none: " "cannot read the lessons folder" "$TVIZ" lesson check "$T/none"

# ================================================================ corpus word lists
# Each case: a copy of assets/corpus with one mistake, through tviz corpus
# --check-lists and tviz corpus (which must write nothing).
W="$T/lists"
wfresh() { rm -rf "$W"; cp -r assets/corpus "$W"; }
wline() { # wline FILE N TEXT: TEXT becomes line N
    awk -v n="$2" -v t="$3" 'NR == n { print t } { print }' "$W/$1" >"$W/$1.new" && mv "$W/$1.new" "$W/$1"
}
lists() { # lists NAME FILE:LINE PHRASE
    expect "lists: $1" "$W/$2" "$3" "$TVIZ" corpus --check-lists "$W"
    expect "lists: $1 (corpus)" "$W/$2" "$3" "$TVIZ" corpus --lists "$W" -o "$OUT/c"
}
wfresh; "$TVIZ" corpus --check-lists "$W" >/dev/null 2>&1 && ok || bad "lists: the unchanged copy does not pass"
wfresh; wline nouns.tsv 9 "$(printf 'book\tbooks\tكتاب\tکتاب‌ها\ttext')"
lists "Arabic kaf" "nouns.tsv:9: " "Arabic ي or ك"
wfresh; wline nouns.tsv 9 "$(printf 'book\tbooks\tکتاب')"
lists "a column missing" "nouns.tsv:9: " "has 3 tab-separated columns, nouns.tsv takes 5"
wfresh; wline nouns.tsv 9 "$(printf 'book\tbooks\tکتاب\tکتاب ها\ttext')"
lists "a detached plural" "nouns.tsv:9: " "detached ها"
wfresh; wline verbs.tsv 20 "$(printf 'read\treads\tread\tread\treading\t-\tخوان\tخواند\tfly\ttext\t-')"
lists "an unknown frame" "verbs.tsv:20: " 'the frame "fly" is not one tviz knows'
wfresh; wline verbs.tsv 20 "$(printf 'read\treads\tread\tread\treading\t-\tخوان\tخواند\ttr\tbooks\t-')"
lists "an unknown class" "verbs.tsv:20: " 'the class "books" is not a class of any noun'
wfresh; wline times.tsv 8 "$(printf 'every day\tهر روز\t0 5\tpresent')"
lists "an alignment out of range" "times.tsv:8: " "the alignment 5 of Persian word"
wfresh; printf 'a\tb\t*\n\377\n' >>"$W/adjectives.tsv"; n=$(wc -l <"$W/adjectives.tsv")
lists "invalid UTF-8" "adjectives.tsv:$n: " "not valid UTF-8"
wfresh; sed -i '/^I\t/d' "$W/pronouns.tsv"; grep -v '^#' "$W/pronouns.tsv" | grep -q . || bad "lists: pronouns.tsv emptied"
sed -i '/^he\t\|^she\t/d' "$W/pronouns.tsv"
lists "no 3s pronoun" "pronouns.tsv: " "no 3s or no 3p pronoun"
wfresh; sed -i '/^enjoy\t/d' "$W/verbs.tsv"
expect "lists: no verb for the default sentence" "" "cannot make \"I really enjoy learning transformers\"" "$TVIZ" corpus --lists "$W" -o "$OUT/c"
wfresh; rm "$W/gerunds.tsv"
lists "a missing file" "gerunds.tsv: " "cannot open the word list"
expect "lists: no such folder" "$T/none/nouns.tsv: " "cannot open the word list" "$TVIZ" corpus --check-lists "$T/none"

# ================================================================ output paths
S="I really enjoy learning transformers"
: >"$T/a-file"
for o in "/nonexistent/dir/x" "$T/a-file/x" "/proc/x"; do
    expect "output: trace -o $o.json" "$o.json: " "cannot write" "$TVIZ" trace --src "$S" -o "$o.json"
    expect "output: export -o $o.png" "$o.png: " "cannot write" "$TVIZ" export --stage src.pe -o "$o.png"
    expect "output: model init -o $o.safetensors" "$o.safetensors: " "cannot write" "$TVIZ" model init --preset worked-example -o "$o.safetensors"
    expect "output: export --all -o $o" "$o: " "cannot create the folder" "$TVIZ" export --all -o "$o"
    expect "output: handout -o $o.pdf" "$o.pdf: " "cannot write" "$TVIZ" export --lesson inside-transformer -o "$o.pdf"
done
if [ "$(id -u)" != 0 ]; then # (root writes anywhere)
    mkdir "$T/ro" && chmod 555 "$T/ro"
    expect "output: a read-only folder" "$T/ro/t.json: " "cannot write" "$TVIZ" trace -o "$T/ro/t.json"
    [ -z "$(ls -A "$T/ro")" ] && ok || bad "a read-only folder got $(ls -A "$T/ro")"
fi
# ================================================================ beam search
FX=tests/fixtures/multihead.safetensors # (27 target tokens)
expect "beam: --beam 0" "--beam: " "at least one hypothesis" "$TVIZ" translate --beam 0 "the cat"
expect "beam: --beam 0 (export)" "--beam: " "at least one hypothesis" "$TVIZ" export --beam 0 --stage out.probs --view beam -o "$OUT/b.png"
expect "beam: not a number" "--beam: " "is not a whole number" "$TVIZ" trace --beam four -o "$OUT/t.json"
expect "beam: wider than the vocabulary" "--beam: " "wider than the target vocabulary (27 tokens)" "$TVIZ" trace --model "$FX" --src "the cat" --beam 28 -o "$OUT/t.json"
expect "beam: wider than the vocabulary (eval)" "--beam: " "wider than the target vocabulary" "$TVIZ" eval --model "$FX" --beam 28 tests/fixtures/everyday.tsv
expect "beam: a negative alpha" "--alpha: " "0 or more" "$TVIZ" export --beam 4 --alpha -0.5 --stage out.probs --view beam -o "$OUT/b.png"
expect "beam: alpha not a number" "--alpha: " "is not a number" "$TVIZ" translate --beam 4 --alpha abc "the cat"
expect "beam: alpha nan" "--alpha: " "is not a number" "$TVIZ" eval --beam 4 --alpha nan tests/fixtures/everyday.tsv
expect "beam: the view of a stage that is no output" "beam: " "choose out.probs or out.logits" "$TVIZ" export --beam 4 --stage enc.0.add1 --view beam -o "$OUT/b.png"
expect "beam: the view without --beam" "beam: " "give --beam K" "$TVIZ" export --stage out.probs --view beam -o "$OUT/b.png"
expect "beam: --animate beam without --beam" "--animate: " "give --beam K" "$TVIZ" export --animate beam -o "$OUT/b.gif"
expect "beam: --animate beam of a stage that is no output" "src.pe: " "choose out.probs" "$TVIZ" export --beam 2 --animate beam --stage src.pe -o "$OUT/b.gif"
expect "beam: with --tgt" "--beam: " "not both" "$TVIZ" trace --beam 4 --tgt "من" -o "$OUT/t.json"

expect "output: onto a folder" "$OUT: " "is a folder" "$TVIZ" export --stage src.pe -o "$OUT"
expect "output: a full disk" "$OUT/full.png: " "nothing was written" \
    sh -c "trap '' XFSZ; ulimit -f 8; exec \"$TVIZ\" export --stage src.pe --width 1600 -o \"$OUT/full.png\""
expect "output: /dev/full" "/dev/full: " "No space left" "$TVIZ" trace -o /dev/full
for o in "/nonexistent/dir/x" "$T/a-file/x"; do
    expect "output: icon -o $o.png" "$o.png: " "cannot write" "$TVIZ" icon --size 48 -o "$o.png"
done
expect "icon: a size too small" "--size: " "is not a whole number from 16 to 1024" "$TVIZ" icon --size 8 -o "$OUT/i.png"
expect "icon: a size too big" "--size: " "is not a whole number from 16 to 1024" "$TVIZ" icon --size 4096 -o "$OUT/i.png"
expect "icon: a format" "--format: " "is not png or svg" "$TVIZ" icon --format gif -o "$OUT/i.gif"
expect "icon: no -o" "icon: " "needs -o FILE" "$TVIZ" icon
expect "icon: a full disk" "$OUT/i.png: " "nothing was written" \
    sh -c "trap '' XFSZ; ulimit -f 1; exec \"$TVIZ\" icon --size 1024 -o \"$OUT/i.png\""
[ -c /dev/full ] || bad "/dev/full is no longer a device"

echo "bad input: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
