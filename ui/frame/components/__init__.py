"""Front-end components the app ships with its own files (no CDN): the browser's local store,
the page's language and title on the document, and the polite live region."""

from __future__ import annotations

import json
from typing import Any


def flat(value: dict[str, Any]) -> str:
    """A component's nested value as JSON text, which its JavaScript parses. Streamlit looks at
    every dict or list in a component's data for a dataframe, which imports pandas (about 40 MB a
    process) for a check the app never needs; text passes as it is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
