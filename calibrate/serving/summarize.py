#!/usr/bin/env python3
"""Headline numbers of a serving calibration run as Markdown tables (standard library only, runs anywhere):
the run's provenance, the HBM copy reference, skinny-GEMM bandwidth at M = 1 and the fp8/bf16 speed-up per M,
decode and prefill attention, the small operators, whole steps (graph, eager, eager queued, host time), decode
steps rebuilt from the kernel rows against the measured ones, and every failed or skipped row. With --rows, the 1.5B steps beside ../shared/validation/serving_rows.csv.

    python3 calibrate/serving/summarize.py RUNDIR [--rows ../shared/validation/serving_rows.csv]
"""
import argparse
import csv
import math
import os
import statistics


def load(d, name):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        return []
    with open(p, newline="") as f:
        return list(csv.DictReader(f))


def num(r, k):
    try:
        return float(r[k])
    except (KeyError, ValueError, TypeError):
        return None


def table(head, rows):
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")
    print()


def us(s):
    return f"{s * 1e6:.1f}" if s is not None else "-"


def ms(s):
    return f"{s * 1e3:.3f}" if s is not None else "-"


def gemm_section(rows):
    ok = [r for r in rows if num(r, "median_s")]
    if not ok:
        return
    print("### Skinny GEMMs at M = 1 (bf16 F.linear; fp8 _scaled_mm, fast accumulation)\n")
    out = []
    for r in ok:
        if r["m"] != "1" or r["dtype"] != "bf16":
            continue
        f8 = next((x for x in ok if x["model"] == r["model"] and x["op"] == r["op"] and x["m"] == "1"
                   and x["algo"] == "scaled_mm_fast"), None)
        out.append([r["model"], r["op"], f"{r['n']} x {r['k']}", us(num(r, "median_s")), r["gb_per_s"],
                    us(num(f8, "median_s")) if f8 else "-", f8["gb_per_s"] if f8 else "-", r["sm_mhz"], r["watts"]])
    table(["model", "op", "N x K", "bf16 us", "bf16 GB/s", "fp8 us", "fp8 GB/s", "SM MHz", "W"], out)
    print("### fp8 (fast accumulation) over bf16 speed-up by M: geometric mean [min, max] over the 15 layer shapes\n")
    out = []
    for m in sorted({int(r["m"]) for r in ok}):
        for algo in ("scaled_mm_fast", "scaled_mm"):
            sp = []
            for r in ok:
                if int(r["m"]) != m or r["dtype"] != "bf16":
                    continue
                f8 = next((x for x in ok if x["model"] == r["model"] and x["op"] == r["op"] and x["m"] == r["m"]
                           and x["algo"] == algo), None)
                if f8:
                    sp.append(num(r, "median_s") / num(f8, "median_s"))
            if sp:
                gm = math.exp(sum(math.log(x) for x in sp) / len(sp))
                out.append([m, algo, f"{gm:.2f}", f"{min(sp):.2f}", f"{max(sp):.2f}", len(sp)])
    table(["M", "fp8 kernel", "speed-up", "min", "max", "shapes"], out)


def attention_section(dec, pre):
    ok = [r for r in dec if num(r, "median_s") and r["op"] == "decode_attn_sdpa"]
    if ok:
        print("### Decode attention (SDPA, contiguous cache, one query token): us and GB/s of K+V\n")
        out = []
        for r in ok:
            if (r["batch"], r["ctx"]) in {("1", "512"), ("1", "4096"), ("1", "32768"), ("8", "4096"),
                                          ("32", "32768"), ("64", "4096"), ("256", "4096")}:
                out.append([f"{r['heads']}/{r['kv_heads']}x{r['head_dim']}", r["batch"], r["ctx"],
                            us(num(r, "median_s")), r["gb_per_s"], r["sm_mhz"], r["watts"], r["kernel"][:48]])
        table(["heads", "batch", "ctx", "us", "GB/s", "SM MHz", "W", "kernel"], out)
    ok = [r for r in pre if num(r, "median_s")]
    if ok:
        print("### Prefill attention (SDPA causal; chunked: a chunk against cached tokens)\n")
        out = []
        for r in ok:
            if (r["op"] == "prefill_attn_sdpa" and (r["batch"], r["seq"]) in {("1", "512"), ("1", "2048"),
                                                                              ("1", "8192"), ("4", "8192")}) or \
                    (r["op"] == "chunk_prefill_attn_sdpa" and r["seq"] in ("512", "2048") and r["ctx"] == "16384"):
                out.append([r["op"], f"{r['heads']}/{r['kv_heads']}x{r['head_dim']}", r["batch"], r["seq"],
                            r["ctx"], ms(num(r, "median_s")), r["tflop_per_s"], r["sm_mhz"], r["watts"]])
        table(["op", "heads", "batch", "seq", "ctx", "ms", "TFLOP/s", "SM MHz", "W"], out)


def ops_section(rows):
    ok = [r for r in rows if num(r, "median_s")]
    cp = next((r for r in ok if r["op"] == "copy"), None)
    if cp:
        print(f"HBM reference: 1 GiB device-to-device copy {ms(num(cp, 'median_s'))} ms = {cp['gb_per_s']} GB/s "
              f"(read + write), {cp['sm_mhz']} MHz, {cp['watts']} W\n")
    if not ok:
        return
    print("### Small operators (us per call; kernels per call)\n")
    ts = ("1", "64", "256", "2048")
    out = []
    for model in sorted({r["model"] for r in ok if r["model"]}):
        for op in dict.fromkeys(r["op"] for r in ok if r["model"] == model):
            cells = []
            kern = ""
            for t in ts:
                r = next((x for x in ok if x["model"] == model and x["op"] == op and x["tokens"] == t), None)
                cells.append(us(num(r, "median_s")) if r else "-")
                kern = kern or (r["kernels"] if r else "")
            out.append([model, op] + cells + [kern])
    table(["model", "op"] + [f"T={t}" for t in ts] + ["kernels"], out)


def steps_section(rows, ref):
    ok = [r for r in rows if num(r, "median_s")]
    if not ok:
        return
    print("### Decode steps: ms per step (graph replay, eager, eager queued), host ms per eager step, "
          "us per graph replay call\n")
    out = []
    for model in dict.fromkeys(r["model"] for r in ok):
        keys = dict.fromkeys((r["batch"], r["ctx"]) for r in ok if r["model"] == model and r["op"] == "decode_step")
        for b, c in keys:
            by = {r["method"]: r for r in ok if r["model"] == model and r["op"] == "decode_step"
                  and r["batch"] == b and r["ctx"] == c}
            g, e, q = by.get("graph"), by.get("eager"), by.get("eager_queued")
            rr = ref.get(("serve_decode", b, c)) if model == "llama-1.5b" else None
            out.append([model, b, c, ms(num(g, "median_s")) if g else "-", ms(num(e, "median_s")) if e else "-",
                        ms(num(q, "median_s")) if q else "-", ms(num(e, "host_s")) if e else "-",
                        us(num(g, "host_s")) if g else "-", e["kernels"] if e else "-",
                        g["sm_mhz"] if g else "-", g["watts"] if g else "-",
                        f"{rr[0] * 1e3:.3f} / {rr[1]}" if rr else ""])
    table(["model", "batch", "ctx", "graph ms", "eager ms", "eager queued ms", "eager host ms", "replay host us",
           "kernels", "SM MHz", "W", "serving_rows.csv graph ms / eager"], out)
    print("### Prefill steps (eager, median of 10)\n")
    out = []
    for r in ok:
        if r["op"] != "prefill_step":
            continue
        rr = ref.get(("serve_prefill", r["batch"], r["seq"])) if r["model"] == "llama-1.5b" else None
        out.append([r["model"], r["batch"], r["seq"], ms(num(r, "median_s")), ms(num(r, "host_s")), r["sm_mhz"],
                    r["watts"], f"{rr[0] * 1e3:.3f}" if rr else ""])
    table(["model", "batch", "prompt", "ms", "host ms", "SM MHz", "W", "serving_rows.csv ms"], out)


STEP_SHAPES = {"llama-1.5b": ("llama3.2-1b", 16, "32", "64"), "llama3-8b": ("llama3-8b", 32, "32", "128")}
LAYER_OPS = (("rmsnorm", 2), ("rope", 1), ("kv_write_slice", 1), ("residual_add", 2), ("swiglu", 1))
LAYER_GEMMS = ("qkv", "o", "gate_up", "down")


def composed_decode(model, b, ctx, gemm, dec, ops):
    """A decode step rebuilt from the kernel rows of the same run (graph-timed): embedding, per layer two
    RMSNorms, the QKV, output, gate+up and down GEMMs at M = batch, RoPE, the cache write, decode attention at
    (batch, ctx), two residual adds and SwiGLU; the final RMSNorm and LM head + argmax. None if a row is missing."""
    name, layers, heads, d = STEP_SHAPES[model]

    def pick(rows, **kv):
        r = next((x for x in rows if all(x[k] == v for k, v in kv.items()) and num(x, "median_s")), None)
        return num(r, "median_s") if r else None
    t = str(b)
    layer = [pick(gemm, model=name, op=g, m=t, dtype="bf16") for g in LAYER_GEMMS]
    layer += [n * (pick(ops, model=name, op=o, tokens=t) or float("nan")) for o, n in LAYER_OPS]
    layer.append(pick(dec, op="decode_attn_sdpa", heads=heads, kv_heads="8", head_dim=d, batch=t, ctx=str(ctx)))
    once = [pick(ops, model=name, op="embedding", tokens=t), pick(ops, model=name, op="rmsnorm", tokens=t),
            pick(ops, model=name, op="lm_head_argmax", tokens=t)]
    if any(x is None or x != x for x in layer + once):
        return None
    return layers * sum(layer) + sum(once)


def composition_section(steps, gemm, dec, ops):
    out = []
    for r in steps:
        if r["op"] != "decode_step" or r["method"] != "graph" or not num(r, "median_s"):
            continue
        c = composed_decode(r["model"], int(r["batch"]), int(r["ctx"]), gemm, dec, ops)
        if c:
            out.append([r["model"], r["batch"], r["ctx"], ms(num(r, "median_s")), ms(c),
                        f"{(c / num(r, 'median_s') - 1) * 100:+.1f}%"])
    if out:
        print("### Decode steps rebuilt from this run's kernel rows (sum of graph-timed calls) against the graph-"
              "replayed step\n")
        table(["model", "batch", "ctx", "step ms", "sum of kernel rows ms", "sum vs step"], out)


def serving_rows(path):
    """(kind, batch, prompt or ctx) -> (meas_step_time_s, note's eager figure) of the shared serving rows."""
    ref = {}
    if not path:
        return ref
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["row_kind"] == "serve_prefill":
                ref[("serve_prefill", r["batch"], r["prompt_len"])] = (float(r["meas_step_time_s"]), "")
            elif r["row_kind"] == "serve_decode":
                eager = r["notes"].split("took ")[1].split(";")[0] if "took " in r["notes"] else ""
                ref[("serve_decode", r["batch"], r["ctx_len"])] = (float(r["meas_step_time_s"]), eager)
    return ref


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--rows", default="")
    args = ap.parse_args()
    files = ("gemm.csv", "decode_attention.csv", "prefill_attention.csv", "ops.csv", "steps.csv")
    data = {f: load(args.run, f) for f in files}
    any_row = next((r for f in files for r in data[f] if r.get("gpu")), None)
    if any_row:
        print(f"GPU {any_row['gpu']}, driver {any_row['driver']}, power limit {any_row['power_limit_w']} W, "
              f"torch {any_row['torch']}, CUDA {any_row['cuda']}, {any_row['date']}\n")
    print("| file | rows | timed | failed or skipped | SM MHz median [min, max] | W median [min, max] |")
    print("|---|---|---|---|---|---|")
    for f in files:
        rows = data[f]
        timed = [r for r in rows if num(r, "median_s")]
        mhz = [num(r, "sm_mhz") for r in timed if num(r, "sm_mhz")]
        w = [num(r, "watts") for r in timed if num(r, "watts")]
        span = (lambda v: f"{statistics.median(v):.0f} [{min(v):.0f}, {max(v):.0f}]" if v else "-")
        print(f"| {f} | {len(rows)} | {len(timed)} | {len(rows) - len(timed)} | {span(mhz)} | {span(w)} |")
    print()
    ops_section(data["ops.csv"])
    gemm_section(data["gemm.csv"])
    attention_section(data["decode_attention.csv"], data["prefill_attention.csv"])
    steps_section(data["steps.csv"], serving_rows(args.rows))
    composition_section(data["steps.csv"], data["gemm.csv"], data["decode_attention.csv"], data["ops.csv"])
    bad = [(f, r) for f in files for r in data[f] if not num(r, "median_s")]
    if bad:
        print("### Failed or skipped rows\n")
        seen = set()
        for f, r in bad:
            key = (f, r["op"], r["note"][:70])
            if key in seen:
                continue
            seen.add(key)
            print(f"- {f} {r['op']} {r['model']} m={r['m']} batch={r['batch']} seq={r['seq']} ctx={r['ctx']}: "
                  f"{r['note']}")
        print()


if __name__ == "__main__":
    main()
