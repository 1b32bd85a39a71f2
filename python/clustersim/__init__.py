"""clustersim from Python: size a GPU cluster and its cost before buying it.

The same front door as the ``clustersim`` command (sim/api): every function returns what the command's
``--json`` writes, as dictionaries and lists of dictionaries that ``pandas.DataFrame`` takes directly. Numbers
are SI (seconds, bytes, watts, US dollars). A scenario is a file path or a dictionary laid out as the YAML file;
``set`` writes dotted keys over it, as ``--set`` does::

    import clustersim
    r = clustersim.run("scenarios/gpt3-175b-1024xh100.yaml", set={"cluster.gpus": 512})
    r["step_time_s"], r["mfu"], r["tco"]["capex_usd"]

Bad input raises ``clustersim.InputError`` (a ValueError) whose message names the file, line and key.
See docs/python.md.
"""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Optional, Sequence, Union

from . import _core

__all__ = ["InputError", "version", "run", "tco", "tco_report", "plan", "validate", "sweep", "schedule"]

InputError = _core.InputError
Scenario = Union[str, os.PathLike, Mapping[str, Any]]


def version() -> str:
    """clustersim's version ("0.1.0")."""
    return _core.version()


def _value_text(value: Any) -> str:
    """A setting's value as a scenario file would hold it: booleans as YAML, lists and maps in flow style."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value)
    return str(value)


def _source(scenario: Scenario, set: Optional[Mapping[str, Any]]):
    settings = [(str(k), _value_text(v)) for k, v in (set or {}).items()]
    if isinstance(scenario, Mapping):
        # JSON is YAML: the dictionary goes through the same loader and checks as a file.
        return "<dict>", json.dumps(scenario), settings
    return os.fspath(scenario), None, settings


def run(scenario: Scenario, set: Optional[Mapping[str, Any]] = None, profile: str = "") -> dict:
    """Simulates one training step; returns ``clustersim run --json``'s document."""
    path, text, settings = _source(scenario, set)
    return json.loads(_core.run_json(path, text, settings, profile))


def tco(scenario: Scenario, set: Optional[Mapping[str, Any]] = None, profile: str = "",
        pricebook: str = "") -> list:
    """The bill of materials, power, reliability, TCO and cloud comparison as rows (``clustersim tco --csv``'s
    columns: section, item, quantity, quantity_unit, value, unit, source)."""
    path, text, settings = _source(scenario, set)
    return json.loads(_core.tco_json(path, text, settings, profile, pricebook))["rows"]


def tco_report(scenario: Scenario, set: Optional[Mapping[str, Any]] = None, profile: str = "",
               pricebook: str = "") -> dict:
    """The same report as one nested dictionary (``run --json``'s ``tco`` object)."""
    path, text, settings = _source(scenario, set)
    return json.loads(_core.tco_json(path, text, settings, profile, pricebook))["report"]


def plan(scenario: Scenario, set: Optional[Mapping[str, Any]] = None, top: int = 10, sample: int = 10,
         jobs: int = 0) -> dict:
    """Searches the parallel plan (``clustersim plan``): ``ranking`` is the replayed top plans, best first, each
    with why it lost to the one above; ``replayed`` every replayed plan's settings, as ``plan --json``.

    On an inference service (a scenario with ``serving:``) it is the serving plan search instead, as ``plan
    --json`` writes it: ``deployments`` (best first: description, tp, pp, ep, weights, replicas, gpus,
    ttft_p99_s, tpot_p99_s, slo_attainment, cost_usd_per_hour, usd_per_million_tokens, fits, why_lost, ...),
    ``best`` (None when no deployment meets the SLO) and ``no_plan_reason``; ``top`` and ``sample`` do not
    apply."""
    path, text, settings = _source(scenario, set)
    return json.loads(_core.plan_json(path, text, settings, top, sample, jobs))


def validate(files: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]]) -> list:
    """Predicts published runs (``clustersim validate``): one dictionary per row."""
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    return json.loads(_core.validate_json([os.fspath(f) for f in files]))


def sweep(path: Union[str, os.PathLike], jobs: int = 0) -> list:
    """Evaluates every point of a sweep file in this process: one dictionary per point (index, label, axes,
    status, reason, result, plan), without a database."""
    return json.loads(_core.sweep_json(os.fspath(path), jobs))


def schedule(path: Union[str, os.PathLike], set: Optional[Mapping[str, Any]] = None) -> dict:
    """Simulates a shared cluster over time (a schedule file, docs/schedule.md); returns ``clustersim schedule
    --json``'s document (jobs, services, cluster, cost)."""
    settings = [(str(k), _value_text(v)) for k, v in (set or {}).items()]
    return json.loads(_core.schedule_json(os.fspath(path), settings))
