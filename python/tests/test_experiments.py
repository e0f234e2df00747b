"""dpx.experiments: presets list, run (in-process through the harness; byte-identical to
`dpx run`) and load as DataFrames."""

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


def test_in_process_run_is_byte_identical_to_cli(cli, tiny_preset, tmp_path):
    # The same preset through `dpx run` (1 thread) and through the binding (2 threads): the
    # replication tables and summaries are byte-identical (Philox streams keyed by seed, cell and
    # replication; docs/presets.md), and so are the rate checks.
    cli("run", tiny_preset, "--out", tmp_path / "cli", "--threads", 1, "--quiet", "--no-figures")
    dpx.experiments.run(tiny_preset, quick=False, out=tmp_path / "py", threads=2, figures=False)
    for name in ("tidy.csv", "summary.csv", "rates.csv"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name


def test_run_overrides_and_bad_options(tiny_preset, tmp_path):
    res = dpx.experiments.run(tiny_preset, quick=False, out=tmp_path / "o", threads=1,
                              figures=False, overrides={"replications": "20"})
    assert len(res.tidy) == 5 * 2 * 20
    with pytest.raises(dpx.ValidationError):
        dpx.experiments.run(tiny_preset, out=tmp_path / "b", threads=0)
    with pytest.raises(ValueError):
        dpx.experiments.run(tiny_preset, out=tmp_path / "c", overrides={"no_such_key": "1"})
