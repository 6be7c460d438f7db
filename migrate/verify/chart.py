"""The verdict as a chart: one horizontal bar per kernel, its time ratio migrated/original on a log scale from
1.0, error bars from the timed repeats' interquartile ranges, kernels whose outputs (or launch counts) differ
marked, kernels without timings shown as such, and the `--max-slowdown` threshold.

It draws from the verdict's JSON form (`Verdict.as_json()`, what `--json` writes), so a saved verdict can be drawn
on another machine. matplotlib is an optional dependency (`pip install matplotlib`; in a clone of triton-migrate,
`pip install '.[chart]'`), imported only here and only when a chart is asked for; drawing uses the Agg canvas (no
display needed).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

INSTALL = "pip install matplotlib  (or, in a clone of triton-migrate: pip install '.[chart]')"
FORMATS = ("png", "svg", "pdf")

ROW_INCHES = 0.2  # per kernel; the figure grows with the number of kernels
COLOURS = {"faster": "#4e9a5e", "slower": "#8da0bb", "too slow": "#e8891c", "differs": "#c62828",
           "no timing": "#9e9e9e"}
# Ticks on the log axis, the coarsest first; the finest are dropped when too many fall in the range.
_TICK_LEVELS = ([1.0], [0.1, 0.5, 2.0, 10.0, 0.01, 100.0], [0.2, 0.25, 4.0, 5.0, 0.02, 0.05, 20.0, 50.0],
                [0.3, 0.67, 0.8, 1.25, 1.5, 3.0], [0.9, 1.1], [0.95, 1.05], [0.98, 1.02])


class ChartUnavailable(Exception):
    """matplotlib is not installed."""


def require(path: str | Path) -> None:
    """Fail before anything expensive runs: matplotlib importable, a format it writes, an existing directory."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise ChartUnavailable(f"a chart needs matplotlib, which is not installed ({error}); {INSTALL}") from error
    path = Path(path)
    if path.suffix.lower().lstrip(".") not in FORMATS:
        raise ValueError(f"{path}: the chart's file name must end in {', '.join('.' + f for f in FORMATS)}")
    if not path.parent.is_dir():
        raise ValueError(f"{path}: the directory {path.parent} does not exist")


def write(verdict: dict, path: str | Path, max_slowdown: float | None = None):
    """Draw `verdict` (its JSON form) and save it to `path` (.png, .svg or .pdf); returns the figure."""
    fig = figure(verdict, max_slowdown)
    fig.savefig(path, dpi=110)
    return fig


def figure(verdict: dict, max_slowdown: float | None = None):
    """The chart of `verdict` (its JSON form) as a matplotlib Figure on the Agg canvas. `max_slowdown`: the
    threshold to draw (default: the one the verdict was made with)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not isinstance(verdict, dict) or not isinstance(verdict.get("kernels"), list):
        raise ValueError("not a verdict (the JSON that `migrate verify --json` writes)")
    if max_slowdown is None:
        max_slowdown = verdict.get("max_slowdown")
    label_a, label_b = verdict.get("labels") or ("original", "migrated")
    rows = _rows(verdict["kernels"])
    timed = [r for r in rows if r["ratio"] is not None]

    per_row = min(ROW_INCHES, 480 / max(len(rows), 1))  # Agg draws at most 2^16 pixels a side
    font = 8 if per_row >= 0.16 else max(3.0, per_row * 50)
    label_chars = max([len(r["label"]) for r in rows] + [10])
    left = min(max(1.6, label_chars * font * 0.55 / 72 + 0.3), 6.5)
    bottom, plot_width, right = 0.75, 7.5, 0.35
    width = left + plot_width + right
    fig = Figure(figsize=(width, 4.0))  # the height is set once the header's size is known
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xscale("log")
    low, high = _x_range(timed, max_slowdown)
    ax.set_xlim(low, high)

    legend: dict[str, Any] = {}  # entry -> its artist (a marker, a line, a bar, or the two together)
    y = {r["name"]: i for i, r in enumerate(rows)}
    for r in timed:
        kind = ("differs" if r["differs"] else "too slow" if max_slowdown is not None and r["ratio"] > max_slowdown
                else "faster" if r["ratio"] < 1 else "slower")
        bar = ax.barh(y[r["name"]], r["ratio"] - 1.0, left=1.0, height=0.72, color=COLOURS[kind],
                      hatch="////" if kind == "differs" else None, edgecolor="white" if kind == "differs" else None,
                      linewidth=0)
        if kind != "differs" and r["ratio"] != 1.0:  # a ratio of exactly 1 has no bar to show
            legend.setdefault(kind, bar.patches[0])
    spread = [r for r in timed if r["spread"] is not None]
    if spread:
        ratios = [r["ratio"] for r in spread]
        bars = ax.errorbar(ratios, [y[r["name"]] for r in spread],
                           xerr=[[max(x - r["spread"][0], 0.0) for x, r in zip(ratios, spread)],
                                 [max(r["spread"][1] - x, 0.0) for x, r in zip(ratios, spread)]],
                           fmt="none", ecolor="#222222", elinewidth=0.9, capsize=2.5, zorder=3)
        legend["spread"] = bars
    for r in timed:
        _value_label(ax, r, y[r["name"]], font)

    untimed = [r for r in rows if r["ratio"] is None]
    if untimed:
        legend["no timing"] = ax.scatter([1.0] * len(untimed), [y[r["name"]] for r in untimed], marker="o", s=28,
                                         facecolors="white", edgecolors=COLOURS["no timing"], linewidths=1.2,
                                         zorder=4)
        for r in untimed:
            ax.annotate("no timing", (1.0, y[r["name"]]), xytext=(7, 0), textcoords="offset points",
                        va="center", fontsize=font - 1, color="#616161")
    for statuses, text in ((("DIFFERS", "inputs differ"), "outputs differ"),
                           (("launches differ", "RAISED"), "launch counts differ, or a launch raised")):
        marked = [r for r in rows if r["status"] in statuses]
        if marked:
            outputs = "DIFFERS" in statuses
            marker = ax.scatter([r["ratio"] or 1.0 for r in marked], [y[r["name"]] for r in marked],
                                marker="X" if outputs else "D", s=70 if outputs else 40,
                                color=COLOURS["differs"], edgecolors="white", linewidths=0.8, zorder=5)
            legend[text] = marker

    legend["same time"] = ax.axvline(1.0, color="black", linewidth=1.0, zorder=2)
    if max_slowdown is not None:
        legend[f"--max-slowdown {max_slowdown:g}"] = ax.axvline(max_slowdown, color=COLOURS["too slow"],
                                                               linestyle="--", linewidth=1.3, zorder=2)
    _axes(ax, rows, y, low, high, font, label_a, label_b)
    names = {"faster": f"{label_b} faster", "slower": f"{label_b} slower",
             "too slow": "slower than --max-slowdown", "spread": "interquartile range of the timed repeats"}
    order = ["outputs differ", "launch counts differ", "too slow", "slower", "faster", "no timing", "spread",
             "same time"] + [k for k in legend if k.startswith("--max")]
    handles: list[tuple[Any, str]] = [(legend[k], names.get(k, k)) for k in order if k in legend]
    if "outputs differ" in legend:  # the bar and the cross together
        handles[0] = ((_differs_patch(), legend["outputs differ"]), "outputs differ")

    subtitle = _subtitle(verdict, rows, max_slowdown)
    legend_top = 0.5 + 0.16 * subtitle.count("\n")  # below the title and the subtitle
    top = legend_top + 0.19 * math.ceil(len(handles) / 4) + 0.5  # the legend, then the top axis' labels
    height = top + bottom + per_row * max(len(rows), 1) + 0.3
    fig.set_size_inches(width, height)
    ax.set_position((left / width, bottom / height, plot_width / width, 1 - (top + bottom) / height))
    fig.legend([h for h, _ in handles], [t for _, t in handles], loc="upper center", ncol=4, fontsize=8,
               frameon=False, bbox_to_anchor=(0.5, 1 - legend_top / height), handlelength=2.2)
    fig.text(0.5, 1 - 0.12 / height, _title(verdict), ha="center", va="top", fontsize=12, weight="bold")
    fig.text(0.5, 1 - 0.4 / height, subtitle, ha="center", va="top", fontsize=8.5, color="#333333")
    return fig


def _rows(kernels: list[dict]) -> list[dict]:
    """Slowest first (the top of the chart), then the kernels without timings by name."""
    rows = []
    for k in kernels:
        ratio = k.get("ratio")
        spread = k.get("ratio_iqr")
        if ratio is None or not (isinstance(ratio, (int, float)) and ratio > 0 and math.isfinite(ratio)):
            ratio, spread = None, None
        elif spread is not None and not (spread[0] > 0 and spread[1] > 0):
            spread = None
        name = str(k.get("kernel"))
        rows.append({"name": name, "label": name if len(name) <= 64 else "…" + name[-63:],
                     "status": k.get("status"), "differs": k.get("status") != "identical", "ratio": ratio,
                     "spread": spread, "repeats": k.get("repeats")})
    return sorted(rows, key=lambda r: (r["ratio"] is None, -(r["ratio"] or 0), r["name"]))


def _x_range(timed: list[dict], max_slowdown: float | None) -> tuple[float, float]:
    values = [1.0] + [v for r in timed for v in ([r["ratio"]] + (r["spread"] or []))]
    if max_slowdown is not None and max_slowdown > 0:
        values.append(max_slowdown)
    low, high = min(min(values), 1 / 1.12), max(max(values), 1.12)
    span = math.log(high / low)
    return low * math.exp(-0.12 * span), high * math.exp(0.12 * span)


def _value_label(ax, r: dict, y: int, font: float) -> None:
    ratio, spread = r["ratio"], r["spread"] or [r["ratio"]] * 2
    if ratio >= 1:
        ax.annotate(f"{ratio:.2f}", (max(ratio, spread[1]), y), xytext=(4, 0), textcoords="offset points",
                    va="center", ha="left", fontsize=font - 1)
    else:
        ax.annotate(f"{ratio:.2f}", (min(ratio, spread[0]), y), xytext=(-4, 0), textcoords="offset points",
                    va="center", ha="right", fontsize=font - 1)


def _axes(ax, rows, y, low, high, font, label_a, label_b) -> None:
    from matplotlib import ticker

    ax.set_yticks(range(len(rows)), [r["label"] for r in rows], fontsize=font)
    for tick, r in zip(ax.get_yticklabels(), rows):
        if r["differs"]:
            tick.set_color(COLOURS["differs"])
            tick.set_fontweight("bold")
    ax.set_ylim(len(rows) - 0.5 if rows else 0.5, -0.5)  # the first row at the top
    ticks: list[float] = []  # coarse ticks first; a finer one only where there is room
    gap = math.log(high / low) / 12  # coarse ticks first; a finer one only where there is room
    for tick in (t for level in _TICK_LEVELS for t in level if low <= t <= high):
        if all(abs(math.log(tick / t)) >= gap for t in ticks):
            ticks.append(tick)
    ax.xaxis.set_major_locator(ticker.FixedLocator(sorted(ticks)))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}×"))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.tick_params(axis="x", top=True, labeltop=True, labelsize=8)
    ax.grid(axis="x", color="#e0e0e0", linewidth=0.6, zorder=0)
    ax.set_axisbelow(True)
    ax.set_xlabel(f"time {label_b} / time {label_a} (log scale):  < 1 {label_b} faster,  > 1 {label_b} slower",
                  fontsize=9)
    ax.annotate(f"← {label_b} faster", (0.0, 1.0), xycoords="axes fraction", xytext=(0, 17),
                textcoords="offset points", ha="left", va="bottom", fontsize=8, color=COLOURS["faster"])
    ax.annotate(f"{label_b} slower →", (1.0, 1.0), xycoords="axes fraction", xytext=(0, 17),
                textcoords="offset points", ha="right", va="bottom", fontsize=8, color="#5a6b85")
    if not rows:
        ax.text(0.5, 0.5, "no kernel was compared", transform=ax.transAxes, ha="center", va="center")


def _differs_patch():
    from matplotlib.patches import Patch

    return Patch(facecolor=COLOURS["differs"], hatch="////", edgecolor="white", linewidth=0)


def _title(verdict: dict) -> str:
    status = verdict.get("exit_status")
    word = {0: "identical", 1: "DIFFERENT", 2: "not verified"}.get(status, "?") if status is not None else "?"
    return f"migrate verify: {word}" + (f" (exit status {status})" if status is not None else "")


def _subtitle(verdict: dict, rows: list[dict], max_slowdown: float | None) -> str:
    label_a, label_b = verdict.get("labels") or ("original", "migrated")
    lines = [_environment(verdict, label_a, label_b)]
    counts = [f"{len(rows)} kernel{'s' if len(rows) != 1 else ''}"]
    differing = sum(r["differs"] for r in rows)
    counts.append(f"{differing} differ{'s' if differing == 1 else ''}")
    if max_slowdown is not None:
        slow = sum(r["ratio"] is not None and r["ratio"] > max_slowdown for r in rows)
        counts.append(f"{slow} slower than {max_slowdown:g}×")
    untimed = sum(r["ratio"] is None for r in rows)
    if untimed:
        counts.append(f"{untimed} without timing")
    spread = [r for r in rows if r["spread"] is not None]
    repeats = [r["repeats"] for r in spread if r["repeats"]]
    if not spread:
        counts.append("no error bars: the verdict holds no per-repeat spread")
    elif repeats and max(repeats) <= 1:
        counts.append("1 timing per launch (--repeat 0): no spread")
    elif repeats:
        counts.append(f"error bars from {min(repeats)}+ timed repeats per launch")
    lines.append(" · ".join(counts))
    if differing:  # among hundreds of rows, say which
        names = [r["name"] for r in rows if r["differs"]]
        listed = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        lines.append(f"differ: {listed if len(listed) <= 150 else listed[:149] + '…'}")
    for problem in (verdict.get("problems") or [])[:1] + (verdict.get("errors") or [])[:1]:
        lines.append(problem if len(problem) <= 130 else problem[:129] + "…")
    return "\n".join(lines)


def _environment(verdict: dict, label_a: str, label_b: str) -> str:
    env = verdict.get("environment") or {}
    a, b = env.get("a") or {}, env.get("b") or {}
    if not a and not b:  # a verdict written before the environment was kept: the note says it
        note = next((n for n in verdict.get("notes", []) if n.startswith(f"{label_a}: Triton")), None)
        return note or "device and Triton versions not recorded"
    device_a, device_b = a.get("device_name") or "?", b.get("device_name") or "?"
    triton_a, triton_b = a.get("triton") or "?", b.get("triton") or "?"
    if device_a == device_b:
        if triton_a == triton_b:
            return f"{device_a} · Triton {triton_a}"
        return f"{device_a} · Triton {triton_a} ({label_a}) vs {triton_b} ({label_b})"
    return f"{label_a}: Triton {triton_a} on {device_a} · {label_b}: Triton {triton_b} on {device_b}"
