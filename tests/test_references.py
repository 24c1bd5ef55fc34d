"""Every reference in the code and docs leads somewhere: reference-page anchors, module names, file paths.

Docstrings, comments, messages, the README, the notebooks, the front end and the docs cite the
reference pages as ``docs/reference/<page>.md#<anchor>`` (the pages link each other as
``<page>.md#<anchor>``); each page must exist and each anchor must be the slug of one of its
headings under both GitHub's and MkDocs' rules, so the link works wherever the docs are read.
The team's private notes (``SPEC``, ``DESIGN.md``, ``PROFILES.md``) are not in the repository
and must not be cited. Dotted ``ipu_nb.…`` names and ``ipu_nb/….py`` paths must still exist
after modules move.
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "docs" / "reference"

#: Where references are written: the package, the README, notebooks, docs and the front end, and
#: the tests, benchmarks, scripts, schema and build files that cite the same pages.
SOURCES = (
    "ipu_nb",
    "README.md",
    "notebooks",
    "docs",
    "js",
    "tests",
    "benchmarks",
    "scripts",
    "schema",
    ".ci",
    "hatch_build.py",
    "pyproject.toml",
)
#: Text files by suffix ("" for shell scripts such as scripts/test); golden outputs (.txt) cite nothing.
SUFFIXES = {".py", ".md", ".ipynb", ".ts", ".capnp", ".c", ".css", ".sh", ".toml", ""}
#: Built or installed, not written: the bundled front end, caches.
SKIPPED_DIRECTORIES = {"static", "node_modules", "__pycache__", ".hypothesis"}

CITATION = re.compile(r"docs/reference/([\w.-]+?)\.md(?:#([\w-]+))?")
#: A Markdown link from one reference page to another page or to a heading of its own.
PAGE_LINK = re.compile(r"\]\((?:\./)?([\w-]+\.md)?(?:#([\w-]+))?\)")
#: The private notes' names; ``\bSPEC\b`` leaves identifiers such as ``_SPEC_NAMES`` alone.
PRIVATE_NOTES = re.compile(r"\bSPEC\b|DESIGN\.md|PROFILES\.md|§")
MODULE_NAME = re.compile(r"\bipu_nb(?:\.[A-Za-z_]\w*)+")
MODULE_PATH = re.compile(r"\bipu_nb/[\w/]*\w\.py\b")


def _files() -> Iterator[Path]:
    this = Path(__file__).resolve()
    for name in SOURCES:
        top = ROOT / name
        found = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in found:
            skipped = SKIPPED_DIRECTORIES.intersection(path.relative_to(ROOT).parts)
            if path.is_file() and path.suffix in SUFFIXES and path != this and not skipped:
                yield path


@cache
def _lines() -> tuple[tuple[str, int, str], ...]:
    """Every line of every source, as (path relative to the root, line number, text)."""
    return tuple(
        (path.relative_to(ROOT).as_posix(), number, text)
        for path in _files()
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
    )


def _headings(page: Path) -> list[str]:
    """The text of the page's ATX headings, outside fenced code, with inline markup removed."""
    headings, fence = [], ""
    for line in page.read_text(encoding="utf-8").splitlines():
        marker = re.match(r"\s*(```|~~~)", line)
        if marker:
            fence = "" if fence and marker.group(1) == fence else fence or marker.group(1)
            continue
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match and not fence:
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1))  # a link shows its text
            headings.append(text.replace("`", "").replace("*", ""))
    return headings


def github_slug(text: str) -> str:
    """GitHub's heading anchor: lowercase, punctuation dropped (word characters, '-' and spaces kept), spaces → '-'."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def mkdocs_slug(text: str) -> str:
    """Python-Markdown's (MkDocs') ``toc`` slug: ASCII only, punctuation dropped, runs of spaces and '-' → '-'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_text).strip().lower())


def _unique(slugs: list[str], separator: str) -> set[str]:
    """Both renderers number repeated headings: GitHub ``x-1``, MkDocs ``x_1``."""
    seen: dict[str, int] = {}
    out = set()
    for slug in slugs:
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}{separator}{count}")
    return out


@cache
def anchors(page: str) -> frozenset[str]:
    """The anchors of ``docs/reference/<page>`` that GitHub and MkDocs both generate."""
    headings = _headings(REFERENCE / page)
    return frozenset(
        _unique([github_slug(h) for h in headings], "-") & _unique([mkdocs_slug(h) for h in headings], "_")
    )


def _citations() -> list[tuple[str, str, str | None]]:
    """(where, page, anchor) for every ``docs/reference/…`` citation and every link between reference pages."""
    found = []
    for where, number, text in _lines():
        for match in CITATION.finditer(text):
            found.append((f"{where}:{number}", f"{match.group(1)}.md", match.group(2)))
        if where.startswith("docs/reference/"):
            for match in PAGE_LINK.finditer(text):
                page, anchor = match.group(1) or Path(where).name, match.group(2)
                if match.group(1) or anchor:
                    found.append((f"{where}:{number}", page, anchor))
    return found


def test_the_slug_rules_follow_github_and_mkdocs() -> None:
    for heading, slug in [
        ("Tiles and the C600 layout", "tiles-and-the-c600-layout"),
        ("profile-query and profile-inspect", "profile-query-and-profile-inspect"),
        ("What-if model", "what-if-model"),
        ("Comparing two profiles: compare and profile-diff", "comparing-two-profiles-compare-and-profile-diff"),
    ]:
        assert github_slug(heading) == mkdocs_slug(heading) == slug
    # Where the two rules part: non-ASCII letters, and runs of spaces or hyphens.
    assert (github_slug("Ä b"), mkdocs_slug("Ä b")) == ("ä-b", "a-b")
    assert (github_slug("a -- b"), mkdocs_slug("a -- b")) == ("a----b", "a-b")


def test_headings_in_code_fences_are_not_anchors(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n```python\n# a comment\n```\n\n## The `window` message ##\n", encoding="utf-8")
    assert _headings(page) == ["Title", "The window message"]


def test_the_reference_is_cited_at_all() -> None:
    """The scan finds the citations where they are written (so the checks below are not vacuous)."""
    citations = _citations()
    assert len(citations) > 100
    assert {"ipu_nb", "js", "docs", "README.md"} <= {where.split(":")[0].split("/")[0] for where, _, _ in citations}


def test_every_cited_page_and_anchor_exists() -> None:
    broken = []
    for where, page, anchor in _citations():
        if not (REFERENCE / page).is_file():
            broken.append(f"{where}: docs/reference/{page} does not exist")
        elif anchor is not None and anchor not in anchors(page):
            broken.append(f"{where}: docs/reference/{page} has no heading with anchor #{anchor}")
    assert not broken, "\n".join(broken)


def test_the_private_notes_are_not_cited() -> None:
    cited = [f"{where}:{number}: {text.strip()}" for where, number, text in _lines() if PRIVATE_NOTES.search(text)]
    assert not cited, "cite docs/reference/ instead:\n" + "\n".join(cited)


def _resolves(name: str) -> bool:
    """Whether ``ipu_nb.a.b.c`` names a module, or an attribute reached from the longest importable prefix."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for attribute in parts[end:]:
            if not hasattr(value, attribute):
                return False
            value = getattr(value, attribute)
        return True
    return False


def test_cited_module_names_and_paths_exist() -> None:
    names: dict[str, str] = {}
    for where, number, text in _lines():
        for match in MODULE_NAME.finditer(text):
            names.setdefault(match.group(0), f"{where}:{number}")
    paths = {
        match.group(0): f"{where}:{number}" for where, number, text in _lines() for match in MODULE_PATH.finditer(text)
    }
    assert len(names) > 20 and len(paths) > 3
    stale = [f"{where}: {name}" for name, where in sorted(names.items()) if not _resolves(name)]
    stale += [f"{where}: {path}" for path, where in sorted(paths.items()) if not (ROOT / path).is_file()]
    assert not stale, "references to modules that moved or went away:\n" + "\n".join(stale)


@pytest.mark.parametrize("page", sorted(p.name for p in REFERENCE.glob("*.md")))
def test_every_heading_has_one_anchor_on_github_and_mkdocs(page: str) -> None:
    """No heading whose anchor depends on the renderer (its slug differs, or it repeats another's)."""
    headings = _headings(REFERENCE / page)
    slugs = [github_slug(h) for h in headings]
    assert headings
    ambiguous = [h for h, slug in zip(headings, slugs, strict=True) if slug != mkdocs_slug(h) or slugs.count(slug) > 1]
    assert not ambiguous
    assert len(anchors(page)) == len(headings)
