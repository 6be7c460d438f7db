"""`migrate verify --chart`: the verdict drawn per kernel (time ratio, interquartile error bars from the timed
repeats, differing outputs marked, the --max-slowdown line), from a run and from a saved --json verdict; and
without matplotlib, a clear error with exit status 2 before anything runs."""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from triton_migrate.verify import command
from triton_migrate.verify.report import timing_spread

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.colors import to_hex  # noqa: E402

from triton_migrate.verify import chart  # noqa: E402

DATA = Path(__file__).resolve().parent / "verify_data"
H100 = "NVIDIA H100 80GB HBM3"


# ------------------------------------------------------------------------------------- recordings
def _recording(path: Path, kernels: list[tuple[str, list[float], list[float]]], triton: str) -> Path:
    """A recording (format version 1) of one launch per kernel: (name, repeats in ms, the output's values)."""
    (path / "p1" / "tensors").mkdir(parents=True)
    launches = []
    for seq, (name, times, values) in enumerate(kernels):
        data = struct.pack(f"<{len(values)}f", *values)
        file = f"p1/tensors/{seq:06d}-out.bin"
        (path / file).write_bytes(data)
        out = {"kind": "tensor", "dtype": "float32", "shape": [len(values)], "stride": [1], "offset": 0, "align": 0,
               "buffer_bytes": len(data), "written": True, "digest": hashlib.blake2b(data, digest_size=16).hexdigest(),
               "spots": [], "file": file}
        launches.append({"kernel": name, "index": 0, "seq": seq, "pid": 1, "source": "kernels.py", "grid": [1, 1, 1],
                         "options": {}, "times_ms": times, "args": {"out": out}})
    index = {"format": "triton-migrate-verify", "version": 1, "command": ["python", "bench.py"], "returncode": 0,
             "root": "/", "environment": {"triton": triton, "device": "cuda", "device_name": H100},
             "launches": launches}
    (path / "index.json").write_text(json.dumps(index))
    return path


VALUES = [0.0, 1.0, 2.0, 3.0]
SPREAD = [0.96, 0.98, 1.0, 1.02, 1.04]  # 5 repeats: quartiles 0.98 and 1.02 of the median


def _pair(tmp_path: Path, count: int = 4) -> tuple[Path, Path]:
    """`count` kernels: k00 twice as slow, k01 an output that differs (and 1.1x), k02 faster (0.8x), k03
    without timings; any more are identical and as fast."""
    ratios = {"k00": 2.0, "k01": 1.1, "k02": 0.8}
    a, b = [], []
    for i in range(count):
        name = f"kernels:k{i:02d}"
        ratio = ratios.get(name[-3:], 1.0)
        times_a = [] if i == 3 else [t * (1 + i / 10) for t in SPREAD]
        a.append((name, times_a, VALUES))
        b.append((name, [t * ratio for t in times_a], [0.0, 1.0, 2.5, 3.0] if i == 1 else VALUES))
    return _recording(tmp_path / "a.tmv", a, "3.8.0"), _recording(tmp_path / "b.tmv", b, "3.9.0")


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.fixture
def verdict(tmp_path) -> dict:
    """compare of two recordings with --json and --chart; the verdict as saved."""
    a, b = _pair(tmp_path)
    result = CliRunner().invoke(command, ["compare", str(a), str(b), "--max-slowdown", "1.5", "--json",
                                          str(tmp_path / "v.json"), "--chart", str(tmp_path / "v.png")])
    assert result.exit_code == 1, result.output
    assert "SLOWER" in result.output and "DIFFERS" in result.output
    return json.loads((tmp_path / "v.json").read_text())


# ------------------------------------------------------------------------------------------ tests
def test_the_repeats_spread_is_kept_as_quartile_sums_and_brackets_the_ratio():
    def index(*launches):
        return {"launches": [{"kernel": "k", "times_ms": t} for t in launches]}

    spread = timing_spread(index([1.0, 2.0, 3.0, 4.0, 5.0], [10.0]), index([2.0] * 5, [20.0], []))
    assert spread["k"]["time_a_iqr_ms"] == [2.0 + 10.0, 4.0 + 10.0]
    assert spread["k"]["time_b_iqr_ms"] == [22.0, 22.0]
    assert spread["k"]["ratio_iqr"] == pytest.approx([22 / 14, 22 / 12])
    assert spread["k"]["ratio_iqr"][0] < 22 / 13 < spread["k"]["ratio_iqr"][1]  # the medians' ratio
    assert spread["k"]["repeats"] == 1  # one launch was timed once: no spread there
    assert timing_spread(index([]), index([1.0])) == {}  # no timing on one side


def test_a_chart_is_written_with_the_mismatch_marked_and_the_slowdown_drawn(verdict, tmp_path):
    width, height = _png_size(tmp_path / "v.png")
    assert 900 < width < 2000 and 300 < height < 1200, (width, height)
    kernels = {k["kernel"]: k for k in verdict["kernels"]}
    assert kernels["kernels:k00"]["ratio_iqr"] == pytest.approx([2 * 0.98 / 1.02, 2 * 1.02 / 0.98])
    assert verdict["environment"]["b"]["triton"] == "3.9.0" and verdict["max_slowdown"] == 1.5

    fig = chart.figure(verdict)
    ax = fig.axes[0]
    rows = [t.get_text() for t in ax.get_yticklabels()]
    assert rows == ["kernels:k00", "kernels:k01", "kernels:k02", "kernels:k03"]  # slowest first, untimed last
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert {"outputs differ", "slower than --max-slowdown", "no timing", "--max-slowdown 1.5",
            "interquartile range of the timed repeats"} <= set(labels), labels
    red = chart.COLOURS["differs"]
    # the cross sits on the differing kernel's bar end, and only there; its name is red
    markers = [c for c in ax.collections if type(c).__name__ == "PathCollection"]
    crosses = [c for c in markers if to_hex(c.get_facecolor()[0]) == red]
    assert [tuple(xy) for c in crosses for xy in c.get_offsets()] == [pytest.approx((1.1, 1))]
    assert to_hex(ax.get_yticklabels()[1].get_color()) == red
    assert to_hex(ax.get_yticklabels()[0].get_color()) != red
    # the 2x kernel is the one orange bar, from 1.0 to 2.0; the threshold is a vertical line at 1.5
    orange = [p for p in ax.patches if to_hex(p.get_facecolor()) == chart.COLOURS["too slow"]]
    assert len(orange) == 1 and orange[0].get_x() == 1.0 and orange[0].get_width() == pytest.approx(1.0)
    assert any(list(line.get_xdata()) == [1.5, 1.5] for line in ax.get_lines())
    # error bars: the ratio's interquartile range, for the three timed kernels
    (bars,) = [c for c in ax.containers if type(c).__name__ == "ErrorbarContainer"]
    spans = sorted(x for seg in bars.lines[2][0].get_segments() for x in seg[:, 0])
    assert spans == pytest.approx(sorted(x for k in rows[:3] for x in kernels[k]["ratio_iqr"]))
    assert "faster" in ax.get_xlabel() and "slower" in ax.get_xlabel()
    title = " ".join(t.get_text() for t in fig.texts)
    assert "DIFFERENT" in title and H100 in title and "3.8.0" in title and "3.9.0" in title


def test_more_kernels_make_a_taller_chart(tmp_path):
    sizes = []
    for count in (4, 200):
        work = tmp_path / str(count)
        work.mkdir()
        a, b = _pair(work, count)
        result = CliRunner().invoke(command, ["compare", str(a), str(b), "--chart", str(work / "c.png")])
        assert result.exit_code == 1, result.output
        sizes.append(_png_size(work / "c.png"))
    (width_4, height_4), (width_200, height_200) = sizes
    assert width_4 == width_200
    assert height_200 > 10 * height_4 and height_200 / 200 > 15  # at least 15 pixels a row: readable


def test_a_saved_verdict_is_drawn_without_running_anything(verdict, tmp_path):
    (tmp_path / "saved.json").write_text(json.dumps(verdict))
    result = CliRunner().invoke(command, ["chart", str(tmp_path / "saved.json"), "--out", str(tmp_path / "c.png"),
                                          "--max-slowdown", "1.2"])
    assert result.exit_code == 0, result.output
    assert _png_size(tmp_path / "c.png")[1] > 300
    assert "--max-slowdown 1.2" in [t.get_text() for t in chart.figure(verdict, 1.2).legends[0].get_texts()]
    # drawn where neither torch nor triton is installed
    done = _verify_in_subprocess(["chart", "saved.json", "--out", "d.png"], tmp_path, without="torch,triton")
    assert done.returncode == 0 and _png_size(tmp_path / "d.png")[1] > 300, done.stdout + done.stderr
    # a verdict from before the spread and the environment were kept: no error bars, still a chart
    for k in verdict["kernels"]:
        k.pop("ratio_iqr", None)  # k03 has no timing, hence none
    del verdict["environment"]
    fig = chart.figure(verdict)
    assert not [c for c in fig.axes[0].containers if type(c).__name__ == "ErrorbarContainer"]
    assert "Triton 3.8.0 on " + H100 in " ".join(t.get_text() for t in fig.texts)  # from the note
    # not a verdict, and an unsupported file type
    (tmp_path / "other.json").write_text('{"launches": []}')
    result = CliRunner().invoke(command, ["chart", str(tmp_path / "other.json"), "--out", str(tmp_path / "o.png")])
    assert result.exit_code == 2 and "not a verdict" in result.output, result.output
    result = CliRunner().invoke(command, ["chart", str(tmp_path / "saved.json"), "--out", str(tmp_path / "o.txt")])
    assert result.exit_code == 2 and ".png" in result.output, result.output


_WITHOUT = """
import sys
for name in filter(None, sys.argv.pop(1).split(",")):
    sys.modules[name] = None  # `import name` now raises ImportError, as when it is not installed
from triton_migrate.verify.cli import command
command(sys.argv[1:], prog_name="verify")
"""


def _verify_in_subprocess(args, cwd, hide=True, without="matplotlib"):
    return subprocess.run([sys.executable, "-c", _WITHOUT, without if hide else "", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


MARK = "open('ran', 'w').close()"


@pytest.mark.parametrize("mode", ["run", "compare", "cases", "chart"])
def test_without_matplotlib_a_chart_fails_first_with_the_pip_command_and_exit_2(mode, tmp_path):
    a, b = _pair(tmp_path / "recordings")
    (tmp_path / "cases.py").write_text(f"{MARK}\n")  # a cases file runs code when imported
    (tmp_path / "v.json").write_text(json.dumps({"kernels": []}))
    args = {"run": ["--device", "cpu", "--chart", "c.png", "--", "python", "-c", MARK],
            "compare": ["compare", str(a), "--device", "cpu", "--chart", "c.png", "--", "python", "-c", MARK],
            "cases": ["cases", "cases.py", "--device", "cpu", "--chart", "c.png"],
            "chart": ["chart", "v.json", "--out", "c.png"]}[mode]
    done = _verify_in_subprocess(args, tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "needs matplotlib" in done.stderr and "pip install matplotlib" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "ran").exists() and not (tmp_path / "c.png").exists()
    if mode in ("run", "cases"):  # the control: with matplotlib, the same call does run the user's code
        done = _verify_in_subprocess(args, tmp_path, hide=False)
        assert (tmp_path / "ran").exists(), done.stdout + done.stderr


def test_a_chart_in_a_directory_that_does_not_exist_is_refused_before_running(tmp_path):
    done = _verify_in_subprocess(["--device", "cpu", "--chart", "no/such/dir/c.png", "--", "python", "-c", MARK],
                                 tmp_path, hide=False)
    assert done.returncode == 2 and "does not exist" in done.stderr, done.stderr
    assert not (tmp_path / "ran").exists()


def test_command_mode_draws_the_wrong_migration(tmp_path, monkeypatch):
    shutil.copytree(DATA / "project", tmp_path / "project")
    monkeypatch.chdir(tmp_path / "project")
    result = CliRunner().invoke(command, ["--device", "cpu", "--repeat", "3", "--warmup", "0",
                                          "--migrated", f"kernels/ops.py={DATA / 'wrong_ops.py'}",
                                          "--json", str(tmp_path / "v.json"), "--chart", str(tmp_path / "v.png"),
                                          "--", "python", "bench.py", "40"])
    assert result.exit_code == 1, result.output
    verdict = json.loads((tmp_path / "v.json").read_text())
    assert {k["kernel"]: k["repeats"] for k in verdict["kernels"]} == {"kernels.ops:matmul": 3,
                                                                       "kernels.ops:scale_rows": 3}
    assert _png_size(tmp_path / "v.png")[0] > 900
    fig = chart.figure(verdict)
    assert "outputs differ" in [t.get_text() for t in fig.legends[0].get_texts()]
    assert "CPU (Triton interpreter)" in " ".join(t.get_text() for t in fig.texts)


def test_cases_mode_draws_a_chart(tmp_path, monkeypatch):
    monkeypatch.chdir(DATA)
    result = CliRunner().invoke(command, ["cases", "cases_ops.py", "--device", "cpu", "--repeat", "2", "--warmup",
                                          "0", "--migrated", "project/kernels/ops.py=wrong_ops.py",
                                          "--json", str(tmp_path / "v.json"), "--chart", str(tmp_path / "v.png")])
    assert result.exit_code == 1, result.output
    assert _png_size(tmp_path / "v.png")[1] > 300
    verdict = json.loads((tmp_path / "v.json").read_text())
    assert verdict["environment"]["a"]["device_name"] == "CPU (Triton interpreter)"
    fig = chart.figure(verdict)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()].count("scale_40x72") == 1
    assert "outputs differ" in [t.get_text() for t in fig.legends[0].get_texts()]
