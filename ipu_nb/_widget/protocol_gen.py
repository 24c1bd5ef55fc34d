"""Write (or check) every file generated from the widget protocol: ``python -m ipu_nb._widget.protocol_gen``.

From `ipu_nb._widget.protocol`: js/kernel/generated.ts (`protocol_ts`), the message
reference of docs/widget-protocol.md (`protocol_doc`) and the golden messages in
tests/golden/widget/ (`golden`, from a real widget). ``--check`` writes nothing and exits 1
naming the files that differ; the test suite runs the same comparison.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .._terminal import printable
from . import protocol_doc, protocol_ts
from .protocol_ts import COMMAND

__all__ = ["GOLDEN_DIRECTORY", "CheckoutError", "checkout_root", "main", "outputs", "stale"]

#: Where the golden messages live, from the checkout's root.
GOLDEN_DIRECTORY = Path("tests/golden/widget")


class CheckoutError(RuntimeError):
    """Not run from an ipu-nb checkout (the generated files live in the repository, not the package)."""


def checkout_root() -> Path:
    """The checkout holding this package (its js/kernel/ and docs/); `CheckoutError` for an installed package."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "js" / "kernel").is_dir() or not (root / "docs").is_dir():
        raise CheckoutError(f"{printable(str(root))} is not an ipu-nb checkout (no js/kernel/ and docs/)")
    return root


def _doc(current: str | None) -> str:
    if current is None:
        raise CheckoutError("docs/widget-protocol.md is missing")
    return protocol_doc.with_reference(current)


def outputs(root: Path, golden: bool = True) -> dict[Path, str | None]:
    """Every generated file's path (under `root`) and the text it should have (None: it should not exist).

    Golden files (a real widget's answers, about two seconds) only with `golden`; a file in the
    golden directory that is no longer written should be removed.
    """
    wanted: dict[Path, str | None] = {root / "js/kernel/generated.ts": protocol_ts.typescript()}
    page = root / "docs/widget-protocol.md"
    wanted[page] = _doc(page.read_text(encoding="utf-8") if page.exists() else None)
    if golden:
        from .golden import golden_files

        directory = root / GOLDEN_DIRECTORY
        files = {directory / name: text for name, text in golden_files().items()}
        old: dict[Path, str | None] = {p: None for p in directory.glob("*.json") if p not in files}
        wanted.update({**old, **files})
    return wanted


def _changes(wanted: dict[Path, str | None]) -> list[tuple[Path, str | None]]:
    """The files of `wanted` whose current text (None: absent) is not the one wanted."""
    return [(p, t) for p, t in wanted.items() if (p.read_text(encoding="utf-8") if p.exists() else None) != t]


def stale(root: Path, golden: bool = True) -> list[Path]:
    """The generated files under `root` whose text differs from what the generator writes."""
    return [path for path, _ in _changes(outputs(root, golden))]


def main(argv: Sequence[str] | None = None) -> int:
    """Write the generated files (or, with ``--check``, list the stale ones); the exit status."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is stale")
    parser.add_argument("--no-golden", action="store_true", help="leave the golden messages (no widget run)")
    args = parser.parse_args(argv)
    try:
        root = checkout_root()
        wanted = outputs(root, golden=not args.no_golden)
    except (CheckoutError, protocol_ts.ProtocolSourceError) as error:
        print(f"{COMMAND}: {error}", file=sys.stderr)
        return 2
    changed = _changes(wanted)
    for path, text in [] if args.check else changed:
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path, text in changed:
        verb = "stale" if args.check else "removed" if text is None else "written"
        print(f"{verb}: {printable(str(path.relative_to(root)))}")
    if args.check and changed:
        print(f"run `{COMMAND}` to regenerate", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
