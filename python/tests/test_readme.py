"""README.md's Python example, run as written against the installed package (the wheel CI builds),
from the repository root so its relative paths resolve: `python -c '…'` after the venv line."""
from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO


def readme_python_examples() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"^\.venv/bin/python -c '\n(.*?)'$", text, flags=re.S | re.M)


def test_readme_python_example_runs():
    examples = readme_python_examples()
    assert examples, "README.md holds a `.venv/bin/python -c '…'` example"
    for code in examples:
        r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip(), "the example prints its result"
