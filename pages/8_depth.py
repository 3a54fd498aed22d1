"""Page 8: the sublayer stacked 1 to 24 times, four ways, measured layer by layer (chapter 9)."""

import numpy as np
import streamlit as st

import llm
from llm import depth
from ui.draw.sections import folded, folded_when_presenting, lazy_tabs, show_code
from ui.draw.style import Look
from ui.draw.tables import number_table
from ui.draw.wire import show_figure, show_pieces
from ui.frame.controls import in_link, keep_in_link, start_on
from ui.frame.page import frame
from ui.frame.url_values import Choice, IntRange
from ui.lessons.depth import compute_stacks, depth_figures, number
from ui.text import translator
from ui.text.depth import TEXT
from ui.turn.panel import your_turn

LAYERS_DEFAULT = 12  # the chapter's "stack 12 of them"
VARIANT_DEFAULT = "none"  # the first view shows what goes wrong without the recipe
LAYERS = IntRange("layers", 1, llm.MAX_LAYERS, default=LAYERS_DEFAULT)
# a bad link's message names each variant by its URL id and by the name the page shows it under
VARIANT = Choice("variant", llm.VARIANTS, default=VARIANT_DEFAULT, message=(TEXT, "bad_variant"))
s = frame("page_depth", values=(LAYERS, VARIANT))
t = translator(TEXT, s.lang)
cfg, labels = s.cfg, s.lab.labels


def n(x: float) -> str:
    return number(x, s.lang)


def cosine(x: float) -> str:
    """Four decimals: near 1, the variants differ only there."""
    text = f"{x:.4f}"
    return text.replace(".", ",") if s.lang == "fr" else text


st.title(t("title"), anchor=False)
# presenter mode: what is stacked folds away, so that the first chart starts on a 1280 × 720
# projector's first screen; that the weights are random stays in view
with folded_when_presenting(t("about"), s.present):
    # the introduction and the list of the four wirings: one element
    st.markdown(t("intro") + "\n\n" + "\n".join(f"- {t(v)}" for v in llm.VARIANTS))
    st.caption(t("setup"))
st.info(t("honest"), icon=":material/info:")


def depth_controls() -> tuple[int, str]:
    """The number of layers and the variant shown row by row: (layers, variant)."""
    left, right = st.columns([1, 2])
    start_on(LAYERS, s.value("layers"))
    n_layers = left.slider(
        t("layers"),
        1,
        llm.MAX_LAYERS,
        value=LAYERS_DEFAULT,
        help=t("layers_help"),
        key="layers",
        persist_state="session",  # in the link through in_link: the section reruns alone
    )
    in_link(LAYERS, n_layers)
    # not bound to the URL: its label is translated, the link keeps the variant's id
    # (keep_in_link)
    ss = st.session_state
    if ss.get("variant") not in llm.VARIANTS:  # a visit's first run: the link's value, repaired
        ss["variant"] = s.value("variant")
    variant = right.radio(
        t("variant"),
        llm.VARIANTS,
        format_func=lambda v: t(f"name_{v}"),
        captions=[t(f"cap_{v}") for v in llm.VARIANTS],
        horizontal=True,
        help=t("variant_help"),
        key="variant",
        persist_state="session",
    )
    keep_in_link("variant", variant, VARIANT_DEFAULT)
    return n_layers, variant


def trend(ratio: float) -> str:
    if ratio >= 3.0:
        return t("grows", f=n(ratio))
    return t("shrinks", f=n(1 / ratio)) if ratio <= 1 / 3 else t("steady")


def activation_size(runs: dict, figures: dict, layers_text: str) -> None:
    """1. The activations' size (RMS) layer by layer, and what it does at the top."""
    at_top = {v: run.rms[-1] for v, run in runs.items()}
    show_figure(figures["rms"], key="rms")
    x0 = runs["none"].rms[0]
    rms_read = t("rms_read", x0=n(x0), n_layers=layers_text, **{v: n(r) for v, r in at_top.items()})
    residual = at_top["residual"] / x0
    st.write(
        " ".join(
            [
                rms_read,
                t("rms_none", trend=trend(at_top["none"] / x0)),
                t(
                    "rms_residual" if residual >= 3.0 else "rms_residual_short",
                    trend=trend(residual),
                ),
                t("rms_ln", trend=trend(at_top["pre_ln"] / x0)),
            ]
        )
    )


def alike(runs: dict, figures: dict, layers_text: str) -> dict[str, float]:
    """2. How alike the token rows are, layer by layer: the distance from rank one at the top
    of each variant."""
    similarity = {v: run.similarity for v, run in runs.items()}
    last_c = {v: run.collapse[-1] for v, run in runs.items()}
    st.subheader(t("sim_title"), anchor=False)
    show_figure(figures["similarity_collapse"], key="similarity_collapse")
    if len(labels) == 1:
        st.write(t("sim_one_token"))
        return last_c
    paragraphs = [
        t(
            "sim_read",
            n_layers=layers_text,
            **{v: cosine(c[-1]) for v, c in similarity.items()},
            **{f"c_{v}": n(c) for v, c in last_c.items()},
        ),
        t("sim_why" if similarity["residual"][-1] > 0.9 else "sim_what"),
    ]
    most, least = max(last_c, key=last_c.get), min(last_c, key=last_c.get)
    if last_c[least] > 0.0:
        paragraphs.append(
            t(
                "sim_order",
                most=f"**{t(f'name_{most}')}**",
                least=f"**{t(f'name_{least}')}**",
                c_most=n(last_c[most]),
                c_least=n(last_c[least]),
                ratio=n(last_c[most] / last_c[least]),
            )
        )
    st.markdown("\n\n".join(paragraphs))  # one element: what the chart reads, why, the order
    return last_c


def gradient(runs: dict, figures: dict, last_c: dict[str, float]) -> None:
    """3. The gradient layer by layer: how it vanishes, explodes or holds in each variant."""
    grad = {v: run.grad_norm for v, run in runs.items()}
    show_figure(figures["grad"], key="grad")
    top_grad = runs["none"].grad_norm[-1]
    ratio = {v: g[0] / g[-1] for v, g in grad.items()}
    sentences = [t("grad_read", top=n(top_grad), **{v: n(r) for v, r in ratio.items()})]
    r_none = ratio["none"]
    if r_none < 0.1:
        sentences.append(t("grad_none_vanish", r=n(r_none)))
    elif r_none <= 10.0:
        along = grad["none"] / top_grad
        sentences.append(t("grad_none_not", r=n(r_none), low=n(along.min()), high=n(along.max())))
        if last_c["none"] < 0.01:
            sentences.append(t("grad_none_collapse"))
    else:
        sentences.append(t("grad_none_grows", r=n(r_none)))
    key = "grad_residual_explode" if ratio["residual"] > 10.0 else "grad_residual_tame"
    sentences.append(t(key, r=n(ratio["residual"])))
    tame = all(0.1 <= ratio[v] <= 10.0 for v in ("post_ln", "pre_ln"))
    ln = t(
        "grad_ln" if tame else "grad_ln_off", post_ln=n(ratio["post_ln"]), pre_ln=n(ratio["pre_ln"])
    )
    sentences.append(ln)
    st.write(" ".join(sentences))


MEASURES = ("rms", "similarity", "collapse", "grad_norm")


def numbers(runs: dict) -> None:
    """The charts' numbers as tables, folded: a row a layer, a column a wiring, a tab a measure
    (to 3 significant digits: RMS and gradient span decades)."""
    if (box := folded(t("numbers"), key="depth_numbers", icon=":material/table:")) is None:
        return
    with box:
        names = [t(f"name_{v}") for v in runs]
        tabs = lazy_tabs([t(f"tab_{m}") for m in MEASURES], key="depth_number_tabs")
        for tab, measure in zip(tabs, MEASURES, strict=True):
            if tab is None:
                continue
            m = np.stack([getattr(run, measure) for run in runs.values()], axis=1)
            rows = [f"{t('layer')} {k}" for k in range(m.shape[0])]
            kinds = dict.fromkeys(names, (3, "g"))
            with tab:
                number_table(m, rows, names, lang=s.lang, label=t(f"tab_{measure}"), kinds=kinds)


def token_rows(chosen: object, figures: dict, variant: str, n_layers: int, text: str) -> None:
    """The token rows of the chosen variant at the input and at the top."""
    st.subheader(t("rows_title"), anchor=False)
    st.write(t("rows_intro", layers=n_layers, variant=t(f"name_{variant}")))
    # the two heatmaps side by side, wrapping onto the next row where the column ends
    show_pieces(figures["rows"], key="rows")
    c0, cl = n(chosen.collapse[0]), n(chosen.collapse[n_layers])  # the input, the output
    st.caption(t("rows_read", c0=c0, cl=cl, n_layers=text))


@st.fragment
def stacked() -> None:
    """The layers and the variant and everything they change, a section that reruns alone: the
    three measures layer by layer and the chosen variant's token rows."""
    n_layers, variant = depth_controls()
    setting = {"text": s.text, "d_model": cfg.d_model, "n_heads": cfg.n_heads, "seed": cfg.seed}
    setting |= {"embeddings": cfg.embeddings, "n_layers": n_layers}
    runs = compute_stacks(**setting)
    scale = Look.of(s).scale
    figures = depth_figures(**setting, variant=variant, lang=s.lang, phone=s.phone, scale=scale)
    layers_text = t("one_layer") if n_layers == 1 else t("many_layers", n=n_layers)
    activation_size(runs, figures, layers_text)
    last_c = alike(runs, figures, layers_text)
    gradient(runs, figures, last_c)
    numbers(runs)
    token_rows(runs[variant], figures, variant, n_layers, layers_text)


stacked()

st.subheader(t("training_title"), anchor=False)
st.write(t("training"))

if (box := folded(t("code"), key="depth_code")) is not None:
    with box:
        st.caption(t("engine_note"))
        show_code(depth.layer_forward, depth.layer_backward, depth.attend, depth.attend_backward)

# the cell checks on the page's layers: read when Check is pressed, as the slider reruns alone
your_turn(
    s.lang,
    s.lab,
    "depth",
    s.head,
    s.causal,
    layers=lambda: st.session_state.get("layers", LAYERS_DEFAULT),
)
