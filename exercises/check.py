"""The one entry point: the verdict on a learner's code for one cell, on the page's setting.

The code runs in the ``sandbox`` (a small checked language, in a child process with resource
limits); the cell builds the cases and the judge compares the results.
"""

from __future__ import annotations

from collections.abc import Hashable

import sandbox
from exercises.cells import BY_ID
from exercises.current import Current
from exercises.judge import Verdict, error_verdict, judge


def check(
    cell_id: str,
    code: str,
    current: Current,
    *,
    isolate: bool = True,
    owner: Hashable | None = None,
) -> Verdict:
    """The verdict on ``code`` for one cell: the current setting, then the hidden cases.

    ``isolate=False`` runs the checked code in this process (the tests' fast path); the app
    always runs it in a child process. ``owner`` (a browser session) lets the checker's queue
    serve first the sessions that used it least lately.
    """
    cell = BY_ID[cell_id]
    cases = cell.cases(current)
    try:
        outcomes = sandbox.run_cases(
            code,
            cell.function,
            [case.plain_args() for case in cases],
            cell.helpers,
            isolate=isolate,
            owner=owner,
        )
    except sandbox.SandboxError as err:
        return error_verdict(err.code, err.params, len(cases))
    return judge(cell, cases, outcomes)
