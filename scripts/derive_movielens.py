"""Regenerate privtools/data/movielens100k_top_counts.csv from the recbole 1.2.1 wheel and
check it equals the shipped table.

    python scripts/derive_movielens.py [--wheel PATH] [--cache DIR] [--write]

Without ``--wheel`` the wheel is looked up in the cache directory (default
``~/.cache/privtools``) and, if absent, fetched with ``pip download --no-deps
recbole==1.2.1``. The ratings file inside it is checked against the recorded sha256 before
use. Exit status 0 when the derived table equals the shipped one, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

from privtools.bandits.envs.movielens import (
    INTER_MEMBER,
    INTER_SHA256,
    MAX_K,
    TABLE_FILE,
    derive_top_counts,
    format_table,
    table_text,
)

WHEEL_NAME = "recbole-1.2.1-py3-none-any.whl"
SHIPPED = Path(__file__).resolve().parents[1] / "privtools" / "data" / TABLE_FILE


def find_wheel(cache: Path) -> Path:
    wheel = cache / WHEEL_NAME
    if wheel.exists():
        return wheel
    cache.mkdir(parents=True, exist_ok=True)
    print(f"downloading {WHEEL_NAME} (about 2 MB) with pip into {cache} ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "recbole==1.2.1",
                    "-d", str(cache)], check=True)
    if not wheel.exists():
        raise SystemExit(f"pip did not produce {wheel}")
    return wheel


def read_inter(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as z:
        data = z.read(INTER_MEMBER)
    digest = hashlib.sha256(data).hexdigest()
    if digest != INTER_SHA256:
        raise SystemExit(f"{INTER_MEMBER} has sha256 {digest}, expected {INTER_SHA256}")
    return data.decode("utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", type=Path, help=f"path to {WHEEL_NAME}")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "privtools")
    ap.add_argument("--write", action="store_true", help="overwrite the shipped table")
    args = ap.parse_args(argv)

    wheel = args.wheel or find_wheel(args.cache)
    derived = format_table(derive_top_counts(read_inter(wheel), MAX_K))
    if args.write:
        SHIPPED.write_text(derived, encoding="utf-8")
        print(f"wrote {SHIPPED}")
    same = derived == table_text()
    print(f"ratings file sha256 {INTER_SHA256} (checked)")
    print("derived table equals the shipped one" if same else
          "derived table DIFFERS from the shipped one")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
