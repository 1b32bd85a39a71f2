#!/usr/bin/env python3
"""Tabulate the performance recipes of Megatron-Bridge's releases (data/recipes/megatron_bridge.csv).

NVIDIA's Megatron-Bridge performance summaries list, per NeMo container, each model's measured throughput with its
parallel layout; the settings that decide its host and communication costs (the merged forward-backward schedule
`moe_a2a_overlap`, the MoE dispatcher backend, the CUDA-graph scope, the recompute modules) are in the release's
performance configs (scripts/performance/configs/*/*workload_base_configs.py: one WorkloadBaseConfig per model,
GPU and precision, built with dataclasses.replace). This script reads those files from a clone of the public
repository at each release tag, resolves every config (WorkloadBaseConfig defaults from scripts/performance/utils/
utils.py, then each replace() in turn) without running any of its code (Python's ast), and writes one CSV row per
config. `clustersim validate` uses the table for rows of those releases where a row's notes say nothing of a setting.

Usage: megatron_bridge_recipes.py --repo PATH_TO_MEGATRON_BRIDGE_GIT_DIR [--out data/recipes/megatron_bridge.csv]
"""
import argparse
import ast
import csv
import re
import subprocess
import sys

# Release tags and the NeMo containers they shipped in (the performance summary's section names; the check files'
# notes cite each tag's configs for its container's rows).
RELEASES = [("v0.2.0", "25.11"), ("v0.3.0", "26.02"), ("v0.3.1", "26.02.01"), ("v0.4.0", "26.04"),
            ("v0.4.2", "26.04.01"), ("v0.5.0", "26.06"), ("v0.5.1", "26.06.01")]
FIELDS = ["num_gpus", "tensor_model_parallel_size", "pipeline_model_parallel_size",
          "virtual_pipeline_model_parallel_size", "expert_model_parallel_size", "expert_tensor_parallel_size",
          "context_parallel_size", "micro_batch_size", "global_batch_size", "moe_a2a_overlap",
          "moe_flex_dispatcher_backend", "cuda_graph_impl", "cuda_graph_scope", "recompute_modules"]
NAME = re.compile(r"^(?P<model>[A-Z0-9_]+?)_(?:PRETRAIN_CONFIG_)?(?P<gpu>GB300|GB200|B300|B200|H200|H100)_"
                  r"(?P<precision>BF16|FP8_CS|FP8_MX|FP8_SC|FP8_BLOCK|NVFP4|MXFP8|FP8)"
                  r"(?:_BASE_CONFIG)?(?:_(?P<version>V\d+))?(?:_BASE_CONFIG)?$")


def git_show(repo, tag, path):
    return subprocess.run(["git", "--git-dir", repo, "show", f"{tag}:{path}"], check=True, capture_output=True,
                          text=True).stdout


def git_files(repo, tag):
    out = subprocess.run(["git", "--git-dir", repo, "ls-tree", "-r", "--name-only", tag, "scripts/performance"],
                         check=True, capture_output=True, text=True).stdout.split()
    return [f for f in out if re.search(r"configs/.+workload_base_configs\.py$", f)]


def defaults(source):
    """The WorkloadBaseConfig dataclass's field defaults."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == "WorkloadBaseConfig":
            out = {}
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.value is not None:
                    out[item.target.id] = value_of(item.value)
            return out
    raise ValueError("no WorkloadBaseConfig in utils.py")


def value_of(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ast.unparse(node)


def configs(source, base):
    """Every module-level config: NAME = WorkloadBaseConfig(...), replace(OTHER, ...) or OTHER."""
    known = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name, v = node.targets[0].id, node.value
        if isinstance(v, ast.Name) and v.id in known:
            known[name] = dict(known[v.id])
        elif isinstance(v, ast.Call):
            fn = ast.unparse(v.func)
            if fn.endswith("WorkloadBaseConfig"):
                cfg = dict(base)
            elif fn.endswith("replace") and v.args and isinstance(v.args[0], ast.Name) and v.args[0].id in known:
                cfg = dict(known[v.args[0].id])
            else:
                continue
            for kw in v.keywords:
                if kw.arg is not None:
                    cfg[kw.arg] = value_of(kw.value)
            known[name] = cfg
    return known


def cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return " ".join(str(x) for x in v)
    return str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True, help="Megatron-Bridge's git directory (a clone or mirror)")
    ap.add_argument("--out", default="data/recipes/megatron_bridge.csv")
    args = ap.parse_args()
    rows = []
    for tag, container in RELEASES:
        base = defaults(git_show(args.repo, tag, "scripts/performance/utils/utils.py"))
        for path in git_files(args.repo, tag):
            for name, cfg in configs(git_show(args.repo, tag, path), base).items():
                m = NAME.match(name)
                if not m or m.group("model").startswith("BASE") or re.search(r"SFT|LORA|FINETUNE|PEFT", name):
                    continue
                rows.append([container, tag, re.sub(r"[^A-Z0-9]", "", m.group("model")), m.group("gpu"),
                             m.group("precision"), m.group("version") or "", name, path] +
                            [cell(cfg.get(f)) for f in FIELDS])
    rows.sort(key=lambda r: (r[0], r[2], r[3], r[4], r[5]))
    with open(args.out, "w", newline="") as f:
        f.write("# Megatron-Bridge's performance recipes by release (github NVIDIA-NeMo/Megatron-Bridge, "
                "scripts/performance/configs/*/*workload_base_configs.py at tags "
                + ", ".join(t for t, _ in RELEASES) + "), written by scripts/megatron_bridge_recipes.py\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["container", "bridge_tag", "model_key", "gpu", "precision", "version", "config", "source_file"] +
                   FIELDS)
        w.writerows(rows)
    print(f"{len(rows)} recipes from {len(RELEASES)} releases -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
