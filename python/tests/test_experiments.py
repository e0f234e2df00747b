"""dpx.experiments: presets list, run (through the dpx tool) and load as DataFrames."""

import json

import pytest

import dpx


def test_list_presets_matches_cli(cli):
    presets = dpx.experiments.list_presets()
    assert "private_mean" in presets
    assert len(presets) == len([l for l in cli("list").splitlines() if l.strip()])


def test_run_and_load(tiny_preset, tmp_path):
    out = tmp_path / "tiny"
    res = dpx.experiments.run(tiny_preset, quick=False, out=out, threads=1, figures=False)
    assert res.name == "tiny_private_mean"
    # 5 n x 2 epsilon cells x 200 replications, one tidy row each.
    assert len(res.tidy) == 5 * 2 * 200
    assert set(res.summary.metric) >= {"sq_err_private"}
    assert res.rates["pass"].all()
    assert res.manifest == json.loads((out / "manifest.json").read_text())
    # The summary mean is the mean of the tidy rows of the same cell (independent recomputation).
    cell = res.tidy.cell_id.iloc[0]
    want = res.tidy[res.tidy.cell_id == cell].sq_err_private.mean()
    row = res.summary[(res.summary.cell_id == cell) & (res.summary.metric == "sq_err_private")]
    assert row["mean"].iloc[0] == pytest.approx(want, rel=1e-12)
    # A second run is served from the cache and loads the same table.
    again = dpx.experiments.run(tiny_preset, quick=False, out=out, threads=1, figures=False)
    assert again.tidy.equals(res.tidy)


def test_bad_preset_and_dir(tmp_path):
    with pytest.raises(ValueError):
        dpx.experiments.run("no_such_preset", out=tmp_path / "x")
    with pytest.raises(ValueError):
        dpx.experiments.load(tmp_path / "missing")
