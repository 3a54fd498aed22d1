"""The depth page's call into llm and its figures: four wirings of one setting, cached on scalars.

Defined in a module, not in the page script, so the caches' wrappers are built once per process
instead of on every rerun. Their arguments are keywords only: Streamlit names a positional
argument by reading the function's signature on every call, a keyword it reads as given.
Like ``ui.lab.compute``'s lab, the stacks and the figures are shared, read-only objects; the
figures are ``kept`` (``ui.draw.wire.keep``): a rerun that shows them again sends the wire form
built on their first send.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import llm
from ui.draw.grids import grid_figures
from ui.draw.labels import feature_labels
from ui.draw.lines import Panel, line_panels
from ui.draw.style import Look
from ui.draw.wire import Spec, keep
from ui.lab.compute import frozen, shared
from ui.text import translator
from ui.text.depth import TEXT

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def number(x: float, lang: str) -> str:
    """A measured number for prose: 3 significant digits, or a power of ten outside 10⁻³ … 10⁴."""
    if x != 0.0 and not 1e-3 <= abs(x) < 1e4:
        mantissa, exponent = f"{x:.1e}".split("e")
        text = f"{mantissa}·10{str(int(exponent)).translate(SUPERSCRIPT)}"
    else:
        text = f"{x:.0f}" if abs(x) >= 1000 else f"{x:.3g}"
    return text.replace(".", ",") if lang == "fr" else text


@shared(32)
def compute_stacks(
    *, text: str, d_model: int, n_heads: int, seed: int, embeddings: str, n_layers: int
) -> dict[str, llm.DepthStack]:
    """The four variants of one setting, computed once and shared read-only between sessions.

    Kept without the layers' weights, which the page never shows: at 24 layers of d_model 64
    they are 3.1 MB a setting, the rest 1.6 MB.
    """
    cfg = llm.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed, embeddings=embeddings)
    runs = llm.depth_stacks(cfg, llm.tokenize(text), n_layers, llm.VARIANTS)
    return frozen({v: dataclasses.replace(run, params=()) for v, run in runs.items()})


@shared(64)
def depth_figures(
    *,
    text: str,
    d_model: int,
    n_heads: int,
    seed: int,
    embeddings: str,
    n_layers: int,
    variant: str,
    lang: str,
    phone: bool,
    scale: float,
) -> dict[str, Spec | tuple[Spec, ...]]:
    """The page's figures for one setting, by key: the RMS, the similarity beside the distance
    from rank one, the gradient (one line per variant, ``variant`` bold), and the token rows of
    ``variant`` entering layer 0 and leaving the stack, under ``rows`` the pieces of
    ``grid_figures`` (read-only, shared)."""
    t = translator(TEXT, lang)
    look = Look(lang=lang, phone=phone, scale=scale)
    setting = {"text": text, "d_model": d_model, "n_heads": n_heads, "seed": seed}
    runs = compute_stacks(**setting, embeddings=embeddings, n_layers=n_layers)
    figures = _layer_charts(runs, n_layers, variant, look, t)
    rows = _token_rows(runs[variant], text, d_model, n_layers, variant, look, t)
    return {key: keep(fig) for key, fig in figures.items()} | {
        "rows": tuple(keep(piece) for piece in rows)
    }


def _layer_charts(
    runs: dict[str, llm.DepthStack],
    n_layers: int,
    variant: str,
    look: Look,
    t: Callable[..., str],
) -> dict[str, Spec]:
    """The quantities over the layers, one line per variant, named as the reader reads it
    ("sans résidu" in French), ``variant`` bold; on a phone, one plot under the other."""

    def chart(*panels: Panel) -> Spec:
        """The panels over the layers 0 to ``n_layers``, a dot at each."""
        return line_panels(
            range(n_layers + 1),
            panels,
            x_title=t("layer"),
            phone=look.phone,
            height=340,
            bold=t(f"name_{variant}"),
            markers=True,
            look=look,
        )

    def quantity(name: str) -> dict:
        """One of the stacks' measures, by variant."""
        return {t(f"name_{v}"): getattr(run, name) for v, run in runs.items()}

    return {
        "rms": chart(Panel(t("rms_title"), t("rms_y"), quantity("rms"), log=None)),
        "similarity_collapse": chart(
            Panel(t("sim_left"), t("sim_y"), quantity("similarity"), from_zero=False),
            Panel(t("sim_right"), t("collapse_y"), quantity("collapse"), log=True),
        ),
        "grad": chart(Panel(t("grad_title"), t("grad_y"), quantity("grad_norm"), log=None)),
    }


def _token_rows(
    chosen: llm.DepthStack,
    text: str,
    d_model: int,
    n_layers: int,
    variant: str,
    look: Look,
    t: Callable[..., str],
) -> list[Spec]:
    """The token rows entering layer 0 and leaving the stack, each over its RMS, in pieces that
    wrap (``ui.draw.grids.grid_figures``): side by side in a wide column, one under the other
    in a 150 % zoom's, where one figure was cut at its edge."""
    layers_text = t("one_layer") if n_layers == 1 else t("many_layers", n=n_layers)
    rms_in, rms_out = number(chosen.rms[0], look.lang), number(chosen.rms[n_layers], look.lang)
    return grid_figures(
        [chosen.x[0] / chosen.rms[0], chosen.x[n_layers] / chosen.rms[n_layers]],
        llm.token_labels(llm.tokenize(text)),
        [feature_labels(d_model)] * 2,
        [
            t("rows_in", rms=rms_in),
            t("rows_out", n_layers=layers_text, variant=t(f"name_{variant}"), rms=rms_out),
        ],
        look=look,
        signed=True,
        x_title=t("feature"),
        y_title=t("token"),
        per_row=2,
    )
