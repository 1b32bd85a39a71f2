"""The Python module against the command it shares its front door with (sim/api), run from the repository root
by ctest (Python.Pytest) with PYTHONPATH=build/python and CLUSTERSIM_CLI naming the built command."""

import json
import os
import subprocess

import pytest

import clustersim

FLAGSHIP = "scenarios/gpt3-175b-1024xh100.yaml"
SMALL = "scenarios/gpt3-1.3b-8xh100-dp.yaml"
CLI = os.environ.get("CLUSTERSIM_CLI", "build/sim/cli/clustersim")


def cli_json(*args):
    out = subprocess.run([CLI, *args, "--json", "-"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_run_is_the_commands_json():
    py = clustersim.run(FLAGSHIP)
    cli = cli_json("run", FLAGSHIP)
    assert py["step_time_s"] == cli["step_time_s"]
    assert py == cli


def test_set_follows_the_cluster_size():
    base = clustersim.run(FLAGSHIP)
    half = clustersim.run(FLAGSHIP, set={"cluster.gpus": 512})
    cli = cli_json("run", FLAGSHIP, "--set", "cluster.gpus=512")
    assert half["step_time_s"] == cli["step_time_s"]
    assert half["gpus"] == 512
    # dp: auto -> 512 / (tp 8 x pp 8) = 8: half the replicas, the same global batch, a longer step.
    assert half["step_time_s"] > 1.5 * base["step_time_s"]


def test_a_dictionary_is_a_scenario():
    with open(SMALL) as f:
        text = f.read()
    import yaml  # python3-yaml comes with the distribution's pytest toolchain

    doc = yaml.safe_load(text)
    assert clustersim.run(doc)["step_time_s"] == clustersim.run(SMALL)["step_time_s"]


def test_bad_input_names_the_key():
    with pytest.raises(clustersim.InputError, match=r"--set cluster\.gpus=many.*cluster\.gpus"):
        clustersim.run(FLAGSHIP, set={"cluster.gpus": "many"})
    with pytest.raises(clustersim.InputError, match=r"unknown key"):
        clustersim.run(FLAGSHIP, set={"cluster.gpu": 8})
    with pytest.raises(ValueError, match=r"parallelism.*not a multiple of tp\*pp\*cp"):
        clustersim.run(FLAGSHIP, set={"cluster.gpus": 1000})


def test_tco_rows_carry_units_and_sources():
    rows = clustersim.tco(FLAGSHIP)
    assert {"section", "item", "quantity", "quantity_unit", "value", "unit", "source"} == set(rows[0])
    capex = [r for r in rows if r["item"] == "hardware capex"]
    assert len(capex) == 1 and capex[0]["unit"] == "USD" and capex[0]["value"] > 1e7
    report = clustersim.tco_report(FLAGSHIP)
    assert report["hardware_capex_usd"] == pytest.approx(capex[0]["value"])


def test_plan_ranks_replayed_plans():
    r = clustersim.plan(SMALL, top=2, sample=0, jobs=1)
    assert r["counts"]["screened"] > 0
    ranking = r["ranking"]
    assert len(ranking) == 2 and ranking[0]["rank"] == 1
    assert ranking[0]["step_time_s"] <= ranking[1]["step_time_s"] or not ranking[1]["fits_in_memory"]
    assert ranking[1]["why_lost"]


def test_sweep_over_the_cluster_size_alone(tmp_path):
    sweep = tmp_path / "gpus.yaml"
    sweep.write_text(
        "format_version: 1\n"
        "name: gpus\n"
        f"base: {os.path.abspath(FLAGSHIP)}\n"
        "axes:\n"
        "  cluster.gpus: [512, 1024, 2048]\n"
    )
    rows = clustersim.sweep(sweep, jobs=1)
    assert [r["status"] for r in rows] == ["ok", "ok", "ok"]
    assert [r["result"]["gpus"] for r in rows] == [512, 1024, 2048]
    steps = [r["result"]["step_time_s"] for r in rows]
    assert steps[0] > steps[1] > steps[2]


def test_validate_rows():
    rows = clustersim.validate("data/checks/megatron_core_moe_report_h100.csv")
    assert len(rows) == 2
    for r in rows:
        assert "skipped" not in r
        assert abs(r["error"]) < 0.10  # the two rows' documented +3.7% and +3.6% (docs/validation.md)


def test_a_service_runs_request_by_request():
    r = clustersim.run("scenarios/mixtral-8x7b-serving-8xh100-chunked.yaml", set={"serving.duration": "60s"})
    cli = cli_json("run", "scenarios/mixtral-8x7b-serving-8xh100-chunked.yaml", "--set", "serving.duration=60s")
    assert r == cli
    assert r["kind"] == "serving"
    s = r["serving"]
    assert s["requests"]["finished"] > 0
    assert 0 < s["ttft_s"]["p50"] <= s["ttft_s"]["p99"]
    assert r["cost"]["usd_per_million_output_tokens"] > r["cost"]["usd_per_million_tokens"] > 0


def test_a_disaggregated_service_as_a_dictionary():
    import yaml

    with open("scenarios/llama3-70b-serving-disaggregated-16xh100.yaml") as f:
        doc = yaml.safe_load(f)
    doc["serving"]["duration"] = "60s"
    r = clustersim.run(doc)
    cli = cli_json("run", "scenarios/llama3-70b-serving-disaggregated-16xh100.yaml", "--set", "serving.duration=60s")
    assert r["serving"] == cli["serving"]
    d = r["serving"]["disaggregated"]
    assert (d["prefill"]["replicas"], d["decode"]["replicas"]) == (3, 1)
    assert d["kv_transfer"]["transfers"] == r["serving"]["requests"]["finished"]
    assert d["kv_transfer"]["time_s"]["p50"] > 0


def test_a_shared_cluster_over_two_days():
    day = "scenarios/schedules/day-serve-night-train-32xh100.yaml"
    shared = clustersim.schedule(day)
    cli = cli_json("schedule", day)
    for doc in (shared, cli):
        doc.pop("timing")  # wall-clock seconds differ between runs
    assert shared == cli
    isolated = clustersim.schedule(day, set={"isolation": "nodes"})
    (svc_shared,), (svc_isolated,) = shared["services"], isolated["services"]
    # Time-sliced onto the training GPUs, the service misses its SLO far more often than on its own nodes.
    assert svc_shared["slo_attainment"] < svc_isolated["slo_attainment"] - 0.05
    assert svc_shared["tpot_p99_s"] > 0.05 > svc_isolated["tpot_p99_s"]
    job = shared["jobs"][0]
    assert set(job) >= {"name", "kind", "submitted_s", "started_s", "finished_s", "gpu_hours", "lost_work_s"}
    assert set(shared["cluster"]) >= {"gpu_allocated_fraction", "gpu_busy_fraction", "energy_kwh", "peak_facility_kw"}
    assert shared["cost"]["tco_usd"] > 0 and set(shared["cost"]["per_tenant"]) == {"product", "research"}
    with pytest.raises(clustersim.InputError, match="isolation"):
        clustersim.schedule(day, set={"isolation": "cgroups"})


SERVICE = "scenarios/llama3-70b-serving-32xh100.yaml"


def test_plan_on_a_service_is_the_serving_ranking():
    r = clustersim.plan(SERVICE, jobs=1)
    assert r["kind"] == "serving_plan"
    best = r["best"]
    # 4 replicas of TP4 in fp8 meet 99% of requests within 500 ms / 50 ms at 20 requests/s: 16 of the 32 GPUs.
    assert (best["tp"], best["weights"], best["replicas"], best["gpus"]) == (4, "fp8", 4, 16)
    assert best == r["deployments"][0]
    assert best["slo_attainment"] >= 0.99
    assert all(d["why_lost"] for d in r["deployments"][1:])
    cli = cli_json("plan", SERVICE, "-j", "1")
    for key in ("deployments", "best", "best_checked_whole", "no_plan_reason"):
        assert r[key] == cli[key]


def test_plan_on_a_service_takes_settings():
    r = clustersim.plan(SERVICE, set={"serving.load.rate": 2}, jobs=1)
    assert r["rate_per_s"] == 2
    assert r["best"]["gpus"] < 16
