#!/usr/bin/env python3
"""What the dropless dispatcher's host synchronisation costs Megatron-Core's merged forward-backward schedule,
depending on where it sits (docs/validation.md, "Not done", row 190).

Megatron-Core 0.15 runs MoE layers as schedule nodes (fine_grained_callables.py): attn, post_attn (norm, router,
dispatch preprocess), dispatch (all-to-all, communication stream), mlp (experts), combine (all-to-all back). Each
node's forward takes detached inputs and its backward is a torch.autograd.backward call of its own. With
overlap_moe_expert_parallel_comm it interleaves the forward of one micro-batch with the backward of another, layer
by layer, in this host order (TransformerLayerSchedulePlan.run):
    b.combine.bwd | f.attn, f.post_attn | b.mlp.bwd | f.dispatch | b.dispatch.bwd | f.mlp | f.combine |
    b.post_attn.bwd, b.attn.bwd
The all-to-all dispatcher copies the per-expert counts to the host in post_attn (before permutation) and waits for
them there: the wait drains the compute stream. DeepEP waits inside its dispatch, after the backward's expert MLP
is queued. One GPU has no all-to-all, so dispatch and combine are a copy of the tokens on a second stream.

The expert work per GPU is row 190's (Qwen3-30B-A3B at EP 8: 16 local experts of FFN 768, 4,096 rows each for
8,192 tokens at top-8), bf16, one GEMM per expert from a host loop. Schedules, each over the same micro-batches:
    plain          whole-model autograd per micro-batch (moe_step.py), counts synced in the layer
    nodes-seq      the nodes, forward of one micro-batch then backward of the previous, sync in post_attn
    merged-post    the merged order above, sync in post_attn (the all-to-all dispatcher)
    merged-disp    the merged order, sync inside dispatch (DeepEP's place)
    merged-none    the merged order, no sync (splits known: token dropping)
Per schedule: wall time per micro-batch (forward + backward) in steady state, NVML clock and power.
"""
import argparse
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from moe_step import Block, GroupedLinearFn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, environment, write_results  # noqa: E402


class Layer:
    """One MoE block split into Megatron-Core's schedule nodes, on one GPU."""

    def __init__(self, blk, experts, top_k, comp, comm):
        self.b, self.e, self.k, self.comp, self.comm = blk, experts, top_k, comp, comm

    # Each node: forward(inputs) -> outputs; inputs are detached leaves so each node has its own graph.
    def attn(self, x):
        b, s, _ = x.shape
        m = self.b
        q, k, v = m.qkv(m.n1(x)).split([m.heads * m.hd, m.kv * m.hd, m.kv * m.hd], dim=-1)
        q = q.view(b, s, m.heads, m.hd).transpose(1, 2)
        k = k.view(b, s, m.kv, m.hd).transpose(1, 2)
        v = v.view(b, s, m.kv, m.hd).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return x + m.proj(y.transpose(1, 2).reshape(b, s, -1))

    def post_attn(self, h, st, sync):
        moe = self.b.ffn
        x = self.b.n2(h).reshape(-1, h.shape[-1])
        scores = moe.router(x).float().softmax(dim=-1)
        probs, _ = scores.topk(self.k, dim=-1)
        probs = (probs / probs.sum(dim=-1, keepdim=True)).to(x.dtype)
        copies = torch.arange(x.shape[0] * self.k, device=x.device)
        flat = (copies * 7919) % self.e  # force-balanced routing, as the benchmarks run
        order = flat.argsort(stable=True)
        st["counts"] = torch.bincount(flat, minlength=self.e)
        if sync:
            st["splits"] = st["counts"].cpu().tolist()  # the all-to-all dispatcher's wait, in post_attn
        st["order"], st["tok"] = order, order // self.k
        # Detached, as Megatron-Core's nodes detach the dispatched probabilities: each node keeps its own graph
        # (the router's weight gradient is left out of this study).
        st["probs"] = probs.reshape(-1, 1).index_select(0, order).detach()
        return x.index_select(0, st["tok"])

    def dispatch(self, xp, st, sync):
        if sync:
            st["splits"] = st["counts"].cpu().tolist()  # DeepEP's wait, inside the dispatch
        return xp.clone()  # the all-to-all's stand-in: the tokens move through memory

    def mlp(self, xp, st):
        splits = st.get("splits") or [xp.shape[0] // self.e] * self.e
        moe = self.b.ffn
        a, g = GroupedLinearFn.apply(xp, moe.w1, splits).chunk(2, dim=-1)
        return GroupedLinearFn.apply(F.silu(a) * g, moe.w2, splits) * st["probs"]

    def combine(self, y, h, st):
        return h + torch.zeros(h.numel() // h.shape[-1], h.shape[-1], dtype=y.dtype, device=y.device).index_add_(
            0, st["tok"], y).view_as(h)


class Node:
    """A schedule node: runs fn on detached inputs on its stream, and later its own backward."""

    def __init__(self, stream):
        self.stream = stream

    def forward(self, fn, ready, *inputs):
        self.stream.wait_event(ready)
        with torch.cuda.stream(self.stream):
            self.inputs = [t.detach().requires_grad_(True) for t in inputs]
            self.out = fn(*self.inputs)
            ev = torch.cuda.Event()
            ev.record(self.stream)
        return self.out, ev

    def backward(self, grad, ready):
        self.stream.wait_event(ready)
        with torch.cuda.stream(self.stream):
            torch.autograd.backward(self.out, grad)
            grads = [t.grad for t in self.inputs]
            ev = torch.cuda.Event()
            ev.record(self.stream)
        self.out = self.inputs = None
        return grads, ev


def layer_nodes(L):
    """A layer's five schedule nodes on their streams: compute for attn, post_attn and mlp; the second stream for
    dispatch and combine."""
    return dict(attn=Node(L.comp), post=Node(L.comp), disp=Node(L.comm), mlp=Node(L.comp), comb=Node(L.comm))


def forward_layer(L, x, ev, sync_at, state):
    """Forward of one layer as nodes; returns the layer's nodes, its output and the output's event."""
    st = {}
    n = layer_nodes(L)
    h, e1 = n["attn"].forward(L.attn, ev, x)
    xp, e2 = n["post"].forward(lambda t: L.post_attn(t, st, sync_at == "post"), e1, h)
    xd, e3 = n["disp"].forward(lambda t: L.dispatch(t, st, sync_at == "disp"), e2, xp)
    y, e4 = n["mlp"].forward(lambda t: L.mlp(t, st), e3, xd)
    out, e5 = n["comb"].forward(lambda a, b: L.combine(a, b, st), e4, y, h)
    state.append((n, st))
    return out, e5


def backward_layer(nodes, g, ev):
    """Backward of one layer's nodes in reverse; the residual's gradient joins attn's output gradient."""
    (gy, gh), e = nodes["comb"].backward(g, ev)
    (gxd,), e = nodes["mlp"].backward(gy, e)
    (gxp,), e = nodes["disp"].backward(gxd, e)
    (gh2,), e = nodes["post"].backward(gxp, e)
    L_comp = nodes["attn"].stream
    L_comp.wait_event(e)
    with torch.cuda.stream(L_comp):
        gh = gh + gh2
    (gx,), e = nodes["attn"].backward(gh, e)
    return gx, e


def merged_layer(Lf, x, evx, fstate, bnodes, g, evg, sync_at):
    """One layer of the merged schedule: the forward of Lf on x and the backward of bnodes, in Megatron's order."""
    st = {}
    n = layer_nodes(Lf)
    (gy, gh), eb = bnodes["comb"].backward(g, evg)                       # b.combine.bwd (comm)
    h, e1 = n["attn"].forward(Lf.attn, evx, x)                           # f.attn
    xp, e2 = n["post"].forward(lambda t: Lf.post_attn(t, st, sync_at == "post"), e1, h)   # f.post_attn
    (gxd,), eb = bnodes["mlp"].backward(gy, eb)                          # b.mlp.bwd
    xd, e3 = n["disp"].forward(lambda t: Lf.dispatch(t, st, sync_at == "disp"), e2, xp)   # f.dispatch (comm)
    (gxp,), eb = bnodes["disp"].backward(gxd, eb)                        # b.dispatch.bwd (comm)
    y, e4 = n["mlp"].forward(lambda t: Lf.mlp(t, st), e3, xd)            # f.mlp
    out, e5 = n["comb"].forward(lambda a, b: Lf.combine(a, b, st), e4, y, h)            # f.combine (comm)
    (gh2,), eb = bnodes["post"].backward(gxp, eb)                        # b.post_attn.bwd
    comp = bnodes["attn"].stream
    comp.wait_event(eb)
    with torch.cuda.stream(comp):
        gh = gh + gh2
    (gx,), eb = bnodes["attn"].backward(gh, eb)                          # b.attn.bwd
    fstate.append((n, st))
    return out, e5, gx, eb


def run(cfg, schedule, micro_batches, warmup, nvml):
    torch.manual_seed(0)
    comp, comm = torch.cuda.current_stream(), torch.cuda.Stream()
    blocks = [Block(cfg).cuda().to(torch.bfloat16) for _ in range(cfg["layers"])]
    layers = [Layer(b, cfg["experts"], cfg["top_k"], comp, comm) for b in blocks]
    for b in blocks:
        b.ffn.routing = "balanced"
    xs = [torch.randn(cfg["batch"], cfg["seq"], cfg["hidden"], device="cuda", dtype=torch.bfloat16)
          for _ in range(2)]
    sync_at = {"merged-post": "post", "merged-disp": "disp", "merged-none": None, "nodes-seq": "post"}.get(schedule)
    gout = torch.full_like(xs[0], 1e-3)

    def fwd(x):
        state, ev = [], torch.cuda.Event()
        ev.record(comp)
        for L in layers:
            x, ev = forward_layer(L, x, ev, sync_at, state)
        return state, ev

    def bwd(state, ev):
        g = gout
        for nodes, _ in reversed(state):
            g, ev = backward_layer(nodes, g, ev)
        return ev

    times = []
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        pending = None
        if schedule not in ("plain",):
            pending = fwd(xs[0])
        t_timed = None
        for i in range(warmup + micro_batches):
            if i == warmup:
                t_timed = time.monotonic()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            x = xs[(i + 1) % 2]
            if schedule == "plain":
                h = x.requires_grad_(True)
                for b in blocks:
                    h = b(h)
                h.backward(gout)
                x.grad = None
            elif schedule == "nodes-seq":
                nxt = fwd(x)
                bwd(*pending)
                pending = nxt
            else:  # merged: forward of the next micro-batch with the backward of the pending one
                state, evb = pending
                fstate, evx = [], torch.cuda.Event()
                evx.record(comp)
                g, evg = gout, evb
                n = len(layers)
                for li in range(n):
                    x, evx, g, evg = merged_layer(layers[li], x, evx, fstate, state[n - 1 - li][0], g, evg, sync_at)
                pending = (fstate, evx)
            torch.cuda.synchronize()
            if i >= warmup:
                times.append((time.perf_counter() - t0) * 1e3)
        t_end = time.monotonic()
    reading = nvml.summary(t_timed, t_end)
    del blocks, layers, pending
    torch.cuda.empty_cache()
    return dict(cfg, schedule=schedule, ms_per_micro_batch_median=statistics.median(times),
                ms_min=min(times), ms_max=max(times), micro_batches=micro_batches, warmup=warmup, nvml=reading)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--micro-batches", type=int, default=10)
    args = ap.parse_args()
    base = dict(hidden=2048, heads=32, kv_heads=4, head_dim=128, layers=4, experts=16, top_k=8, expert_ffn=768)
    configs = [dict(base, name="qwen3-30b-ep8-tiny", seq=256, batch=1),    # the same launches, negligible GPU work
               dict(base, name="qwen3-30b-ep8-layer", seq=4096, batch=2)]  # row 190's per-GPU layer work
    nvml = NvmlWindow()
    env = environment(nvml)
    results = []
    for cfg in configs:
        for schedule in ("plain", "nodes-seq", "merged-post", "merged-disp", "merged-none"):
            t0 = time.time()
            try:
                r = run(cfg, schedule, args.micro_batches, 3, nvml)
            except Exception as e:  # keep what ran
                print(f"merged_schedule_study: {cfg['name']} {schedule} failed: {e!r}", file=sys.stderr, flush=True)
                continue
            print(f"merged_schedule_study: {cfg['name']} {schedule}: {r['ms_per_micro_batch_median']:.2f} ms per "
                  f"micro-batch (fwd+bwd of {cfg['layers']} layers) {r['nvml']['sm_mhz_median']:.0f} MHz "
                  f"{r['nvml']['watts_median']:.0f} W [{time.time() - t0:.0f} s]", file=sys.stderr, flush=True)
            results.append(r)
            write_results(args.out, env, results)


if __name__ == "__main__":
    main()
