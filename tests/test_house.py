"""The house's size rules, measured by ``scripts/longest.py``: no function of the app over 60
lines, no module over 400; and the measurement itself, on sources whose lengths are known."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest

from scripts.longest import APP_CODE, ROOT, function_lengths, main, measure, over
from ui.draw import grids

LIMIT_MODULE, LIMIT_FUNCTION = 400, 60

# a decorated function of 61 lines (its def and 60 statements), a method with a nested
# function, a function inside an if, and a short one
SOURCE = (
    textwrap.dedent(
        """\
        import functools


        def short():
            return 1


        @functools.cache
        def long_one():
        """
    )
    + "    x = 1\n" * 60
    + textwrap.dedent(
        """\


        class Box:
            def method(self):
                def inner():
                    return 2

                return inner()


        if True:

            def hidden():
                pass
        """
    )
)


@pytest.mark.parametrize("area", APP_CODE)
def test_no_function_or_module_of_the_app_is_over_its_limit(area: str) -> None:
    if not (ROOT / area).exists():
        pytest.skip(f"{area} is not in this tree")
    modules, functions = measure([area])
    assert modules and all(m.name == area or m.name.startswith(f"{area}/") for m in modules)
    long_modules = [f"{m.name}: {m.lines} lines" for m in over(modules, LIMIT_MODULE)]
    long_functions = [f"{f.name}: {f.lines} lines" for f in over(functions, LIMIT_FUNCTION)]
    assert long_modules == []
    assert long_functions == []


def test_a_function_runs_from_its_def_line_to_its_last_line() -> None:
    lengths = {f.name: (f.line, f.lines) for f in function_lengths(SOURCE)}
    assert lengths == {
        "<source>:short": (4, 2),
        "<source>:long_one": (9, 61),  # the decorator on line 8 is not counted
        "<source>:Box.method": (73, 5),
        "<source>:Box.method.inner": (74, 2),
        "<source>:hidden": (82, 2),
    }
    assert [f.name for f in over(function_lengths(SOURCE), 60)] == ["<source>:long_one"]
    assert over(function_lengths(SOURCE), 61) == []


def test_lengths_agree_with_the_source_python_gives_for_each_function() -> None:
    # grids' functions are not decorated: inspect's lines are the def line to the last line
    measured = {f.name: f.lines for f in measure(["ui/draw/grids.py"])[1]}
    own = [
        f for f in vars(grids).values() if inspect.isfunction(f) and f.__module__ == grids.__name__
    ]
    assert len(own) >= 10
    for f in own:
        assert measured[f"ui/draw/grids.py:{f.__name__}"] == len(inspect.getsourcelines(f)[0])


def test_the_script_lists_the_longest_first_and_fails_over_a_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "mod.py").write_text(SOURCE)
    (package / "small.py").write_text("def f():\n    return 0\n")
    assert main([str(package)]) == 1
    out = capsys.readouterr().out.splitlines()
    functions = out[out.index("longest functions (limit 60 lines):") + 1 :]
    assert functions[0] == f"     61  {package / 'mod.py'}:long_one (line 9)  OVER"
    assert functions[1].split()[0] == "5"  # then Box.method
    assert out[-1] == "1 over the limits"
    assert main([str(package), "--limit-function", "61"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "nothing over the limits"
    lines = SOURCE.count("\n")
    assert main([str(package), "--limit-module", str(lines - 1), "--limit-function", "99"]) == 1
    assert f"{lines:7d}  {package / 'mod.py'}  OVER" in capsys.readouterr().out.splitlines()


def test_a_source_that_does_not_parse_is_named_not_a_stack_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n")
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cannot read {tmp_path / 'broken.py'}, line 1:")
