"""Latency against batch size of a DLRM-style recommendation model served on one GPU (issue 44: a service given by
its measured latency, for a model clustersim does not replay; the seed's 32-GPU cluster served a recommendation
model by day).

The model is DLRM's (Naumov et al. 2019, github facebookresearch/dlrm) at the shape of its Criteo Terabyte
benchmark configuration (dlrm_s_pytorch.py with --arch-sparse-feature-size=64
--arch-mlp-bot=13-512-256-64 --arch-mlp-top=512-512-256-1 and the dot interaction): 13 dense features through the
bottom MLP, 26 categorical features each looked up in its own embedding table (one index per feature, as Criteo's
are), pairwise dot products of the 27 vectors, then the top MLP and a sigmoid. The Terabyte tables reach 40M rows;
here each is capped at --rows (default 1M rows x 64 fp32 = 256 MB, 6.7 GB in all), enough that every lookup misses
the 50 MB L2 as the full tables' would; indices are uniform (no popularity skew: the slow end).

One request of a batch is what a serving engine does per batch: copy the batch's dense features and indices from
pinned host memory to the GPU, run the forward pass, copy the scores back, and wait for them. Timed with the host's
clock around the whole (the latency a caller sees, host launches included), eagerly (a PyTorch backend of Triton or
TorchServe) and replayed from a CUDA graph, at batch sizes 1 .. 8192, in fp32 and with the MLPs in fp16. Every row
carries NVML's SM clock and board power over its own window, the GPU, driver, torch and CUDA versions and the date.

    python3 calibrate/studies/recsys_latency.py --out $OUT/recsys_latency.csv [--rows 1000000] [--budget 4]
"""
import argparse
import csv
import datetime
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch"))

import torch  # noqa: E402

from cs_bench import NvmlWindow, pynvml  # noqa: E402

DENSE, SPARSE, DIM = 13, 26, 64
BOTTOM = (DENSE, 512, 256, DIM)
TOP_OUT = (512, 256, 1)


def mlp(sizes, final_sigmoid=False):
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(torch.nn.Linear(a, b))
        last = i == len(sizes) - 2
        layers.append(torch.nn.Sigmoid() if last and final_sigmoid else torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


class Dlrm(torch.nn.Module):
    def __init__(self, rows):
        super().__init__()
        self.bottom = mlp(BOTTOM)
        self.tables = torch.nn.ModuleList(torch.nn.EmbeddingBag(rows, DIM, mode="sum") for _ in range(SPARSE))
        n = SPARSE + 1
        pairs = n * (n - 1) // 2
        self.top = mlp((DIM + pairs,) + TOP_OUT, final_sigmoid=True)
        li, lj = torch.tril_indices(n, n, offset=-1)
        self.register_buffer("li", li)
        self.register_buffer("lj", lj)

    def forward(self, dense, indices, mlp_dtype):
        x = self.bottom(dense.to(mlp_dtype))
        offsets = torch.arange(indices.shape[0], device=indices.device)
        ly = [t(indices[:, k].contiguous(), offsets).to(mlp_dtype) for k, t in enumerate(self.tables)]
        t = torch.stack([x] + ly, dim=1)  # batch x 27 x 64
        z = torch.bmm(t, t.transpose(1, 2))[:, self.li, self.lj]
        return self.top(torch.cat([x, z], dim=1))


def driver():
    try:
        pynvml.nvmlInit()
        v = pynvml.nvmlSystemGetDriverVersion()
        return v.decode() if isinstance(v, bytes) else str(v)
    except Exception:  # noqa: BLE001
        return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--budget", type=float, default=3.0, help="seconds of timing per row")
    ap.add_argument("--batches", default="1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192")
    args = ap.parse_args()
    dev = torch.device("cuda")
    torch.manual_seed(1)
    model = Dlrm(args.rows).to(dev).eval()
    nvml = NvmlWindow()
    base = {"gpu": torch.cuda.get_device_name(0), "driver": driver(), "torch": torch.__version__,
            "cuda": torch.version.cuda, "rows_per_table": args.rows, "tables": SPARSE, "dim": DIM,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "power_limit_w": f"{nvml.power_limit_w:.0f}" if nvml.ok else ""}
    cols = ["batch", "mlp_dtype", "mode", "median_s", "p10_s", "p90_s", "p99_s", "reps", "sm_mhz", "watts",
            "max_allocated_bytes"] + list(base)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for mlp_dtype in (torch.float32, torch.float16):
            m = model
            if mlp_dtype == torch.float16:
                m.bottom.half()
                m.top.half()
            for batch in (int(b) for b in args.batches.split(",")):
                dense_h = torch.rand(batch, DENSE).pin_memory()
                idx_h = torch.randint(0, args.rows, (batch, SPARSE), dtype=torch.int64).pin_memory()
                dense_d = torch.empty(batch, DENSE, device=dev)
                idx_d = torch.empty(batch, SPARSE, dtype=torch.int64, device=dev)
                out_h = torch.empty(batch, 1, dtype=mlp_dtype).pin_memory()

                def step():
                    dense_d.copy_(dense_h, non_blocking=True)
                    idx_d.copy_(idx_h, non_blocking=True)
                    with torch.no_grad():
                        y = m(dense_d, idx_d, mlp_dtype)
                    out_h.copy_(y, non_blocking=True)

                graph = None
                for mode in ("eager", "graph"):
                    torch.cuda.reset_peak_memory_stats()
                    if mode == "graph":
                        s = torch.cuda.Stream()
                        s.wait_stream(torch.cuda.current_stream())
                        with torch.cuda.stream(s):
                            for _ in range(3):
                                step()
                        torch.cuda.current_stream().wait_stream(s)
                        graph = torch.cuda.CUDAGraph()
                        with torch.cuda.graph(graph):
                            step()
                        run = graph.replay
                    else:
                        run = step
                    for _ in range(5):
                        run()
                    torch.cuda.synchronize()
                    times = []
                    t0 = time.monotonic()
                    while time.monotonic() - t0 < args.budget and len(times) < 20000:
                        a = time.perf_counter()
                        run()
                        torch.cuda.synchronize()
                        times.append(time.perf_counter() - a)
                    t1 = time.monotonic()
                    times.sort()
                    q = lambda p: times[min(len(times) - 1, int(p * len(times)))]  # noqa: E731
                    mhz, watts, _, _ = nvml.window(t0, t1)
                    row = dict(base, batch=batch, mlp_dtype=str(mlp_dtype).replace("torch.", ""), mode=mode,
                               median_s=f"{statistics.median(times):.7g}", p10_s=f"{q(0.1):.7g}",
                               p90_s=f"{q(0.9):.7g}", p99_s=f"{q(0.99):.7g}", reps=len(times), sm_mhz=f"{mhz:.0f}",
                               watts=f"{watts:.1f}", max_allocated_bytes=torch.cuda.max_memory_allocated())
                    w.writerow(row)
                    f.flush()
                    print(f"{row['mlp_dtype']} {mode} batch {batch}: {float(row['median_s']) * 1e3:.3f} ms "
                          f"p99 {float(row['p99_s']) * 1e3:.3f} ms at {row['sm_mhz']} MHz {row['watts']} W",
                          flush=True)
                del graph
    nvml.close()


if __name__ == "__main__":
    main()
