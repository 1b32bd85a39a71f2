#!/usr/bin/env python3
"""What Megatron-Core's own modules cost the host per layer, measured with Megatron-Core itself on one GPU
(docs/validation.md, "Megatron-Core's host cost"). The simulator's host-issue model charges each eager operator
the host time plain PyTorch spends on it (pytorch-eager.yaml: host_launch_cost, measured with moe_step.py / gpt_step.py); Megatron's
modules (config objects, hooks, the token dispatcher's bookkeeping, the schedule) may spend more.

Megatron-Core is pure Python: this script takes its source (e.g. `git archive core_r0.15.0 megatron/core` of
NVIDIA/Megatron-LM, the release NeMo 25.11 shipped) from --mcore and runs its GPTModel with the "local"
transformer implementation (no Transformer Engine, no Apex: torch RMSNorm, Megatron's own linear layers and
unfused attention, SequentialMLP experts looped in Python) through its own forward-backward schedule
(forward_backward_no_pipelining), in bf16, world size 1.

Configurations (Qwen3-30B-A3B's layer: hidden 2,048, 32 heads of 128, 4 KV groups, QK norm, SwiGLU):
    dense   FFN 6,144 (no experts)
    moe     16 experts of FFN 768, top-8, force-balanced, dropless all-to-all dispatcher: the expert work of one
            GPU of Qwen3-30B-A3B at EP 8 (128 experts, top-8), without the all-to-all (EP 1)
each with 2 and 6 layers (their difference is 4 layers' cost, without the embedding, head and schedule) and at
micro-batch sequence lengths 128 (the GPU idles: wall time is the host's) and 2,048.
Per run: wall ms per micro-batch in steady state (10 iterations of 4 micro-batches after 3), the GPU's busy
time per micro-batch from the profiler's kernel durations, and NVML clock and power.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))  # cs_bench
from cs_bench import NvmlWindow, environment, profiled, write_results  # noqa: E402


def init_megatron(mcore, port):
    """Megatron-Core from the folder `mcore` (holding megatron/core) on GPU 0, world size 1 (a process group of
    its own on `port`), model parallelism 1, seeded; returns the megatron.core module."""
    sys.path.insert(0, os.path.abspath(mcore))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(port))
    torch.distributed.init_process_group("nccl", rank=0, world_size=1)
    torch.cuda.set_device(0)
    from megatron.core import parallel_state
    from megatron.core.tensor_parallel.random import model_parallel_cuda_manual_seed
    parallel_state.initialize_model_parallel(1, 1)
    model_parallel_cuda_manual_seed(1234)
    import megatron.core
    return megatron.core


def mean_loss(out):
    """The loss function a forward step hands Megatron-Core's schedule: the output's mean."""
    loss = out.float().mean()
    return loss, {"loss": loss.detach()}


def build(layers, moe, seq):
    from megatron.core.models.gpt.gpt_layer_specs import get_gpt_layer_local_spec
    from megatron.core.models.gpt.gpt_model import GPTModel
    from megatron.core.transformer.transformer_config import TransformerConfig

    kw = dict(num_layers=layers, hidden_size=2048, num_attention_heads=32, num_query_groups=4, kv_channels=128,
              ffn_hidden_size=6144, normalization="RMSNorm", qk_layernorm=True, gated_linear_unit=True,
              activation_func=F.silu, add_bias_linear=False, hidden_dropout=0.0, attention_dropout=0.0,
              bf16=True, params_dtype=torch.bfloat16, pipeline_dtype=torch.bfloat16,
              apply_rope_fusion=False, bias_activation_fusion=False, masked_softmax_fusion=False,
              persist_layer_norm=False, gradient_accumulation_fusion=False)
    if moe:
        kw.update(num_moe_experts=16, moe_router_topk=8, moe_ffn_hidden_size=768,
                  moe_token_dispatcher_type="alltoall", moe_router_force_load_balancing=True,
                  moe_router_load_balancing_type="none", moe_aux_loss_coeff=0.0, moe_grouped_gemm=False,
                  moe_router_dtype="fp32")
    cfg = TransformerConfig(**kw)
    spec = get_gpt_layer_local_spec(num_experts=16 if moe else None, moe_grouped_gemm=False, qk_layernorm=True,
                                    normalization="RMSNorm")
    model = GPTModel(config=cfg, transformer_layer_spec=spec, vocab_size=32768, max_sequence_length=seq,
                     pre_process=True, post_process=True, position_embedding_type="rope")
    return model.cuda()


def time_iterations(iteration, warmup, iterations, micro_batches):
    """Wall ms per micro-batch of `iterations` calls of `iteration` after `warmup` (each synchronised), the
    monotonic window they ran in (for NVML), and the CUDA kernels of one more call under the profiler."""
    for _ in range(warmup):
        iteration()
    torch.cuda.synchronize()
    walls = []
    t_window0 = time.monotonic()
    for _ in range(iterations):
        t = time.perf_counter()
        iteration()
        torch.cuda.synchronize()
        walls.append((time.perf_counter() - t) * 1e3 / micro_batches)
    t_window1 = time.monotonic()
    kernels = [e for e in profiled(iteration).events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return walls, kernels, (t_window0, t_window1)


def run(layers, moe, seq, args, nvml):
    from megatron.core.pipeline_parallel import get_forward_backward_func

    model = build(layers, moe, seq)
    mb = args.micro_batches
    tokens = torch.randint(0, 32768, (1, seq), device="cuda")
    pos = torch.arange(seq, device="cuda").unsqueeze(0)

    def step_func(it, m):
        next(it)
        return m(tokens, pos, None, labels=tokens), mean_loss

    fb = get_forward_backward_func()

    def iteration():
        fb(forward_step_func=step_func, data_iterator=iter(range(mb)), model=[model], num_microbatches=mb,
           seq_length=seq, micro_batch_size=1, forward_only=False)

    walls, kernels, (t_window0, t_window1) = time_iterations(iteration, args.warmup, args.iterations, mb)
    busy_us = sum(e.device_time for e in kernels)
    r = dict(config="moe" if moe else "dense", layers=layers, seq=seq, micro_batches=mb,
             ms_per_micro_batch_median=statistics.median(walls), ms_min=min(walls), ms_max=max(walls),
             gpu_busy_ms_per_micro_batch=busy_us / 1e3 / mb, kernels_per_micro_batch=len(kernels) / mb,
             nvml=nvml.summary(t_window0, t_window1))
    del model
    torch.cuda.empty_cache()
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mcore", required=True, help="folder holding megatron/core (Megatron-LM's source)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--micro-batches", type=int, default=4)
    ap.add_argument("--seqs", default="128,2048")
    args = ap.parse_args()
    megatron_core = init_megatron(args.mcore, 29511)
    # Megatron-Core 0.15 leaves `te_general_gemm` undefined when Transformer Engine is missing (its import
    # fallback sets only the other names); the router means None there, which selects its torch.mm path.
    import megatron.core.transformer.moe.moe_utils as moe_utils
    if not hasattr(moe_utils, "te_general_gemm"):
        moe_utils.te_general_gemm = None
    nvml = NvmlWindow()
    env = environment(nvml, megatron_core=getattr(megatron_core, "__version__", "?"))
    results = []
    for seq in [int(s) for s in args.seqs.split(",")]:
        for moe in (False, True):
            for layers in (2, 6):
                r = run(layers, moe, seq, args, nvml)
                print(json.dumps(r), flush=True)
                results.append(r)
                write_results(args.out, env, results)
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
