#!/usr/bin/env python3
"""What a Megatron-Core layer built on Transformer Engine costs the host and the GPU, per layer and micro-batch,
measured with both on one GPU (docs/validation.md, "Megatron-Core on Transformer Engine").

The simulator's host-issue model charges each eager launch the host time plain PyTorch spends per kernel
(pytorch-eager.yaml: host_launch_cost) times Transformer Engine's work per call (megatron-core-te-2025.yaml: host_factor), over the operators its
layer model lists (about 24 for a dense layer, 140 for a Qwen3-30B-A3B MoE layer at EP 8). What a production
layer really launches, and what its host really spends, were not measured: run 5 (mcore_host_study.py) had no
Transformer Engine and ran Megatron-Core's "local" layers. This script runs Megatron-Core (its source from
--mcore, e.g. `git archive core_r0.15.0 megatron/core`, the release NeMo 25.11 shipped) with the Transformer
Engine layer spec (get_gpt_layer_with_transformer_engine_spec: fused norm+linear, TE attention and fused RoPE,
TEGroupedMLP experts) through its own forward_backward_no_pipelining, as Megatron-Bridge 25.11's Qwen3 MoE recipe
configures it (alltoall dispatcher, force-balanced routing with the aux loss, router and permute fusion, bias
activation fusion, grouped GEMM), in bf16 or fp8 with current (tensorwise) scaling.

Configurations (Qwen3-30B-A3B's layer: hidden 2,048, 32 heads of 128, 4 KV groups, QK norm, SwiGLU):
    dense   FFN 6,144
    moe     16 experts of FFN 768, top-8: one GPU's expert work of Qwen3-30B-A3B at EP 8, without the all-to-all
each with 2 and 6 layers (their difference is four layers without the embedding, head and schedule), at micro-
batches of 1 x 128 tokens (the GPU idles: wall time is the host's) and 2 x 4,096 (row 190's micro-batch).
Per run: wall ms per micro-batch in steady state, the GPU's busy time and kernel count per micro-batch from the
profiler, NVML clock and power.
"""
import argparse
import ast
import json
import os
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F

from mcore_host_study import init_megatron, mean_loss, time_iterations

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, environment, host_time_queued, profiled, write_results  # noqa: E402


def build(layers, experts, seq, precision, ddp, a2a_overlap=False, overrides=()):
    from megatron.core.distributed import DistributedDataParallel, DistributedDataParallelConfig
    from megatron.core.models.gpt.gpt_layer_specs import get_gpt_layer_with_transformer_engine_spec
    from megatron.core.models.gpt.gpt_model import GPTModel
    from megatron.core.transformer.transformer_config import TransformerConfig

    kw = dict(num_layers=layers, hidden_size=2048, num_attention_heads=32, num_query_groups=4, kv_channels=128,
              ffn_hidden_size=6144, normalization="RMSNorm", layernorm_epsilon=1e-6, qk_layernorm=True,
              gated_linear_unit=True, activation_func=F.silu, add_bias_linear=False, hidden_dropout=0.0,
              attention_dropout=0.0, bf16=True, params_dtype=torch.bfloat16, pipeline_dtype=torch.bfloat16,
              apply_rope_fusion=True, bias_activation_fusion=True, bias_dropout_fusion=True,
              masked_softmax_fusion=True, gradient_accumulation_fusion=False)
    if precision == "fp8cs":
        kw.update(fp8="hybrid", fp8_recipe="tensorwise")
    moe = experts > 0
    if moe:
        kw.update(num_moe_experts=experts, moe_router_topk=8, moe_ffn_hidden_size=768, moe_grouped_gemm=True,
                  moe_token_dispatcher_type="alltoall", moe_router_force_load_balancing=True,
                  moe_router_load_balancing_type="aux_loss", moe_aux_loss_coeff=1e-3, moe_router_fusion=True,
                  moe_permute_fusion=True)
    for key, value in overrides:  # --set KEY=VALUE: Python literals (True, 1, 'x')
        kw[key] = value
    cfg = TransformerConfig(**kw)
    if a2a_overlap:
        # Megatron-Bridge's moe_a2a_overlap: the merged forward-backward schedule (combined_1f1b), one micro-batch's
        # layer forward run node by node against another's backward. The config refuses it at EP 1 (there is no
        # all-to-all to hide); set after the check, only the schedule reads it, and at EP 1 the dispatcher's
        # all-to-all is a copy, so what is measured is the schedule's own host and GPU work.
        cfg.overlap_moe_expert_parallel_comm = True
    spec = get_gpt_layer_with_transformer_engine_spec(num_experts=experts if moe else None, moe_grouped_gemm=moe,
                                                      qk_layernorm=True)
    model = GPTModel(config=cfg, transformer_layer_spec=spec, vocab_size=32768, max_sequence_length=seq,
                     pre_process=True, post_process=True, position_embedding_type="rope",
                     rotary_base=1000000).cuda()
    if ddp:  # Megatron-Bridge's wrapper: gradient buckets filled by backward hooks, the distributed optimizer's
        model = DistributedDataParallel(cfg, DistributedDataParallelConfig(
            overlap_grad_reduce=True, use_distributed_optimizer=True, grad_reduce_in_fp32=False), model)
    return model


def run(layers, experts, seq, batch, precision, args, nvml, a2a_overlap=False):
    from megatron.core.pipeline_parallel import get_forward_backward_func

    # Megatron-Core keeps MoE aux-loss statistics in a global tracker sized by the first model's layer count.
    from megatron.core.transformer.moe import moe_utils
    moe_utils.get_moe_layer_wise_logging_tracker().clear()
    model = build(layers, experts, seq, precision, args.ddp, a2a_overlap, args.set)
    mb = args.micro_batches
    tokens = torch.randint(0, 32768, (batch, seq), device="cuda")
    pos = torch.arange(seq, device="cuda").unsqueeze(0).expand(batch, seq)

    def step_func(it, m, return_schedule_plan=False):
        next(it)
        if return_schedule_plan:  # the merged schedule asks for the model's schedule plan instead of its output
            return m.build_schedule_plan(tokens, pos, None, labels=tokens), mean_loss
        return m(tokens, pos, None, labels=tokens), mean_loss

    fb = get_forward_backward_func()

    def iteration():
        if args.ddp:
            model.zero_grad_buffer()
        fb(forward_step_func=step_func, data_iterator=iter(range(mb)), model=[model], num_microbatches=mb,
           seq_length=seq, micro_batch_size=batch, forward_only=False)
        if args.ddp:
            model.finish_grad_sync()

    # Timed iterations, then the GPU's busy time and kernel count from one more under the profiler.
    walls, kernels, (t_window0, t_window1) = time_iterations(iteration, args.warmup, args.iterations, mb)
    busy_us = sum(e.device_time for e in kernels)
    by_name = {}
    for e in kernels:
        k = by_name.setdefault(e.name[:90], [0, 0.0])
        k[0] += 1
        k[1] += e.device_time
    top = sorted(by_name.items(), key=lambda kv: -kv[1][0])[:40]
    r = dict(config=f"moe{experts}" if experts else "dense", experts=experts, precision=precision, layers=layers,
             a2a_overlap=a2a_overlap,
             seq=seq, batch=batch,
             micro_batches=mb, ddp=args.ddp, ms_per_micro_batch_median=statistics.median(walls),
             ms_min=min(walls), ms_max=max(walls), gpu_busy_ms_per_micro_batch=busy_us / 1e3 / mb,
             kernels_per_micro_batch=len(kernels) / mb,
             kernels_by_name=[dict(name=n, per_micro_batch=c / mb, us_per_micro_batch=t / mb) for n, (c, t) in top],
             nvml=nvml.summary(t_window0, t_window1))
    if args.timeline and layers == 6:
        r["phases"] = phase_timeline(iteration, mb, os.path.join(
            args.timeline, f"{r['config']}{'_a2a' if a2a_overlap else ''}_{precision}_{batch}x{seq}_{layers}l.json.gz"))
    del model
    torch.cuda.empty_cache()
    return r


def phase_timeline(iteration, micro_batches, path):
    """One more call profiled with CUDA activity alone (runtime calls and kernels, no per-operator CPU records),
    its trace kept gzipped at `path`, summarised by phase (trace_phases.py)."""
    import gzip
    import shutil
    from trace_phases import load, summarise
    raw = path[:-3]
    profiled(iteration).export_chrome_trace(raw)
    summary = summarise(load(raw), micro_batches)
    with open(raw, "rb") as src, gzip.open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.remove(raw)
    return summary


def ep1_stand_ins():
    """What the merged schedule needs at EP 1, applied to both schedules of the run so that they stay comparable.
    The alltoall dispatcher synchronises "before_finish" at EP 1, after the merged schedule's split of the layer has
    already used the token counts (an illegal address in TE's chunk sort); at EP > 1 it synchronises
    "before_ep_alltoall": use that point, as the EP 8 layer this stands for does. And Megatron-Core's all-to-all
    returns its input itself at EP 1, which the merged schedule then frees as the dispatch node's spent input,
    leaving the expert node an empty tensor; a real all-to-all writes a new buffer: stand in for it with a copy
    (65,536 routed tokens x 2,048 x 2 bytes: about 0.2 ms of the H100's HBM per dispatch and combine)."""
    from megatron.core.transformer.moe import token_dispatcher
    preprocess = token_dispatcher.MoEAlltoAllTokenDispatcher.preprocess

    def preprocess_synced_as_at_ep8(self, routing_map):
        out = preprocess(self, routing_map)
        self.cuda_sync_point = "before_ep_alltoall"
        return out
    token_dispatcher.MoEAlltoAllTokenDispatcher.preprocess = preprocess_synced_as_at_ep8
    original = token_dispatcher.all_to_all

    def all_to_all(group, input_, output_split_sizes=None, input_split_sizes=None):
        if torch.distributed.get_world_size(group=group) == 1:
            return input_.clone()
        return original(group, input_, output_split_sizes, input_split_sizes)
    token_dispatcher.all_to_all = all_to_all


def clipped(text, keep=3000):
    """`text`, or its first and last `keep` characters where it is longer than twice that."""
    return text if len(text) <= 2 * keep else text[:keep] + " ... " + text[-keep:]


def yardstick(nvml, calls=200, reps=15):
    """Host time of one forward of torch.nn.Linear and of Transformer Engine's Linear (bf16, hidden 2,048, 8,192
    tokens), the GPU kept busy by a sleep queued first: TE issue #2053's yardstick (host_linear_study.py)."""
    import transformer_engine.pytorch as te
    x = torch.randn(8192, 2048, device="cuda", dtype=torch.bfloat16)
    out = {}
    for name, layer in (("torch.nn.Linear", torch.nn.Linear(2048, 2048, bias=False)),
                        ("te.Linear", te.Linear(2048, 2048, bias=False, params_dtype=torch.bfloat16))):
        layer = layer.to("cuda", torch.bfloat16)
        with torch.no_grad():
            host, _gpu, _window = host_time_queued(lambda: layer(x), calls, reps, sleep_ms=80.0)
        out[name] = dict(host_us_per_call_median=statistics.median(host), host_us_per_call_min=min(host))
        print(json.dumps({"yardstick": name, **out[name]}), flush=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mcore", required=True, help="folder holding megatron/core (Megatron-LM's source)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--iterations", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--micro-batches", type=int, default=4)
    ap.add_argument("--shapes", default="1x128,2x4096", help="micro-batches as BATCHxSEQ")
    ap.add_argument("--precisions", default="bf16,fp8cs")
    ap.add_argument("--configs", default="dense,moe16", help="dense, or moeE: E local experts (top-8)")
    ap.add_argument("--yardstick", action="store_true",
                    help="first time one torch.nn.Linear and one te.Linear forward on this host (TE issue #2053)")
    ap.add_argument("--a2a-overlap", default="off", help="off, on or off,on: MoE layers also (or only) through "
                    "Megatron-Core's merged forward-backward schedule (moe_a2a_overlap)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override one TransformerConfig field (a Python literal), e.g. moe_permute_fusion=False")
    ap.add_argument("--timeline", metavar="DIR",
                    help="for 6-layer runs, one more call profiled (CUDA runtime and kernels only), kept gzipped "
                         "in DIR and summarised by forward / backward phase (trace_phases.py)")
    ap.add_argument("--ddp", action="store_true", help="wrap in Megatron-Core's DistributedDataParallel")
    args = ap.parse_args()
    args.set = [(k, ast.literal_eval(v)) for k, v in (kv.split("=", 1) for kv in args.set)]
    megatron_core = init_megatron(args.mcore, 29512)
    import transformer_engine
    nvml = NvmlWindow()
    env = environment(nvml, overrides=dict(args.set), megatron_core=getattr(megatron_core, "__version__", "?"),
                      transformer_engine=getattr(transformer_engine, "__version__", "?"))
    if "on" in args.a2a_overlap.split(","):
        ep1_stand_ins()
    results = []
    if args.timeline:
        os.makedirs(args.timeline, exist_ok=True)
    if args.yardstick:
        env["yardstick_linear_forward"] = yardstick(nvml)
    for shape in args.shapes.split(","):
        batch, seq = (int(x) for x in shape.split("x"))
        for precision in args.precisions.split(","):
            for config, overlap in [(c, o) for c in args.configs.split(",") for o in args.a2a_overlap.split(",")
                                    if o == "off" or c != "dense"]:
                for layers in (2, 6):
                    t0 = time.time()
                    for attempt in (1, 2):  # a first call may fail in a kernel's JIT compilation; retried once
                        try:
                            experts = 0 if config == "dense" else int(config[3:] or 16)
                            r = run(layers, experts, seq, batch, precision, args, nvml, overlap == "on")
                            break
                        except Exception as e:  # noqa: BLE001 - record the failure, go on with the next
                            r = dict(config=config, a2a_overlap=overlap == "on", precision=precision, layers=layers,
                                     seq=seq, batch=batch,
                                     error=f"{type(e).__name__}: {e}"[:2000], attempt=attempt,
                                     traceback=clipped(traceback.format_exc()))
                    r["wall_s"] = round(time.time() - t0, 1)
                    print(json.dumps({k: v for k, v in r.items() if k != "kernels_by_name"}), flush=True)
                    results.append(r)
                    write_results(args.out, env, results)
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
