"""Replay real, public agent sessions against this workspace and print the replay harness's
tables and its verdict on the real-sessions aims.

The harness (``replay.py`` and ``judge.py``, with its ``data/sessions.json``) lives beside this
repository, in ``../shared/replay`` by default; ``--replay-dir`` or ``CTX_TREE_REPLAY_DIR``
points elsewhere. It maps each recorded native call (``cat``, ``sed -n``, ``grep``, a run,
Claude Code's ``Read``) onto the equivalent ``ctx-tree`` call of this checkout's ``.venv`` and
counts both sides in ``cl100k_base`` (``bpe-openai``, offline; else it counts ``chars / 4`` and
says so in ``results-b<budget>.meta.json``). Steps: ``extract`` (transcripts out of the git
mirrors into ``--cache``), ``run``, ``report`` (markdown tables), ``judge``.

Needs: git mirrors of the repositories its manifest names (``--mirrors``, bare git directories
``<owner>+<name>/repo``), and a Python with ``bpe-openai`` for the harness (``--python``; the
default is this interpreter, which has it as a dev dependency). About 6 minutes on 2 cores for
the 12 public sessions; ``--only REGEX`` limits it to some sessions.

``--mapping`` picks how native calls become ctx-tree calls: ``literal`` (the default, the
harness's own ``CtxTree.equivalent``), ``faithful`` (``bench/replay_faithful.py``: the same
harness, plus the native arguments it parses and drops: ``--no-numbers`` for ``cat``/``sed -n``
reads and greps without ``-n``, ``--head-limit`` for ``| head -n N``, ``-A``/``-B`` as
themselves) or ``both``. Faithful results go to ``<out>/faithful``.

Run: ``uv run python bench/replay.py --mirrors DIR [--budget 2000 --budget 1000] [--only RE]
[--mapping literal|faithful|both]`` or ``uv run nox -s replay -- --mirrors DIR``. See
docs/benchmarks.md ("Real agent sessions") for the method's limits.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def replay_dir(given: str | None) -> Path:
    """The harness folder: ``given``, else ``CTX_TREE_REPLAY_DIR``, else ``../shared/replay``."""
    path = Path(given or os.environ.get("CTX_TREE_REPLAY_DIR") or ROOT.parent / "shared" / "replay")
    if not (path / "replay.py").is_file():
        sys.exit(
            f"no replay harness at {path} (replay.py missing): pass --replay-dir or set "
            "CTX_TREE_REPLAY_DIR"
        )
    return path.resolve()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replay-dir", help="the harness folder (default ../shared/replay)")
    parser.add_argument("--mirrors", default=os.environ.get("REPLAY_MIRRORS"), required=False,
                        help="folder of bare git mirrors, <owner>+<name>/repo")  # fmt: skip
    parser.add_argument("--cache", default=os.environ.get("REPLAY_CACHE"),
                        help="extracted sessions (default <out>/cache)")  # fmt: skip
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "replay"))
    parser.add_argument("--budget", type=int, action="append", help="repeatable (default 2000)")
    parser.add_argument("--only", help="regex over session ids")
    parser.add_argument("--python", default=sys.executable, help="interpreter for the harness")
    parser.add_argument("--keep-answers", action="store_true")
    parser.add_argument("--work", help="checkouts and stores (default: a new temporary folder)")
    parser.add_argument("--mapping", choices=("literal", "faithful", "both"), default="literal",
                        help="native call -> ctx-tree call (default literal)")  # fmt: skip
    args = parser.parse_args()
    if not args.mirrors:
        sys.exit("--mirrors is required (or REPLAY_MIRRORS): bare git mirrors of the sessions")
    harness = replay_dir(args.replay_dir)
    out = Path(args.out).resolve()
    cache = Path(args.cache).resolve() if args.cache else out / "cache"
    out.mkdir(parents=True, exist_ok=True)
    # the harness's default work folder is one per machine: two replays at once would clobber
    work = Path(args.work).resolve() if args.work else Path(tempfile.mkdtemp(prefix="replay-"))
    common = ["--mirrors", str(Path(args.mirrors).resolve()), "--cache", str(cache)]
    if args.only:
        common += ["--only", args.only]

    def step(*argv: str, mapping: str = "literal") -> None:
        start = time.monotonic()
        print(f"$ replay.py {' '.join(argv)}  [{mapping}]", file=sys.stderr, flush=True)
        script = [str(harness / "replay.py")]
        if mapping == "faithful":  # the harness imported, its mapping wrapped, not edited
            script = [str(ROOT / "bench" / "replay_faithful.py"), str(harness)]
        subprocess.run([args.python, *script, *argv], check=True, cwd=harness)
        print(f"  ({time.monotonic() - start:.0f} s)", file=sys.stderr, flush=True)

    step("extract", *common)
    verdicts = []
    mappings = ["literal", "faithful"] if args.mapping == "both" else [args.mapping]
    for mapping, budget in ((m, b) for b in args.budget or [2000] for m in mappings):
        where = out / "faithful" if mapping == "faithful" else out
        extra = ["--keep-answers"] if args.keep_answers else []
        step("run", *common, "--ctx-tree", str(ROOT), "--out", str(where), "--budget",
             str(budget), "--work", str(work), *extra, mapping=mapping)  # fmt: skip
        step("report", *common, "--out", str(where), "--budget", str(budget))
        results = where / f"results-b{budget}.jsonl"
        judged = subprocess.run(
            [
                args.python,
                str(harness / "judge.py"),
                str(results),
                "--budget",
                str(budget),
                "--label",
                f"b{budget}" if mapping == "literal" else f"{mapping}-b{budget}",
            ],
            capture_output=True,
            text=True,
            cwd=harness,
        )
        print(judged.stdout, end="")
        verdicts.append(judged.stdout.strip().splitlines()[-1] if judged.stdout.strip() else "")
    print("\n".join(verdicts))


if __name__ == "__main__":
    main()
